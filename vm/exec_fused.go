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
