package warpsimd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// special holds f32 operands where fused arithmetic goes wrong if it goes
// wrong anywhere: zeros, subnormals, the normal/subnormal boundary,
// near-overflow values, infinities and NaNs with payloads.
var special = []uint32{
	0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000,
	0x3f800000, 0xbf800000, 0x3f800001, 0x3f7fffff, 0x33800000, 0x34000000, 0xb3800000,
	0x7f7fffff, 0xff7fffff, 0x7f000000, 0x7f800000, 0xff800000,
	0x7fc00000, 0xffc00000, 0x7f800001, 0x7fa00000, 0x00400000, 0x1f800000, 0x5f800000,
}

// fill gives lanes from special and random bit patterns; with near, c is
// close to -a*b so that the sum cancels (subnormal and zero results,
// halfway cases of the double-rounded form).
func fill(r *rand.Rand, a, b, c *[32]uint64, near bool) {
	pick := func() uint32 {
		switch r.IntN(4) {
		case 0:
			return special[r.IntN(len(special))]
		case 1:
			// a small exponent range, so that products and sums meet
			return uint32(r.IntN(2))<<31 | uint32(110+r.IntN(40))<<23 | r.Uint32()&0x7fffff
		default:
			return r.Uint32()
		}
	}
	for l := range 32 {
		x, y := pick(), pick()
		z := pick()
		if near {
			p := -float64(math.Float32frombits(x)) * float64(math.Float32frombits(y))
			z = math.Float32bits(float32(p)) ^ uint32(r.IntN(4))
		}
		a[l], b[l], c[l] = uint64(x), uint64(y), uint64(z)
	}
}

func TestFmaRN32MatchesFpu(t *testing.T) {
	if !hasFMA {
		t.Log("no AVX2/FMA on this host: only the Go loop is checked")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var a, b, c, d, g [32]uint64
	for it := range 200000 {
		fill(r, &a, &b, &c, it%3 == 0)
		FmaRN32(&d, &a, &b, &c)
		for l := range 32 {
			want := uint64(fpu.Fma32(uint32(a[l]), uint32(b[l]), uint32(c[l]), fpu.RN, false, false))
			if d[l] != want {
				require.Failf(t, "fma.rn.f32 differs", "a=%#08x b=%#08x c=%#08x: got %#x, want %#x",
					a[l], b[l], c[l], d[l], want)
			}
		}
		fmaRN32Go(&g, &a, &b, &c)
		same(t, d, g)
	}
}

// TestFmaRN32Aliasing: the destination may be any of the sources, as in
// fma d, d, d, d.
func TestFmaRN32Aliasing(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var a, b, c [32]uint64
	fill(r, &a, &b, &c, false)
	for which := range 3 {
		x, y, z := a, b, c
		var want [32]uint64
		fmaRN32Go(&want, &x, &y, &z)
		dst := []*[32]uint64{&x, &y, &z}[which]
		FmaRN32(dst, &x, &y, &z)
		require.Equal(t, want, *dst, "destination is source %d", which)
	}
}

func BenchmarkFmaRN32(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	var x, y, z, d [32]uint64
	fill(r, &x, &y, &z, false)
	b.Run("warp", func(b *testing.B) {
		for b.Loop() {
			FmaRN32(&d, &x, &y, &z)
		}
	})
	b.Run("lanes", func(b *testing.B) {
		for b.Loop() {
			fmaRN32Go(&d, &x, &y, &z)
		}
	})
}
