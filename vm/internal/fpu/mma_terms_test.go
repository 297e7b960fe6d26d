package fpu

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDotF32TermsMatchesDotF32: the decoded-multiplicand sum equals
// DotF32 bit for bit for f16, bf16 and tf32 multiplicands of every kind
// (zeros of both signs, subnormals, normals of spread exponents,
// infinities, NaNs) and f32 accumulators likewise, 16 products.
func TestDotF32TermsMatchesDotF32(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	for _, f := range []MmaIn{MmaF16, MmaBF16, MmaTF32} {
		ft := mmaFmts[f]
		emax := uint32(1)<<ft.eb - 1
		in := func() uint32 {
			s := r.Uint32() & 1
			var e, m uint32
			switch r.IntN(10) {
			case 0: // zero
			case 1: // subnormal
				m = r.Uint32() & (1<<ft.mb - 1)
			case 2: // inf or nan, rarely
				if r.IntN(8) == 0 {
					e, m = emax, r.Uint32()&(1<<ft.mb-1)*uint32(r.IntN(2))
				} else {
					e = 1
				}
			case 3, 4: // narrow exponents: alignment and cancellation
				e, m = emax/2+uint32(r.IntN(3)), r.Uint32()&(1<<ft.mb-1)
			default:
				e, m = 1+uint32(r.IntN(int(emax-1))), r.Uint32()&(1<<ft.mb-1)
			}
			x := s<<(ft.eb+ft.mb) | e<<ft.mb | m
			return x<<ft.sh | r.Uint32()&(1<<ft.sh-1) // tf32's ignored low bits
		}
		for it := range 200000 {
			var a, b [16]uint32
			var ta, tb [16]TcTerm
			for k := range 16 {
				a[k], b[k] = in(), in()
				ta[k], tb[k] = DecodeTc(f, a[k]), DecodeTc(f, b[k])
			}
			c := r.Uint32()
			switch it % 4 {
			case 0:
				c = 0x80000000 * (r.Uint32() & 1) // a zero
			case 1:
				c = c&0x80000000 | uint32(127+r.IntN(8)-4)<<23 | c&0x7fffff // near the products
			}
			want := DotF32(f, a[:], b[:], c)
			got := DotF32Terms(f, ta[:], tb[:], a[:], b[:], c)
			if got != want {
				require.Failf(t, "DotF32Terms differs", "format %d, a %#x, b %#x, c %#x: %#x, want %#x", f, a, b, c, got, want)
			}
		}
	}
}

// BenchmarkDotF32 is one tensor-core element of 16 f16 products and an f32
// c, through DotF32 (mma.sync, wgmma) and through DotF32Terms with its
// multiplicands decoded (wmma); the operands cycle through 256 random sets,
// so that branches on the data are not learned.
func BenchmarkDotF32(b *testing.B) {
	r := rand.New(rand.NewPCG(18, 19))
	const sets = 256
	var a, x [sets][16]uint32
	var ta, tx [sets][16]TcTerm
	for i := range sets {
		for k := range 16 {
			a[i][k] = uint32(r.IntN(2))<<15 | uint32(10+r.IntN(10))<<10 | r.Uint32()&0x3ff
			x[i][k] = uint32(r.IntN(2))<<15 | uint32(10+r.IntN(10))<<10 | r.Uint32()&0x3ff
			ta[i][k], tx[i][k] = DecodeTc(MmaF16, a[i][k]), DecodeTc(MmaF16, x[i][k])
		}
	}
	c := uint32(0x3f800000)
	b.Run("DotF32", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c = DotF32(MmaF16, a[i][:], x[i][:], c) & 0xbfffffff
			i = (i + 1) % sets
		}
	})
	b.Run("DotF32Terms", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c = DotF32Terms(MmaF16, ta[i][:], tx[i][:], a[i][:], x[i][:], c) & 0xbfffffff
			i = (i + 1) % sets
		}
	})
}
