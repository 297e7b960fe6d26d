package fpu

import (
	"math"
	"math/big"
	"math/bits"
)

// f64 arithmetic. PTX has no .ftz or .sat on f64 arithmetic. Rounding
// directions RN, RZ, RM and RP are supported (PTX has no .rna arithmetic;
// RNA here is treated as RN).
//
// Round to nearest is native Go float64 arithmetic (IEEE binary64, RN, with
// gradual underflow). Directed modes start from the RN result and the sign
// of the exact residual, obtained exactly with TwoSum, FMA residuals or
// 128-bit integer arithmetic; the rare cases where those are not exact
// (results near the bottom of the subnormal range) use math/big.

const sign64 = uint64(1) << 63

func f64(x uint64) float64 { return math.Float64frombits(x) }
func b64(x float64) uint64 { return math.Float64bits(x) }

// Sat64 clamps x to [0.0, 1.0]; NaN and -0.0 become +0.0 (cvt.sat.f64).
func Sat64(x uint64) uint64 {
	switch {
	case isNaN64(x), x&sign64 != 0:
		return 0
	case x > 0x3ff0000000000000:
		return 0x3ff0000000000000
	}
	return x
}

// adjust64 turns s = RN(v) into the r-rounded v, given the sign t of v-s.
func adjust64(s float64, t int, r Round) uint64 {
	b := b64(s)
	if t == 0 {
		return b
	}
	neg := b&sign64 != 0
	switch r {
	case RZ:
		if (t < 0) != neg && b<<1 != 0 {
			return b - 1 // one step toward zero
		}
	case RP:
		if t > 0 {
			return nextUp64(b)
		}
	case RM:
		if t < 0 {
			return nextUp64(b^sign64) ^ sign64
		}
	}
	return b
}

// nextUp64 is the next float64 above b (b finite).
func nextUp64(b uint64) uint64 {
	switch {
	case b<<1 == 0:
		return 1
	case b&sign64 != 0:
		return b - 1
	}
	return b + 1
}

func overflow64(neg bool, r Round) uint64 {
	z := overflowEnc(&fmtF64, neg, r)
	if neg {
		z |= sign64
	}
	return z
}

func zero64(neg bool) uint64 {
	if neg {
		return sign64
	}
	return 0
}

// Add64 is add{.rnd}.f64.
func Add64(a, b uint64, r Round) uint64 {
	x, y := f64(a), f64(b)
	if r == RN || isSpec64(a) || isSpec64(b) {
		z := b64(x + y)
		if isNaN64(z) {
			return nanAdd64(a, b)
		}
		return z
	}
	s, e := twoSum(x, y)
	switch {
	case math.IsInf(s, 0):
		return overflow64(s < 0, r)
	case s == 0:
		return zero64(zeroSumNeg(a<<1 == 0, a>>63 != 0, b<<1 == 0, b>>63 != 0, r))
	}
	return adjust64(s, sgn(e), r)
}

// Sub64 is sub{.rnd}.f64. A NaN b propagates with its own sign, and before
// a NaN a (nan.go).
func Sub64(a, b uint64, r Round) uint64 {
	if isNaN64(b) {
		return nanAdd64(a, b)
	}
	return Add64(a, b^sign64, r)
}

// Sub64Swapped is Sub64 with a's NaN taking precedence over b's: the same
// value for every other input. Which NaN a two-operand f64 instruction
// returns is not a property of the PTX instruction: the hardware returns
// its second source's NaN first, and ptxas chooses the order of the sources
// (nan.go). For add, mul, fma (a and b), min and max the caller gets the
// other order by swapping the commutative operands; sub needs this.
func Sub64Swapped(a, b uint64, r Round) uint64 {
	if isNaN64(a) || isNaN64(b) {
		return nanDiv64(a, b) // a's NaN first
	}
	return Add64(a, b^sign64, r)
}

// AtomAdd64 is the value atom.add.f64 and red.add.f64 store: old + b,
// rounded to nearest, with the NaN rules of the unit that performs it
// (nan.go): on shared memory (the SM's adder) old's NaN before b's, quieted;
// on global memory (the L2's) b's NaN before old's, not quieted.
func AtomAdd64(old, b uint64, shared bool) uint64 {
	if isNaN64(old) || isNaN64(b) {
		if shared {
			return nanDiv64(old, b) // old's NaN first, quieted
		}
		return nanAtomGlobal64(old, b)
	}
	return Add64(old, b, RN)
}

// Mul64 is mul{.rnd}.f64.
func Mul64(a, b uint64, r Round) uint64 {
	x, y := f64(a), f64(b)
	if r == RN || isSpec64(a) || isSpec64(b) || a<<1 == 0 || b<<1 == 0 {
		z := b64(x * y)
		if isNaN64(z) {
			return nanAdd64(a, b)
		}
		return z
	}
	na, ma, ea := decomp64(x)
	nb, mb, eb := decomp64(y)
	hi, lo := bits.Mul64(ma, mb) // exact product, < 2^106
	m, e, sticky := lo, ea+eb, false
	if hi != 0 {
		n := uint(bits.Len64(hi))
		m = hi<<(64-n) | lo>>n
		sticky = lo<<(64-n) != 0
		e += int(n)
	}
	return roundMant(na != nb, m, e, sticky, &fmtF64, r)
}

// Div64 is div.rnd.f64.
func Div64(a, b uint64, r Round) uint64 {
	x, y := f64(a), f64(b)
	if r == RN || isSpec64(a) || isSpec64(b) || a<<1 == 0 || b<<1 == 0 {
		z := b64(x / y)
		if isNaN64(z) {
			return nanDiv64(a, b)
		}
		return z
	}
	na, ma, ea := decomp64(x)
	nb, mb, eb := decomp64(y)
	sa := bits.LeadingZeros64(ma) - 11
	sb := bits.LeadingZeros64(mb) - 11
	ma, ea = ma<<uint(sa), ea-sa // both in [2^52, 2^53)
	mb, eb = mb<<uint(sb), eb-sb
	q, rem := bits.Div64(ma>>2, ma<<62, mb) // floor(ma·2^62/mb) in (2^61, 2^63)
	return roundMant(na != nb, q, ea-eb-62, rem != 0, &fmtF64, r)
}

// Rcp64 is rcp.rnd.f64: 1/a rounded by r.
func Rcp64(a uint64, r Round) uint64 { return Div64(0x3ff0000000000000, a, r) }

// Sqrt64 is sqrt.rnd.f64.
func Sqrt64(a uint64, r Round) uint64 {
	x := f64(a)
	if r == RN || isSpec64(a) || x <= 0 {
		z := b64(math.Sqrt(x))
		if isNaN64(z) {
			return nanUnary64(a)
		}
		return z
	}
	if x >= 0x1p-960 {
		q := math.Sqrt(x)
		res := math.FMA(-q, q, x) // exact for x in this range
		return adjust64(q, sgn(res), r)
	}
	// Tiny input: exact integer square root.
	_, m, e := decomp64(x)
	if e&1 != 0 {
		m, e = m<<1, e-1
	}
	k := (126 - bits.Len64(m)) / 2
	n := new(big.Int).Lsh(new(big.Int).SetUint64(m), uint(2*k))
	s := new(big.Int).Sqrt(n)
	sticky := new(big.Int).Mul(s, s).Cmp(n) != 0
	return roundMant(false, s.Uint64(), (e-2*k)/2, sticky, &fmtF64, r)
}

// Fma64 is fma.rnd.f64 / mad.rnd.f64: a*b+c exact, rounded once.
func Fma64(a, b, c uint64, r Round) uint64 {
	x, y, z := f64(a), f64(b), f64(c)
	if r == RN || isSpec64(a) || isSpec64(b) || isSpec64(c) {
		d := b64(math.FMA(x, y, z))
		if isNaN64(d) {
			return nanFma64(a, b, c)
		}
		return d
	}
	if a<<1 == 0 || b<<1 == 0 { // exact zero product
		if c<<1 != 0 {
			return c
		}
		return zero64(zeroSumNeg(true, (a^b)>>63 != 0, true, c>>63 != 0, r))
	}
	p := x * y
	ap, az := math.Abs(p), math.Abs(z)
	if ap < 0x1p-960 || ap > 0x1p1020 || az > 0x1p1020 {
		return fma64Big(x, y, z, r)
	}
	s := math.FMA(x, y, z)
	pe := math.FMA(x, y, -p) // exact: x*y = p + pe
	// v - s = pe + p + z - s as a nonoverlapping expansion (Shewchuk's
	// Grow-Expansion); its sign is that of its largest nonzero component.
	q, h0 := twoSum(z, pe)
	q, h1 := twoSum(q, p)
	q2, g0 := twoSum(-s, h0)
	q2, g1 := twoSum(q2, h1)
	q2, g2 := twoSum(q2, q)
	t := sgn(q2)
	if t == 0 {
		t = sgn(g2)
	}
	if t == 0 {
		t = sgn(g1)
	}
	if t == 0 {
		t = sgn(g0)
	}
	if s == 0 && t == 0 {
		return zero64(zeroSumNeg(false, p < 0, c<<1 == 0, c>>63 != 0, r))
	}
	return adjust64(s, t, r)
}

// fma64Big is the exact slow path of Fma64 for finite operands.
func fma64Big(x, y, z float64, r Round) uint64 {
	var bx, by, bz, p, s, mant big.Float
	bx.SetFloat64(x)
	by.SetFloat64(y)
	bz.SetFloat64(z)
	p.SetPrec(128).Mul(&bx, &by) // exact: 53+53 bits
	s.SetPrec(192).SetMode(big.ToZero).Add(&p, &bz)
	if s.Sign() == 0 { // big.Float does not underflow: exact zero
		return zero64(zeroSumNeg(p.Sign() == 0, p.Signbit(), z == 0, math.Signbit(z), r))
	}
	sticky := s.Acc() != big.Exact
	neg := s.Signbit()
	s.Abs(&s)
	exp := s.MantExp(&mant) // s = mant·2^exp, mant in [0.5, 1)
	mant.SetMantExp(&mant, 64)
	u, acc := mant.Uint64()
	if acc != big.Exact {
		sticky = true
	}
	return roundMant(neg, u, exp-64, sticky, &fmtF64, r)
}

func lessTotal64(a, b uint64) bool {
	x, y := f64(a), f64(b)
	if x == y {
		return a>>63 > b>>63
	}
	return x < y
}

func minmax64(a, b uint64, isMax bool) uint64 {
	an, bn := isNaN64(a), isNaN64(b)
	switch {
	case an && bn:
		return nanAdd64(a, b)
	case an:
		return b
	case bn:
		return a
	case lessTotal64(a, b) != isMax:
		return a
	}
	return b
}

// Min64 is min.f64: one NaN operand yields the other, two give b quieted
// (nan.go); -0 < +0.
func Min64(a, b uint64) uint64 { return minmax64(a, b, false) }

// Max64 is max.f64: one NaN operand yields the other; +0 > -0.
func Max64(a, b uint64) uint64 { return minmax64(a, b, true) }

// Abs64 is abs.f64. A NaN is returned quieted with its sign (nan.go; the
// ISA says "passed through unchanged", the GPU quiets it).
func Abs64(a uint64) uint64 {
	if isNaN64(a) {
		return nanUnary64(a)
	}
	return a &^ sign64
}

// Neg64 is neg.f64. A NaN is returned quieted, its sign unchanged (nan.go).
func Neg64(a uint64) uint64 {
	if isNaN64(a) {
		return nanUnary64(a)
	}
	return a ^ sign64
}

// Copysign64 is copysign.f64 d, a, b: the sign of a, the rest of b.
func Copysign64(a, b uint64) uint64 { return a&sign64 | b&^sign64 }

// Testp64 is testp.op.f64.
func Testp64(a uint64, class TestpClass) bool {
	ex := a & 0x7ff0000000000000
	fr := a & (1<<52 - 1)
	switch class {
	case TestFinite:
		return ex != 0x7ff0000000000000
	case TestInfinite:
		return ex == 0x7ff0000000000000 && fr == 0
	case TestNumber:
		return !isNaN64(a)
	case TestNotANumber:
		return isNaN64(a)
	case TestNormal:
		return ex != 0x7ff0000000000000 && (ex != 0 || fr == 0)
	case TestSubnormal:
		return ex == 0 && fr != 0
	}
	return false
}
