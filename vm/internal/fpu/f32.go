package fpu

import "math"

const (
	sign32 = uint32(1) << 31
	one32  = uint32(0x3f800000)
)

func f32(x uint32) float32  { return math.Float32frombits(x) }
func b32(x float32) uint32  { return math.Float32bits(x) }
func f32d(x uint32) float64 { return float64(math.Float32frombits(x)) }

// Flush32 returns x with an f32 subnormal replaced by a zero of the same sign
// (the .ftz treatment of inputs and results).
func Flush32(x uint32) uint32 {
	if x&0x7f800000 == 0 {
		return x & sign32
	}
	return x
}

// Sat32 clamps x to [0.0, 1.0]; NaN becomes +0.0 (the .sat modifier). -0.0
// becomes +0.0 (our reading of "clamps to [0.0, 1.0]"; to be confirmed).
func Sat32(x uint32) uint32 {
	switch {
	case isNaN32(x), x&sign32 != 0:
		return 0
	case x > one32:
		return one32
	}
	return x
}

// finish32 applies the NaN policy, .ftz on the result and .sat, in that
// order, to a rounded f32 result. Results rounded by roundF64x with ftz are
// already flushed by the GPU's rule (tiny after rounding → ±0, see
// roundMantFtz); the flush here covers the exact native paths.
func finish32(z uint32, ftz, sat bool) uint32 {
	if isNaN32(z) {
		z = nan32()
	} else if ftz {
		z = Flush32(z)
	}
	if sat {
		z = Sat32(z)
	}
	return z
}

// Add32 is add{.rnd}{.ftz}{.sat}.f32.
func Add32(a, b uint32, r Round, ftz, sat bool) uint32 {
	if r == RN && !ftz && !sat {
		if z := b32(f32(a) + f32(b)); !isNaN32(z) {
			return z
		}
	}
	return add32(a, b, r, ftz, sat)
}

// Sub32 is sub{.rnd}{.ftz}{.sat}.f32: a + (-b).
func Sub32(a, b uint32, r Round, ftz, sat bool) uint32 {
	return Add32(a, b^sign32, r, ftz, sat)
}

func add32(a, b uint32, r Round, ftz, sat bool) uint32 {
	if ftz {
		a, b = Flush32(a), Flush32(b)
	}
	var z uint32
	if r == RN || isSpec32(a) || isSpec32(b) {
		// Round to nearest, or an infinite/NaN result, which no rounding
		// direction changes.
		z = b32(f32(a) + f32(b))
	} else {
		x, y := f32d(a), f32d(b)
		s, e := twoSum(x, y)
		if s == 0 {
			z = 0
			if zeroSumNeg(a<<1 == 0, a>>31 != 0, b<<1 == 0, b>>31 != 0, r) {
				z = sign32
			}
		} else {
			z = uint32(roundF64x(s, sgn(e), &fmtF32, r, ftz))
		}
	}
	return finish32(z, ftz, sat)
}

// Mul32 is mul{.rnd}{.ftz}{.sat}.f32.
func Mul32(a, b uint32, r Round, ftz, sat bool) uint32 {
	if r == RN && !ftz && !sat {
		z := b32(f32(a) * f32(b))
		if isNaN32(z) {
			return nan32()
		}
		return z
	}
	if ftz {
		a, b = Flush32(a), Flush32(b)
	}
	var z uint32
	p := f32d(a) * f32d(b) // exact: 24x24 bits, exponent within float64 range
	if p == 0 || isSpec32(a) || isSpec32(b) {
		z = b32(float32(p)) // ±0, ±inf or NaN: exact
	} else {
		z = uint32(roundF64x(p, 0, &fmtF32, r, ftz))
	}
	return finish32(z, ftz, sat)
}

// Fma32 is fma.rnd{.ftz}{.sat}.f32 (and mad.rnd.f32): a*b+c computed exactly
// and rounded once.
//
// The product of two f32 values is exact in float64; TwoSum then gives the
// exact sum as s+e. float32(s) is the correctly rounded result unless s lies
// exactly on an f32 rounding boundary with e != 0 — the double-rounding case —
// or the result is subnormal, overflows or is directed; those go through
// roundF64, which uses the sign of e as a sticky bit.
//
// The boundary is tested before e: s lands on one about once in 2^29, so
// the branch goes the same way for nearly every call, where e == 0 (the
// float64 sum was exact) is close to a coin toss in a dot product's FMA
// chain and its branch mispredicts (measured: the costliest line of the
// interpreter's tiled matmul, whose inner loop inlines this path).
func Fma32(a, b, c uint32, r Round, ftz, sat bool) uint32 {
	if r == RN && !ftz && !sat {
		p, w := f32d(a)*f32d(b), f32d(c)
		s := p + w
		if as := math.Abs(s); as >= 0x1p-126 && as < 0x1p127 &&
			(math.Float64bits(s)&(1<<29-1) != 1<<28 || SumExact(p, w, s)) {
			return b32(float32(s))
		}
	}
	return fma32(a, b, c, r, ftz, sat)
}

func fma32(a, b, c uint32, r Round, ftz, sat bool) uint32 {
	if ftz {
		a, b, c = Flush32(a), Flush32(b), Flush32(c)
	}
	x, y, w := f32d(a), f32d(b), f32d(c)
	p := x * y
	var z uint32
	switch {
	case isSpec32(a) || isSpec32(b) || isSpec32(c):
		z = b32(float32(p + w)) // inf or NaN, exact in any direction
	default:
		s, e := twoSum(p, w)
		if s == 0 {
			pNeg := (a^b)>>31 != 0
			z = 0
			if zeroSumNeg(p == 0, pNeg, c<<1 == 0, c>>31 != 0, r) {
				z = sign32
			}
		} else {
			z = uint32(roundF64x(s, sgn(e), &fmtF32, r, ftz))
		}
	}
	return finish32(z, ftz, sat)
}

// Div32 is div.rnd{.ftz}.f32 (IEEE division; div.full and div.approx are in
// approx.go).
func Div32(a, b uint32, r Round, ftz bool) uint32 {
	if r == RN && !ftz {
		z := b32(f32(a) / f32(b))
		if isNaN32(z) {
			return nan32()
		}
		return z
	}
	if ftz {
		a, b = Flush32(a), Flush32(b)
	}
	var z uint32
	if isSpec32(a) || isSpec32(b) || a<<1 == 0 || b<<1 == 0 {
		z = b32(f32(a) / f32(b))
	} else {
		x, y := f32d(a), f32d(b)
		q := x / y
		// Exact residual: a - q*b is representable (no underflow possible
		// for f32 operands in float64); a/b = q + res/b.
		res := math.FMA(-q, y, x)
		t := sgn(res)
		if y < 0 {
			t = -t
		}
		z = uint32(roundF64x(q, t, &fmtF32, r, ftz))
	}
	return finish32(z, ftz, false)
}

// Rcp32 is rcp.rnd{.ftz}.f32: 1/a rounded by r.
func Rcp32(a uint32, r Round, ftz bool) uint32 { return Div32(one32, a, r, ftz) }

// Sqrt32 is sqrt.rnd{.ftz}.f32.
func Sqrt32(a uint32, r Round, ftz bool) uint32 {
	if ftz {
		a = Flush32(a)
	}
	x := f32d(a)
	q := math.Sqrt(x)
	var z uint32
	if r == RN || isSpec32(a) || x <= 0 {
		// float64 sqrt then one rounding to f32 is correctly rounded
		// (53 >= 2*24+2); negative inputs give NaN, sqrt(-0) = -0.
		z = b32(float32(q))
	} else {
		res := math.FMA(-q, q, x) // exact: x - q²
		z = uint32(roundF64(q, sgn(res), &fmtF32, r))
	}
	return finish32(z, ftz, false)
}

// lessTotal32 reports a < b for non-NaN f32 values, with -0 < +0.
func lessTotal32(a, b uint32) bool {
	x, y := f32(a), f32(b)
	if x == y {
		return a>>31 > b>>31 // only ±0 compare equal with different bits
	}
	return x < y
}

// minmax32 implements PTX min/max for f32 (ISA 9.7.3.11-12).
func minmax32(a, b uint32, ftz, nanMode, xorsignAbs, isMax bool) uint32 {
	if ftz {
		a, b = Flush32(a), Flush32(b)
	}
	var xs uint32
	if xorsignAbs {
		xs = (a ^ b) & sign32
		a &^= sign32
		b &^= sign32
	}
	an, bn := isNaN32(a), isNaN32(b)
	var d uint32
	switch {
	case an && bn, nanMode && (an || bn):
		return nan32()
	case an:
		d = b
	case bn:
		d = a
	case lessTotal32(a, b) != isMax:
		d = a
	default:
		d = b
	}
	if xorsignAbs {
		d = d&^sign32 | xs
	}
	return d
}

// Min32 is min{.ftz}{.NaN}{.xorsign.abs}.f32: one NaN operand yields the
// other operand, two NaNs (or any NaN with .NaN) the canonical NaN; -0 < +0.
// With xorsignAbs the magnitude is min(|a|,|b|) and the sign is sign(a) XOR
// sign(b) (ignored for a NaN result).
func Min32(a, b uint32, ftz, nanMode, xorsignAbs bool) uint32 {
	return minmax32(a, b, ftz, nanMode, xorsignAbs, false)
}

// Max32 is max{.ftz}{.NaN}{.xorsign.abs}.f32 (see Min32); +0 > -0.
func Max32(a, b uint32, ftz, nanMode, xorsignAbs bool) uint32 {
	return minmax32(a, b, ftz, nanMode, xorsignAbs, true)
}

// Abs32 is abs{.ftz}.f32. A NaN input gives nan32() (the ISA: "unspecified").
func Abs32(a uint32, ftz bool) uint32 {
	if isNaN32(a) {
		return nan32()
	}
	if ftz {
		a = Flush32(a)
	}
	return a &^ sign32
}

// Neg32 is neg{.ftz}.f32. A NaN input gives nan32() (the ISA: "unspecified").
func Neg32(a uint32, ftz bool) uint32 {
	if isNaN32(a) {
		return nan32()
	}
	if ftz {
		a = Flush32(a)
	}
	return a ^ sign32
}

// Copysign32 is copysign.f32 d, a, b: the sign bit of a with the rest of b
// (ISA 9.7.3.2: "Copy sign bit of a into value of b"). A pure bit operation.
func Copysign32(a, b uint32) uint32 { return a&sign32 | b&^sign32 }

// TestpClass is the property testp tests.
type TestpClass uint8

const (
	TestFinite     TestpClass = iota // not infinite and not NaN
	TestInfinite                     // ±inf
	TestNumber                       // not NaN
	TestNotANumber                   // NaN
	TestNormal                       // normal or zero (the ISA counts ±0 as normal)
	TestSubnormal                    // subnormal
)

// Testp32 is testp.op.f32.
func Testp32(a uint32, class TestpClass) bool {
	ex := a & 0x7f800000
	fr := a & 0x7fffff
	switch class {
	case TestFinite:
		return ex != 0x7f800000
	case TestInfinite:
		return ex == 0x7f800000 && fr == 0
	case TestNumber:
		return !isNaN32(a)
	case TestNotANumber:
		return isNaN32(a)
	case TestNormal:
		return ex != 0x7f800000 && (ex != 0 || fr == 0)
	case TestSubnormal:
		return ex == 0 && fr != 0
	}
	return false
}
