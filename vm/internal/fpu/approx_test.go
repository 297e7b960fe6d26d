package fpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestApproxSpecialValues(t *testing.T) {
	one := fb(1)
	sub := uint32(0x00000005)
	type row struct {
		name string
		got  uint32
		want uint32
	}
	rows := []row{
		// rcp.approx (9.7.3.13)
		{"rcp -inf", RcpApprox32(ninf32, false), nz32},
		{"rcp -0", RcpApprox32(nz32, false), ninf32},
		{"rcp +0", RcpApprox32(0, false), inf32},
		{"rcp +inf", RcpApprox32(inf32, false), 0},
		{"rcp nan", RcpApprox32(qnan32, false), CanonNaN32},
		{"rcp sub ftz", RcpApprox32(sub, true), inf32},
		{"rcp 2^127 ftz", RcpApprox32(0x7f000000, true), 0},
		{"rcp 2^127", RcpApprox32(0x7f000000, false), 0x00400000},
		// sqrt.approx (9.7.3.15)
		{"sqrt -inf", SqrtApprox32(ninf32, false), CanonNaN32},
		{"sqrt -1", SqrtApprox32(fb(-1), false), CanonNaN32},
		{"sqrt -0", SqrtApprox32(nz32, false), nz32},
		{"sqrt +0", SqrtApprox32(0, false), 0},
		{"sqrt +inf", SqrtApprox32(inf32, false), inf32},
		{"sqrt nan", SqrtApprox32(qnan32, false), CanonNaN32},
		{"sqrt -sub ftz", SqrtApprox32(sub|sign32, true), nz32},
		// rsqrt.approx (9.7.3.16)
		{"rsqrt -inf", RsqrtApprox32(ninf32, false), CanonNaN32},
		{"rsqrt -1", RsqrtApprox32(fb(-1), false), CanonNaN32},
		{"rsqrt -0", RsqrtApprox32(nz32, false), ninf32},
		{"rsqrt +0", RsqrtApprox32(0, false), inf32},
		{"rsqrt +inf", RsqrtApprox32(inf32, false), 0},
		{"rsqrt nan", RsqrtApprox32(qnan32, false), CanonNaN32},
		{"rsqrt 4", RsqrtApprox32(fb(4), false), fb(0.5)},
		{"rsqrt -sub", RsqrtApprox32(sub|sign32, false), CanonNaN32},
		{"rsqrt -sub ftz", RsqrtApprox32(sub|sign32, true), ninf32},
		// sin/cos (9.7.3.18-19)
		{"sin -inf", SinApprox32(ninf32, false), CanonNaN32},
		{"sin -0", SinApprox32(nz32, false), nz32},
		{"sin +0", SinApprox32(0, false), 0},
		{"sin +inf", SinApprox32(inf32, false), CanonNaN32},
		{"sin nan", SinApprox32(qnan32, false), CanonNaN32},
		{"sin -sub ftz", SinApprox32(sub|sign32, true), nz32},
		{"sin -minsub", SinApprox32(minSub32|sign32, false), nz32},
		{"cos -inf", CosApprox32(ninf32, false), CanonNaN32},
		{"cos -0", CosApprox32(nz32, false), one},
		{"cos +0", CosApprox32(0, false), one},
		{"cos +inf", CosApprox32(inf32, false), CanonNaN32},
		{"cos nan", CosApprox32(qnan32, false), CanonNaN32},
		// lg2 (9.7.3.20)
		{"lg2 -inf", Lg2Approx32(ninf32, false), CanonNaN32},
		{"lg2 -1", Lg2Approx32(fb(-1), false), CanonNaN32},
		{"lg2 -0", Lg2Approx32(nz32, false), ninf32},
		{"lg2 +0", Lg2Approx32(0, false), ninf32},
		{"lg2 +inf", Lg2Approx32(inf32, false), inf32},
		{"lg2 nan", Lg2Approx32(qnan32, false), CanonNaN32},
		{"lg2 1", Lg2Approx32(one, false), 0},
		{"lg2 minsub", Lg2Approx32(minSub32, false), fb(-149)},
		{"lg2 sub ftz", Lg2Approx32(sub, true), ninf32},
		{"lg2 -sub", Lg2Approx32(sub|sign32, false), CanonNaN32},
		// ex2 (9.7.3.21)
		{"ex2 -inf", Ex2Approx32(ninf32, false), 0},
		{"ex2 -0", Ex2Approx32(nz32, false), one},
		{"ex2 +0", Ex2Approx32(0, false), one},
		{"ex2 +inf", Ex2Approx32(inf32, false), inf32},
		{"ex2 nan", Ex2Approx32(qnan32, false), CanonNaN32},
		{"ex2 sub", Ex2Approx32(sub, false), one},
		{"ex2 128", Ex2Approx32(fb(128), false), inf32},
		{"ex2 -149", Ex2Approx32(fb(-149), false), minSub32},
		{"ex2 -149 ftz", Ex2Approx32(fb(-149), true), 0},
		{"ex2 -150", Ex2Approx32(fb(-150), false), 0},
		{"ex2 -0.5", Ex2Approx32(fb(-0.5), false), fb(float32(math.Sqrt2 / 2))},
		// tanh (9.7.3.22)
		{"tanh -inf", TanhApprox32(ninf32), fb(-1)},
		{"tanh -0", TanhApprox32(nz32), nz32},
		{"tanh +0", TanhApprox32(0), 0},
		{"tanh +inf", TanhApprox32(inf32), one},
		{"tanh nan", TanhApprox32(qnan32), CanonNaN32},
		{"tanh sub passes", TanhApprox32(sub | sign32), sub | sign32},
		// div.approx (9.7.3.8): |b| > 2^126 gives ±0, or NaN for infinite a
		{"div.approx 2^127", DivApprox32(one, 0x7f000000, false), 0},
		{"div.approx -2^127", DivApprox32(one, 0xff000000, false), nz32},
		{"div.approx max", DivApprox32(fb(-3), max32, false), nz32},
		{"div.approx inf/2^127", DivApprox32(inf32, 0x7f000000, false), CanonNaN32},
		{"div.approx 1/0", DivApprox32(one, 0, false), inf32},
		{"div.approx 0/0", DivApprox32(0, 0, false), CanonNaN32},
		{"div.approx 6/3", DivApprox32(fb(6), fb(3), false), fb(2)},
		{"div.approx sub ftz", DivApprox32(sub, one, true), 0},
		// subnormal divisor without .ftz: scaled, not a*inf (div_approx_f32)
		{"div.approx 0/minsub", DivApprox32(0, 1, false), 0},
		{"div.approx -0/minsub", DivApprox32(nz32, 1, false), nz32},
		{"div.approx minsub/minsub", DivApprox32(1, 1, false), one},
		{"div.approx minnorm/minsub", DivApprox32(0x00800000, 1, false), 0x4b000000},
		{"div.approx -minnorm/minsub", DivApprox32(0x80800000, 1, false), 0xcb000000},
		{"div.approx 2^-24/minsub", DivApprox32(0x33800000, 1, false), 0x7e000000},
		{"div.approx 1/minsub", DivApprox32(one, 1, false), inf32},
		{"div.approx 0/minsub ftz", DivApprox32(0, 1, true), CanonNaN32},
		{"div.approx minnorm/-maxsub ftz", DivApprox32(0x00800000, 0x807fffff, true), 0xff800000},
		// sin.approx sees its operand in units of 2^-25 revolutions
		{"sin tiny", SinApprox32(0x34400000, false), 0},
		{"sin -tiny", SinApprox32(0x807fffff, false), nz32},
		{"sin 2^-14", SinApprox32(0x38800000, false), 0x387f4121}, // GPU: 0x387f43da
		{"cos pi/2", CosApprox32(0x3fc90fdb, false), 0},           // sfu_asm
		{"div.full 1/3", DivFull32(one, fb(3), false), 0x3eaaaaab},
		{"div.full 1/2^127", DivFull32(one, 0x7f000000, false), 0x00400000},
		{"div.full 1/2^127 ftz", DivFull32(one, 0x7f000000, true), 0},
	}
	for _, c := range rows {
		require.Equalf(t, c.want, c.got, "%s: got %08x want %08x", c.name, c.got, c.want)
	}
}

func TestApproxF64(t *testing.T) {
	// rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: upper word only, low word 0.
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"rcp -inf", RcpApproxFtz64(ninf64), nz64},
		{"rcp -sub", RcpApproxFtz64(0x800fffff00000000), ninf64},
		{"rcp -0", RcpApproxFtz64(nz64), ninf64},
		{"rcp +0", RcpApproxFtz64(0), inf64},
		{"rcp +sub", RcpApproxFtz64(0x0000000100000000), inf64},
		{"rcp +inf", RcpApproxFtz64(inf64), 0},
		{"rcp nan", RcpApproxFtz64(qnan64), CanonNaN64Hi},
		{"rcp 2", RcpApproxFtz64(db(2)), db(0.5)},
		{"rcp low word ignored", RcpApproxFtz64(db(2) | 0xffffffff), db(0.5)},
		{"rcp 3", RcpApproxFtz64(db(3)), 0x3fd5555500000000},
		{"rcp huge → flushed", RcpApproxFtz64(db(0x1p1023)), 0},
		{"rsqrt -inf", RsqrtApproxFtz64(ninf64), CanonNaN64Hi},
		{"rsqrt -sub", RsqrtApproxFtz64(0x8000000100000000), ninf64},
		{"rsqrt -0", RsqrtApproxFtz64(nz64), ninf64},
		{"rsqrt +0", RsqrtApproxFtz64(0), inf64},
		{"rsqrt +inf", RsqrtApproxFtz64(inf64), 0},
		{"rsqrt nan", RsqrtApproxFtz64(0x7ff0000100000000), CanonNaN64Hi},
		// a NaN whose payload is only in the ignored low word reads as +inf
		{"rsqrt low-word nan", RsqrtApproxFtz64(snan64), 0},
		{"rcp low-word nan", RcpApproxFtz64(snan64 | sign64), nz64},
		{"rsqrt -4", RsqrtApproxFtz64(db(-4)), CanonNaN64Hi},
		{"rsqrt 4", RsqrtApproxFtz64(db(4)), db(0.5)},
		{"rsqrt.f64 -0", RsqrtApprox64(nz64), ninf64},
		{"rsqrt.f64 +inf", RsqrtApprox64(inf64), 0},
		{"rsqrt.f64 -1", RsqrtApprox64(db(-1)), CanonNaN64},
		{"rsqrt.f64 nan", RsqrtApprox64(qnan64), qnan64},
		{"rsqrt.f64 4", RsqrtApprox64(db(4)), db(0.5)},
	} {
		require.Equalf(t, c.want, c.got, "%s: got %016x want %016x", c.name, c.got, c.want)
	}
	g := newGen(11)
	for i := 0; i < iters(t, 20000); i++ {
		a := g.val(tF64) &^ sign64
		x := f64(a)
		if x == 0 {
			continue
		}
		y := f64(RsqrtApprox64(a))
		want := 1 / math.Sqrt(x)
		le(t, math.Abs(y-want)/want, 0x1p-51, "rsqrt.approx.f64(%g)", x)
		if hi := upperWord(a); hi&0x7ff0000000000000 != 0 && hi < inf64 {
			h := f64(hi)
			r := RcpApproxFtz64(a)
			require.Zero(t, r&0xffffffff)
			if 1/h >= 0x1p-1022 {
				le(t, math.Abs(f64(r)-1/h)*h, 0x1p-20, "rcp.approx.ftz.f64(%g)", h) // truncated
				le(t, math.Abs(f64(r)), 1/math.Abs(h), "rcp.approx.ftz.f64(%g) rounds toward zero", h)
			}
			s := RsqrtApproxFtz64(a)
			require.Zero(t, s&0xffffffff)
			le(t, math.Abs(f64(s)-1/math.Sqrt(h))*math.Sqrt(h), 0x1p-20, "rsqrt.approx.ftz.f64(%g)", h)
			le(t, f64(s), 1/math.Sqrt(h), "rsqrt.approx.ftz.f64(%g) rounds toward zero", h)
		}
	}
}

func TestApproxExactCases(t *testing.T) {
	for e := -149; e <= 127; e++ {
		require.Equalf(t, fb(float32(math.Ldexp(1, e))), Ex2Approx32(fb(float32(e)), false), "ex2(%d)", e)
		lg := Lg2Approx32(fb(float32(math.Ldexp(1, e))), false)
		switch {
		case e >= 0:
			require.Equalf(t, fb(float32(e)), lg, "lg2(2^%d) exact", e)
		case e >= -126 && e < -1:
			// one ulp toward zero, as on the GPU (lg2_approx_f32)
			require.Equalf(t, fb(float32(e))-1, lg, "lg2(2^%d)", e)
		}
	}
	// The GPU's values (lg2_approx_f32, sfu_asm).
	for _, c := range []struct{ a, want uint32 }{
		{0x3f000000, 0xbf7fffff}, // GPU: 0xbf7ffffe
		{0x3e800000, 0xbfffffff},
		{0x3e000000, 0xc03fffff},
		{0x00800000, 0xc2fbffff},
		{0x00000001, 0xc3150000}, // -149
		{0x00000002, 0xc3140000}, // -148
		{0x4f000000, 0x41f80000}, // 31
	} {
		require.Equalf(t, c.want, Lg2Approx32(c.a, false), "lg2(%08x)", c.a)
	}
	for e := -24; e <= 15; e++ {
		require.Equalf(t, uint16(fromF64(math.Ldexp(1, e), F16, RN)), Ex2Approx16(uint16(fromF64(float64(e), F16, RN))), "ex2.f16(%d)", e)
	}
}

// ulps is |got - exact| in units of the f32 ulp at exact.
func ulps32(got uint32, exact float64) float64 {
	e := math.Max(math.Floor(math.Log2(math.Abs(exact))), -126)
	return math.Abs(f32d(got)-exact) / math.Ldexp(1, int(e)-23)
}

// TestApproxBounds checks every function against its ApproxBounds row on
// random inputs.
func TestApproxBounds(t *testing.T) {
	bounds := ApproxBounds()
	require.NotEmpty(t, bounds)
	for _, b := range bounds {
		require.NotEmpty(t, b.Source, b.Instr)
		require.NotEmpty(t, b.Impl, b.Instr)
	}
	g := newGen(9)
	n := iters(t, 100000)
	for i := 0; i < n; i++ {
		a := uint32(g.val(tF32))
		x := f32d(a)
		ctx := lazy(func() string { return fmt.Sprintf("x=%08x (%g)", a, x) })
		// rcp: within 1 ulp (we are correctly rounded)
		if a<<1 != 0 && math.Abs(1/x) < math.MaxFloat32 {
			le(t, ulps32(RcpApprox32(a, false), 1/x), 0.5, "rcp %s", ctx)
		}
		// div.approx: 2 ulp for |b| in [2^-126, 2^126] (when the quotient is
		// a normal number), div.full: 2 ulp everywhere
		b := uint32(g.val(tF32))
		if ab := math.Abs(f32d(b)); ab >= 0x1p-126 && ab <= 0x1p126 {
			q := x / f32d(b)
			if aq := math.Abs(q); aq >= 0x1p-126 && aq < math.MaxFloat32 {
				le(t, ulps32(DivApprox32(a, b, false), q), 2.0, "div.approx %s b=%08x", ctx, b)
			}
		}
		if b<<1 != 0 {
			if q := x / f32d(b); math.Abs(q) < math.MaxFloat32 && q != 0 {
				le(t, ulps32(DivFull32(a, b, false), q), 2.0, "div.full %s b=%08x", ctx, b)
			}
		}
		if x > 0 {
			// sqrt: relative 2^-23; rsqrt: relative 2^-22.9
			s := math.Sqrt(x)
			le(t, math.Abs(f32d(SqrtApprox32(a, false))-s)/s, math.Exp2(-23), "sqrt %s", ctx)
			le(t, math.Abs(f32d(RsqrtApprox32(a, false))-1/s)*s, math.Exp2(-22.9), "rsqrt %s", ctx)
			// lg2: absolute 2^-22 in (0.5, 2), relative 2^-22 elsewhere
			l := math.Log2(x)
			got := f32d(Lg2Approx32(a, false))
			if x > 0.5 && x < 2 {
				le(t, math.Abs(got-l), math.Exp2(-22), "lg2 %s", ctx)
			} else {
				le(t, math.Abs(got-l)/math.Abs(l), math.Exp2(-22), "lg2 %s", ctx)
			}
		}
		// ex2: 2 ulp over the full range (inputs scaled into the range)
		xe := math.Mod(x, 160)
		ae := fb(float32(xe))
		if ex := math.Exp2(f32d(ae)); ex < math.MaxFloat32 && ex >= 0x1p-149 {
			le(t, ulps32(Ex2Approx32(ae, false), ex), 2.0, "ex2 %s", ctx)
		}
		// tanh: relative 2^-11
		if x != 0 {
			th := math.Tanh(x)
			le(t, math.Abs(f32d(TanhApprox32(a))-th)/math.Abs(th), math.Exp2(-11), "tanh %s", ctx)
		}
		// sin/cos: absolute 2^-20.5 on [-2pi, 2pi], 2^-14.7 on [-100pi, 100pi]
		for _, lim := range []struct{ r, e float64 }{{2 * math.Pi, -20.5}, {100 * math.Pi, -14.7}} {
			xs := math.Mod(x, lim.r)
			as := fb(float32(xs))
			xs = f32d(as)
			le(t, math.Abs(f32d(SinApprox32(as, false))-math.Sin(xs)), math.Exp2(lim.e), "sin %08x", as)
			le(t, math.Abs(f32d(CosApprox32(as, false))-math.Cos(xs)), math.Exp2(lim.e), "cos %08x", as)
		}
	}
	// f16 / bf16 ex2 (relative 2^-9.9 / 2^-7) and tanh (absolute 2^-10.987 /
	// 2^-8), exhaustively over every finite input.
	for h := 0; h < 1<<16; h++ {
		a := uint16(h)
		if !isNaN16(a) && a&0x7fff != 0x7c00 {
			x := f16ToF64(a)
			if e := math.Exp2(x); e >= 0x1p-14 && e <= 65504 {
				le(t, math.Abs(f16ToF64(Ex2Approx16(a))-e)/e, math.Exp2(-9.9), "ex2.f16 %04x", a)
			}
			le(t, math.Abs(f16ToF64(TanhApprox16(a))-math.Tanh(x)), math.Exp2(-10.987), "tanh.f16 %04x", a)
		}
		if !isNaNBF(a) && a&0x7fff != 0x7f80 {
			x := bf16ToF64(FlushBF16(a))
			if e := math.Exp2(x); e >= 0x1p-126 && e <= 0x1p127 {
				le(t, math.Abs(bf16ToF64(Ex2ApproxBF16(a))-e)/e, math.Exp2(-7), "ex2.bf16 %04x", a)
			}
			le(t, math.Abs(bf16ToF64(TanhApproxBF16(a))-math.Tanh(bf16ToF64(a))), math.Exp2(-8), "tanh.bf16 %04x", a)
		}
	}
	// ex2.approx.ftz.bf16 table (9.7.4.10)
	require.Equal(t, uint16(0), Ex2ApproxBF16(0xff80))
	require.Equal(t, b1, Ex2ApproxBF16(0x8001), "-subnormal → +1")
	require.Equal(t, b1, Ex2ApproxBF16(0x0001), "+subnormal → +1")
	require.Equal(t, b1, Ex2ApproxBF16(0x8000))
	require.Equal(t, bInf, Ex2ApproxBF16(bInf))
	require.Equal(t, CanonNaNBF16, Ex2ApproxBF16(bNaN))
	require.Equal(t, uint16(0), Ex2ApproxBF16(0xc300), "2^-128 is subnormal: flushed")
	require.Equal(t, uint16(0), Ex2Approx16(hNInf))
	require.Equal(t, h1, Ex2Approx16(hNZ))
	require.Equal(t, hInf, Ex2Approx16(hInf))
	require.Equal(t, CanonNaN16, Ex2Approx16(hNaN))
	require.Equal(t, uint16(0xbc00), TanhApprox16(hNInf))
	require.Equal(t, hNZ, TanhApprox16(hNZ))
	require.Equal(t, CanonNaN16, TanhApprox16(hNaN))
	require.Equal(t, b1, TanhApproxBF16(bInf))
	require.Equal(t, CanonNaNBF16, TanhApproxBF16(bNaN))
}

// TestSinCosReduction pins the modelled operand reduction: the operand is
// multiplied by 1/(2π) rounded to f32, with round-toward-zero, before the
// sine is taken in revolutions.
func TestSinCosReduction(t *testing.T) {
	require.Equal(t, float32(1/(2*math.Pi)), f32(twoPiInv32))
	// sin(π): the reduced operand is RZ(π·c) < 0.5, so the result is a small
	// positive number rather than sin(float32(π)) ≈ -8.7e-8.
	s := f32(SinApprox32(fb(math.Pi), false))
	require.Greater(t, s, float32(0))
	require.Less(t, s, float32(1e-6))
	// Large operands reduce through the same product (best effort).
	x := fb(1e6)
	tt := f32d(Mul32(x, twoPiInv32, RZ, false, false))
	require.Equal(t, fb(float32(math.Sin(2*math.Pi*(tt-math.RoundToEven(tt))))), SinApprox32(x, false))
}

// TestSinCosSweep checks the absolute-error bounds densely over both ranges
// the ISA states (the modelled reduction reaches about 2^-20.6 and 2^-14.74).
func TestSinCosSweep(t *testing.T) {
	n := iters(t, 400000)
	for _, lim := range []struct{ r, e float64 }{{2 * math.Pi, -20.5}, {100 * math.Pi, -14.7}} {
		for i := 0; i <= n; i++ {
			x := float32(-lim.r + 2*lim.r*float64(i)/float64(n))
			if math.Abs(float64(x)) > lim.r {
				continue
			}
			a := fb(x)
			le(t, math.Abs(f32d(SinApprox32(a, false))-math.Sin(float64(x))), math.Exp2(lim.e), "sin %08x", a)
			le(t, math.Abs(f32d(CosApprox32(a, false))-math.Cos(float64(x))), math.Exp2(lim.e), "cos %08x", a)
		}
	}
}
