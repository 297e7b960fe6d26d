package warpsimd

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCmp32MatchesLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	edges := []uint32{0, 1, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff, 0xfffffffe}
	pick := func() uint64 {
		v := r.Uint32()
		switch r.IntN(3) {
		case 0:
			v = edges[r.IntN(len(edges))]
		case 1:
			v = uint32(r.IntN(8))
		}
		return uint64(v) | uint64(r.Uint32())<<32*uint64(r.IntN(2)) // high halves ignored
	}
	var a, b [32]uint64
	for range 100000 {
		for l := range 32 {
			a[l], b[l] = pick(), pick()
			if r.IntN(4) == 0 {
				b[l] = a[l]
			}
		}
		for _, signed := range []bool{false, true} {
			lt, eq := Cmp32(&a, &b, signed)
			wlt, weq := cmp32Go(&a, &b, signed)
			same(t, [2]uint32{wlt, weq}, [2]uint32{lt, eq}, "signed %v, a %x, b %x", signed, a, b)
		}
	}
	// The Go loop against plain integer comparisons.
	for l := range 32 {
		a[l], b[l] = uint64(l), uint64(31-l)|0xffffffff00000000
	}
	lt, eq := cmp32Go(&a, &b, false)
	require.Equal(t, uint32(0x0000ffff), lt)
	require.Equal(t, uint32(0), eq)
	a[0], b[0] = 0xffffffff, 1 // -1 < 1 signed, not unsigned
	lt, _ = cmp32Go(&a, &b, true)
	require.Equal(t, uint32(1), lt&1)
	lt, _ = cmp32Go(&a, &b, false)
	require.Equal(t, uint32(0), lt&1)
}

func BenchmarkCmp32(b *testing.B) {
	var x, y [32]uint64
	for l := range 32 {
		x[l], y[l] = uint64(l*7), uint64(100-l)
	}
	b.Run("warp", func(b *testing.B) {
		for b.Loop() {
			Cmp32(&x, &y, false)
		}
	})
	b.Run("lanes", func(b *testing.B) {
		for b.Loop() {
			cmp32Go(&x, &y, false)
		}
	})
}
