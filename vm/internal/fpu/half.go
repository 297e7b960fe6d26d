package fpu

import "math"

// Scalar f16 and bf16 arithmetic (PTX ISA 9.7.4). The VM forms the .f16x2 and
// .bf16x2 forms by applying these to each half: low half is element 0.
//
// Operands are widened exactly to float64; sums are kept exact as TwoSum
// pairs and products are exact, so every result is rounded once by
// roundF64. PTX only defines .rn for these instructions; the other rounding
// directions are accepted and rounded correctly.

const sign16 = uint16(1) << 15

// F16 helpers.

func f16ToF64(h uint16) float64 {
	var v float64
	e := h >> 10 & 0x1f
	m := uint64(h & 0x3ff)
	switch e {
	case 0:
		v = float64(m) * 0x1p-24
	case 0x1f:
		if m != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	default:
		v = math.Float64frombits(uint64(int(e)-15+1023)<<52 | m<<42)
	}
	if h&sign16 != 0 {
		v = -v
	}
	return v
}

func bf16ToF64(h uint16) float64 { return float64(math.Float32frombits(uint32(h) << 16)) }

// Flush16 is .ftz for an f16 value: a subnormal becomes a zero of the same sign.
func Flush16(h uint16) uint16 {
	if h&0x7c00 == 0 {
		return h & sign16
	}
	return h
}

// FlushBF16 is .ftz for a bf16 value.
func FlushBF16(h uint16) uint16 {
	if h&0x7f80 == 0 {
		return h & sign16
	}
	return h
}

// halfKind bundles what differs between f16 and bf16.
type halfKind struct {
	f     *format
	one   uint16
	dec   func(uint16) float64
	flush func(uint16) uint16
	isNaN func(uint16) bool
	nan   func() uint16
}

var (
	kF16  = &halfKind{&fmtF16, 0x3c00, f16ToF64, Flush16, isNaN16, nan16}
	kBF16 = &halfKind{&fmtBF16, 0x3f80, bf16ToF64, FlushBF16, isNaNBF, nanBF16}
)

// sat clamps h to [0.0, 1.0]; NaN and -0 become +0.
func (k *halfKind) sat(h uint16) uint16 {
	switch {
	case k.isNaN(h), h&sign16 != 0:
		return 0
	case h > k.one:
		return k.one
	}
	return h
}

// relu is the .relu modifier: negative results become +0 (-0 included, our
// reading), NaN becomes the canonical NaN.
func (k *halfKind) relu(h uint16) uint16 {
	switch {
	case k.isNaN(h):
		return k.nan()
	case h&sign16 != 0:
		return 0
	}
	return h
}

const (
	opAdd = iota
	opMul
	opFma
)

// op computes a+b, a*b or a*b+c in format k, rounded once by r.
func (k *halfKind) op(op int, a, b, c uint16, r Round, ftz, sat bool) uint16 {
	if ftz {
		a, b, c = k.flush(a), k.flush(b), k.flush(c)
	}
	x, y := k.dec(a), k.dec(b)
	var s, e float64
	zeroNeg := false
	switch op {
	case opAdd:
		s, e = twoSum(x, y)
		zeroNeg = zeroSumNeg(x == 0, a&sign16 != 0, y == 0, b&sign16 != 0, r)
	case opMul:
		s = x * y // exact
		zeroNeg = (a^b)&sign16 != 0
	case opFma:
		p := x * y
		w := k.dec(c)
		s, e = twoSum(p, w)
		zeroNeg = zeroSumNeg(p == 0, (a^b)&sign16 != 0, w == 0, c&sign16 != 0, r)
	}
	var z uint16
	switch {
	case s != s:
		z = k.nan()
	case math.IsInf(s, 0): // only from infinite operands: exact
		z = uint16(k.f.inf)
		if s < 0 {
			z |= sign16
		}
	case s == 0: // exact zero (no underflow to zero in float64 here)
		if zeroNeg {
			z = sign16
		}
	default:
		z = uint16(roundF64x(s, sgn(e), k.f, r, ftz))
	}
	if ftz {
		z = k.flush(z)
	}
	if sat {
		z = k.sat(z)
	}
	return z
}

// Add16 is add{.rnd}{.ftz}{.sat}.f16.
func Add16(a, b uint16, r Round, ftz, sat bool) uint16 {
	return kF16.op(opAdd, a, b, 0, r, ftz, sat)
}

// Sub16 is sub{.rnd}{.ftz}{.sat}.f16.
func Sub16(a, b uint16, r Round, ftz, sat bool) uint16 {
	return kF16.op(opAdd, a, b^sign16, 0, r, ftz, sat)
}

// Mul16 is mul{.rnd}{.ftz}{.sat}.f16.
func Mul16(a, b uint16, r Round, ftz, sat bool) uint16 {
	return kF16.op(opMul, a, b, 0, r, ftz, sat)
}

// Fma16 is fma.rnd{.ftz}{.sat}.f16; for .relu apply Relu16 to the result.
func Fma16(a, b, c uint16, r Round, ftz, sat bool) uint16 {
	return kF16.op(opFma, a, b, c, r, ftz, sat)
}

// AddBF16 is add{.rnd}.bf16.
func AddBF16(a, b uint16, r Round) uint16 { return kBF16.op(opAdd, a, b, 0, r, false, false) }

// SubBF16 is sub{.rnd}.bf16.
func SubBF16(a, b uint16, r Round) uint16 {
	return kBF16.op(opAdd, a, b^sign16, 0, r, false, false)
}

// MulBF16 is mul{.rnd}.bf16.
func MulBF16(a, b uint16, r Round) uint16 { return kBF16.op(opMul, a, b, 0, r, false, false) }

// FmaBF16 is fma.rnd.bf16; for .relu apply ReluBF16 to the result.
func FmaBF16(a, b, c uint16, r Round) uint16 {
	return kBF16.op(opFma, a, b, c, r, false, false)
}

// Sat16 clamps an f16 to [0.0, 1.0] (NaN, -0 → +0).
func Sat16(h uint16) uint16 { return kF16.sat(h) }

// Relu16 is .relu on an f16 result: negative → +0, NaN → canonical NaN.
func Relu16(h uint16) uint16 { return kF16.relu(h) }

// ReluBF16 is .relu on a bf16 result.
func ReluBF16(h uint16) uint16 { return kBF16.relu(h) }

func (k *halfKind) less(a, b uint16) bool {
	x, y := k.dec(a), k.dec(b)
	if x == y {
		return a>>15 > b>>15
	}
	return x < y
}

func (k *halfKind) minmax(a, b uint16, ftz, nanMode, xorsignAbs, isMax bool) uint16 {
	if ftz {
		a, b = k.flush(a), k.flush(b)
	}
	var xs uint16
	if xorsignAbs {
		xs = (a ^ b) & sign16
		a &^= sign16
		b &^= sign16
	}
	an, bn := k.isNaN(a), k.isNaN(b)
	var d uint16
	switch {
	case an && bn, nanMode && (an || bn):
		return k.nan()
	case an:
		d = b
	case bn:
		d = a
	case k.less(a, b) != isMax:
		d = a
	default:
		d = b
	}
	if xorsignAbs {
		d = d&^sign16 | xs
	}
	return d
}

// Min16 is min{.ftz}{.NaN}{.xorsign.abs}.f16 (rules as Min32).
func Min16(a, b uint16, ftz, nanMode, xorsignAbs bool) uint16 {
	return kF16.minmax(a, b, ftz, nanMode, xorsignAbs, false)
}

// Max16 is max{.ftz}{.NaN}{.xorsign.abs}.f16.
func Max16(a, b uint16, ftz, nanMode, xorsignAbs bool) uint16 {
	return kF16.minmax(a, b, ftz, nanMode, xorsignAbs, true)
}

// MinBF16 is min{.NaN}{.xorsign.abs}.bf16.
func MinBF16(a, b uint16, nanMode, xorsignAbs bool) uint16 {
	return kBF16.minmax(a, b, false, nanMode, xorsignAbs, false)
}

// MaxBF16 is max{.NaN}{.xorsign.abs}.bf16.
func MaxBF16(a, b uint16, nanMode, xorsignAbs bool) uint16 {
	return kBF16.minmax(a, b, false, nanMode, xorsignAbs, true)
}

// Neg16 is neg{.ftz}.f16 (NaN → canonical NaN; the ISA says "unspecified").
func Neg16(a uint16, ftz bool) uint16 {
	if isNaN16(a) {
		return nan16()
	}
	if ftz {
		a = Flush16(a)
	}
	return a ^ sign16
}

// Abs16 is abs{.ftz}.f16 (NaN → canonical NaN).
func Abs16(a uint16, ftz bool) uint16 {
	if isNaN16(a) {
		return nan16()
	}
	if ftz {
		a = Flush16(a)
	}
	return a &^ sign16
}

// NegBF16 is neg.bf16 (NaN → canonical NaN).
func NegBF16(a uint16) uint16 {
	if isNaNBF(a) {
		return nanBF16()
	}
	return a ^ sign16
}

// AbsBF16 is abs.bf16 (NaN → canonical NaN).
func AbsBF16(a uint16) uint16 {
	if isNaNBF(a) {
		return nanBF16()
	}
	return a &^ sign16
}

// oobNaN is the "out-of-bounds" NaN of fma.oob: an operand with this bit
// pattern forces the result to +0 (PTX ISA 9.7.4.4, fma .oob).
const oobNaN = 0x7fff

// FmaOOB16 is fma.rn.oob{.relu}.f16: fma.rn.f16, except that the result is
// +0 when any operand is the OOB NaN 0x7fff. Other NaN operands give the
// canonical NaN as usual (fma_rn_oob_f16). The conformance vectors hold no
// 0x7fff operand, so the +0 rule is the ISA's, unconfirmed on the GPU.
func FmaOOB16(a, b, c uint16, relu bool) uint16 {
	if a == oobNaN || b == oobNaN || c == oobNaN {
		return 0
	}
	v := Fma16(a, b, c, RN, false, false)
	if relu {
		v = Relu16(v)
	}
	return v
}

// FmaOOBBF16 is fma.rn.oob{.relu}.bf16 (see FmaOOB16).
func FmaOOBBF16(a, b, c uint16, relu bool) uint16 {
	if a == oobNaN || b == oobNaN || c == oobNaN {
		return 0
	}
	v := FmaBF16(a, b, c, RN)
	if relu {
		v = ReluBF16(v)
	}
	return v
}
