package fpu

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDotF16F32Table(t *testing.T) {
	const (
		one   = uint16(0x3c00) // 1.0
		onePt = uint16(0x3e00) // 1.5
		m1    = uint16(0xbc00) // -1.0
		p13   = uint16(0x0800) // 2^-13
		inf   = uint16(0x7c00)
		ninf  = uint16(0xfc00)
		qnan  = uint16(0x7e00)
		snan  = uint16(0x7c01)
	)
	k16 := func(pairs ...uint16) ([]uint16, []uint16) {
		a, b := make([]uint16, 16), make([]uint16, 16)
		for i := 0; i+1 < len(pairs); i += 2 {
			a[i/2], b[i/2] = pairs[i], pairs[i+1]
		}
		return a, b
	}
	ones := func(n int) ([]uint16, []uint16) {
		a, b := make([]uint16, n), make([]uint16, n)
		for i := range a {
			a[i], b[i] = one, one
		}
		return a, b
	}
	for _, c := range []struct {
		name string
		ab   func() ([]uint16, []uint16)
		c    uint32
		want uint32
	}{
		{"1*1+0", func() ([]uint16, []uint16) { return k16(one, one) }, 0, 0x3f800000},
		{"16 ones", func() ([]uint16, []uint16) { return ones(16) }, 0, 0x41800000},
		{"8 ones (k8)", func() ([]uint16, []uint16) { return ones(8) }, 0x3f800000, 0x41100000},
		{"2^24+1.5 rounds toward zero", func() ([]uint16, []uint16) { return k16(one, onePt) }, 0x4b800000, 0x4b800000},
		{"-(2^24+1.5) rounds toward zero", func() ([]uint16, []uint16) { return k16(m1, onePt) }, 0xcb800000, 0xcb800000},
		{"each term truncated before the sum", func() ([]uint16, []uint16) { return k16(p13, p13, p13, p13) }, 0xbf800000, 0xbf800000},
		{"alignment on ea+eb, not the leading bit", func() ([]uint16, []uint16) { return k16(onePt, onePt, onePt, onePt|0x8000) }, 0x33400000, 0x33000000},
		{"exact cancellation is +0", func() ([]uint16, []uint16) { return k16(one, one) }, 0xbf800000, 0},
		{"all zeros, c -0, products -0", func() ([]uint16, []uint16) { return []uint16{0x8000, one}, []uint16{one, 0x8000} }, 0x80000000, 0x80000000},
		{"all zeros, one +0 product", func() ([]uint16, []uint16) { return k16(0x8000, one) }, 0x80000000, 0},
		{"subnormal product kept", func() ([]uint16, []uint16) { return k16(1, 1) }, 0, 0x27800000},
		{"subnormal c kept", func() ([]uint16, []uint16) { return k16() }, 0x00000003, 0x00000003},
		{"65504^2", func() ([]uint16, []uint16) { return k16(0x7bff, 0x7bff) }, 0, 0x4f7fc004},
		{"nan input", func() ([]uint16, []uint16) { return k16(qnan, one) }, 0, CanonNaN32},
		{"signalling nan input", func() ([]uint16, []uint16) { return k16(one, snan) }, 0, CanonNaN32},
		{"inf*0", func() ([]uint16, []uint16) { return k16(inf, 0) }, 0, CanonNaN32},
		{"inf-inf", func() ([]uint16, []uint16) { return k16(inf, one, ninf, one) }, 0, CanonNaN32},
		{"inf*-1", func() ([]uint16, []uint16) { return k16(inf, m1) }, 0x3f800000, 0xff800000},
		{"c +inf", func() ([]uint16, []uint16) { return k16(one, one) }, 0x7f800000, 0x7f800000},
		{"c -inf + inf product", func() ([]uint16, []uint16) { return k16(inf, one) }, 0xff800000, CanonNaN32},
		{"c nan", func() ([]uint16, []uint16) { return k16(one, one) }, 0x7fc00001, CanonNaN32},
		{"max c + products: no overflow", func() ([]uint16, []uint16) { return k16(0x7bff, 0x7bff) }, 0x7f7fffff, 0x7f7fffff},
		{"short b", func() ([]uint16, []uint16) { a, _ := ones(16); return a, []uint16{one} }, 0, 0x3f800000},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := c.ab()
			require.Equalf(t, c.want, DotF16F32(a, b, c.c), "got %#08x", DotF16F32(a, b, c.c))
		})
	}
}

// TestDotF16F32Recorded runs DotF16F32 on the tensor-core vectors recorded
// on the GPU for issue 24 (m16n8k16 .row.col .f32.f16.f16.f32, 64 warps a
// form; chain64 applies d = a*b + d 64 times) and requires every element
// bit for bit.
func TestDotF16F32Recorded(t *testing.T) {
	const root = "../../../testdata/conformance/issue24/mma_vectors/cases/mma"
	forms := []string{"random", "extreme", "cancel", "subnormal", "special", "order", "chain64"}
	if _, err := os.Stat(root); err != nil {
		t.Skip("mma vectors not available: ", err)
	}
	for _, f := range forms {
		t.Run(f, func(t *testing.T) {
			dir := filepath.Join(root, "mma_m16n8k16_f32_f16_"+f)
			words := func(p string) []uint32 {
				b, err := os.ReadFile(filepath.Join(dir, p))
				require.NoError(t, err)
				w := make([]uint32, len(b)/4)
				for i := range w {
					w[i] = binary.LittleEndian.Uint32(b[4*i:])
				}
				return w
			}
			a, b, c, d := words("inputs/a.bin"), words("inputs/b.bin"), words("inputs/c.bin"), words("expected/d.bin")
			steps := 1
			if f == "chain64" {
				steps = 64
			}
			match, total := 0, 0
			for w := 0; w < len(a)/128; w++ {
				var A [16][16]uint16 // rows of A
				var B [8][16]uint16  // columns of B
				var C, D [16][8]uint32
				for lane := 0; lane < 32; lane++ {
					th, g, q := w*32+lane, lane>>2, lane&3
					for r := 0; r < 4; r++ {
						row, col := g+8*(r&1), 2*q+8*(r>>1)
						A[row][col], A[row][col+1] = uint16(a[4*th+r]), uint16(a[4*th+r]>>16)
						C[g+8*(r>>1)][2*q+(r&1)] = c[4*th+r]
						D[g+8*(r>>1)][2*q+(r&1)] = d[4*th+r]
					}
					for r := 0; r < 2; r++ {
						B[g][2*q+8*r], B[g][2*q+8*r+1] = uint16(b[2*th+r]), uint16(b[2*th+r]>>16)
					}
				}
				for i := 0; i < 16; i++ {
					for j := 0; j < 8; j++ {
						v := C[i][j]
						for s := 0; s < steps; s++ {
							v = DotF16F32(A[i][:], B[j][:], v)
						}
						total++
						if v == D[i][j] {
							match++
						} else if total-match <= 3 {
							t.Errorf("warp %d D[%d][%d]: got %#08x, want %#08x", w, i, j, v, D[i][j])
						}
					}
				}
			}
			t.Logf("%s: %d of %d elements bit-exact", f, match, total)
			require.Equal(t, total, match)
			require.Equal(t, 64*128, total)
		})
	}
}

// Any bit patterns: no panic, and a NaN result is the canonical one.
func TestDotF16F32AnyBits(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 16))
	var a, b [16]uint16
	for n := 0; n < 20000; n++ {
		for k := range a {
			a[k], b[k] = uint16(r.Uint32()), uint16(r.Uint32())
		}
		k := r.IntN(17)
		d := DotF16F32(a[:k], b[:k], r.Uint32())
		if d&0x7f800000 == 0x7f800000 && d&0x7fffff != 0 {
			require.Equal(t, CanonNaN32, d)
		}
	}
}

// The other tensor-core types (learned from testdata/conformance/issue24/
// mma_vectors2; scheduler/suite TestIssue24Mma2Vectors runs every recorded
// element through the VM).
func TestDotOtherTypesTable(t *testing.T) {
	const (
		bf1   = uint32(0x3f80) // bf16 1.0
		bfBig = uint32(0x7f00) // bf16 2^127
		tf1   = uint32(0x3f800000)
		h1    = uint32(0x3c00) // f16 1.0
	)
	for _, c := range []struct {
		name string
		got  func() uint64
		want uint64
	}{
		{"bf16 1*1+1", func() uint64 { return uint64(DotF32(MmaBF16, []uint32{bf1}, []uint32{bf1}, 0x3f800000)) }, 0x40000000},
		{"bf16 overflow is inf, also toward zero", func() uint64 {
			return uint64(DotF32(MmaBF16, []uint32{bfBig}, []uint32{bfBig}, 0))
		}, 0x7f800000},
		{"bf16 sum below the smallest subnormal is +0", func() uint64 {
			return uint64(DotF32(MmaBF16, []uint32{0x8001}, []uint32{0x0001}, 0))
		}, 0},
		{"tf32 ignores the low 13 bits", func() uint64 {
			return uint64(DotF32(MmaTF32, []uint32{tf1 | 0x1fff}, []uint32{tf1 | 0x1000}, 0))
		}, 0x3f800000},
		{"tf32 nan", func() uint64 { return uint64(DotF32(MmaTF32, []uint32{0x7fc00000}, []uint32{tf1}, 0)) }, uint64(CanonNaN32)},
		{"f16 accumulator rounds to nearest", func() uint64 {
			// 2048 + 1 + 1 (ties to even twice would give 2048; one sum gives 2050)
			return uint64(DotF16F16([]uint32{h1, h1}, []uint32{h1, h1}, 0x6800))
		}, 0x6801},
		{"f16 accumulator 2048+1 ties to even", func() uint64 { return uint64(DotF16F16([]uint32{h1}, []uint32{h1}, 0x6800)) }, 0x6800},
		{"f16 accumulator overflow", func() uint64 { return uint64(DotF16F16([]uint32{0x7bff}, []uint32{0x7bff}, 0)) }, 0x7c00},
		{"f16 accumulator nan", func() uint64 { return uint64(DotF16F16([]uint32{h1}, []uint32{h1}, 0x7c01)) }, uint64(CanonNaN16)},
		{"s8 wraps", func() uint64 { return uint64(DotS8S32([]uint32{0x80}, []uint32{0x80}, 0x7fffffff, false)) }, 0x80003fff},
		{"s8 satfinite clamps", func() uint64 { return uint64(DotS8S32([]uint32{0x80}, []uint32{0x80}, 0x7fffffff, true)) }, 0x7fffffff},
		{"s8 satfinite low", func() uint64 { return uint64(DotS8S32([]uint32{0x80}, []uint32{0x7f}, 0x80000000, true)) }, 0x80000000},
		{"f64 fma chain in k order", func() uint64 {
			// (2^53 + 1) - 2^53: the chain rounds 2^53+1 first, then cancels
			return DotF64([]uint64{0x3ff0000000000000, 0xc340000000000000}, []uint64{0x3ff0000000000000, 0x3ff0000000000000}, 0x4340000000000000)
		}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, c.got())
		})
	}
}
