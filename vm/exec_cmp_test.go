package vm

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompareLanesMatchesCmpInt checks the mask form of integer setp
// (intOrder) against cmpInt, the per-lane definition, for every
// comparison and integer type, with full and partial warps.
func TestCompareLanesMatchesCmpInt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []uint64{0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
		1 << 63, 1<<63 - 1, ^uint64(0), 0xffffffff00000000, 0x100000000}
	val := func() uint64 {
		if rng.IntN(2) == 0 {
			return edges[rng.IntN(len(edges))]
		}
		return rng.Uint64()
	}
	types := []Type{U8, S8, U16, S16, U32, S32, B32, U64, S64, B64}
	for _, typ := range types {
		for c := CmpEq; c <= CmpHs; c++ {
			for _, exec := range []uint32{^uint32(0), 0x0000ffff, 0x80000001, 0} {
				f := &frame{regs: make([][32]uint64, 2), slot: []int32{0, 1}}
				a, b := f.r(0), f.r(32)
				for l := range 32 {
					a[l], b[l] = val(), val()
					if l%5 == 0 {
						b[l] = a[l] // equal, and equal in the low bits
					}
				}
				in := &Inst{Cmp: c, A: 0, B: 32}
				var want uint32
				for l := range 32 {
					if exec>>l&1 != 0 && cmpInt(c, a[l], b[l], typ.Bits(), typ.Signed()) {
						want |= 1 << l
					}
				}
				require.Equal(t, want, compareLanes(in, f, exec, typ, 0), "%v cmp %d exec %#x", typ, c, exec)
			}
		}
	}
}
