package hier

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestXorSpan checks both forms of xorSpan (the AVX2 one where the host
// has it) against a plain loop, on addresses that differ from lane 0's in
// one lane only (each lane and each bit in turn) and on random ones.
func TestXorSpan(t *testing.T) {
	plain := func(x *[32]uint64) uint64 {
		var d uint64
		for _, a := range x {
			d |= a ^ x[0]
		}
		return d
	}
	check := func(x *[32]uint64) {
		t.Helper()
		want := plain(x)
		require.Equal(t, want, xorSpanGo(x), "%#x", *x)
		require.Equal(t, want, xorSpan(x), "%#x", *x)
	}
	var x [32]uint64
	for l := range x {
		for bit := range 64 {
			for i := range x {
				x[i] = 0x7000_1234_5678_9ab0
			}
			x[l] ^= 1 << bit
			check(&x)
		}
	}
	rng := uint64(0x9e3779b97f4a7c15)
	for range 5000 {
		base := rng
		for l := range x {
			rng ^= rng << 13
			rng ^= rng >> 7
			rng ^= rng << 17
			x[l] = base ^ rng&(1<<(rng>>58)-1)
		}
		check(&x)
	}
}
