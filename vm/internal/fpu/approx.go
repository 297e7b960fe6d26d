package fpu

import "math"

// Approximate instructions, computed. The GPU evaluates these in its
// special-function unit (MUFU) with table-driven approximations that are not
// public; package sfu reproduces them bit for bit from tables recorded on
// the GPU, and the VM uses it first. The functions here are the fallback
// when those tables are not available: each is evaluated accurately in
// float64 and rounded once to nearest, which stays inside every bound the
// ISA states (see ApproxBounds), and reproduces exactly what the ISA does
// specify: the special-value tables, .ftz, exact cases (ex2 of an integer,
// lg2 of a power of two), the operand reduction of sin/cos, and the
// a*(1/b) structure of div.approx.

// ApproxBound is one documented accuracy bound of an approximate instruction.
type ApproxBound struct {
	Instr   string  // PTX instruction form
	Measure string  // "ulp", "abs" (absolute error) or "rel" (relative error)
	Bound   float64 // the bound: ulps, or an absolute/relative error
	Domain  string  // where the bound holds
	Source  string  // PTX ISA 9.x section
	Impl    string  // how this package computes it
}

// ApproxBounds lists the bounds the PTX ISA states for the approximate
// instructions this package implements, and how each is computed here.
// Tests check every function against its row.
func ApproxBounds() []ApproxBound {
	const cr = "float64 evaluation, rounded once to nearest"
	const lg2Impl = "float64 log2, magnitude reduced by 2^-26 relative below 1, truncated (fitted to the GPU)"
	return []ApproxBound{
		{"rcp.approx{.ftz}.f32", "ulp", 1, "full range", "9.7.3.13", cr + " (correctly rounded)"},
		{"div.approx{.ftz}.f32", "ulp", 2, "|b| in [2^-126, 2^126]", "9.7.3.8",
			"a * rcp(b), rcp rounded to nearest and flushed to zero when subnormal (ISA: |b| > 2^126 gives ±0, or NaN for infinite a)"},
		{"div.full{.ftz}.f32", "ulp", 2, "full range", "9.7.3.8", "IEEE division, rounded to nearest"},
		{"sqrt.approx{.ftz}.f32", "rel", math.Exp2(-23), "positive finite range", "9.7.3.15", "IEEE sqrt, rounded to nearest"},
		{"rsqrt.approx{.ftz}.f32", "rel", math.Exp2(-22.9), "positive finite range", "9.7.3.16", cr},
		{"rsqrt.approx.f64", "rel", 0, "not stated (emulated in software)", "9.7.3.16", "float64 1/sqrt with one Newton correction"},
		{"rcp.approx.ftz.f64", "rel", 0, "not stated (\"gross approximation\", 20-bit mantissa)", "9.7.3.14",
			"1/x of the upper word, truncated to 20 fraction bits"},
		{"rsqrt.approx.ftz.f64", "rel", 0, "not stated (20-bit mantissa)", "9.7.3.17",
			"1/sqrt(x) of the upper word, truncated to 20 fraction bits"},
		{"sin.approx{.ftz}.f32", "abs", math.Exp2(-20.5), "[-2pi, 2pi]", "9.7.3.18",
			"t = mul.rz.f32(a, 1/2pi as f32), fraction truncated to 2^-25 revolutions, then sin(2pi*t) in float64 (best effort outside [-100pi, 100pi])"},
		{"sin.approx{.ftz}.f32", "abs", math.Exp2(-14.7), "[-100pi, 100pi]", "9.7.3.18", "as above"},
		{"cos.approx{.ftz}.f32", "abs", math.Exp2(-20.5), "[-2pi, 2pi]", "9.7.3.19", "as sin, of 1/4 - |t| revolutions"},
		{"cos.approx{.ftz}.f32", "abs", math.Exp2(-14.7), "[-100pi, 100pi]", "9.7.3.19", "as sin, of 1/4 - |t| revolutions"},
		{"lg2.approx{.ftz}.f32", "abs", math.Exp2(-22), "input in (0.5, 2)", "9.7.3.20", lg2Impl},
		{"lg2.approx{.ftz}.f32", "rel", math.Exp2(-22), "other positive finite inputs", "9.7.3.20", lg2Impl},
		{"ex2.approx{.ftz}.f32", "ulp", 2, "full range", "9.7.3.21", cr + "; integers exact"},
		{"tanh.approx.f32", "rel", math.Exp2(-11), "full range", "9.7.3.22", cr},
		{"ex2.approx.f16", "rel", math.Exp2(-9.9), "full range", "9.7.4.10", cr},
		{"ex2.approx.ftz.bf16", "rel", math.Exp2(-7), "full range", "9.7.4.10", cr},
		{"tanh.approx.f16", "abs", math.Exp2(-10.987), "full range", "9.7.4.9", cr},
		{"tanh.approx.bf16", "abs", math.Exp2(-8), "full range", "9.7.4.9", cr},
	}
}

// rn32 rounds a float64 to the nearest f32 (gradual underflow, overflow to
// inf), then applies .ftz.
func rn32(y float64, ftz bool) uint32 {
	z := uint32(fromF64(y, F32, RN))
	if ftz {
		z = Flush32(z)
	}
	return z
}

// RcpApprox32 is rcp.approx{.ftz}.f32: 1/a rounded to nearest (max error
// 1 ulp per the ISA; 0.5 here). ±0 → ±inf, ±inf → ±0, NaN → NaN.
func RcpApprox32(a uint32, ftz bool) uint32 { return Div32(one32, a, RN, ftz) }

// DivApprox32 is div.approx{.ftz}.f32, computed as the ISA describes it:
// d = a * (1/b), where the reciprocal is rounded to nearest and, like the
// hardware reciprocal, flushed to zero when subnormal. So for
// 2^126 < |b| < 2^128 the result is a sign-preserving zero, or NaN when a
// is infinite, exactly as the ISA states (div_approx_f32: 1.5 / 0x7f7fffff
// gives +0, inf / 0x7f7fffff gives NaN).
//
// Without .ftz a subnormal b is handled by scaling both operands by 2^24
// first, as the GPU's code does: denormal/denormal gives 1, 2^-126/2^-149
// gives 2^23, 0/2^-149 gives 0 (div_approx_f32 vectors 87-100), where the
// plain a * (1/b) would give inf or NaN. With .ftz b is flushed to zero
// (0/denormal gives NaN: div_approx_ftz_f32).
func DivApprox32(a, b uint32, ftz bool) uint32 {
	if ftz {
		a, b = Flush32(a), Flush32(b)
	} else if b&0x7f800000 == 0 && b<<1 != 0 {
		const scale = 0x4b800000 // 2^24
		a = Mul32(a, scale, RN, false, false)
		b = Mul32(b, scale, RN, false, false)
	}
	rcp := Flush32(Div32(one32, b, RN, false))
	return Mul32(a, rcp, RN, ftz, false)
}

// DivFull32 is div.full{.ftz}.f32: correctly rounded here (ISA: 2 ulp).
func DivFull32(a, b uint32, ftz bool) uint32 { return Div32(a, b, RN, ftz) }

// SqrtApprox32 is sqrt.approx{.ftz}.f32: correctly rounded here (ISA:
// relative error 2^-23). sqrt(-0) = -0, negative → NaN.
func SqrtApprox32(a uint32, ftz bool) uint32 { return Sqrt32(a, RN, ftz) }

// RsqrtApprox32 is rsqrt.approx{.ftz}.f32. Table (ISA 9.7.3.16): -inf → NaN,
// -normal → NaN, -0 → -inf, +0 → +inf, +inf → +0, NaN → NaN.
func RsqrtApprox32(a uint32, ftz bool) uint32 {
	if ftz {
		a = Flush32(a)
	}
	switch {
	case isNaN32(a):
		return nan32()
	case a<<1 == 0:
		return a&sign32 | 0x7f800000
	case a&sign32 != 0:
		return nan32()
	case isInf32(a):
		return 0
	}
	return rn32(1/math.Sqrt(f32d(a)), ftz)
}

// twoPiInv32 is 1/(2π) rounded to f32, the constant ptxas multiplies the
// operand of sin/cos by (FMUL.RZ) before the MUFU.SIN/COS that works in
// revolutions. Modelling that step reproduces the ISA's error bounds
// exactly: the operand error it introduces is what makes the bound grow from
// 2^-20.5 on [-2π, 2π] to 2^-14.7 on [-100π, 100π].
const twoPiInv32 = 0x3e22f983

// revolutions returns a reduced to revolutions as the hardware does, as the
// fractional part in [-0.5, 0.5] of the f32 product.
func revolutions(a uint32, ftz bool) float64 {
	t := f32d(Mul32(a, twoPiInv32, RZ, ftz, false))
	return t - math.RoundToEven(t) // exact
}

// sinQuantum is the resolution, in revolutions, at which sin.approx sees
// its reduced operand: the GPU truncates it to a multiple of 2^-25, so
// |a| < 2π·2^-25 (about 1.87e-7) gives ±0 and small operands come out
// slightly below a (sin_approx_f32: 1.788e-7 → 0, 6.1035156e-5 →
// 6.0859929e-5, 9.1552734e-5 → 9.1383525e-5). Modelling it makes 67 of the
// 256 sin_approx_f32 vectors bit-exact instead of 49 (cos.approx: see
// CosApprox32).
const sinQuantum = 0x1p-25

// SinApprox32 is sin.approx{.ftz}.f32. Table: ±inf → NaN, ±0 → ±0, NaN → NaN.
func SinApprox32(a uint32, ftz bool) uint32 {
	if ftz {
		a = Flush32(a)
	}
	switch {
	case isSpec32(a):
		return nan32()
	case a<<1 == 0:
		return a
	}
	f := revolutions(a, ftz)
	f = math.Trunc(f/sinQuantum) * sinQuantum // exact; keeps the sign of a zero
	if f == 0 {
		// The reduced operand vanished: a tiny a keeps its sign (the GPU
		// gives -0 for -1.1754942e-38 and -5.9604645e-08); an exact
		// multiple of a revolution gives +0.
		if math.Abs(f32d(a)) < 1 {
			return a & sign32
		}
		return 0
	}
	return rn32(math.Sin(2*math.Pi*f), ftz)
}

// CosApprox32 is cos.approx{.ftz}.f32. Table: ±inf → NaN, ±0 → +1, NaN → NaN.
// It is evaluated as the GPU appears to: the sine of the complement
// 1/4 - |f| of the reduced operand, truncated to the sine's resolution
// (sinQuantum), so cos of the f32 nearest π/2 is exactly +0 as on the GPU
// (sfu_asm), where cos(2π·f) would give 9.4e-8.
func CosApprox32(a uint32, ftz bool) uint32 {
	if ftz {
		a = Flush32(a)
	}
	if isSpec32(a) {
		return nan32()
	}
	g := 0.25 - math.Abs(revolutions(a, ftz)) // exact
	g = math.Trunc(g/sinQuantum) * sinQuantum
	return rn32(math.Sin(2*math.Pi*g), ftz)
}

// Lg2Approx32 is lg2.approx{.ftz}.f32. Table: -inf → NaN, -normal → NaN,
// ±0 → -inf, +inf → +inf, NaN → NaN.
//
// The GPU's results are fitted by a truncated log2 (rounded toward zero),
// whose magnitude is first reduced by 2^-26 relative when x < 1, with a
// subnormal x (without .ftz) taken as lg2(x·2^24) - 24 in f32: that is
// exact for 2^n, n >= 0, and for subnormal powers of two, one ulp toward
// zero for other normal 2^-n (0.25 → -1.9999999, 0.125 → -2.9999998, as
// on the GPU), and bit-exact with the GPU on 955 of the 1204 positive
// normal inputs of lg2_approx_f32 and sfu_asm (rounding to nearest: 582).
func Lg2Approx32(a uint32, ftz bool) uint32 {
	if ftz {
		a = Flush32(a)
	}
	switch {
	case isNaN32(a):
		return nan32()
	case a<<1 == 0:
		return 0xff800000
	case a&sign32 != 0:
		return nan32()
	case isInf32(a):
		return a
	case a&0x7f800000 == 0: // subnormal, no .ftz
		const m24 = 0xc1c00000 // -24
		return Add32(lg2Normal(f32d(a)*0x1p24), m24, RN, false, false)
	}
	return lg2Normal(f32d(a))
}

// lg2Normal is the lg2.approx model for a positive normal f32 value x.
func lg2Normal(x float64) uint32 {
	y := math.Log2(x)
	if x < 1 {
		y -= y * 0x1p-26
	}
	return uint32(fromF64(y, F32, RZ))
}

// Ex2Approx32 is ex2.approx{.ftz}.f32. Table: -inf → +0, ±0 → +1,
// +inf → +inf, NaN → NaN. Exact for integer inputs.
func Ex2Approx32(a uint32, ftz bool) uint32 {
	if ftz {
		a = Flush32(a)
	}
	switch {
	case isNaN32(a):
		return nan32()
	case a == 0xff800000:
		return 0
	}
	x := f32d(a)
	if x == math.Trunc(x) && math.Abs(x) < 1024 {
		return rn32(math.Ldexp(1, int(x)), ftz)
	}
	return rn32(math.Exp2(x), ftz)
}

// TanhApprox32 is tanh.approx.f32. Table: ±inf → ±1, ±0 → ±0, NaN → NaN;
// subnormal inputs pass through (ISA 9.7.3.22).
func TanhApprox32(a uint32) uint32 {
	switch {
	case isNaN32(a):
		return nan32()
	case a&0x7f800000 == 0:
		return a
	}
	return rn32(math.Tanh(f32d(a)), false)
}

// RsqrtApprox64 is rsqrt.approx.f64 (subnormals supported). Same special
// table as RsqrtApprox32; NaN inputs propagate (double-precision payloads).
func RsqrtApprox64(a uint64) uint64 {
	switch {
	case isNaN64(a):
		return nanUnary64(a)
	case a<<1 == 0:
		return a&sign64 | 0x7ff0000000000000
	case a&sign64 != 0:
		return CanonNaN64
	case isInf64(a):
		return 0
	}
	// Scale x by an even power of two so that y² stays normal, then undo
	// it exactly on the (always normal) result.
	x, scale := f64(a), 1.0
	switch {
	case x < 0x1p-500:
		x, scale = x*0x1p600, 0x1p300
	case x > 0x1p500:
		x, scale = x*0x1p-600, 0x1p-300
	}
	y := 1 / math.Sqrt(x)
	// One Newton step with an exact y² residual: y += y(1 - x y²)/2.
	yy := y * y
	yye := math.FMA(y, y, -yy)
	res := math.FMA(-x, yy, 1) - x*yye
	return b64(math.FMA(y*0.5, res, y) * scale)
}

// hi20 rounds a positive or negative finite nonzero float64 to the 1.11.20
// format, toward zero, flushes a subnormal result to zero, and returns it
// as an f64 pattern whose low 32 bits are zero. Truncation is what the GPU's
// MUFU.RCP64H/RSQ64H results look like: of the conformance vectors with a
// finite nonzero result, 222 of 233 (rcp.approx.ftz.f64) and 165 of 176
// (rsqrt.approx.ftz.f64) equal the truncated exact value, against 153 and
// 132 for rounding to nearest; the GPU value lies within [-0.93, +0.08]
// units of the 20th fraction bit from the exact one.
func hi20(y float64) uint64 {
	z := fromF64Fmt(y, &fmtF64Hi20) << 32
	if z&0x7ff0000000000000 == 0 {
		z &= sign64
	}
	return z
}

func fromF64Fmt(y float64, f *format) uint64 {
	if math.IsInf(y, 0) {
		z := f.inf
		if y < 0 {
			z |= 1 << f.sign
		}
		return z
	}
	return roundF64(y, 0, f, RZ)
}

// upperWord is the value of a[63:32] read as a 1.11.20 number, with a
// subnormal upper word flushed to a signed zero.
func upperWord(a uint64) uint64 {
	hi := a &^ (1<<32 - 1)
	if hi&0x7ff0000000000000 == 0 {
		hi &= sign64
	}
	return hi
}

// RcpApproxFtz64 is rcp.approx.ftz.f64 (ISA 9.7.3.14): the reciprocal of the
// upper 32 bits of a (a 1.11.20 number; the low word is ignored), to 20
// fraction bits, in the upper word of d; the low word of d is zero.
// Table: ±inf → ±0, ±subnormal and ±0 → ±inf, NaN → 0x7fffffff00000000.
func RcpApproxFtz64(a uint64) uint64 {
	hi := upperWord(a)
	switch {
	case isNaN64(hi):
		return CanonNaN64Hi
	case hi<<1 == 0:
		return hi | 0x7ff0000000000000
	case isInf64(hi):
		return hi & sign64
	}
	return hi20(1 / f64(hi))
}

// RsqrtApproxFtz64 is rsqrt.approx.ftz.f64 (ISA 9.7.3.17), on the upper word
// like RcpApproxFtz64. Table: -inf → NaN, ±subnormal and ±0 → ±inf,
// +inf → +0, NaN → 0x7fffffff00000000; negative normal → NaN.
func RsqrtApproxFtz64(a uint64) uint64 {
	hi := upperWord(a)
	switch {
	case isNaN64(hi):
		return CanonNaN64Hi
	case hi<<1 == 0:
		return hi | 0x7ff0000000000000
	case hi&sign64 != 0:
		return CanonNaN64Hi
	case isInf64(hi):
		return 0
	}
	return hi20(1 / math.Sqrt(f64(hi)))
}

// Ex2Approx16 is ex2.approx.f16 (subnormal inputs supported). Table:
// -inf → +0, ±0 → +1, +inf → +inf, NaN → NaN.
func Ex2Approx16(a uint16) uint16 {
	if isNaN16(a) {
		return nan16()
	}
	return uint16(fromF64(math.Exp2(f16ToF64(a)), F16, RN))
}

// Ex2ApproxBF16 is ex2.approx.ftz.bf16: subnormal inputs and results are
// flushed (so ±subnormal → +1). Table as Ex2Approx16.
func Ex2ApproxBF16(a uint16) uint16 {
	if isNaNBF(a) {
		return nanBF16()
	}
	a = FlushBF16(a)
	return FlushBF16(uint16(fromF64(math.Exp2(bf16ToF64(a)), BF16, RN)))
}

// TanhApprox16 is tanh.approx.f16. Table: ±inf → ±1, ±0 → ±0, NaN → NaN.
func TanhApprox16(a uint16) uint16 {
	if isNaN16(a) {
		return nan16()
	}
	return uint16(fromF64(math.Tanh(f16ToF64(a)), F16, RN))
}

// TanhApproxBF16 is tanh.approx.bf16.
func TanhApproxBF16(a uint16) uint16 {
	if isNaNBF(a) {
		return nanBF16()
	}
	return uint16(fromF64(math.Tanh(bf16ToF64(a)), BF16, RN))
}
