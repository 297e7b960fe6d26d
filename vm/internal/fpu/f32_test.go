package fpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	max32    = uint32(0x7f7fffff)
	inf32    = uint32(0x7f800000)
	ninf32   = uint32(0xff800000)
	qnan32   = uint32(0x7fc00001) // a quiet NaN with a payload
	snan32   = uint32(0x7f800001) // a signaling NaN
	nz32     = uint32(0x80000000) // -0
	minSub32 = uint32(0x00000001)
	minNrm32 = uint32(0x00800000)
)

type bin32 struct {
	a, b     uint32
	r        Round
	ftz, sat bool
	want     uint32
}

func (c bin32) String() string {
	return fmt.Sprintf("%08x,%08x/%v/ftz=%v/sat=%v", c.a, c.b, c.r, c.ftz, c.sat)
}

func TestAdd32Table(t *testing.T) {
	one, two, three := fb(1), fb(2), fb(3)
	tie := fb(0x1p-24) // half an ulp of 1
	cases := []bin32{
		{one, two, RN, false, false, three},
		// exact zero sums: +0 except RM; same-signed zeros keep their sign
		{0, nz32, RN, false, false, 0},
		{0, nz32, RZ, false, false, 0},
		{0, nz32, RP, false, false, 0},
		{0, nz32, RM, false, false, nz32},
		{nz32, nz32, RN, false, false, nz32},
		{nz32, nz32, RP, false, false, nz32},
		{0, 0, RM, false, false, 0},
		{one, fb(-1), RN, false, false, 0},
		{one, fb(-1), RZ, false, false, 0},
		{one, fb(-1), RP, false, false, 0},
		{one, fb(-1), RM, false, false, nz32},
		// NaN: canonical, whatever the input payload
		{inf32, ninf32, RN, false, false, CanonNaN32},
		{qnan32, one, RN, false, false, CanonNaN32},
		{one, snan32, RZ, false, false, CanonNaN32},
		{0xffc00000, one, RM, false, false, CanonNaN32},
		{inf32, one, RZ, false, false, inf32},
		{ninf32, max32, RP, false, false, ninf32},
		// overflow by direction
		{max32, max32, RN, false, false, inf32},
		{max32, max32, RZ, false, false, max32},
		{max32, max32, RM, false, false, max32},
		{max32, max32, RP, false, false, inf32},
		{max32 | sign32, max32 | sign32, RM, false, false, ninf32},
		{max32 | sign32, max32 | sign32, RP, false, false, max32 | sign32},
		{max32 | sign32, max32 | sign32, RZ, false, false, max32 | sign32},
		// ties and directions
		{one, tie, RN, false, false, one},
		{one, tie, RZ, false, false, one},
		{one, tie, RM, false, false, one},
		{one, tie, RP, false, false, one + 1},
		{one + 1, tie, RN, false, false, one + 2}, // tie to even, upward
		{fb(-1), tie | sign32, RM, false, false, (one + 1) | sign32},
		{fb(-1), tie | sign32, RZ, false, false, one | sign32},
		{one, fb(0x1p-60), RP, false, false, one + 1},
		{one, fb(-0x1p-60), RZ, false, false, 0x3f7fffff},
		{one, fb(-0x1p-60), RN, false, false, one},
		// subnormals: gradual underflow, or flushed with .ftz
		{minSub32, minSub32, RN, false, false, 2},
		{minSub32, minSub32, RN, true, false, 0},
		{minNrm32 + 1, minNrm32 | sign32, RN, false, false, 1},
		{minNrm32 + 1, minNrm32 | sign32, RN, true, false, 0},    // result flushed
		{minNrm32 | sign32, minNrm32 + 1, RM, true, false, 0},    // +0: flushed result keeps its sign
		{minSub32 | sign32, minNrm32, RN, true, false, minNrm32}, // input flushed
		{0x00800001 | sign32, minNrm32, RN, true, false, sign32}, // -subnormal result → -0
		{minSub32, minSub32 | sign32, RM, true, false, nz32},     // flushed inputs: +0 + -0 in RM
		// .sat
		{fb(0.5), fb(0.75), RN, false, true, one},
		{fb(-0.5), fb(0.25), RN, false, true, 0},
		{inf32, one, RN, false, true, one},
		{inf32, ninf32, RN, false, true, 0}, // NaN → +0
		{nz32, nz32, RN, false, true, 0},    // -0 → +0
		{fb(0.25), fb(0.25), RZ, false, true, fb(0.5)},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, Add32(c.a, c.b, c.r, c.ftz, c.sat), "Add32 %v", c)
	}
	// Sub32 is a + (-b)
	require.Equal(t, nz32, Sub32(one, one, RM, false, false))
	require.Equal(t, uint32(0), Sub32(one, one, RN, false, false))
	require.Equal(t, fb(-1), Sub32(two, three, RN, false, false))
	require.Equal(t, CanonNaN32, Sub32(inf32, inf32, RN, false, false))
	require.Equal(t, nz32, Sub32(nz32, 0, RN, false, false))
}

func TestMul32Table(t *testing.T) {
	one := fb(1)
	u := one + 1 // 1 + 2^-23
	cases := []bin32{
		{fb(3), fb(5), RN, false, false, fb(15)},
		{nz32, fb(5), RN, false, false, nz32},
		{nz32, fb(-5), RM, false, false, 0},
		{inf32, 0, RN, false, false, CanonNaN32},
		{qnan32, fb(2), RP, false, false, CanonNaN32},
		{inf32, fb(-2), RZ, false, false, ninf32},
		{max32, fb(2), RN, false, false, inf32},
		{max32, fb(2), RZ, false, false, max32},
		{max32, fb(-2), RM, false, false, ninf32},
		{max32, fb(-2), RP, false, false, max32 | sign32},
		{u, u, RN, false, false, u + 1}, // 1 + 2^-22 + 2^-46
		{u, u, RZ, false, false, u + 1},
		{u, u, RP, false, false, u + 2},
		{u | sign32, u, RM, false, false, (u + 2) | sign32},
		{minSub32, fb(0.5), RN, false, false, 0}, // tie to even (0)
		{minSub32, fb(0.5), RP, false, false, minSub32},
		{minSub32, fb(0.5), RZ, false, false, 0},
		{minSub32 | sign32, fb(0.5), RM, false, false, minSub32 | sign32},
		{minSub32 | sign32, fb(0.5), RN, false, false, sign32},
		{3, fb(0.5), RN, false, false, 2}, // 1.5 subnormal ulps → 2
		{minNrm32, fb(0.5), RN, false, false, 0x00400000},
		{minNrm32, fb(0.5), RN, true, false, 0},
		{minNrm32 | sign32, fb(0.5), RP, true, false, sign32},
		{0x00400000, fb(2), RN, true, false, 0}, // input flushed
		{fb(2), fb(0.75), RN, false, true, one},
		{fb(-2), fb(0.75), RN, false, true, 0},
		{inf32, 0, RN, false, true, 0},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, Mul32(c.a, c.b, c.r, c.ftz, c.sat), "Mul32 %v", c)
	}
}

type tern32 struct {
	a, b, c  uint32
	r        Round
	ftz, sat bool
	want     uint32
}

func TestFma32Table(t *testing.T) {
	one := fb(1)
	cases := []tern32{
		{fb(2), fb(3), one, RN, false, false, fb(7)},
		{one, one, fb(-1), RN, false, false, 0},
		{one, one, fb(-1), RM, false, false, nz32},
		{nz32, one, nz32, RN, false, false, nz32},
		{0, one, nz32, RN, false, false, 0},
		{0, one, nz32, RM, false, false, nz32},
		{nz32, fb(-1), nz32, RN, false, false, 0},
		{inf32, 0, one, RN, false, false, CanonNaN32},
		{inf32, one, ninf32, RN, false, false, CanonNaN32},
		{one, one, inf32, RZ, false, false, inf32},
		{one, one, qnan32, RN, false, false, CanonNaN32},
		{inf32, fb(-1), one, RP, false, false, ninf32},
		// fused: (1+2^-12)^2 - (1+2^-11) = 2^-24 exactly
		{fb(1 + 0x1p-12), fb(1 + 0x1p-12), fb(-(1 + 0x1p-11)), RN, false, false, fb(0x1p-24)},
		// single rounding with sticky beyond float64: see witness test
		{0x39800001, 0x397ffffe, 0x3f800001, RN, false, false, 0x3f800001},
		{0x39800001, 0x397ffffe, 0x3f800001, RP, false, false, 0x3f800002},
		{0x39800001, 0x397ffffe, 0x3f800001, RZ, false, false, 0x3f800001},
		// overflow and underflow
		{max32, fb(2), fb(-1), RN, false, false, inf32},
		{max32, fb(2), fb(-1), RZ, false, false, max32},
		{max32, fb(2), max32 | sign32, RN, false, false, max32},
		{minNrm32, fb(0.5), 0, RN, false, false, 0x00400000},
		{minNrm32, fb(0.5), 0, RN, true, false, 0},
		{minNrm32, fb(0.5), nz32, RN, true, false, 0},
		{minSub32, fb(0.25), 0, RP, false, false, minSub32},
		{minSub32, fb(0.25), 0, RN, false, false, 0},
		{minSub32 | sign32, fb(0.25), 0, RM, false, false, minSub32 | sign32},
		{0x00400000, fb(4), one, RN, true, false, one}, // input flushed
		{fb(0.5), fb(4), fb(-0.5), RN, false, true, one},
		{fb(0.5), fb(-4), fb(0.5), RN, false, true, 0},
		{inf32, 0, one, RN, false, true, 0},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, Fma32(c.a, c.b, c.c, c.r, c.ftz, c.sat),
			"Fma32 %08x,%08x,%08x/%v/ftz=%v/sat=%v", c.a, c.b, c.c, c.r, c.ftz, c.sat)
	}
}

// TestFma32DoubleRoundingWitnesses checks cases where rounding a float64 FMA
// to f32 (two roundings) gives the wrong answer, and that Fma32 does not.
func TestFma32DoubleRoundingWitnesses(t *testing.T) {
	naive := func(a, b, c uint32) uint32 {
		return fb(float32(math.FMA(f32d(a), f32d(b), f32d(c))))
	}
	// 2^-12(1+2^-23) · 2^-12(1-2^-23) + (1+2^-23) = 1 + 2^-23 + 2^-24 - 2^-70:
	// just below the tie between 1+2^-23 (odd) and 1+2^-22 (even).
	a, b, c := uint32(0x39800001), uint32(0x397ffffe), uint32(0x3f800001)
	require.Equal(t, uint32(0x3f800002), naive(a, b, c), "witness is a witness")
	require.Equal(t, uint32(0x3f800001), Fma32(a, b, c, RN, false, false))

	// Products that are exact f32 midpoints (odd 25-bit integers), nudged
	// by a c far below float64 precision: float64 lands on the tie.
	g := newGen(7)
	found := 0
	for i := 0; i < iters(t, 20000); i++ {
		u := uint32(2049 + 2*g.r.IntN(2047)) // odd, 12 bits
		v := uint32(4097 + 2*g.r.IntN(4095)) // odd, 13 bits
		if u*v < 1<<24 {
			continue
		}
		sa, sb := g.r.IntN(40)-20, g.r.IntN(40)-20
		x := math.Ldexp(float64(u), sa)
		y := math.Ldexp(float64(v), sb)
		if g.r.IntN(2) == 0 {
			x = -x
		}
		p := x * y
		_, pe := math.Frexp(p)
		z := math.Ldexp(1, pe-60-g.r.IntN(40))
		if g.r.IntN(2) == 0 {
			z = -z
		}
		a, b, c := fb(float32(x)), fb(float32(y)), fb(float32(z))
		want := uint32(refFma(uint64(a), uint64(b), uint64(c), tF32, RN, false))
		got := Fma32(a, b, c, RN, false, false)
		require.Equalf(t, want, got, "Fma32(%08x,%08x,%08x)", a, b, c)
		if naive(a, b, c) != want {
			found++
		}
	}
	require.Greater(t, found, iters(t, 20000)/20, "random witnesses found")
}

func TestDiv32Table(t *testing.T) {
	one, three := fb(1), fb(3)
	cases := []bin32{
		{one, three, RN, false, false, 0x3eaaaaab},
		{one, three, RZ, false, false, 0x3eaaaaaa},
		{one, three, RM, false, false, 0x3eaaaaaa},
		{one, three, RP, false, false, 0x3eaaaaab},
		{one | sign32, three, RM, false, false, 0xbeaaaaab},
		{one | sign32, three, RP, false, false, 0xbeaaaaaa},
		{fb(6), three, RZ, false, false, fb(2)},
		{one, 0, RN, false, false, inf32},
		{one, nz32, RZ, false, false, ninf32},
		{0, 0, RN, false, false, CanonNaN32},
		{inf32, inf32, RP, false, false, CanonNaN32},
		{0, fb(-5), RM, false, false, nz32},
		{one, inf32, RM, false, false, 0},
		{qnan32, one, RN, false, false, CanonNaN32},
		{max32, fb(0.5), RN, false, false, inf32},
		{max32, fb(0.5), RZ, false, false, max32},
		{max32, fb(-0.5), RP, false, false, max32 | sign32},
		{minSub32, fb(2), RN, false, false, 0},
		{minSub32, fb(2), RP, false, false, minSub32},
		{minSub32, fb(-2), RM, false, false, minSub32 | sign32},
		{minNrm32, fb(2), RN, false, false, 0x00400000},
		{minNrm32, fb(2), RN, true, false, 0},
		{one, minSub32, RN, true, false, inf32}, // divisor flushed to +0
		{one, minSub32 | sign32, RZ, true, false, ninf32},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, Div32(c.a, c.b, c.r, c.ftz), "Div32 %v", c)
	}
	require.Equal(t, uint32(0x3eaaaaab), Rcp32(three, RN, false))
	require.Equal(t, uint32(0x3eaaaaaa), Rcp32(three, RZ, false))
	require.Equal(t, ninf32, Rcp32(nz32, RN, false))
	require.Equal(t, uint32(0), Rcp32(inf32, RP, false))
	require.Equal(t, inf32, Rcp32(minSub32, RN, false))
	require.Equal(t, max32, Rcp32(minSub32, RZ, false))
}

func TestFtzTinyAfterRounding32(t *testing.T) {
	// .ftz flushes a result that is below 2^-126 after rounding to 24 bits
	// with an unbounded exponent, even when IEEE subnormal rounding would
	// give 2^-126 (div_rp_ftz_f32, div_rm_ftz_f32, mad_rn_ftz_f32), and
	// keeps one that rounds up to 2^-126 (fma_rn_ftz_f32).
	const oneUp = 0x3f800001
	require.Equal(t, uint32(0), Div32(minNrm32, oneUp, RP, true))
	require.Equal(t, minNrm32, Div32(minNrm32, oneUp, RP, false))
	require.Equal(t, sign32, Div32(minNrm32|sign32, oneUp, RM, true))
	require.Equal(t, sign32, Div32(minNrm32|sign32, oneUp, RN, true))
	require.Equal(t, sign32, Fma32(minNrm32, 0x33800000, minNrm32|sign32, RN, true, false))
	require.Equal(t, minNrm32|sign32, Fma32(minNrm32, 0x33800000, minNrm32|sign32, RN, false, false))
	require.Equal(t, minNrm32, Mul32(0x3f7fffff, 0x00800001, RN, true, false))
	require.Equal(t, uint32(0), Mul32(0x3f7fffff, 0x00800000, RN, true, false))
	require.Equal(t, uint32(0), Mul32(0x3f7fffff, 0x00800000, RP, true, false), "exact 2^-126 - 2^-150 is tiny")
	require.Equal(t, minNrm32, Mul32(0x3f7fffff, 0x00800000, RP, false, false))
}

func TestSqrt32Table(t *testing.T) {
	cases := []struct {
		a    uint32
		r    Round
		ftz  bool
		want uint32
	}{
		{fb(4), RN, false, fb(2)},
		{fb(4), RP, false, fb(2)},
		{fb(2), RN, false, 0x3fb504f3},
		{fb(2), RZ, false, 0x3fb504f3},
		{fb(2), RM, false, 0x3fb504f3},
		{fb(2), RP, false, 0x3fb504f4},
		{nz32, RN, false, nz32},
		{nz32, RP, false, nz32},
		{0, RM, false, 0},
		{fb(-1), RN, false, CanonNaN32},
		{fb(-1), RZ, false, CanonNaN32},
		{ninf32, RN, false, CanonNaN32},
		{inf32, RZ, false, inf32},
		{qnan32, RN, false, CanonNaN32},
		{minSub32, RN, false, fb(float32(math.Sqrt(0x1p-149)))},
		{minSub32, RN, true, 0},
		{minSub32 | sign32, RN, false, CanonNaN32},
		{minSub32 | sign32, RN, true, nz32},
		{max32, RP, false, 0x5f800000},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, Sqrt32(c.a, c.r, c.ftz), "Sqrt32 %08x/%v/ftz=%v", c.a, c.r, c.ftz)
	}
}

func TestMinMax32(t *testing.T) {
	one, two := fb(1), fb(2)
	type mm struct {
		a, b             uint32
		ftz, nan, xorAbs bool
		min, max         uint32
	}
	cases := []mm{
		{one, two, false, false, false, one, two},
		{two, one, false, false, false, one, two},
		{qnan32, two, false, false, false, two, two},
		{two, snan32, false, false, false, two, two},
		{qnan32, snan32, false, false, false, CanonNaN32, CanonNaN32},
		{nz32, 0, false, false, false, nz32, 0},
		{0, nz32, false, false, false, nz32, 0},
		{ninf32, inf32, false, false, false, ninf32, inf32},
		// .NaN
		{qnan32, two, false, true, false, CanonNaN32, CanonNaN32},
		{one, 0xffc00000, false, true, false, CanonNaN32, CanonNaN32},
		{one, two, false, true, false, one, two},
		// .xorsign.abs: |min|/|max| with sign(a)^sign(b)
		{fb(-3), two, false, false, true, fb(-2), fb(-3)},
		{fb(-3), fb(-2), false, false, true, two, fb(3)},
		{qnan32, fb(-2), false, false, true, fb(-2), fb(-2)}, // NaN sign bit 0 xor 1
		{qnan32, qnan32, false, false, true, CanonNaN32, CanonNaN32},
		{qnan32, two, false, true, true, CanonNaN32, CanonNaN32},
		// .ftz: subnormals compare as signed zeros
		{5, minSub32 | sign32, true, false, false, nz32, 0},
		{5, minSub32 | sign32, false, false, false, minSub32 | sign32, 5},
		{5, 3, true, false, false, 0, 0},
	}
	for _, c := range cases {
		require.Equalf(t, c.min, Min32(c.a, c.b, c.ftz, c.nan, c.xorAbs), "Min32 %+v", c)
		require.Equalf(t, c.max, Max32(c.a, c.b, c.ftz, c.nan, c.xorAbs), "Max32 %+v", c)
	}
}

func TestAbsNegCopysignSat32(t *testing.T) {
	require.Equal(t, fb(1), Abs32(fb(-1), false))
	require.Equal(t, uint32(0), Abs32(nz32, false))
	require.Equal(t, CanonNaN32, Abs32(0xffc00001, false))
	require.Equal(t, uint32(5), Abs32(5|sign32, false))
	require.Equal(t, uint32(0), Abs32(5|sign32, true))
	require.Equal(t, inf32, Abs32(ninf32, false))

	require.Equal(t, nz32, Neg32(0, false))
	require.Equal(t, uint32(0), Neg32(nz32, false))
	require.Equal(t, CanonNaN32, Neg32(qnan32, false))
	require.Equal(t, 5|sign32, Neg32(5, false))
	require.Equal(t, nz32, Neg32(5, true))
	require.Equal(t, ninf32, Neg32(inf32, true))

	require.Equal(t, fb(-2), Copysign32(fb(-1), fb(2)))
	require.Equal(t, fb(2), Copysign32(fb(1), fb(-2)))
	require.Equal(t, uint32(0x7fc00000), Copysign32(fb(1), 0xffc00000)) // bit operation: NaN kept
	require.Equal(t, ninf32, Copysign32(nz32, inf32))

	for _, c := range []struct{ in, want uint32 }{
		{qnan32, 0}, {nz32, 0}, {fb(-1), 0}, {ninf32, 0}, {fb(2), fb(1)}, {inf32, fb(1)},
		{fb(0.5), fb(0.5)}, {fb(1), fb(1)}, {0, 0}, {minSub32, minSub32},
	} {
		require.Equalf(t, c.want, Sat32(c.in), "Sat32(%08x)", c.in)
	}
}

func TestTestp32(t *testing.T) {
	type row struct {
		x                                   uint32
		fin, inf, num, nan, normal, subnorm bool
	}
	for _, c := range []row{
		{0, true, false, true, false, true, false},
		{nz32, true, false, true, false, true, false},
		{minSub32, true, false, true, false, false, true},
		{0x807fffff, true, false, true, false, false, true},
		{minNrm32, true, false, true, false, true, false},
		{fb(-1), true, false, true, false, true, false},
		{max32, true, false, true, false, true, false},
		{inf32, false, true, true, false, false, false},
		{ninf32, false, true, true, false, false, false},
		{qnan32, false, false, false, true, false, false},
		{snan32 | sign32, false, false, false, true, false, false},
	} {
		got := []bool{Testp32(c.x, TestFinite), Testp32(c.x, TestInfinite), Testp32(c.x, TestNumber),
			Testp32(c.x, TestNotANumber), Testp32(c.x, TestNormal), Testp32(c.x, TestSubnormal)}
		require.Equalf(t, []bool{c.fin, c.inf, c.num, c.nan, c.normal, c.subnorm}, got, "Testp32(%08x)", c.x)
	}
}

// refSat32 is the reference .sat on an f32 pattern.
func refSat32(z uint32) uint32 {
	switch {
	case z&sign32 != 0:
		return 0
	case z > one32:
		return one32
	}
	return z
}

// TestF32Random compares add, sub, mul, fma, div and sqrt in every rounding
// mode, with and without .ftz and .sat, against the exact reference.
func TestF32Random(t *testing.T) {
	g := newGen(1)
	n := iters(t, 6000)
	for _, r := range allRounds {
		for _, ftz := range []bool{false, true} {
			for i := 0; i < n; i++ {
				sat := g.r.IntN(8) == 0
				a := uint32(g.val(tF32))
				b := uint32(g.near(tF32, uint64(a)))
				c := uint32(g.val(tF32))
				if g.r.IntN(3) == 0 { // c cancelling a*b
					p := fb(f32(a) * f32(b))
					if !isSpec32(p) {
						c = uint32(g.near(tF32, uint64(p^sign32)))
					}
				}
				ctx := lazy(func() string { return fmt.Sprintf("a=%08x b=%08x c=%08x r=%v ftz=%v sat=%v", a, b, c, r, ftz, sat) })
				fin := func(z uint64) uint32 {
					if sat {
						return refSat32(uint32(z))
					}
					return uint32(z)
				}
				eq(t, fin(refAdd(uint64(a), uint64(b), tF32, r, ftz)), Add32(a, b, r, ftz, sat), "add %s", ctx)
				eq(t, fin(refAdd(uint64(a), uint64(b^sign32), tF32, r, ftz)), Sub32(a, b, r, ftz, sat), "sub %s", ctx)
				eq(t, fin(refMul(uint64(a), uint64(b), tF32, r, ftz)), Mul32(a, b, r, ftz, sat), "mul %s", ctx)
				eq(t, fin(refFma(uint64(a), uint64(b), uint64(c), tF32, r, ftz)), Fma32(a, b, c, r, ftz, sat), "fma %s", ctx)
				bb := b
				if ftz {
					bb = Flush32(b)
				}
				if bb<<1 != 0 {
					eq(t, uint32(refDiv(uint64(a), uint64(b), tF32, r, ftz)), Div32(a, b, r, ftz), "div %s", ctx)
				}
				eq(t, uint32(refSqrt(uint64(a&^sign32), tF32, r, ftz)), Sqrt32(a&^sign32, r, ftz), "sqrt %s", ctx)
			}
		}
	}
}
