package fpu

// An exact reference for the randomized tests, written independently of the
// implementation: values are big.Rat, rounding is integer division on
// big.Int, and square roots are integer square roots at a large scale.

import (
	"cmp"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// tfmt is a binary format for the reference: mant fraction bits, exponent
// bias, and total width in bits (sign at width-1).
type tfmt struct {
	mant  uint
	bias  int
	width uint
}

var (
	tF64  = tfmt{52, 1023, 64}
	tF32  = tfmt{23, 127, 32}
	tF16  = tfmt{10, 15, 16}
	tBF16 = tfmt{7, 127, 16}
	tTF32 = tfmt{10, 127, 19} // shift left 13 for the f32 pattern
)

func (f tfmt) expBits() uint        { return f.width - 1 - f.mant }
func (f tfmt) signBit() uint64      { return 1 << (f.width - 1) }
func (f tfmt) infEnc() uint64       { return uint64(1<<f.expBits()-1) << f.mant }
func (f tfmt) isZero(b uint64) bool { return b&^f.signBit() == 0 }
func (f tfmt) isNeg(b uint64) bool  { return b&f.signBit() != 0 }
func (f tfmt) isSub(b uint64) bool {
	return b>>f.mant&(1<<f.expBits()-1) == 0 && b&(1<<f.mant-1) != 0
}

// flush is the reference .ftz: subnormal → signed zero.
func (f tfmt) flush(b uint64) uint64 {
	if f.isSub(b) {
		return b & f.signBit()
	}
	return b
}

func pow2Rat(e int) *big.Rat {
	x := new(big.Int).Lsh(big.NewInt(1), uint(abs(e)))
	if e >= 0 {
		return new(big.Rat).SetInt(x)
	}
	return new(big.Rat).SetFrac(big.NewInt(1), x)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ratOf is the exact value of finite bits b in format f.
func ratOf(b uint64, f tfmt) *big.Rat {
	ex := int(b >> f.mant & (1<<f.expBits() - 1))
	fr := b & (1<<f.mant - 1)
	e := ex - f.bias - int(f.mant)
	if ex == 0 {
		e = 1 - f.bias - int(f.mant)
	} else {
		fr |= 1 << f.mant
	}
	r := new(big.Rat).SetInt(new(big.Int).SetUint64(fr))
	r.Mul(r, pow2Rat(e))
	if f.isNeg(b) {
		r.Neg(r)
	}
	return r
}

// refRound rounds the exact nonzero x to format f under r, with gradual
// underflow and IEEE overflow.
func refRound(x *big.Rat, f tfmt, r Round) uint64 {
	return refRoundSticky(x, false, f, r)
}

// refRoundSticky is refRound where, if sticky, the exact value is
// infinitesimally larger in magnitude than x (used by the sqrt reference).
func refRoundSticky(x *big.Rat, sticky bool, f tfmt, r Round) uint64 {
	neg := x.Sign() < 0
	ax := new(big.Rat).Abs(x)
	E := ax.Num().BitLen() - ax.Denom().BitLen()
	if ax.Cmp(pow2Rat(E)) < 0 {
		E--
	}
	emin := 1 - f.bias
	q := E
	if q < emin {
		q = emin
	}
	q -= int(f.mant)
	sn := new(big.Int).Set(ax.Num())
	sd := new(big.Int).Set(ax.Denom())
	if q >= 0 {
		sd.Lsh(sd, uint(q))
	} else {
		sn.Lsh(sn, uint(-q))
	}
	n, rem := new(big.Int).QuoRem(sn, sd, new(big.Int))
	c := new(big.Int).Lsh(rem, 1).Cmp(sd)
	if sticky && c == 0 {
		c = 1
	}
	inexact := rem.Sign() != 0 || sticky
	inc := false
	switch r {
	case RN:
		inc = c > 0 || (c == 0 && n.Bit(0) == 1)
	case RNA:
		inc = c >= 0 && inexact
	case RP:
		inc = !neg && inexact
	case RM:
		inc = neg && inexact
	}
	if inc {
		n.Add(n, big.NewInt(1))
	}
	if n.BitLen() > int(f.mant)+1 {
		n.Rsh(n, 1)
		q++
	}
	var enc uint64
	switch {
	case n.Sign() == 0:
	case n.BitLen() <= int(f.mant):
		enc = n.Uint64()
	default:
		field := q + int(f.mant) + f.bias
		if field >= 1<<f.expBits()-1 {
			enc = f.infEnc()
			if r == RZ || (r == RP && neg) || (r == RM && !neg) {
				enc--
			}
		} else {
			enc = uint64(field)<<f.mant | n.Uint64()&(1<<f.mant-1)
		}
	}
	if neg {
		enc |= f.signBit()
	}
	return enc
}

// refZero is the IEEE sign of an exactly-zero sum x+y.
func refZero(xZero, xNeg, yZero, yNeg bool, r Round, f tfmt) uint64 {
	if (xZero && yZero && xNeg && yNeg) || (!(xZero && yZero && xNeg == yNeg) && r == RM) {
		return f.signBit()
	}
	return 0
}

// refFinish applies ftz (flush result) and rounding of an exact x (may be 0
// with a precomputed zero).
func refFinish(x *big.Rat, zero uint64, f tfmt, r Round, ftz bool) uint64 {
	z := zero
	if x.Sign() != 0 {
		z = refRound(x, f, r)
		if ftz && refTinyAfterRounding(x, f, r) {
			z = z & f.signBit()
		}
	}
	if ftz {
		z = f.flush(z)
	}
	return z
}

// refTinyAfterRounding reports whether x, rounded under r to f's precision
// with an unbounded exponent range, is below f's smallest normal: the GPU's
// .ftz criterion (roundMantFtz).
func refTinyAfterRounding(x *big.Rat, f tfmt, r Round) bool {
	wide := tfmt{mant: f.mant, bias: 1<<14 - 1, width: f.mant + 16}
	v := new(big.Rat).Abs(ratOf(refRound(x, wide, r)&^wide.signBit(), wide))
	return v.Cmp(pow2Rat(1-f.bias)) < 0
}

func refAdd(a, b uint64, f tfmt, r Round, ftz bool) uint64 {
	if ftz {
		a, b = f.flush(a), f.flush(b)
	}
	s := new(big.Rat).Add(ratOf(a, f), ratOf(b, f))
	return refFinish(s, refZero(f.isZero(a), f.isNeg(a), f.isZero(b), f.isNeg(b), r, f), f, r, ftz)
}

func refMul(a, b uint64, f tfmt, r Round, ftz bool) uint64 {
	if ftz {
		a, b = f.flush(a), f.flush(b)
	}
	p := new(big.Rat).Mul(ratOf(a, f), ratOf(b, f))
	return refFinish(p, (a^b)&f.signBit(), f, r, ftz)
}

func refFma(a, b, c uint64, f tfmt, r Round, ftz bool) uint64 {
	if ftz {
		a, b, c = f.flush(a), f.flush(b), f.flush(c)
	}
	p := new(big.Rat).Mul(ratOf(a, f), ratOf(b, f))
	s := new(big.Rat).Add(p, ratOf(c, f))
	pz := f.isZero(a) || f.isZero(b)
	return refFinish(s, refZero(pz, f.isNeg(a) != f.isNeg(b), f.isZero(c), f.isNeg(c), r, f), f, r, ftz)
}

// refDiv requires b nonzero.
func refDiv(a, b uint64, f tfmt, r Round, ftz bool) uint64 {
	if ftz {
		a, b = f.flush(a), f.flush(b)
	}
	if f.isZero(b) {
		panic("refDiv by zero")
	}
	q := new(big.Rat).Quo(ratOf(a, f), ratOf(b, f))
	return refFinish(q, (a^b)&f.signBit(), f, r, ftz)
}

// refSqrt requires a >= 0 (or -0).
func refSqrt(a uint64, f tfmt, r Round, ftz bool) uint64 {
	if ftz {
		a = f.flush(a)
	}
	if f.isZero(a) {
		return a
	}
	x := ratOf(a, f) // = num / 2^k exactly (a dyadic rational)
	// sqrt(x) = sqrt(num · 2^(2K) / den) / 2^K with K large: use the integer
	// square root of num·2^(2K)/den, which is exact since den is a power of 2.
	const K = 1400
	n := new(big.Int).Lsh(x.Num(), 2*K)
	n.Quo(n, x.Denom()) // exact: den = 2^j with j <= 2K
	s := new(big.Int).Sqrt(n)
	sticky := new(big.Int).Mul(s, s).Cmp(n) != 0
	v := new(big.Rat).SetFrac(s, new(big.Int).Lsh(big.NewInt(1), K))
	z := refRoundSticky(v, sticky, f, r)
	if ftz {
		z = f.flush(z)
	}
	return z
}

// Generators of interesting finite operands.

type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

// bitsOf makes a finite value of format f with the given biased exponent
// field and fraction.
func bitsOf(f tfmt, neg bool, ex uint64, fr uint64) uint64 {
	b := ex<<f.mant | fr&(1<<f.mant-1)
	if neg {
		b |= f.signBit()
	}
	return b
}

// val draws a finite value of format f from a mixture of shapes.
func (g *gen) val(f tfmt) uint64 {
	maxEx := uint64(1)<<f.expBits() - 2 // largest finite exponent field
	neg := g.r.IntN(2) == 0
	fr := g.r.Uint64()
	switch g.r.IntN(10) {
	case 0: // subnormal
		return bitsOf(f, neg, 0, fr>>uint(g.r.IntN(int(f.mant))))
	case 1: // near overflow
		return bitsOf(f, neg, maxEx-uint64(g.r.IntN(3)), fr)
	case 2: // few fraction bits: ties and exact cases
		return bitsOf(f, neg, 1+g.r.Uint64N(maxEx), fr&(fr>>7)&(fr>>13)&(fr>>29))
	case 3: // near 1
		return bitsOf(f, neg, uint64(f.bias)+uint64(g.r.IntN(5))-2, fr)
	case 4: // zero
		return bitsOf(f, neg, 0, 0)
	case 5: // smallest normals
		return bitsOf(f, neg, 1+uint64(g.r.IntN(3)), fr)
	case 6: // all-ones fraction (carry out)
		return bitsOf(f, neg, 1+g.r.Uint64N(maxEx), ^uint64(0)>>uint(g.r.IntN(4)))
	}
	return bitsOf(f, neg, 1+g.r.Uint64N(maxEx), fr)
}

// near returns a value close to x in magnitude or a few ulps off, or x
// scaled to be a tie partner, to provoke cancellation and rounding ties.
func (g *gen) near(f tfmt, x uint64) uint64 {
	switch g.r.IntN(4) {
	case 0: // a few ulps away, either sign
		d := uint64(g.r.IntN(5))
		y := x + d
		if g.r.IntN(2) == 0 && x&^f.signBit() >= d {
			y = x - d
		}
		if y&^f.signBit() >= f.infEnc() {
			y = x
		}
		return y ^ uint64(g.r.IntN(2))<<(f.width-1)
	case 1: // exponent shifted by about the precision
		ex := int(x >> f.mant & (1<<f.expBits() - 1))
		ex -= int(f.mant) + g.r.IntN(5) - 1
		if ex < 0 {
			ex = 0
		}
		return bitsOf(f, g.r.IntN(2) == 0, uint64(ex), uint64(1)<<uint(g.r.IntN(int(f.mant)+1))-1+g.r.Uint64N(2))
	}
	return g.val(f)
}

// ---- small helpers for tables ----

func fb(x float32) uint32 { return math.Float32bits(x) }
func db(x float64) uint64 { return math.Float64bits(x) }

var allRounds = []Round{RN, RZ, RM, RP}

func iters(t *testing.T, n int) int {
	if testing.Short() {
		return n / 20
	}
	return n
}

// eq and le are require.Equal and require.LessOrEqual for the inner loops
// of the random and dense sweeps: they compare first and call require,
// with the same arguments, only when the check fails, so that a failure
// reads as before. Called on every input, require (t.Helper's stack walk,
// testify's reflection) and the messages' formatting took about 40% of
// the package's CPU.
func eq[T comparable](t *testing.T, want, got T, msgAndArgs ...any) {
	if want != got {
		t.Helper()
		require.Equal(t, want, got, msgAndArgs...)
	}
}

func le[T cmp.Ordered](t *testing.T, got, bound T, msgAndArgs ...any) {
	if got <= bound {
		return
	}
	t.Helper()
	require.LessOrEqual(t, got, bound, msgAndArgs...)
}

// lazy is a message formatted only when a check fails (fmt's %s calls
// String).
type lazy func() string

func (l lazy) String() string { return l() }
