package sfu

import (
	"math"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// PTX-level approximate instructions: the MUFU models wrapped in the SASS
// sequences ptxas (CUDA 13, sm_90) emits for them, as listed in
// testdata/nvcc/sass/float_libm.O3.sass and re-recorded by the generator in
// testdata/sfu/sass.txt. The .ftz forms are the bare MUFU operation (sin and
// cos after FMUL.RZ by 1/2π); the others rescale around it with ordinary
// f32 multiplies (RN, gradual underflow, canonical NaN):
//
//	rcp.approx.f32    s = |x| > 2^126 ? 0.25 : |x| < 2^-126 ? 2^24 : 1;  s * RCP(x * s)
//	rsqrt.approx.f32  |x| < 2^-126 ? RSQ(x * 2^24) * 2^12   : RSQ(x)
//	sqrt.approx.f32   |x| < 2^-126 ? SQRT(x * 2^24) * 2^-12 : SQRT(x)
//	lg2.approx.f32    |x| < 2^-126 ? LG2(x * 2^24) + (-24)  : LG2(x)
//	ex2.approx.f32    x < -126 ? EX2(x * 0.5)^2 : EX2(x)
//	sin/cos.approx.f32  SIN/COS(FMUL.RZ(x, 1/2π))  (.ftz: FMUL.RZ.FTZ)
//
// The comparisons are FSETP.GEU/GT, so a NaN operand takes the plain path.
// Each function returns ok == false when the tables are not available.

func mulRN(a, b uint32) uint32 {
	r := math.Float32bits(math.Float32frombits(a) * math.Float32frombits(b))
	if r&0x7FFFFFFF > inf32 {
		return canonNaN
	}
	return r
}

func addRN(a, b uint32) uint32 {
	r := math.Float32bits(math.Float32frombits(a) + math.Float32frombits(b))
	if r&0x7FFFFFFF > inf32 {
		return canonNaN
	}
	return r
}

const (
	f32Quarter = 0x3E800000 // 0.25
	f32Half    = 0x3F000000 // 0.5
	f32Two24   = 0x4B800000 // 2^24
	f32Two12   = 0x45800000 // 2^12
	f32TwoM12  = 0x39800000 // 2^-12
	f32Minus24 = 0xC1C00000 // -24
	f32Two126  = 0x7E800000 // 2^126
	f32Min     = 0x00800000 // 2^-126
	f32M126    = 0x42FC0000 // 126
)

// tiny reports |x| < 2^-126 (zero or subnormal; false for NaN).
func tiny(x uint32) bool { return x&^sign32 < f32Min }

// RcpApprox32 is rcp.approx{.ftz}.f32.
func RcpApprox32(x uint32, ftz bool) (uint32, bool) {
	if ftz {
		return MufuRcp(x)
	}
	ax := x &^ sign32
	s := uint32(one32)
	switch {
	case ax > f32Two126 && ax <= inf32:
		s = f32Quarter
	case tiny(x):
		s = f32Two24
	}
	y, ok := MufuRcp(mulRN(x, s))
	if !ok {
		return 0, false
	}
	return mulRN(s, y), true
}

// RsqrtApprox32 is rsqrt.approx{.ftz}.f32.
func RsqrtApprox32(x uint32, ftz bool) (uint32, bool) {
	if ftz || !tiny(x) {
		return MufuRsq(x)
	}
	y, ok := MufuRsq(mulRN(x, f32Two24))
	return mulRN(y, f32Two12), ok
}

// SqrtApprox32 is sqrt.approx{.ftz}.f32.
func SqrtApprox32(x uint32, ftz bool) (uint32, bool) {
	if ftz || !tiny(x) {
		return MufuSqrt(x)
	}
	y, ok := MufuSqrt(mulRN(x, f32Two24))
	return mulRN(y, f32TwoM12), ok
}

// Lg2Approx32 is lg2.approx{.ftz}.f32.
func Lg2Approx32(x uint32, ftz bool) (uint32, bool) {
	if ftz || !tiny(x) {
		return MufuLg2(x)
	}
	y, ok := MufuLg2(mulRN(x, f32Two24))
	return addRN(y, f32Minus24), ok
}

// Ex2Approx32 is ex2.approx{.ftz}.f32.
func Ex2Approx32(x uint32, ftz bool) (uint32, bool) {
	ax := x &^ sign32
	if ftz || x&sign32 == 0 || ax <= f32M126 || ax > inf32 {
		return MufuEx2(x)
	}
	y, ok := MufuEx2(mulRN(x, f32Half))
	return mulRN(y, y), ok
}

// SinApprox32 is sin.approx{.ftz}.f32.
func SinApprox32(x uint32, ftz bool) (uint32, bool) { return MufuSin(mulRZ(x, c2PiInv, ftz)) }

// CosApprox32 is cos.approx{.ftz}.f32.
func CosApprox32(x uint32, ftz bool) (uint32, bool) { return MufuCos(mulRZ(x, c2PiInv, ftz)) }

// TanhApprox32 is tanh.approx.f32.
func TanhApprox32(x uint32) (uint32, bool) { return MufuTanh(x) }

// RcpApproxFtz64 is rcp.approx.ftz.f64: MUFU.RCP64H of the upper word, the
// lower word of the result zero.
func RcpApproxFtz64(x uint64) (uint64, bool) {
	h, ok := MufuRcp64H(uint32(x >> 32))
	return uint64(h) << 32, ok
}

// RsqrtApproxFtz64 is rsqrt.approx.ftz.f64: MUFU.RSQ64H of the upper word,
// the lower word of the result zero.
func RsqrtApproxFtz64(x uint64) (uint64, bool) {
	h, ok := MufuRsq64H(uint32(x >> 32))
	return uint64(h) << 32, ok
}

// Approx32 evaluates the f32 approximate instruction named by its PTX
// opcode and modifiers (e.g. "rcp.approx.ftz.f32"); ok == false for other
// names or when the tables are not available.
func Approx32(instr string, x uint32) (uint32, bool) {
	switch instr {
	case "rcp.approx.f32", "rcp.approx.ftz.f32":
		return RcpApprox32(x, instr == "rcp.approx.ftz.f32")
	case "rsqrt.approx.f32", "rsqrt.approx.ftz.f32":
		return RsqrtApprox32(x, instr == "rsqrt.approx.ftz.f32")
	case "sqrt.approx.f32", "sqrt.approx.ftz.f32":
		return SqrtApprox32(x, instr == "sqrt.approx.ftz.f32")
	case "ex2.approx.f32", "ex2.approx.ftz.f32":
		return Ex2Approx32(x, instr == "ex2.approx.ftz.f32")
	case "lg2.approx.f32", "lg2.approx.ftz.f32":
		return Lg2Approx32(x, instr == "lg2.approx.ftz.f32")
	case "sin.approx.f32", "sin.approx.ftz.f32":
		return SinApprox32(x, instr == "sin.approx.ftz.f32")
	case "cos.approx.f32", "cos.approx.ftz.f32":
		return CosApprox32(x, instr == "cos.approx.ftz.f32")
	case "tanh.approx.f32":
		return TanhApprox32(x)
	}
	return 0, false
}

// DivApprox32 is div.approx{.ftz}.f32: a * RCP(b) (FMUL after MUFU.RCP);
// without .ftz a subnormal b scales both operands by 2^24 first. A b above
// 2^126 has a subnormal reciprocal, which MUFU flushes, so the quotient is
// 0 there, as the ISA says.
func DivApprox32(a, b uint32, ftz bool) (uint32, bool) {
	a, r, ok := DivParts32(a, b, ftz, false)
	return fpu.Mul32(r, a, fpu.RN, ftz, false), ok
}

// DivParts32 returns the two factors of the FMUL that ends div.approx
// (full false) or div.full (full true) {.ftz}.f32: the scaled dividend and
// the reciprocal of the scaled divisor. ptxas contracts that FMUL with a
// following add like any plain mul (package vm, lower_contract.go).
func DivParts32(a, b uint32, ftz, full bool) (as, r uint32, ok bool) {
	ab := b &^ sign32
	switch {
	case full && ab > f32Two126 && ab <= inf32:
		a, b = fpu.Mul32(a, f32Quarter, fpu.RN, ftz, false), fpu.Mul32(b, f32Quarter, fpu.RN, ftz, false)
	case !ftz && tiny(b):
		a, b = fpu.Mul32(a, f32Two24, fpu.RN, false, false), fpu.Mul32(b, f32Two24, fpu.RN, false, false)
	}
	r, ok = MufuRcp(b)
	return a, r, ok
}

// DivFull32 is div.full{.ftz}.f32: both operands scaled by s (0.25 when
// |b| > 2^126; 2^24 when b is subnormal and not .ftz; else 1), then
// RCP(b·s) · (a·s). ptxas emits no refinement step (sass.txt).
func DivFull32(a, b uint32, ftz bool) (uint32, bool) {
	a, r, ok := DivParts32(a, b, ftz, true)
	return fpu.Mul32(r, a, fpu.RN, ftz, false), ok
}

// The half-precision forms are the f32 MUFU operation on the widened
// operand, its result narrowed by truncation, except that an f16 result of
// 2^16 or more is +inf (found on the conformance vectors: rounding to
// nearest is 1 ulp off on a quarter to a third of them, truncation matches
// all). NaN operands give the computed forms' NaN (package fpu).

// truncF16 narrows an f32 MUFU result to f16 as the half forms do.
func truncF16(v uint32) uint16 {
	if v&^sign32 >= 0x47800000 && v&^sign32 <= inf32 { // 2^16 .. inf
		return uint16(v>>16&0x8000) | 0x7C00
	}
	return fpu.F32ToF16(v, fpu.RZ, false, false)
}

// Ex2Approx16 is ex2.approx.f16.
func Ex2Approx16(a uint16) (uint16, bool) {
	if fpu.IsNaN(uint64(a), fpu.F16) {
		return fpu.Ex2Approx16(a), true
	}
	v, ok := Ex2Approx32(fpu.F16ToF32(a), true)
	return truncF16(v), ok
}

// TanhApprox16 is tanh.approx.f16.
func TanhApprox16(a uint16) (uint16, bool) {
	if fpu.IsNaN(uint64(a), fpu.F16) {
		return fpu.TanhApprox16(a), true
	}
	v, ok := TanhApprox32(fpu.F16ToF32(a))
	return truncF16(v), ok
}

// Ex2ApproxBF16 is ex2.approx.ftz.bf16 (subnormal operands and results
// flushed).
func Ex2ApproxBF16(a uint16) (uint16, bool) {
	if fpu.IsNaN(uint64(a), fpu.BF16) {
		return fpu.Ex2ApproxBF16(a), true
	}
	v, ok := Ex2Approx32(fpu.BF16ToF32(fpu.FlushBF16(a)), true)
	return fpu.FlushBF16(fpu.F32ToBF16(v, fpu.RZ, false, false)), ok
}

// TanhApproxBF16 is tanh.approx.bf16.
func TanhApproxBF16(a uint16) (uint16, bool) {
	if fpu.IsNaN(uint64(a), fpu.BF16) {
		return fpu.TanhApproxBF16(a), true
	}
	v, ok := TanhApprox32(fpu.BF16ToF32(a))
	return fpu.F32ToBF16(v, fpu.RZ, false, false), ok
}

// RsqrtApprox64 is rsqrt.approx.f64 as ptxas (CUDA 13, sm_90) emits it
// (testdata/nvcc/sass/float_libm.O3.sass, sfu_asm): y = MUFU.RSQ64H of the
// upper word, then one refinement, e = 1 − x·y², y + (0.5 + 0.375e)·(y·e),
// in DMUL/DFMA. Zero, negative, infinite, NaN and subnormal operands take
// ptxas's slow path: ±0 → ±inf, NaN → x + x, negative → NaN, +inf → +0, and
// a subnormal x runs the same sequence on x·2^54 and scales the result by
// 2^27.
func RsqrtApprox64(a uint64) (uint64, bool) {
	const (
		one     = 0x3FF0000000000000
		half    = 0x3FE0000000000000
		c0375   = 0x3FD8000000000000
		two54   = 0x4350000000000000
		two27   = 0x41A0000000000000
		sign64  = 1 << 63
		expMask = 0x7FF0000000000000
	)
	scaled := false
	if uint32(a>>32)-0x100000 >= 0x7FE00000 { // not a positive normal number
		switch {
		case a<<1 == 0:
			return a&sign64 | expMask, true
		case a&^sign64 > expMask:
			return fpu.Add64(a, a, fpu.RN), true
		case a&sign64 != 0:
			return 0xFFF8000000000000, true
		case a == expMask:
			return 0, true
		}
		a, scaled = fpu.Mul64(a, two54, fpu.RN), true
	}
	y, ok := RsqrtApproxFtz64(a)
	if !ok {
		return 0, false
	}
	yy := fpu.Mul64(y, y, fpu.RN)
	e := fpu.Fma64(a, yy^sign64, one, fpu.RN)
	t := fpu.Fma64(e, c0375, half, fpu.RN)
	r := fpu.Fma64(t, fpu.Mul64(y, e, fpu.RN), y, fpu.RN)
	if scaled {
		r = fpu.Mul64(r, two27, fpu.RN)
	}
	return r, true
}
