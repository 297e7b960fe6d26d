package fpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	max64    = uint64(0x7fefffffffffffff)
	inf64    = uint64(0x7ff0000000000000)
	ninf64   = uint64(0xfff0000000000000)
	nz64     = uint64(0x8000000000000000)
	minSub64 = uint64(1)
	minNrm64 = uint64(0x0010000000000000)
	one64    = uint64(0x3ff0000000000000)
	qnan64   = uint64(0x7ff8000000000123) // quiet NaN with payload
	snan64   = uint64(0x7ff0000000000456) // signaling NaN with payload
)

type bin64 struct {
	a, b uint64
	r    Round
	want uint64
}

func TestAdd64Table(t *testing.T) {
	tie := db(0x1p-53)
	cases := []bin64{
		{db(1), db(2), RN, db(3)},
		{0, nz64, RN, 0},
		{0, nz64, RM, nz64},
		{nz64, nz64, RZ, nz64},
		{db(1), db(-1), RP, 0},
		{db(1), db(-1), RM, nz64},
		{db(1), tie, RN, one64},
		{db(1), tie, RP, one64 + 1},
		{db(1), tie | sign64, RN, 0x3fefffffffffffff}, // 1-2^-53 is representable
		{db(1), db(-0x1p-54), RZ, 0x3fefffffffffffff},
		{db(1), db(-0x1p-54), RM, 0x3fefffffffffffff},
		{db(1), db(-0x1p-54), RN, one64}, // tie below 1, to even
		{one64 + 1, tie, RN, one64 + 2},
		{db(-1), db(-0x1p-80), RM, (one64 + 1) | sign64},
		{db(-1), db(-0x1p-80), RP, one64 | sign64},
		{max64, max64, RN, inf64},
		{max64, max64, RZ, max64},
		{max64, max64, RM, max64},
		{max64, max64, RP, inf64},
		{max64 | sign64, max64 | sign64, RM, ninf64},
		{max64 | sign64, max64 | sign64, RP, max64 | sign64},
		{max64, db(0x1p969), RP, inf64}, // just above max: RN keeps max
		{max64, db(0x1p969), RN, max64},
		{max64, db(0x1p970), RN, inf64}, // half an ulp: tie to even is 2^1024
		{max64, db(0x1p970), RZ, max64},
		{minSub64, minSub64, RM, 2},
		{minNrm64 + 1, minNrm64 | sign64, RZ, 1},
		{inf64, ninf64, RN, CanonNaN64},
		{inf64, ninf64, RZ, CanonNaN64},
		{inf64, db(1), RM, inf64},
		// NaN payloads propagate (quieted), b's before a's (nan.go)
		{qnan64, db(1), RN, qnan64},
		{db(1), snan64, RN, snan64 | 1<<51},
		{snan64, qnan64, RP, qnan64},
		{qnan64 | sign64, snan64, RZ, snan64 | 1<<51},
		// the GPU's own vectors (add_rn_f64)
		{0x7ff8000000000000, 0xfff0000000000003, RN, 0xfff8000000000003},
		{0xfff0000000000003, 0x7ff8000000000000, RN, 0x7ff8000000000000},
		{0xfff0000000000003, 0xfff0000000000003, RN, 0xfff8000000000003},
		{0x7ff0000000000000, 0xfff0000000000000, RN, 0xfff8000000000000},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, Add64(c.a, c.b, c.r), "Add64(%016x,%016x)/%v", c.a, c.b, c.r)
	}
	require.Equal(t, nz64, Sub64(db(1), db(1), RM))
	require.Equal(t, db(-1), Sub64(db(2), db(3), RN))
	require.Equal(t, qnan64, Sub64(db(1), qnan64, RN), "Sub64 keeps the NaN operand's sign")
	require.Equal(t, snan64|sign64|1<<51, Sub64(db(1), snan64|sign64, RN), "Sub64 quiets, never negates")
	require.Equal(t, CanonNaN64, Sub64(inf64, inf64, RP))
	require.Equal(t, uint64(0xfff8000000000000), Sub64(inf64, inf64, RN), "sub_rn_f64")
	require.Equal(t, uint64(0xfff8000000000003), Sub64(0x7ff8000000000000, 0xfff0000000000003, RN))
	require.Equal(t, uint64(0x7ff8000000000000), Sub64(0xfff0000000000003, 0x7ff8000000000000, RN))
	// Sub64Swapped: the same values, a's NaN first.
	require.Equal(t, uint64(0x7ff8000000000000), Sub64Swapped(0x7ff8000000000000, 0xfff0000000000003, RN))
	require.Equal(t, uint64(0xfff8000000000003), Sub64Swapped(0xfff0000000000003, 0x7ff8000000000000, RN))
	require.Equal(t, qnan64, Sub64Swapped(db(1), qnan64, RN))
	require.Equal(t, db(-1), Sub64Swapped(db(2), db(3), RN))
	require.Equal(t, nz64, Sub64Swapped(db(1), db(1), RM))
}

func TestMul64Table(t *testing.T) {
	u := one64 + 1
	cases := []bin64{
		{db(3), db(5), RZ, db(15)},
		{nz64, db(5), RP, nz64},
		{inf64, 0, RN, CanonNaN64},
		{inf64, 0, RM, CanonNaN64},
		{qnan64, db(2), RM, qnan64},
		{u, u, RN, u + 1},
		{u, u, RP, u + 2},
		{u, u | sign64, RM, (u + 2) | sign64},
		{u, u | sign64, RZ, (u + 1) | sign64},
		{max64, db(2), RZ, max64},
		{max64, db(2), RP, inf64},
		{max64, db(-2), RP, max64 | sign64},
		{minSub64, db(0.5), RN, 0},
		{minSub64, db(0.5), RP, minSub64},
		{minSub64, db(-0.5), RM, minSub64 | sign64},
		{3, db(0.5), RZ, 1},
		{3, db(0.5), RN, 2},
		{minNrm64, db(0.5), RZ, 0x0008000000000000},
		{db(0x1p-600), db(0x1p-600), RP, minSub64},
		{db(0x1p-600), db(0x1p-600), RZ, 0},
		{db(0x1p600), db(0x1p600), RM, max64},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, Mul64(c.a, c.b, c.r), "Mul64(%016x,%016x)/%v", c.a, c.b, c.r)
	}
}

func TestDiv64Table(t *testing.T) {
	third := db(1.0 / 3)
	cases := []bin64{
		{db(1), db(3), RN, third},
		{db(1), db(3), RZ, third},
		{db(1), db(3), RP, third + 1},
		{db(-1), db(3), RM, (third + 1) | sign64},
		{db(2), db(3), RZ, db(2.0 / 3)},
		{db(2), db(3), RP, db(2.0/3) + 1},
		{db(1), 0, RZ, inf64},
		{db(-1), 0, RP, ninf64},
		{0, 0, RM, CanonNaN64},
		{0, db(-2), RM, nz64},
		{inf64, inf64, RN, CanonNaN64},
		{qnan64, 0, RZ, qnan64},
		{max64, db(0.5), RZ, max64},
		{max64, db(0.5), RN, inf64},
		{minSub64, db(2), RP, minSub64},
		{minSub64, db(2), RN, 0},
		{minSub64, db(3), RZ, 0},
		{db(1), max64, RZ, 0x0004000000000000},
		{db(1), max64, RP, 0x0004000000000001},
		{db(1), minSub64, RN, inf64},
		{db(1), minSub64, RZ, max64},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, Div64(c.a, c.b, c.r), "Div64(%016x,%016x)/%v", c.a, c.b, c.r)
	}
	require.Equal(t, third, Rcp64(db(3), RN))
	require.Equal(t, third+1, Rcp64(db(3), RP))
	require.Equal(t, ninf64, Rcp64(nz64, RZ))
}

func TestSqrt64Table(t *testing.T) {
	s2 := db(math.Sqrt2)
	cases := []struct {
		a    uint64
		r    Round
		want uint64
	}{
		{db(4), RZ, db(2)},
		{db(2), RN, s2}, // RN(sqrt 2) is above sqrt 2
		{db(2), RP, s2},
		{db(2), RZ, s2 - 1},
		{db(2), RM, s2 - 1},
		{nz64, RM, nz64},
		{db(-1), RP, CanonNaN64},
		{ninf64, RN, CanonNaN64},
		{inf64, RZ, inf64},
		{qnan64, RN, qnan64},
		{snan64, RZ, snan64 | 1<<51},
		{minSub64, RN, db(0x1p-537)},
		{minSub64, RP, db(0x1p-537)},
		{2, RZ, db(math.Sqrt(0x1p-1073)) - 1}, // slow path; RN is above
		{2, RP, db(math.Sqrt(0x1p-1073))},
		{4, RZ, db(0x1p-536)}, // exact
		{4, RP, db(0x1p-536)},
		{max64, RP, 0x5ff0000000000000},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, Sqrt64(c.a, c.r), "Sqrt64(%016x)/%v", c.a, c.r)
	}
}

func TestFma64Table(t *testing.T) {
	type tern struct {
		a, b, c uint64
		r       Round
		want    uint64
	}
	cases := []tern{
		{db(2), db(3), db(1), RZ, db(7)},
		{db(1), db(1), db(-1), RN, 0},
		{db(1), db(1), db(-1), RM, nz64},
		{nz64, db(1), nz64, RP, nz64},
		{0, db(1), nz64, RM, nz64},
		{0, db(1), db(5), RM, db(5)},
		{inf64, 0, db(1), RZ, CanonNaN64},
		{inf64, db(1), ninf64, RN, CanonNaN64},
		{qnan64, db(2), snan64, RN, snan64 | 1<<51}, // c's NaN before a's
		{db(2), db(2), snan64, RM, snan64 | 1<<51},
		{db(1), db(1), inf64, RZ, inf64},
		// exact sum beyond binary64 resolved in every direction
		{db(1 + 0x1p-52), db(1 + 0x1p-52), db(-1), RN, db(0x1p-51 + 0x1p-104)},
		{db(1), db(1), db(0x1p-200), RP, one64 + 1},
		{db(1), db(1), db(0x1p-200), RZ, one64},
		{db(1), db(1), db(-0x1p-200), RZ, 0x3fefffffffffffff},
		{db(1), db(1), db(-0x1p-200), RN, one64},
		{db(-1), db(1), db(-0x1p-200), RM, (one64 + 1) | sign64},
		// products near the bottom of the subnormal range (slow path)
		{db(0x1p-540), db(0x1p-540), 0, RP, minSub64},
		{db(0x1p-540), db(0x1p-540), 0, RN, 0},
		{db(0x1p-540), db(-0x1p-540), 0, RM, minSub64 | sign64},
		{db(0x1p-540), db(0x1p-540), minSub64, RP, 2},
		{db(0x1p-540), db(0x1p-540), minSub64, RZ, 1},
		{db(0x1p-540), db(0x1p-540), minSub64 | sign64, RM, minSub64 | sign64},
		{db(0x1p-540), db(0x1p-540), minSub64 | sign64, RP, nz64},
		{db(0x1p-540), db(0x1p-540), minSub64 | sign64, RN, minSub64 | sign64},
		// exactly half / 1.5 times the smallest subnormal (shift of 64 bits)
		{db(0x1p-540), db(0x1p-535), 0, RN, 0},
		{db(0x1p-540), db(0x1p-535), 0, RP, minSub64},
		{db(0x1.8p-540), db(0x1p-535), 0, RN, minSub64},
		{db(0x1.8p-540), db(0x1p-535), nz64, RZ, 0},
		// exact cancellation of a tiny product (slow path zero)
		{db(0x1p-500), db(0x1p-500), db(-0x1p-1000), RN, 0},
		{db(0x1p-500), db(0x1p-500), db(-0x1p-1000), RM, nz64},
		// products beyond the binary64 range, brought back by c
		{db(0x1p600), db(0x1p424), max64 | sign64, RZ, db(0x1p971)},
		{max64, db(2), max64 | sign64, RN, max64},
		{max64, db(2), db(-1), RZ, max64},
		{max64, db(2), db(-1), RM, max64},
		{max64, db(2), db(-1), RP, inf64},
		{max64 | sign64, db(2), db(1), RP, max64 | sign64},
	}
	for _, c := range cases {
		require.Equalf(t, c.want, Fma64(c.a, c.b, c.c, c.r), "Fma64(%016x,%016x,%016x)/%v", c.a, c.b, c.c, c.r)
	}
	// NaN choice: b, then c, then a (fma_*_f64, mad_*_f64 vectors).
	const q, sn = uint64(0x7ff8000000000000), uint64(0xfff0000000000003)
	for _, c := range []struct{ a, b, c, want uint64 }{
		{sn, db(1), q, q},
		{q, db(3), sn, sn | 1<<51},
		{db(1), q, sn, q},
		{inf64, sn, q, sn | 1<<51},
		{q, sn, db(-1), sn | 1<<51},
		{sn, q, db(-1), q},
		{sn, sn, db(2), sn | 1<<51},
		{inf64, 0, db(1), CanonNaN64},
	} {
		require.Equalf(t, c.want, Fma64(c.a, c.b, c.c, RN), "Fma64(%016x,%016x,%016x)", c.a, c.b, c.c)
	}
}

func TestAtomAdd64(t *testing.T) {
	// atom_*_add_f64 / red_*_add_f64 vectors.
	const q, sn = uint64(0x7ff8000000000000), uint64(0xfff0000000000003)
	for _, c := range []struct {
		old, b         uint64
		shared, global uint64
	}{
		{q, sn, q, sn},
		{sn, q, sn | 1<<51, q},
		{sn, db(1), sn | 1<<51, sn},
		{db(1), sn, sn | 1<<51, sn},
		{sn, sn, sn | 1<<51, sn},
		{inf64, ninf64, CanonNaN64, CanonNaN64},
		{db(1), db(2), db(3), db(3)},
	} {
		require.Equalf(t, c.shared, AtomAdd64(c.old, c.b, true), "shared %x + %x", c.old, c.b)
		require.Equalf(t, c.global, AtomAdd64(c.old, c.b, false), "global %x + %x", c.old, c.b)
	}
}

func TestDiv64NaN(t *testing.T) {
	// div takes a's NaN before b's (div_rn_f64), invalid → CanonNaN64.
	const q, sn = uint64(0x7ff8000000000000), uint64(0xfff0000000000003)
	require.Equal(t, q, Div64(q, sn, RN))
	require.Equal(t, sn|1<<51, Div64(sn, q, RZ))
	require.Equal(t, sn|1<<51, Div64(db(1), sn, RM))
	require.Equal(t, uint64(0xfff8000000000000), Div64(0, 0, RN))
	require.Equal(t, uint64(0xfff8000000000000), Div64(inf64, ninf64, RP))
	require.Equal(t, uint64(0xfff8000000000000), Sqrt64(db(-2), RN))
	require.Equal(t, uint64(0xfff8000000000001), Rcp64(0xfff0000000000001, RN))
}

func TestMinMaxAbsNeg64(t *testing.T) {
	require.Equal(t, db(1), Min64(db(1), db(2)))
	require.Equal(t, db(2), Max64(db(1), db(2)))
	require.Equal(t, db(2), Min64(qnan64, db(2)))
	require.Equal(t, db(2), Max64(db(2), snan64))
	require.Equal(t, snan64|1<<51, Min64(qnan64, snan64), "two NaNs: b quieted (min_f64)")
	require.Equal(t, qnan64, Max64(snan64, qnan64))
	require.Equal(t, nz64, Min64(0, nz64))
	require.Equal(t, uint64(0), Max64(nz64, 0))
	require.Equal(t, minSub64|sign64, Min64(minSub64, minSub64|sign64))

	require.Equal(t, db(1), Abs64(db(-1)))
	require.Equal(t, qnan64|sign64, Abs64(qnan64|sign64), "abs.f64 keeps a NaN's sign")
	require.Equal(t, snan64|1<<51, Neg64(snan64), "neg.f64 quiets a NaN, keeps its sign")
	require.Equal(t, uint64(0xfff8000000000001), Abs64(0xfff0000000000001), "abs_f64")
	require.Equal(t, uint64(0x7fffffffffffffff), Neg64(0x7ff7ffffffffffff), "neg_f64")
	require.Equal(t, nz64, Neg64(0))
	require.Equal(t, minSub64|sign64, Neg64(minSub64))

	require.Equal(t, db(-2), Copysign64(db(-1), db(2)))
	require.Equal(t, qnan64, Copysign64(db(1), qnan64|sign64))

	require.Equal(t, uint64(0), Sat64(nz64))
	require.Equal(t, uint64(0), Sat64(qnan64))
	require.Equal(t, one64, Sat64(inf64))
	require.Equal(t, db(0.25), Sat64(db(0.25)))

	for _, c := range []struct {
		x                 uint64
		fin, inf, nan, sn bool
	}{
		{0, true, false, false, false}, {minSub64, true, false, false, true},
		{minNrm64, true, false, false, false}, {ninf64, false, true, false, false},
		{qnan64, false, false, true, false}, {snan64, false, false, true, false},
	} {
		require.Equal(t, c.fin, Testp64(c.x, TestFinite))
		require.Equal(t, c.inf, Testp64(c.x, TestInfinite))
		require.Equal(t, c.nan, Testp64(c.x, TestNotANumber))
		require.Equal(t, !c.nan, Testp64(c.x, TestNumber))
		require.Equal(t, c.sn, Testp64(c.x, TestSubnormal))
		require.Equal(t, c.fin && !c.sn, Testp64(c.x, TestNormal))
	}
}

// TestF64Random compares add, sub, mul, fma, div and sqrt in every rounding
// mode against the exact reference.
func TestF64Random(t *testing.T) {
	g := newGen(2)
	n := iters(t, 4000)
	for _, r := range allRounds {
		for i := 0; i < n; i++ {
			a := g.val(tF64)
			b := g.near(tF64, a)
			c := g.val(tF64)
			switch g.r.IntN(4) {
			case 0: // c cancelling a*b
				if p := db(f64(a) * f64(b)); !isSpec64(p) {
					c = g.near(tF64, p^sign64)
				}
			case 1: // tiny product (slow paths)
				a = bitsOf(tF64, g.r.IntN(2) == 0, 1+g.r.Uint64N(500), g.r.Uint64())
				b = bitsOf(tF64, g.r.IntN(2) == 0, 1+g.r.Uint64N(500), g.r.Uint64())
				if g.r.IntN(2) == 0 {
					c = bitsOf(tF64, g.r.IntN(2) == 0, 0, g.r.Uint64()>>uint(g.r.IntN(52)))
				}
			}
			ctx := lazy(func() string { return fmt.Sprintf("a=%016x b=%016x c=%016x r=%v", a, b, c, r) })
			eq(t, refAdd(a, b, tF64, r, false), Add64(a, b, r), "add %s", ctx)
			eq(t, refAdd(a, b^sign64, tF64, r, false), Sub64(a, b, r), "sub %s", ctx)
			eq(t, refMul(a, b, tF64, r, false), Mul64(a, b, r), "mul %s", ctx)
			eq(t, refFma(a, b, c, tF64, r, false), Fma64(a, b, c, r), "fma %s", ctx)
			if b<<1 != 0 {
				eq(t, refDiv(a, b, tF64, r, false), Div64(a, b, r), "div %s", ctx)
			}
			eq(t, refSqrt(a&^sign64, tF64, r, false), Sqrt64(a&^sign64, r), "sqrt %s", ctx)
		}
	}
}
