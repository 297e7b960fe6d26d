package fpu

import (
	"math"
	"math/bits"
)

// Round is an IEEE rounding direction. The PTX integer-rounding modifiers
// map onto the same values: .rni→RN, .rzi→RZ, .rmi→RM, .rpi→RP.
type Round uint8

const (
	RN  Round = iota // to nearest, ties to even (.rn, .rni)
	RZ               // toward zero (.rz, .rzi)
	RM               // toward -inf (.rm, .rmi)
	RP               // toward +inf (.rp, .rpi)
	RNA              // to nearest, ties away from zero (cvt .rna)
)

func (r Round) String() string {
	switch r {
	case RN:
		return "rn"
	case RZ:
		return "rz"
	case RM:
		return "rm"
	case RP:
		return "rp"
	case RNA:
		return "rna"
	}
	return "round?"
}

// FloatKind names a floating-point format.
type FloatKind uint8

const (
	F16  FloatKind = iota // IEEE binary16
	BF16                  // bfloat16 (8-bit exponent, 7-bit fraction)
	F32                   // IEEE binary32
	F64                   // IEEE binary64
	TF32                  // tf32: f32 bit layout, low 13 fraction bits zero
	E4M3                  // fp8 e4m3 (bias 7, no infinities, NaN = S.1111.111, max 448)
	E5M2                  // fp8 e5m2 (IEEE-style: bias 15, infinities, NaNs)
)

func (k FloatKind) String() string {
	switch k {
	case F16:
		return "f16"
	case BF16:
		return "bf16"
	case F32:
		return "f32"
	case F64:
		return "f64"
	case TF32:
		return "tf32"
	case E4M3:
		return "e4m3"
	case E5M2:
		return "e5m2"
	}
	return "float?"
}

// format describes a binary interchange format: mant explicit fraction
// bits, exponent bias; the encoding is sign | exponent | fraction with the
// sign at bit sign (so the encoding is sign+1 bits wide).
type format struct {
	mant uint   // explicit fraction bits
	bias int    // exponent bias; emin = 1-bias
	emax int    // largest exponent of a finite value (bias, but bias+1 for e4m3)
	sign uint   // bit index of the sign
	inf  uint64 // encoding of +inf (first overflowing encoding; the NaN for e4m3)
	max  uint64 // encoding of the largest finite value
}

func mkFormat(mant uint, expBits uint) format {
	bias := 1<<(expBits-1) - 1
	inf := uint64(1<<expBits-1) << mant
	return format{mant: mant, bias: bias, emax: bias, sign: mant + expBits, inf: inf, max: inf - 1}
}

var (
	fmtF64  = mkFormat(52, 11)
	fmtF32  = mkFormat(23, 8)
	fmtF16  = mkFormat(10, 5)
	fmtBF16 = mkFormat(7, 8)
	// fmtTF32 is tf32 packed into 19 bits; shift left by 13 to get the
	// f32 bit pattern the register holds.
	fmtTF32 = mkFormat(10, 8)
	// fmtF64Hi20 is the 1.11.20 format of the upper word of an f64, used by
	// rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64; shift left by 32.
	fmtF64Hi20 = mkFormat(20, 11)
	fmtE5M2    = mkFormat(2, 5)
	// fmtE4M3 has no infinities: exponent field 15 holds finite values up
	// to 1.110b·2^8 = 448, and S.1111.111 is the NaN, which is also what an
	// overflow produces when not saturated.
	fmtE4M3 = format{mant: 3, bias: 7, emax: 8, sign: 7, inf: 0x7f, max: 0x7e}
)

// overflowEnc is the magnitude encoding an overflowing result takes under r:
// infinity, or the largest finite value when r rounds toward zero for that sign.
func overflowEnc(f *format, neg bool, r Round) uint64 {
	switch r {
	case RZ:
		return f.max
	case RP:
		if neg {
			return f.max
		}
	case RM:
		if !neg {
			return f.max
		}
	}
	return f.inf
}

// roundMant rounds the exact magnitude m·2^e (m != 0), plus an infinitesimal
// extra amount when sticky is set (the exact magnitude lies strictly between
// m·2^e and (m+1)·2^e), to format f under r, with gradual underflow and
// IEEE overflow. It returns the encoding including the sign bit.
//
// This is the one place where every correctly rounded result in the package
// is formed; the fast paths only short-circuit it where native arithmetic is
// known to agree.
func roundMant(neg bool, m uint64, e int, sticky bool, f *format, r Round) uint64 {
	var sign uint64
	if neg {
		sign = 1 << f.sign
	}
	E := e + bits.Len64(m) - 1 // value in [2^E, 2^(E+1))
	if E > f.emax {
		return sign | overflowEnc(f, neg, r)
	}
	emin := 1 - f.bias
	q := E // exponent of the quantum (weight of the result's last bit)
	if q < emin {
		q = emin
	}
	q -= int(f.mant)
	shift := q - e
	var kept uint64
	inc := false
	if shift <= 0 {
		kept = m << uint(-shift)
		inc = sticky && ((r == RP && !neg) || (r == RM && neg))
	} else {
		var rem, half uint64
		switch {
		case shift < 64:
			kept = m >> uint(shift)
			rem = m & (1<<uint(shift) - 1)
			half = 1 << uint(shift-1)
		case shift == 64:
			rem, half = m, 1<<63
		default: // everything discarded and below half the quantum
			rem, half = 1, 2
		}
		switch r {
		case RN:
			inc = rem > half || (rem == half && (sticky || kept&1 == 1))
		case RNA:
			inc = rem >= half
		case RP:
			inc = !neg && (rem != 0 || sticky)
		case RM:
			inc = neg && (rem != 0 || sticky)
		}
	}
	if inc {
		kept++
	}
	// For normal results kept carries the implicit bit, which adds one to the
	// exponent field; for subnormals q+mant+bias-1 is 0. A carry out of the
	// fraction moves into the exponent field by itself.
	enc := uint64(q+int(f.mant)+f.bias-1)<<f.mant + kept
	if enc >= f.inf {
		return sign | overflowEnc(f, neg, r)
	}
	return sign | enc
}

// roundMantFtz is roundMant followed by the .ftz flush of the GPU: a
// result is flushed to a zero of its sign when it is tiny after rounding,
// that is when the exact value rounded to the format's precision with an
// unbounded exponent is below the smallest normal 2^emin. So a value just
// below 2^emin that rounds up to it (in the direction r) gives the smallest
// normal, and one that rounds to a (subnormal) value below it gives zero,
// even if rounding to the subnormal grid would have given 2^emin.
// Evidence: f32 div.rp/rm.ftz (2^-126 - 2^-149·0.x gives ±0 where IEEE
// subnormal rounding gives ±2^-126), mad.rn.ftz.f32 (a midpoint just below
// 2^-126 gives -0), cvt.rn/rp/rm.ftz.f32.f64 (0x380fffffe0000000 = 2^-126 -
// 2^-150 gives 0, 0x380ffffff0000000 gives 2^-126 under .rn), and
// fma.rn.ftz.sat.f16x2 for f16.
func roundMantFtz(neg bool, m uint64, e int, sticky bool, f *format, r Round) uint64 {
	E := e + bits.Len64(m) - 1
	emin := 1 - f.bias
	if E >= emin {
		return roundMant(neg, m, e, sticky, f, r)
	}
	var sign uint64
	if neg {
		sign = 1 << f.sign
	}
	if E < emin-1 {
		return sign // even a carry out of the rounding stays below 2^emin
	}
	// Value in [2^(emin-1), 2^emin): rounded to full precision it reaches
	// 2^emin only by a carry. Doubling it (exactly) moves it into the
	// normal range, where the same carry gives exactly 2^(emin+1).
	z := roundMant(neg, m, e+1, sticky, f, r)
	if z&^sign == 2<<f.mant {
		return sign | 1<<f.mant
	}
	return sign
}

// decomp64 splits a finite nonzero float64 into sign, integer significand
// and exponent: |x| = m·2^e.
func decomp64(x float64) (neg bool, m uint64, e int) {
	b := math.Float64bits(x)
	neg = b>>63 != 0
	ex := int(b>>52) & 0x7ff
	m = b & (1<<52 - 1)
	if ex == 0 {
		return neg, m, -1074
	}
	return neg, m | 1<<52, ex - 1075
}

// roundF64 rounds s+t to format f, where s is a finite nonzero float64 and t
// an unrepresented tail with |t| <= ulp(s)/2 of which only the sign tsign
// (-1, 0, +1) is known. Used for results computed exactly as an unevaluated
// float64 sum (TwoSum, exact products, division and square-root residuals).
// Valid for every target narrower than float64, whose rounding boundaries
// all lie on the float64 grid.
func roundF64(s float64, tsign int, f *format, r Round) uint64 {
	return roundF64x(s, tsign, f, r, false)
}

// roundF64Ftz is roundF64 with the .ftz flush of roundMantFtz.
func roundF64Ftz(s float64, tsign int, f *format, r Round) uint64 {
	return roundF64x(s, tsign, f, r, true)
}

func roundF64x(s float64, tsign int, f *format, r Round, ftz bool) uint64 {
	neg, m, e := decomp64(s)
	sticky := false
	if tsign != 0 {
		sticky = true
		if (tsign < 0) != neg {
			// Magnitude just below m·2^e: represent it as just above
			// (2m-1)·2^(e-1).
			m = 2*m - 1
			e--
		}
	}
	if ftz {
		return roundMantFtz(neg, m, e, sticky, f, r)
	}
	return roundMant(neg, m, e, sticky, f, r)
}

// SumExact reports whether s, the float64 sum a + b, is exact (TwoSum's
// error term is zero).
func SumExact(a, b, s float64) bool {
	bb := s - a
	return (a-(s-bb))+(b-bb) == 0
}

// twoSum returns s = RN(a+b) and the exact error e = a+b-s (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return
}

func sgn(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// zeroSumNeg reports whether an exactly-zero sum x+y is -0: IEEE 754 §6.3 —
// the sum of two zeros of the same sign keeps that sign; any other exact
// zero sum is +0, except -0 when rounding toward -inf.
func zeroSumNeg(xZero, xNeg, yZero, yNeg bool, r Round) bool {
	if xZero && yZero && xNeg == yNeg {
		return xNeg
	}
	return r == RM
}
