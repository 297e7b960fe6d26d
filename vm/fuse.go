package vm

import (
	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/internal/warpsimd"
)

// Fuse names a superinstruction: a run of consecutive instructions that the
// functional interpreter executes in one lane loop (one dispatch, one pass
// over the lanes, the registers of a lane read and written in program
// order). Lowering marks where one starts (markFused); the interpreter runs
// it only for a full warp with nothing watching its accesses and no
// reconvergence point inside it, and otherwise steps through the
// instructions as written. What each instruction computes and writes is
// unchanged.
type Fuse uint8

const (
	// FuseNone: no superinstruction starts here.
	FuseNone Fuse = iota
	// FuseLdLdFma: ld.shared.{b,u,f}32 d1, [a1+o1]; ld.shared.{b,u,f}32
	// d2, [a2+o2]; fma.rn.f32 d, x, y, z — the inner loop of a multiply
	// from shared tiles (48 of the tiled matmul's 76 loop instructions).
	// a1 and a2 are neither d1 nor d2, so every address can be checked
	// before a register is written.
	FuseLdLdFma
	// FuseLdLdFmaChain: a step of two or more FuseLdLdFma steps in a row
	// whose fma sums chain (the addend of each is the sum of the one
	// before) and whose loads take their addresses from the same two
	// registers (chainSteps): a shared-tile multiply's unrolled inner loop.
	// Every step is marked. From any of them, the steps up to the chain's
	// end, or as many as the warp's turn has instructions left for, run as
	// one warpsimd.LdLdFmaChain, the sum kept in host registers from step
	// to step and each register slot written once (chainPlan); where they
	// cannot, the step runs as FuseLdLdFma.
	FuseLdLdFmaChain
	// FuseRun: an instruction of a full-warp run (exec_run.go): integer
	// and predicate arithmetic, setp of 32-bit integers, cvta of the
	// global window, fma.rn.f32, 32-bit global loads and shared loads and
	// stores, and branches, executed from the frame's run table (runOp)
	// in one call of Warp.runFast for as long as the forms go on and the
	// warp's branches agree. Marked where at least two such instructions
	// follow one another, a branch ending the count (a run entered there
	// goes on through the branch).
	FuseRun
)

var fuseNames = [...]string{FuseNone: "none", FuseLdLdFma: "ld.shared+ld.shared+fma.rn.f32",
	FuseLdLdFmaChain: "(ld.shared+ld.shared+fma.rn.f32)×n", FuseRun: "run"}

// String names the superinstruction by the instructions it runs.
func (u Fuse) String() string {
	if int(u) < len(fuseNames) {
		return fuseNames[u]
	}
	return "fuse(" + itoa(int(u)) + ")"
}

// Fast names a full-warp fast path a lone instruction may take, decided
// once at lowering (Inst.Fast) instead of at every execution.
type Fast uint8

const (
	// FastNone: none.
	FastNone Fast = iota
	// FastLdShared32: ld.shared.{b,u,f}32 [r+imm], run for a full warp
	// with nothing watching straight from the address register
	// (Warp.loadShared32Regs).
	FastLdShared32
	// FastStShared32: st.shared.{b,u,s,f}32 [r+imm], likewise
	// (Warp.storeShared32Regs).
	FastStShared32
)

var fastNames = [...]string{FastNone: "none", FastLdShared32: "ld.shared.32 [r+imm]", FastStShared32: "st.shared.32 [r+imm]"}

// String names the fast path.
func (f Fast) String() string {
	if int(f) < len(fastNames) {
		return fastNames[f]
	}
	return "fast(" + itoa(int(f)) + ")"
}

// fastForm is the fast path in may take (Inst.Fast).
func fastForm(in *Inst) Fast {
	if in.Space != memspace.Shared || in.Vec != 1 || in.T.Size() != 4 || in.Flags&(FAbsAddr|FLocalRel|FAddr32) != FAddr32 {
		return FastNone
	}
	switch {
	case in.Op == OpLd && !in.T.Signed():
		return FastLdShared32
	case in.Op == OpSt:
		return FastStShared32
	}
	return FastNone
}

// markFused marks the superinstructions of code (Inst.Fuse) and each
// instruction's fast path (Inst.Fast). Branch targets
// need no care: a jump into the middle of one runs the rest unfused, and
// the interpreter checks at run time that no waiting lanes rejoin inside
// it.
func markFused(code []Inst) {
	for pc := range code {
		code[pc].Fast = fastForm(&code[pc])
	}
	for pc := 0; pc+2 < len(code); pc++ {
		if n := chainSteps(code, pc); n >= 2 {
			for j := range n {
				code[pc+3*j].Fuse = FuseLdLdFmaChain
			}
			pc += 3*n - 1
			continue
		}
		if ldLdFma(code, pc) {
			code[pc].Fuse = FuseLdLdFma
			pc += 2
		}
	}
	if noRuns {
		return
	}
	// Runs: from the end, n is how many run forms follow on from pc up to
	// the first branch (included) or other form.
	n := 0
	for pc := len(code) - 1; pc >= 0; pc-- {
		k := runForm(&code[pc])
		switch {
		case k == runNone || code[pc].Fuse != FuseNone && code[pc].Fuse != FuseRun:
			n = 0
		case k == runBra:
			n = 1
		default:
			n++
		}
		if n >= 2 {
			code[pc].Fuse = FuseRun
		}
	}
}

// ldLdFma reports whether code[pc:pc+3] is a FuseLdLdFma.
func ldLdFma(code []Inst, pc int) bool {
	if pc < 0 || pc+2 >= len(code) {
		return false
	}
	a, b, c := &code[pc], &code[pc+1], &code[pc+2]
	return sharedLoad32(a) && sharedLoad32(b) && plainFma32(c) &&
		a.A != a.V[0] && a.A != b.V[0] && b.A != a.V[0] && b.A != b.V[0]
}

// maxChainSpan bounds the distance between a chain's lowest and highest
// load offsets of one address register (a tile's row of 16 floats spans
// 960 bytes).
const maxChainSpan = 1 << 16

// chainSteps returns how many FuseLdLdFma steps from pc on (at most
// warpsimd.MaxChain) form one FuseLdLdFmaChain, computing per virtual
// register what they compute one by one when the sources are read first:
// every step's loads take their addresses from the first step's two
// registers, with offsets that differ from the first step's by a multiple
// of 4, less than maxChainSpan; its fma multiplies its own two loaded
// values (two registers); the first fma adds neither loaded value, every
// later one the sum before, which neither of its loads overwrites; and no
// step writes an address register.
func chainSteps(code []Inst, pc int) int {
	if !ldLdFma(code, pc) {
		return 0
	}
	a1, a2 := code[pc].A, code[pc+1].A
	off1, off2 := code[pc].Off, code[pc+1].Off
	prev := NoReg
	n := 0
	for ; n < warpsimd.MaxChain; n++ {
		q := pc + 3*n
		if !ldLdFma(code, q) {
			break
		}
		l1, l2, m := &code[q], &code[q+1], &code[q+2]
		v1, v2 := l1.V[0], l2.V[0]
		d1, d2 := l1.Off-off1, l2.Off-off2
		if l1.A != a1 || l2.A != a2 || v1 == v2 ||
			d1%4 != 0 || d2%4 != 0 || d1 <= -maxChainSpan || d1 >= maxChainSpan || d2 <= -maxChainSpan || d2 >= maxChainSpan ||
			!(m.A == v1 && m.B == v2 || m.A == v2 && m.B == v1) ||
			m.D == a1 || m.D == a2 {
			break
		}
		if n == 0 {
			if m.C == v1 || m.C == v2 {
				break
			}
		} else if m.C != prev || v1 == prev || v2 == prev {
			break
		}
		prev = m.D
	}
	return n
}

// sharedLoad32 reports whether in is an unguarded ld.shared of one 32-bit
// unsigned or untyped value from [register+offset] in the 32-bit shared
// window: the form memspace.View.LoadShared32Regs loads.
func sharedLoad32(in *Inst) bool {
	return fastForm(in) == FastLdShared32 && in.Guard == NoReg && in.A != NoReg && in.V[0] != NoReg
}

// plainFma32 reports whether in is an unguarded fma.rn.f32 without .ftz or
// .sat: the form fpu.FmaRN32Fast computes.
func plainFma32(in *Inst) bool {
	return in.Op == OpFFma && in.Guard == NoReg && in.T == F32 && in.Flags&(FFtz|FSat) == 0 &&
		in.Rnd == rndN && in.Imm == 0
}

// chainPlan is a FuseLdLdFmaChain for one layout of its function's
// registers: the steps as a warpsimd.Chain over the frame's slots.
type chainPlan struct {
	code       *Inst // &Func.Code[0] of the code it was made for
	pc, n      int32 // where it starts; instructions (3 per step)
	off1, off2 int64 // the loads' lowest offsets: k = uint32(off) - uint32(shared base)
	ch         warpsimd.Chain
}

// chainPlans returns the plans of code's chains in pc order, with the
// slots of slot (a layout's map from register index to slot).
func chainPlans(code []Inst, slot []int32) []chainPlan {
	var plans []chainPlan
	for pc := 0; pc < len(code); pc++ {
		if code[pc].Fuse != FuseLdLdFmaChain {
			continue
		}
		if p, ok := makeChainPlan(code, pc, slot); ok {
			plans = append(plans, p)
			pc += int(p.n) - 1
		}
	}
	return plans
}

func makeChainPlan(code []Inst, pc int, slot []int32) (chainPlan, bool) {
	n := chainSteps(code, pc)
	if n < 2 {
		return chainPlan{}, false
	}
	p := chainPlan{code: &code[0], pc: int32(pc), n: int32(3 * n), off1: code[pc].Off, off2: code[pc+1].Off}
	bad := false
	sl := func(off int32) int32 {
		if off < 0 || int(off>>5) >= len(slot) {
			bad = true
			return 0
		}
		return slot[off>>5]
	}
	for j := range n {
		p.off1, p.off2 = min(p.off1, code[pc+3*j].Off), min(p.off2, code[pc+3*j+1].Off)
	}
	ch := &p.ch
	ch.N = int32(n)
	ch.A1, ch.A2 = sl(code[pc].A), sl(code[pc+1].A)
	for j := range n {
		l1, l2, m := &code[pc+3*j], &code[pc+3*j+1], &code[pc+3*j+2]
		s := &ch.Steps[j]
		s.Delta1, s.Delta2 = uint32(l1.Off-p.off1), uint32(l2.Off-p.off2)
		if m.A != l1.V[0] {
			s.Swap = 1
		}
		s.D1, s.D2, s.D, s.C = sl(l1.V[0]), sl(l2.V[0]), sl(m.D), sl(m.C)
	}
	ch.Link()
	return p, !bad
}
