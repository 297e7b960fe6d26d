package warpsimd

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIntFormsMatchGo holds each integer form to its plain Go loop, for
// random operands with random high halves, every type mask, and d aliasing
// a or b (AddKQ's constant is b[7]).
func TestIntFormsMatchGo(t *testing.T) {
	forms := []struct {
		name      string
		simd, go_ func(d, a, b *[32]uint64, m uint64)
	}{
		{"add", AddQ, addQGo},
		{"add k", func(d, a, b *[32]uint64, m uint64) { AddKQ(d, a, b[7], m) },
			func(d, a, b *[32]uint64, m uint64) { addKQGo(d, a, b[7], m) }},
		{"sub", SubQ, subQGo}, {"and", AndQ, andQGo}, {"or", OrQ, orQGo}, {"xor", XorQ, xorQGo},
		{"mul.wide.u32", func(d, a, b *[32]uint64, _ uint64) { MulWideU32(d, a, b) }, mulWideU32Go},
		{"mul.wide.s32", func(d, a, b *[32]uint64, _ uint64) { MulWideS32(d, a, b) }, mulWideS32Go},
		{"shl", ShlQ, shlQGo}, {"shr", ShrQ, shrQGo},
	}
	r := rand.New(rand.NewPCG(12, 13))
	masks := []uint64{0xffff, 0xffffffff, ^uint64(0)}
	for _, f := range forms {
		for it := range 3000 {
			var a, b [32]uint64
			for l := range 32 {
				a[l], b[l] = r.Uint64(), r.Uint64()
				if l%5 == 0 {
					a[l] = uint64(int64(int32(r.Uint32()))) // sign-extended
				}
				if l%3 == 0 { // shift counts: under, at and past each width
					b[l] = b[l]&^0xffffffff | uint64(r.IntN(70))
				}
			}
			m := masks[it%3]
			var want, got [32]uint64
			f.go_(&want, &a, &b, m)
			switch it % 3 {
			case 0:
				f.simd(&got, &a, &b, m)
			case 1:
				got = a
				f.simd(&got, &got, &b, m)
			default:
				got = b
				f.simd(&got, &a, &got, m)
			}
			require.Equal(t, want, got, "%s, mask %#x, case %d", f.name, m, it%3)
		}
	}
	// The Go loops against plain arithmetic.
	a, b := [32]uint64{0: 0xffffffff, 1: 3}, [32]uint64{0: 0xffffffff, 1: 0xfffffffe}
	var d [32]uint64
	mulWideS32Go(&d, &a, &b, 0)
	require.Equal(t, uint64(1), d[0])                  // -1 * -1
	require.Equal(t, uint64(0xfffffffffffffffa), d[1]) // 3 * -2
	mulWideU32Go(&d, &a, &b, 0)
	require.Equal(t, uint64(0xfffffffe00000001), d[0])
	addQGo(&d, &a, &b, 0xffffffff)
	require.Equal(t, uint64(0xfffffffe), d[0])
}
