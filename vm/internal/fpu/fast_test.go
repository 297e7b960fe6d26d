package fpu

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFastPathsAgree checks the inlinable helpers against the general
// functions, NaN and infinity operands included.
func TestFastPathsAgree(t *testing.T) {
	g := newGen(10)
	special32 := []uint32{qnan32, snan32 | sign32, inf32, ninf32, 0, nz32, max32}
	special64 := []uint64{qnan64, snan64 | sign64, inf64, ninf64, 0, nz64, max64}
	for i := 0; i < iters(t, 50000); i++ {
		a, b := uint32(g.val(tF32)), uint32(g.val(tF32))
		if i%5 == 0 {
			a = special32[g.r.IntN(len(special32))]
		}
		if i%7 == 0 {
			b = special32[g.r.IntN(len(special32))]
		}
		require.Equal(t, Add32(a, b, RN, false, false), AddRN32(a, b))
		require.Equal(t, Sub32(a, b, RN, false, false), SubRN32(a, b))
		require.Equal(t, Mul32(a, b, RN, false, false), MulRN32(a, b))
		x, y := g.val(tF64), g.val(tF64)
		if i%5 == 0 {
			x = special64[g.r.IntN(len(special64))]
		}
		if i%7 == 0 {
			y = special64[g.r.IntN(len(special64))]
		}
		require.Equal(t, Add64(x, y, RN), AddRN64(x, y))
		require.Equal(t, Mul64(x, y, RN), MulRN64(x, y))
	}
}

// TestFmaRN32Fast checks FmaRN32Fast against Fma32 wherever it claims the
// result, on random, special and halfway-point operands, and that it
// claims most random ones.
func TestFmaRN32Fast(t *testing.T) {
	g := newGen(11)
	special := []uint32{qnan32, snan32 | sign32, inf32, ninf32, 0, nz32, max32, 1, 0x00800000, 0x7f000000}
	n, fast := iters(t, 200000), 0
	for i := 0; i < n; i++ {
		a, b, c := uint32(g.val(tF32)), uint32(g.val(tF32)), uint32(g.val(tF32))
		switch i % 11 {
		case 0:
			a = special[g.r.IntN(len(special))]
		case 1:
			c = special[g.r.IntN(len(special))]
		case 2:
			// a*b + c near c's halfway points: 1 + 2^-24 (exactly halfway
			// between two f32) plus a tiny product, or exactly.
			a, b, c = 0x3f800001, uint32(g.r.Uint32()>>9)|0x33800000, 0x3f800000
		}
		z, ok := FmaRN32Fast(a, b, c)
		if ok {
			fast++
			require.Equal(t, Fma32(a, b, c, RN, false, false), z, "fma(%#x, %#x, %#x)", a, b, c)
		}
	}
	require.Greater(t, fast, n/2)
}

func TestStrings(t *testing.T) {
	require.Equal(t, []string{"rn", "rz", "rm", "rp", "rna"},
		[]string{RN.String(), RZ.String(), RM.String(), RP.String(), RNA.String()})
	require.Equal(t, []string{"f16", "bf16", "f32", "f64", "tf32"},
		[]string{F16.String(), BF16.String(), F32.String(), F64.String(), TF32.String()})
}
