package sfu

import "math"

// Reference predictions: a float64 evaluation of each function rounded to
// f32 (or to the 1.11.20 upper word of the 64H instructions). They are the
// baseline the stored residuals are relative to, so they must equal
// testdata/sfu/gen/sfuspec.py (ref_predict) bit for bit: only IEEE-exact
// operations (+ - * / sqrt, conversions, ldexp/frexp), with every product
// that feeds a sum wrapped in float64() so that the compiler cannot fuse it
// into an FMA (the Go spec allows fusion otherwise). They are close to
// correctly rounded, which only matters for the size of the files.

const (
	c2PiInv  = 0x3E22F983 // 1/(2π) rounded to f32: ptxas's sin/cos reduction constant
	canonNaN = 0x7FFFFFFF
	sign32   = 0x80000000
	one32    = 0x3F800000
	inf32    = 0x7F800000
	mask23   = 1<<23 - 1
)

var (
	exp2C = [...]float64{
		0x1.0000000000000p+0, 0x1.62e42fefa39efp-1, 0x1.ebfbdff82c58fp-3, 0x1.c6b08d704a0c0p-5,
		0x1.3b2ab6fba4e77p-7, 0x1.5d87fe78a6731p-10, 0x1.430912f86c787p-13, 0x1.ffcbfc588b0c7p-17,
		0x1.62c0223a5c824p-20, 0x1.b5253d395e7c4p-24, 0x1.e4cf5158b8ecap-28, 0x1.e8cac7351bb25p-32,
		0x1.c3bd650fc2986p-36, 0x1.816193166d0f9p-40}
	log2C = [...]float64{
		0x1.71547652b82fep+1, 0x1.ec709dc3a03fdp-1, 0x1.2776c50ef9bfep-1, 0x1.a61762a7aded9p-2,
		0x1.484b13d7c02a9p-2, 0x1.0c9a84994022dp-2, 0x1.c68f568d31760p-3, 0x1.89f3b1694cffep-3,
		0x1.5b9ac9b743f0dp-3, 0x1.3703c1f4d0ffep-3, 0x1.1964ec6fc9491p-3, 0x1.00ecd7e080215p-3,
		0x1.d8be0817f5ffep-4}
	sinC = [...]float64{
		0x1.921fb54442d18p+2, -0x1.4abbce625be53p+5, 0x1.466bc6775aae2p+6, -0x1.32d2cce62bd86p+6,
		0x1.50783487ee782p+5, -0x1.e3074fde8871fp+3, 0x1.e8f434d018d63p+1, -0x1.6fadb9f155744p-1,
		0x1.aaec32af93359p-4, -0x1.8a404211f9547p-7, 0x1.2877020d52cf0p-10}
	expm1C = [...]float64{
		0x1.0000000000000p+0, 0x1.0000000000000p-1, 0x1.5555555555555p-3, 0x1.5555555555555p-5,
		0x1.1111111111111p-7, 0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-16,
		0x1.71de3a556c734p-19, 0x1.27e4fb7789f5cp-22, 0x1.ae64567f544e4p-26, 0x1.1eed8eff8d898p-29,
		0x1.6124613a86d09p-33, 0x1.93974a8c07c9dp-37, 0x1.ae7f3e733b81fp-41, 0x1.ae7f3e733b81fp-45,
		0x1.952c77030ad4ap-49, 0x1.6827863b97d97p-53, 0x1.2f49b46814157p-57, 0x1.e542ba4020225p-62,
		0x1.71b8ef6dcf572p-66}
)

const (
	log2E    = 0x1.71547652b82fep+0
	sqrtHalf = 0x1.6a09e667f3bcdp-1
)

func f32(b uint32) float64 { return float64(math.Float32frombits(b)) }

// flush32 is .ftz: a subnormal becomes a zero of the same sign.
func flush32(b uint32) uint32 {
	if b&inf32 == 0 {
		return b & sign32
	}
	return b
}

func horner(c []float64, z float64) float64 {
	p := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		p = float64(p*z) + c[i]
	}
	return p
}

// exp2F64 is 2^x for x not NaN. It clamps x to [-200, 200] and rounds it to
// even with comparisons, not math.Max/Min/RoundToEven, and scales by an
// exact power of two, not math.Ldexp (the result is normal): the same bits,
// at a fraction of the cost in the ex2 tables' first use.
func exp2F64(x float64) float64 {
	switch {
	case x < -200:
		x = -200
	case x > 200:
		x = 200
	}
	const round = 0x1.8p52 // x + round - round is x rounded to even for |x| < 2^51
	k := float64(x+round) - round
	f := x - k
	return float64(horner(exp2C[:], f) * math.Float64frombits(uint64(int64(k)+1023)<<52))
}

func log2F64(x float64) float64 {
	m, e := math.Frexp(x)
	m *= 2
	e--
	if m > 2*sqrtHalf {
		m *= 0.5
		e++
	}
	s := (m - 1) / (m + 1)
	p := horner(log2C[:], float64(s*s))
	return float64(e) + float64(s*p)
}

func sin2piCore(a float64) float64 { return float64(a * horner(sinC[:], float64(a*a))) }

func sin2piF64(t float64) float64 {
	r := t - math.RoundToEven(t)
	a := math.Abs(r)
	if a > 0.25 {
		a = 0.5 - a
	}
	y := sin2piCore(a)
	if r < 0 {
		return -y
	}
	return y
}

func cos2piF64(t float64) float64 {
	r := t - math.RoundToEven(t)
	return sin2piCore(0.25 - math.Abs(r))
}

func tanhF64(x float64) float64 {
	a := math.Abs(x)
	var y float64
	switch {
	case a > 20:
		y = 1
	case a < 0.55:
		e2 := 2 * a
		e := float64(e2 * horner(expm1C[:], e2))
		y = e / (e + 2)
	default:
		E := exp2F64(float64(float64(math.Min(a, 20)*2) * log2E))
		y = 1 - 2/(E+1)
	}
	if x < 0 {
		return -y
	}
	return y
}

// mulRZ is an f32 multiply rounded toward zero (FMUL.RZ{.FTZ}), computed
// exactly through float64; NaN results are canonical.
func mulRZ(a, c uint32, ftz bool) uint32 {
	if ftz {
		a = flush32(a)
	}
	p := f32(a) * f32(c) // exact: 24x24 bits
	if math.IsNaN(p) {
		return canonNaN
	}
	y := math.Float32bits(float32(p))
	if !math.IsInf(p, 0) {
		if math.Abs(f32(y)) > math.Abs(p) {
			y-- // RN went away from zero (also turns a rounded-up inf into max finite)
		}
	}
	if ftz {
		y = flush32(y)
	}
	return y
}

func roundF32(y float64, ftz bool) uint32 {
	if math.IsNaN(y) {
		return canonNaN
	}
	b := math.Float32bits(float32(y))
	if ftz {
		b = flush32(b)
	}
	return b
}

// refPredict is sfuspec.ref_predict for one input (the upper word of the
// prediction for the 64H functions).
func refPredict(fn string, x uint64, ftz bool) uint32 {
	p := predictFunc(fn, ftz)
	if p == nil {
		panic("sfu: unknown reference function " + fn)
	}
	return p(x)
}

// predictFunc is refPredict for one function, resolved once: the tables
// call it for every input they decode and every lookup, and a dispatch on
// the name per call cost as much as the arithmetic. nil for an unknown fn.
func predictFunc(fn string, ftz bool) func(x uint64) uint32 {
	switch fn {
	case "zero":
		return func(uint64) uint32 { return 0 }
	case "ident":
		return func(x uint64) uint32 { return uint32(x) }
	case "mulrz":
		return func(x uint64) uint32 { return mulRZ(uint32(x), c2PiInv, ftz) }
	case "rcp64h", "rsqrt64h":
		return func(x uint64) uint32 { return ref64h(fn, x) }
	}
	v := valueFunc(fn)
	if v == nil {
		return nil
	}
	return func(x uint64) uint32 { return roundF32(v(uint32(x), ftz), ftz) }
}

// refValue is sfuspec.ref_value: the float64 value the prediction rounds
// (NaN for a NaN result).
func refValue(fn string, xb uint32, ftz bool) float64 {
	v := valueFunc(fn)
	if v == nil {
		panic("sfu: unknown reference function " + fn)
	}
	return v(xb, ftz)
}

// valueFunc returns refValue for one function (nil when fn is not one of
// sfuspec.VALUE_FUNCS), so that a loop over a table's inputs resolves the
// name once.
func valueFunc(fn string) func(xb uint32, ftz bool) float64 {
	switch fn {
	case "rcp":
		return valueRcp
	case "rsqrt":
		return valueRsqrt
	case "sqrt":
		return valueSqrt
	case "ex2":
		return valueEx2
	case "lg2":
		return valueLg2
	case "sin":
		return valueSin
	case "cos":
		return valueCos
	case "tanh":
		return valueTanh
	}
	return nil
}

// refArg is the operand of refValue as a float64 (flushed under .ftz).
func refArg(xb uint32, ftz bool) float64 {
	if ftz {
		xb = flush32(xb)
	}
	return f32(xb)
}

func valueRcp(xb uint32, ftz bool) float64 {
	v := refArg(xb, ftz)
	if v != v {
		return v
	}
	return 1 / v
}

func valueRsqrt(xb uint32, ftz bool) float64 {
	v := refArg(xb, ftz)
	if v != v {
		return v
	}
	return 1 / math.Sqrt(v)
}

func valueSqrt(xb uint32, ftz bool) float64 {
	v := refArg(xb, ftz)
	if v != v {
		return v
	}
	return math.Sqrt(v)
}

func valueEx2(xb uint32, ftz bool) float64 {
	v := refArg(xb, ftz)
	switch {
	case v != v:
		return v
	case math.IsInf(v, 1):
		return v
	case math.IsInf(v, -1):
		return 0
	}
	return exp2F64(v)
}

func valueLg2(xb uint32, ftz bool) float64 {
	v := refArg(xb, ftz)
	switch {
	case v != v:
		return v
	case v == 0:
		return math.Inf(-1)
	case v < 0:
		return math.NaN()
	case math.IsInf(v, 1):
		return v
	}
	return log2F64(v)
}

// valueSinCos is refValue for sin and cos: t = mulRZ(x, 1/2π) revolutions.
func valueSinCos(xb uint32, ftz, cos bool) float64 {
	if ftz {
		xb = flush32(xb)
	}
	if v := f32(xb); v != v {
		return v
	}
	t := f32(mulRZ(xb, c2PiInv, ftz))
	switch {
	case math.IsInf(t, 0) || math.IsNaN(t):
		return math.NaN()
	case !cos:
		return sin2piF64(t)
	}
	return cos2piF64(t)
}

func valueSin(xb uint32, ftz bool) float64 { return valueSinCos(xb, ftz, false) }
func valueCos(xb uint32, ftz bool) float64 { return valueSinCos(xb, ftz, true) }

func valueTanh(xb uint32, ftz bool) float64 {
	v := refArg(xb, ftz)
	switch {
	case v != v:
		return v
	case math.IsInf(v, 1):
		return 1
	case math.IsInf(v, -1):
		return -1
	}
	return tanhF64(v)
}

// nClasses is sfuspec.NCLASSES.
const nClasses = 16

// refClass is sfuspec.ref_classes for one input: where the float64
// reference lies between its f32 neighbours, in sixteenths of an ulp.
func refClass(fn string, x uint32, ftz bool) int { return classOf(refValue(fn, x, ftz)) }

// classOf is refClass of the reference value y.
func classOf(y float64) int {
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return 0
	}
	pb := math.Float32bits(float32(y)) &^ sign32
	b := f32(pb)
	if math.IsInf(b, 0) || b == 0 {
		return 0
	}
	ulp := f32(pb+1) - b
	phi := (math.Abs(y) - b) / ulp
	k := math.Floor((phi + 0.5) * 16)
	if math.IsNaN(k) || math.IsInf(k, 0) {
		return 0
	}
	// k is finite here: clamp it without math.Max/Min's NaN and signed-zero
	// cases (a third of the tables' first-use time went to them).
	switch {
	case k < 0:
		return 0
	case k > 15:
		return 15
	}
	return int(k)
}

func ref64h(fn string, x uint64) uint32 {
	hi := x >> 32
	if hi&0x7FF00000 == 0 {
		hi &= sign32
	}
	v := math.Float64frombits(hi << 32)
	var y float64
	if fn == "rcp64h" {
		y = 1 / v
	} else {
		y = 1 / math.Sqrt(v)
	}
	if math.IsNaN(y) {
		return canonNaN
	}
	b := math.Float64bits(y)
	if !math.IsInf(y, 0) && y != 0 {
		b = (b + 0x7FFFFFFF + (b>>32)&1) &^ 0xFFFFFFFF
	}
	h := uint32(b >> 32)
	if h&0x7FF00000 == 0 {
		h &= sign32
	}
	return h
}
