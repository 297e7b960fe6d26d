package fpu

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	h1     = uint16(0x3c00) // f16 1.0
	hMax   = uint16(0x7bff) // 65504
	hInf   = uint16(0x7c00)
	hNInf  = uint16(0xfc00)
	hNaN   = uint16(0x7e01)
	hMinSb = uint16(0x0001) // 2^-24
	hNZ    = uint16(0x8000)
	b1     = uint16(0x3f80) // bf16 1.0
	bMax   = uint16(0x7f7f)
	bInf   = uint16(0x7f80)
	bNaN   = uint16(0x7fc1)
)

func TestHalfArithTable(t *testing.T) {
	type c16 struct {
		name string
		got  uint16
		want uint16
	}
	for _, c := range []c16{
		{"1+1", Add16(h1, h1, RN, false, false), 0x4000},
		{"max+max rn", Add16(hMax, hMax, RN, false, false), hInf},
		{"max+max rz", Add16(hMax, hMax, RZ, false, false), hMax},
		{"max+8 rn (below half ulp)", Add16(hMax, 0x4800, RN, false, false), hMax},
		{"max+8 rp", Add16(hMax, 0x4800, RP, false, false), hInf},
		{"max+16 rn (tie, to even = inf)", Add16(hMax, 0x4c00, RN, false, false), hInf},
		{"1-1 rn", Sub16(h1, h1, RN, false, false), 0},
		{"1-1 rm", Sub16(h1, h1, RM, false, false), hNZ},
		{"-0 + -0", Add16(hNZ, hNZ, RN, false, false), hNZ},
		{"inf-inf", Sub16(hInf, hInf, RN, false, false), CanonNaN16},
		{"nan+1", Add16(hNaN, h1, RN, false, false), CanonNaN16},
		{"sub+sub", Add16(hMinSb, hMinSb, RN, false, false), 2},
		{"sub+sub ftz", Add16(hMinSb, hMinSb, RN, true, false), 0},
		{"minsub*0.5 rn", Mul16(hMinSb, 0x3800, RN, false, false), 0},
		{"minsub*0.5 rp", Mul16(hMinSb, 0x3800, RP, false, false), hMinSb},
		{"3sub*0.5 rn", Mul16(3, 0x3800, RN, false, false), 2},
		{"minnorm*0.5 ftz", Mul16(0x0400, 0x3800, RN, true, false), 0},
		{"-minnorm*0.5 ftz", Mul16(0x8400, 0x3800, RN, true, false), hNZ},
		{"inf*0", Mul16(hInf, 0, RN, false, false), CanonNaN16},
		{"2*0.75 sat", Mul16(0x4000, 0x3a00, RN, false, true), h1},
		{"-1 sat", Sub16(0, h1, RN, false, true), 0},
		{"nan sat", Add16(hNaN, h1, RN, false, true), 0},
		{"fma 2*3+1", Fma16(0x4000, 0x4200, h1, RN, false, false), 0x4700},
		{"fma 1*1-1 rm", Fma16(h1, h1, 0xbc00, RM, false, false), hNZ},
		{"fma inf*0+1", Fma16(hInf, 0, h1, RN, false, false), CanonNaN16},
		// (1+2^-10)^2 - (1+2^-9) = 2^-20: fused, subnormal in f16
		{"fma fused", Fma16(0x3c01, 0x3c01, 0xbc02, RN, false, false), 0x0010},
		{"fma fused ftz", Fma16(0x3c01, 0x3c01, 0xbc02, RN, true, false), 0},
		{"relu -1", Relu16(0xbc00), 0},
		{"relu -0", Relu16(hNZ), 0},
		{"relu nan", Relu16(0xfe00), CanonNaN16},
		{"relu 1", Relu16(h1), h1},
		{"sat16 inf", Sat16(hInf), h1},
		{"bf 1+1", AddBF16(b1, b1, RN), 0x4000},
		{"bf 1+2^-8 tie", AddBF16(b1, 0x3b80, RN), b1},
		{"bf 1+2^-8 rp", AddBF16(b1, 0x3b80, RP), b1 + 1},
		{"bf 1-1 rm", SubBF16(b1, b1, RM), 0x8000},
		{"bf max*2", MulBF16(bMax, 0x4000, RN), bInf},
		{"bf max*2 rz", MulBF16(bMax, 0x4000, RZ), bMax},
		{"bf sub*0.5", MulBF16(0x0001, 0x3f00, RP), 0x0001},
		{"bf sub*0.5 rn", MulBF16(0x0001, 0x3f00, RN), 0},
		{"bf nan", MulBF16(bNaN, b1, RN), CanonNaNBF16},
		// bf16: sum of far-apart values needs more than float64 span
		{"bf fma tiny c", FmaBF16(b1, b1, 0x0001, RP), b1 + 1},
		{"bf fma tiny c rn", FmaBF16(b1, b1, 0x0001, RN), b1},
		{"bf fma -tiny c rz", FmaBF16(b1, b1, 0x8001, RZ), 0x3f7f},
		{"bf relu", ReluBF16(0xbf80), 0},
		{"bf relu nan", ReluBF16(0xffc0), CanonNaNBF16},
	} {
		require.Equalf(t, c.want, c.got, "%s: got %04x want %04x", c.name, c.got, c.want)
	}
}

func TestHalfFtzAndOOB(t *testing.T) {
	// fma_rn_ftz_sat_f16x2 [89]: 2^-14·(1 - 2^-11) + ... just below the
	// smallest normal after rounding at 11 bits: flushed, where subnormal
	// rounding gives 0x0400.
	require.Equal(t, uint16(0), Fma16(0x1000, 0x8400, 0x0400, RN, true, true))
	require.Equal(t, uint16(0x0400), Fma16(0x0400, 0x3c00, 0, RN, true, false))
	// fma.oob: the OOB NaN 0x7fff gives +0; other NaNs the canonical NaN.
	require.Equal(t, uint16(0), FmaOOB16(0x7fff, 0x3c00, 0x3c00, false))
	require.Equal(t, uint16(0), FmaOOBBF16(0x3f80, 0x7fff, 0x3f80, true))
	require.Equal(t, CanonNaN16, FmaOOB16(0x7e00, 0x3c00, 0x3c00, false))
	require.Equal(t, CanonNaNBF16, FmaOOBBF16(0x7fc0, 0x3f80, 0x3f80, true))
	require.Equal(t, uint16(0), FmaOOB16(0xbc00, 0x3c00, 0, true))
	require.Equal(t, uint16(0x4000), FmaOOB16(0x3c00, 0x3c00, 0x3c00, false))
}

func TestHalfMinMaxAbsNeg(t *testing.T) {
	h2 := uint16(0x4000)
	require.Equal(t, h1, Min16(h1, h2, false, false, false))
	require.Equal(t, h2, Max16(h1, h2, false, false, false))
	require.Equal(t, h2, Min16(hNaN, h2, false, false, false))
	require.Equal(t, CanonNaN16, Min16(hNaN, h2, false, true, false))
	require.Equal(t, CanonNaN16, Max16(hNaN, 0xfe00, false, false, false))
	require.Equal(t, hNZ, Min16(0, hNZ, false, false, false))
	require.Equal(t, uint16(0), Max16(hNZ, 0, false, false, false))
	require.Equal(t, uint16(0xc000), Min16(0xc200, h2, false, false, true)) // min(|-3|,|2|) with sign -
	require.Equal(t, uint16(0x4200), Max16(0xc200, 0xc000, false, false, true))
	require.Equal(t, hNZ, Min16(5, 0x8003, true, false, false))
	require.Equal(t, uint16(0x8003), Min16(5, 0x8003, false, false, false))

	require.Equal(t, b1, MinBF16(b1, 0x4000, false, false))
	require.Equal(t, uint16(0x4000), MaxBF16(bNaN, 0x4000, false, false))
	require.Equal(t, CanonNaNBF16, MaxBF16(bNaN, 0x4000, true, false))
	require.Equal(t, uint16(0xc000), MinBF16(0xc040, 0x4000, false, true))
	require.Equal(t, uint16(0x8000), MinBF16(0, 0x8000, false, false))

	require.Equal(t, uint16(0xbc00), Neg16(h1, false))
	require.Equal(t, hNZ, Neg16(0, false))
	require.Equal(t, hNZ, Neg16(1, true))
	require.Equal(t, CanonNaN16, Neg16(hNaN, false))
	require.Equal(t, h1, Abs16(0xbc00, false))
	require.Equal(t, uint16(0), Abs16(0x8001, true))
	require.Equal(t, CanonNaN16, Abs16(0xfe00, false))
	require.Equal(t, uint16(0xbf80), NegBF16(b1))
	require.Equal(t, b1, AbsBF16(0xbf80))
	require.Equal(t, CanonNaNBF16, NegBF16(bNaN))
	require.Equal(t, CanonNaNBF16, AbsBF16(bNaN))
}

// TestHalfRandom compares f16 and bf16 add, sub, mul and fma in every
// rounding mode (and f16 .ftz/.sat) against the exact reference.
func TestHalfRandom(t *testing.T) {
	g := newGen(3)
	n := iters(t, 5000)
	sat := func(z uint64, one uint64, on bool) uint16 {
		switch {
		case !on:
		case z&0x8000 != 0:
			z = 0
		case z > one:
			z = one
		}
		return uint16(z)
	}
	for _, r := range allRounds {
		for i := 0; i < n; i++ {
			ftz, st := g.r.IntN(3) == 0, g.r.IntN(6) == 0
			a := g.val(tF16)
			b := g.near(tF16, a)
			c := g.val(tF16)
			ctx := lazy(func() string { return fmt.Sprintf("f16 a=%04x b=%04x c=%04x r=%v ftz=%v sat=%v", a, b, c, r, ftz, st) })
			ha, hb, hc := uint16(a), uint16(b), uint16(c)
			eq(t, sat(refAdd(a, b, tF16, r, ftz), 0x3c00, st), Add16(ha, hb, r, ftz, st), "add %s", ctx)
			eq(t, sat(refAdd(a, b^0x8000, tF16, r, ftz), 0x3c00, st), Sub16(ha, hb, r, ftz, st), "sub %s", ctx)
			eq(t, sat(refMul(a, b, tF16, r, ftz), 0x3c00, st), Mul16(ha, hb, r, ftz, st), "mul %s", ctx)
			eq(t, sat(refFma(a, b, c, tF16, r, ftz), 0x3c00, st), Fma16(ha, hb, hc, r, ftz, st), "fma %s", ctx)

			a, b, c = g.val(tBF16), g.val(tBF16), g.val(tBF16)
			if g.r.IntN(2) == 0 {
				b = g.near(tBF16, a)
			}
			ctx = lazy(func() string { return fmt.Sprintf("bf16 a=%04x b=%04x c=%04x r=%v", a, b, c, r) })
			ha, hb, hc = uint16(a), uint16(b), uint16(c)
			eq(t, uint16(refAdd(a, b, tBF16, r, false)), AddBF16(ha, hb, r), "add %s", ctx)
			eq(t, uint16(refAdd(a, b^0x8000, tBF16, r, false)), SubBF16(ha, hb, r), "sub %s", ctx)
			eq(t, uint16(refMul(a, b, tBF16, r, false)), MulBF16(ha, hb, r), "mul %s", ctx)
			eq(t, uint16(refFma(a, b, c, tBF16, r, false)), FmaBF16(ha, hb, hc, r), "fma %s", ctx)
		}
	}
}
