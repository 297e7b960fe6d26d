package vm

import (
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// execMapa maps addresses into the shared memory of the block of rank B
// (memspace.ClusterAddr); a generic address stays generic.
func (w *Warp) execMapa(in *Inst, f *frame, exec uint32) {
	d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
	msk := sizeMask(in.T)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		r := uint32(b[l])
		if in.Space == memspace.Generic {
			d[l] = (memspace.SharedWindow + memspace.ClusterAddr(a[l]-memspace.SharedWindow, r)) & msk
		} else {
			d[l] = memspace.ClusterAddr(a[l], r) & msk
		}
	}
}

// execGetctarank writes the rank of the block whose shared memory each
// lane's address is in.
func (w *Warp) execGetctarank(in *Inst, f *frame, exec uint32) {
	d, a := f.r(in.D), f.r(in.A)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		v := a[l]
		if in.Space == memspace.Generic {
			v -= memspace.SharedWindow
		}
		d[l] = uint64(memspace.ClusterRank(v & 0xffffffff))
	}
}

// isOwnShared reports whether shared::cluster address a is in the
// executing block's own shared memory.
func (w *Warp) isOwnShared(a uint64) bool {
	return memspace.ClusterRank(a) == uint32(w.cta.rank)
}
