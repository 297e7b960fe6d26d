package vm

import "github.com/ptxvm/ptxvm/vm/internal/warpsimd"

// ldLdFma runs the FuseLdLdFma superinstruction at code[pc] for a full
// warp: the two shared loads, then the fma, each over the warp at once
// (warpsimd). It reports false, having
// written nothing but possibly some lanes of the loads' destinations (which
// the unfused path rewrites: markFused keeps the addresses out of them),
// when an address is misaligned or outside this block's shared memory;
// the instructions then run one by one and fault as they would.
func (w *Warp) ldLdFma(code []Inst, pc int32, f *frame) bool {
	l1, l2, m := &code[pc], &code[pc+1], &code[pc+2]
	sh, sb := w.view.Shared, w.view.SharedBase
	if sb+uint64(len(sh)) > 1<<32 {
		return false // the 32-bit offsets below would not wrap as the addresses do
	}
	// [a+imm] in the shared window, as an offset into sh: uint32(a) + imm -
	// base, modulo 2^32 (below the base it wraps past the end: refused).
	if !warpsimd.LoadWords32(f.r(l1.V[0]), f.r(l1.A), sh, uint32(l1.Off)-uint32(sb)) ||
		!warpsimd.LoadWords32(f.r(l2.V[0]), f.r(l2.A), sh, uint32(l2.Off)-uint32(sb)) {
		return false
	}
	warpsimd.FmaRN32(f.r(m.D), f.r(m.A), f.r(m.B), f.r(m.C))
	return true
}

// ldLdFmaChain runs the FuseLdLdFmaChain steps from code[pc] to the
// chain's end, or as many as fit in left instructions, for a full warp
// (warpsimd.LdLdFmaChain with the frame's plan) and returns how many
// instructions it ran. Where LdLdFmaChain refuses, it runs the steps one
// by one as FuseLdLdFma (ldLdFma) up to the first that refuses. It
// returns 0, having written nothing the unfused path does not rewrite,
// where the frame has no plan for this code at pc, no step fits, a
// waiting lane's pc falls inside the steps, or the first step refuses.
func (w *Warp) ldLdFmaChain(code []Inst, pc int32, f *frame, left int) int32 {
	p := f.chainAt(pc)
	if p == nil || p.code != &code[0] {
		return 0
	}
	s := (pc - p.pc) / 3
	room := min(int32(min(left, int(p.n))), f.nextWait-pc) // instructions that may run
	e := min(p.ch.N, s+room/3)
	if e <= s {
		// One or two: the step's loads, as execMem runs them.
		return w.chainLoads(code, pc, f, room)
	}
	sh, sb := w.view.Shared, w.view.SharedBase
	if sb+uint64(len(sh)) > 1<<32 {
		return 0 // as in ldLdFma
	}
	if warpsimd.LdLdFmaChain(f.regs, &p.ch, sh, uint32(p.off1)-uint32(sb), uint32(p.off2)-uint32(sb), int(s), int(e)) {
		k := 3 * (e - s)
		if e < p.ch.N && room-k < 3 {
			// The turn (or the run of lanes) ends inside the next step:
			// its loads, which would otherwise be dispatched one by one.
			k += w.chainLoads(code, pc+k, f, room-k)
		}
		return k
	}
	// Refused: the same steps one at a time, as far as they go (the
	// chain's checks would refuse the next step too).
	k := int32(0)
	for j := s; j < e && w.ldLdFma(code, pc+k, f); j++ {
		k += 3
	}
	return k
}

// chainLoads runs up to n (fewer than 3) of a chain step's loads from
// code[pc] for a full warp, each as execMem's fast path for a lone
// ld.shared.32 [r+imm] runs it (loadShared32Regs), and returns how many it
// ran: it stops before one that path refuses, which the caller then steps.
func (w *Warp) chainLoads(code []Inst, pc int32, f *frame, n int32) int32 {
	k := int32(0)
	for ; k < min(n, 2) && int(pc+k) < len(code); k++ {
		in := &code[pc+k]
		if in.Op != OpLd || in.Fast != FastLdShared32 || !w.loadShared32Regs(f.r(in.A), uint32(in.Off), f.r(in.V[0])) {
			break
		}
	}
	return k
}

// chainAt returns the frame's chain plan with a step at pc, or nil.
func (f *frame) chainAt(pc int32) *chainPlan {
	c := f.chains
	lo, hi := 0, len(c) // the first plan that starts past pc
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c[m].pc <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return nil
	}
	if p := &c[lo-1]; pc < p.pc+p.n && (pc-p.pc)%3 == 0 {
		return p
	}
	return nil
}
