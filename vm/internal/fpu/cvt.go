package fpu

import "math"

// Conversions (PTX ISA 9.7.9.21 cvt, 6.5 Type Conversion).
//
// Every float→float conversion widens the source exactly to float64 (all
// PTX float formats are subsets of binary64) and rounds once to the
// destination, so f64→f16 is a single rounding, never f64→f32→f16.

// CvtFlags are the cvt modifiers that shape a float→float result.
type CvtFlags uint8

const (
	// CvtFtz flushes f32 subnormal inputs and f32 subnormal results to a
	// sign-preserving zero; it has no effect on other formats (ISA: ".ftz
	// applies only to single precision (.f32) inputs and results").
	CvtFtz CvtFlags = 1 << iota
	// CvtSat clamps the result to [0.0, 1.0], NaN to +0.0 (.sat).
	CvtSat
	// CvtRelu clamps a negative result to +0, NaN to the canonical NaN (.relu).
	CvtRelu
	// CvtSatFinite turns an infinite result into the largest finite value of
	// the same sign; NaN stays NaN (.satfinite).
	CvtSatFinite
)

func fmtOf(k FloatKind) *format {
	switch k {
	case F16:
		return &fmtF16
	case BF16:
		return &fmtBF16
	case F32:
		return &fmtF32
	case TF32:
		return &fmtTF32
	case E4M3:
		return &fmtE4M3
	case E5M2:
		return &fmtE5M2
	}
	return &fmtF64
}

// encShift is how far the format's encoding sits left in the register
// pattern (tf32 is an f32 pattern whose low 13 bits are zero).
func encShift(k FloatKind) uint {
	if k == TF32 {
		return 13
	}
	return 0
}

// IsNaN reports whether bits holds a NaN of kind k.
func IsNaN(a uint64, k FloatKind) bool {
	switch k {
	case F16:
		return isNaN16(uint16(a))
	case BF16:
		return isNaNBF(uint16(a))
	case F32, TF32:
		return isNaN32(uint32(a))
	case E4M3:
		return a&0x7f == 0x7f
	case E5M2:
		return a&0x7f > 0x7c
	}
	return isNaN64(a)
}

// ToFloat64 widens a non-NaN value of kind k exactly to float64.
func ToFloat64(a uint64, k FloatKind) float64 {
	switch k {
	case F16:
		return f16ToF64(uint16(a))
	case BF16:
		return bf16ToF64(uint16(a))
	case F32, TF32:
		return f32d(uint32(a))
	case E4M3, E5M2:
		return decodeFmt(a, fmtOf(k))
	}
	return f64(a)
}

// decodeFmt widens a finite value of a narrow format f exactly to float64
// (infinities by the IEEE rule: all-ones exponent, zero fraction).
func decodeFmt(a uint64, f *format) float64 {
	m := a & (1<<f.mant - 1)
	ex := int(a>>f.mant) & (1<<(f.sign-f.mant) - 1)
	var v float64
	switch {
	case a&^(1<<f.sign) == f.inf && f.emax == f.bias:
		v = math.Inf(1)
	case ex == 0:
		v = math.Ldexp(float64(m), 1-f.bias-int(f.mant))
	default:
		v = math.Ldexp(float64(m|1<<f.mant), ex-f.bias-int(f.mant))
	}
	if a>>f.sign&1 != 0 {
		v = -v
	}
	return v
}

func oneOf(k FloatKind) uint64 {
	switch k {
	case F16:
		return 0x3c00
	case BF16:
		return 0x3f80
	case F32, TF32:
		return uint64(one32)
	case E4M3:
		return 0x38
	case E5M2:
		return 0x3c
	}
	return 0x3ff0000000000000
}

func signOf(k FloatKind) uint64 {
	switch k {
	case F16, BF16:
		return 1 << 15
	case F32, TF32:
		return 1 << 31
	case E4M3, E5M2:
		return 1 << 7
	}
	return 1 << 63
}

// canonNaN is the canonical NaN of kind k.
func canonNaN(k FloatKind) uint64 {
	switch k {
	case F16:
		return uint64(nan16())
	case BF16:
		return uint64(nanBF16())
	case F32:
		return uint64(nan32())
	case TF32:
		return uint64(CanonNaNTF32)
	case E4M3, E5M2:
		return uint64(CanonNaNFP8)
	}
	return CanonNaN64
}

// fromF64 rounds a non-NaN float64 to kind k under r (exact for F64).
func fromF64(x float64, k FloatKind, r Round) uint64 { return fromF64x(x, k, r, false) }

// fromF64x is fromF64 with, when ftz is set, the .ftz flush of subnormal
// results (roundMantFtz).
func fromF64x(x float64, k FloatKind, r Round, ftz bool) uint64 {
	if k == F64 {
		return b64(x)
	}
	f := fmtOf(k)
	var z uint64
	switch {
	case math.IsInf(x, 0):
		z = f.inf
		if x < 0 {
			z |= 1 << f.sign
		}
	case x == 0:
		if math.Signbit(x) {
			z = 1 << f.sign
		}
	default:
		z = roundF64x(x, 0, f, r, ftz)
	}
	return z << encShift(k)
}

// Convert is cvt{.frnd}{.ftz}{.sat}{.relu}{.satfinite}.dst.src between float
// kinds: a holds the source bits (low bits of the register), the result the
// destination bits. r is ignored when the conversion is exact.
//
// .ftz flushes an f32 subnormal source, except when converting to f16,
// where the GPU ignores it (cvt_rp_ftz_f16_f32: 0x00000001 → 0x0001), and
// flushes f32 results that are tiny after rounding (roundMantFtz;
// cvt_rn_ftz_f32_f64). NaN results follow nanConvert (nan.go).
func Convert(a uint64, src, dst FloatKind, r Round, fl CvtFlags) uint64 {
	var z uint64
	ftz := fl&CvtFtz != 0
	if dst == TF32 && r == RNA && (src == F32 || src == TF32) {
		return tf32RNA(uint32(a), fl)
	}
	if IsNaN(a, src) {
		z = nanConvert(a, src, dst, ftz)
		if fl&CvtSat != 0 {
			z = 0
		}
		return z
	}
	if ftz && (src == F32 || src == TF32) && dst != F16 {
		a = uint64(Flush32(uint32(a)))
	}
	z = fromF64x(ToFloat64(a, src), dst, r, ftz && dst == F32)
	sign := signOf(dst)
	if fl&CvtSatFinite != 0 && z&^sign == fromF64(math.Inf(1), dst, RN) {
		z = z&sign | fmtOf(dst).max<<encShift(dst)
	}
	if fl&CvtRelu != 0 && z&sign != 0 {
		z = 0
	}
	if fl&CvtSat != 0 {
		switch {
		case z&sign != 0:
			z = 0
		case z > oneOf(dst):
			z = oneOf(dst)
		}
	}
	return z
}

// tf32RNA is cvt.rna{.satfinite}{.relu}.tf32.f32 as the GPU computes it, on
// the bit pattern: round half away from zero is adding half a tf32 ulp to
// the magnitude and truncating the low 13 bits (which overflows to inf
// correctly), a NaN is only truncated (0x7f800001 → +inf, 0x7fc00015 →
// 0x7fc00000: cvt_rna_tf32_f32), and .satfinite then takes one tf32 ulp off
// any result whose exponent is all ones, inf and NaN alike (inf →
// 0x7f7fe000, 0x7fc00000 → 0x7fbfe000: cvt_rna_satfinite_tf32_f32).
func tf32RNA(a uint32, fl CvtFlags) uint64 {
	z := a
	if !isNaN32(a) {
		z += 0x1000
	}
	z &^= 0x1fff
	if fl&CvtSatFinite != 0 && isSpec32(z) {
		z -= 0x2000
	}
	if fl&CvtRelu != 0 && z&sign32 != 0 && !isNaN32(z) {
		z = 0
	}
	return uint64(z)
}

// F32ToF64 is cvt{.ftz}.f64.f32 (exact).
func F32ToF64(a uint32, ftz bool) uint64 {
	return Convert(uint64(a), F32, F64, RN, ftzFlag(ftz))
}

// F64ToF32 is cvt.frnd{.ftz}{.sat}.f32.f64.
func F64ToF32(a uint64, r Round, ftz, sat bool) uint32 {
	x := f64(a)
	if ax := math.Abs(x); ax >= 0x1p-126 && ax < 0x1p127 { // normal f32 range
		var z uint32
		if r == RN {
			z = b32(float32(x))
		} else {
			z = uint32(roundF64(x, 0, &fmtF32, r))
		}
		if sat {
			z = Sat32(z)
		}
		return z
	}
	return uint32(Convert(a, F64, F32, r, ftzFlag(ftz)|satFlag(sat)))
}

// F32ToF16 is cvt.frnd{.ftz}{.sat}.f16.f32 (.ftz has no effect: the GPU does
// not flush an f32 subnormal input here). For .relu/.satfinite use Convert.
func F32ToF16(a uint32, r Round, ftz, sat bool) uint16 {
	return uint16(Convert(uint64(a), F32, F16, r, ftzFlag(ftz)|satFlag(sat)))
}

// F16ToF32 is cvt.f32.f16 (exact).
func F16ToF32(h uint16) uint32 { return uint32(Convert(uint64(h), F16, F32, RN, 0)) }

// F64ToF16 is cvt.frnd{.sat}.f16.f64, rounded once.
func F64ToF16(a uint64, r Round, sat bool) uint16 {
	return uint16(Convert(a, F64, F16, r, satFlag(sat)))
}

// F16ToF64 is cvt.f64.f16 (exact).
func F16ToF64(h uint16) uint64 { return Convert(uint64(h), F16, F64, RN, 0) }

// F32ToBF16 is cvt.frnd2{.relu}{.satfinite}.bf16.f32.
func F32ToBF16(a uint32, r Round, relu, satfinite bool) uint16 {
	return uint16(Convert(uint64(a), F32, BF16, r, reluFlag(relu)|satFiniteFlag(satfinite)))
}

// BF16ToF32 is cvt.f32.bf16 (exact; the bits move to the upper half).
func BF16ToF32(h uint16) uint32 { return uint32(h) << 16 }

// F64ToBF16 is cvt.frnd.bf16.f64, rounded once.
func F64ToBF16(a uint64, r Round) uint16 { return uint16(Convert(a, F64, BF16, r, 0)) }

// BF16ToF64 is cvt.f64.bf16 (exact).
func BF16ToF64(h uint16) uint64 { return Convert(uint64(h), BF16, F64, RN, 0) }

// F16ToBF16 is cvt.frnd.bf16.f16.
func F16ToBF16(h uint16, r Round) uint16 { return uint16(Convert(uint64(h), F16, BF16, r, 0)) }

// BF16ToF16 is cvt.frnd.f16.bf16.
func BF16ToF16(h uint16, r Round) uint16 { return uint16(Convert(uint64(h), BF16, F16, r, 0)) }

// F32ToTF32 is cvt.rna.tf32.f32 (r = RNA) or cvt.rn/.rz.tf32.f32: the result
// is an f32 pattern with the low 13 fraction bits zero. For .relu and
// .satfinite use Convert(a, F32, TF32, r, flags).
func F32ToTF32(a uint32, r Round) uint32 { return uint32(Convert(uint64(a), F32, TF32, r, 0)) }

func ftzFlag(b bool) CvtFlags {
	if b {
		return CvtFtz
	}
	return 0
}

func satFlag(b bool) CvtFlags {
	if b {
		return CvtSat
	}
	return 0
}

func reluFlag(b bool) CvtFlags {
	if b {
		return CvtRelu
	}
	return 0
}

func satFiniteFlag(b bool) CvtFlags {
	if b {
		return CvtSatFinite
	}
	return 0
}

// roundIntegral rounds x to an integral float64 in direction r.
func roundIntegral(x float64, r Round) float64 {
	switch r {
	case RZ:
		return math.Trunc(x)
	case RM:
		return math.Floor(x)
	case RP:
		return math.Ceil(x)
	case RNA:
		return math.Round(x)
	}
	return math.RoundToEven(x)
}

// FloatToInt is cvt.irnd{.ftz}{.sat}.{s,u}{8,16,32,64}.{f16,bf16,f32,f64}:
// round to an integer in direction r (.rni/.rzi/.rmi/.rpi → RN/RZ/RM/RP),
// then clamp to the destination range (the ISA: "the result is clamped to
// the destination range by default"). A NaN gives 0 when the source is not
// f64 and the destination is narrower than 64 bits, and 1<<(dstBits-1)
// otherwise (ISA 9.7.9.21, Integer Notes). .ftz flushes an f32 subnormal
// input (which matters for .rmi/.rpi).
//
// The result is the dstBits-bit pattern, zero-extended to 64 bits; the VM
// sign- or zero-extends it to the register width.
func FloatToInt(a uint64, src FloatKind, dstBits int, dstSigned bool, r Round, ftz bool) uint64 {
	mask := ^uint64(0) >> (64 - uint(dstBits))
	if IsNaN(a, src) {
		if src != F64 && dstBits != 64 {
			return 0
		}
		return 1 << uint(dstBits-1)
	}
	if ftz && (src == F32 || src == TF32) {
		a = uint64(Flush32(uint32(a)))
	}
	x := roundIntegral(ToFloat64(a, src), r)
	if dstSigned {
		lim := math.Ldexp(1, dstBits-1)
		var v int64
		switch {
		case x >= lim:
			v = int64(mask >> 1)
		case x < -lim:
			v = -int64(mask>>1) - 1
		default:
			v = int64(x)
		}
		return uint64(v) & mask
	}
	switch {
	case x <= 0:
		return 0
	case x >= math.Ldexp(1, dstBits):
		return mask
	}
	return uint64(x)
}

// IntToFloat is cvt.frnd.{f16,bf16,f32,f64}.{s,u}{8..64}: the low srcBits
// of v, read as signed or unsigned, rounded once to dst. Integer sources
// never give -0. An out-of-range magnitude overflows per r (f16: ±inf under
// RN, 65504 under RZ).
func IntToFloat(v uint64, srcBits int, srcSigned bool, dst FloatKind, r Round) uint64 {
	if srcBits < 64 {
		v &= ^uint64(0) >> (64 - uint(srcBits))
		if srcSigned && v>>(uint(srcBits)-1)&1 != 0 {
			v |= ^uint64(0) << uint(srcBits)
		}
	}
	neg := srcSigned && int64(v) < 0
	if neg {
		v = -v
	}
	if v == 0 {
		return 0
	}
	return roundMant(neg, v, 0, false, fmtOf(dst), r) << encShift(dst)
}

// RoundIntegral is cvt.irnd{.ftz}{.sat}.k.k: round to an integral value
// kept in format k. NaN gives the format's NaN (f64: the quieted input),
// zeros and the sign of results that round to zero are kept (-0.4 → -0).
func RoundIntegral(a uint64, k FloatKind, r Round, ftz, sat bool) uint64 {
	var z uint64
	switch {
	case IsNaN(a, k):
		z = nanConvert(a, k, k, false)
	default:
		if ftz && (k == F32 || k == TF32) {
			a = uint64(Flush32(uint32(a)))
		}
		z = fromF64(roundIntegral(ToFloat64(a, k), r), k, RN) // exact
	}
	if sat {
		switch {
		case IsNaN(z, k), z&signOf(k) != 0:
			z = 0
		case z > oneOf(k):
			z = oneOf(k)
		}
	}
	return z
}

// RoundInt32 is cvt.irnd{.ftz}{.sat}.f32.f32.
func RoundInt32(a uint32, r Round, ftz, sat bool) uint32 {
	return uint32(RoundIntegral(uint64(a), F32, r, ftz, sat))
}

// RoundInt64 is cvt.irnd.f64.f64.
func RoundInt64(a uint64, r Round) uint64 { return RoundIntegral(a, F64, r, false, false) }

// RoundInt16 is cvt.irnd{.ftz}{.sat}.f16.f16.
func RoundInt16(a uint16, r Round, ftz, sat bool) uint16 {
	if ftz {
		a = Flush16(a)
	}
	return uint16(RoundIntegral(uint64(a), F16, r, false, sat))
}

// RoundIntBF16 is cvt.irnd.bf16.bf16.
func RoundIntBF16(a uint16, r Round) uint16 {
	return uint16(RoundIntegral(uint64(a), BF16, r, false, false))
}
