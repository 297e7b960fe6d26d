package vm

import (
	"encoding/binary"

	"github.com/ptxvm/ptxvm/vm/internal/warpsimd"
)

// ldLdFma runs the FuseLdLdFma superinstruction at code[pc] for a full
// warp: the two shared loads lane by lane, then the fma over the warp. It reports false, having
// written nothing but possibly some lanes of the loads' destinations (which
// the unfused path rewrites: markFused keeps the addresses out of them),
// when an address is misaligned or outside this block's shared memory;
// the instructions then run one by one and fault as they would.
func (w *Warp) ldLdFma(code []Inst, pc int32, f *frame) bool {
	l1, l2, m := &code[pc], &code[pc+1], &code[pc+2]
	sh, sb := w.view.Shared, w.view.SharedBase
	if len(sh) < 4 {
		return false
	}
	last := uint64(len(sh) - 4) // the highest offset a word can start at
	a1, a2 := f.r(l1.A), f.r(l2.A)
	d1, d2 := f.r(l1.V[0]), f.r(l2.V[0])
	o1, o2 := uint32(l1.Off), uint32(l2.Off)
	for l := range 32 {
		p := uint64(uint32(a1[l])+o1) - sb
		q := uint64(uint32(a2[l])+o2) - sb
		if (p|q)&3 != 0 || p > last || q > last {
			return false
		}
		d1[l] = uint64(binary.LittleEndian.Uint32(sh[p : p+4]))
		d2[l] = uint64(binary.LittleEndian.Uint32(sh[q : q+4]))
	}
	warpsimd.FmaRN32(f.r(m.D), f.r(m.A), f.r(m.B), f.r(m.C))
	return true
}
