package sfu

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Models of the MUFU operations, built on the recorded tables. Each takes
// and returns IEEE bit patterns and reports ok == false when its tables are
// not available (then the caller must use its own approximation). All of
// them flush subnormal inputs and results (the MUFU unit is .ftz) and return
// the canonical NaN 0x7fffffff. The hypotheses each model rests on are
// listed in README.md ("Models"); the tests check them against the
// validation sets.

func fields(x uint32) (s, e, m uint32) { return x & sign32, x >> 23 & 0xFF, x & mask23 }

// rescale returns table value v with its exponent field moved by de, flushed
// to a signed zero below the normal range and saturated to infinity above.
func rescale(sign, v uint32, de int) uint32 {
	ex := int(v>>23&0xFF) + de
	switch {
	case ex <= 0:
		return sign
	case ex >= 255:
		return sign | inf32
	}
	return sign | uint32(ex)<<23 | v&mask23
}

// MufuRcp is MUFU.RCP (rcp.approx.ftz.f32). Model: 1/(1.m × 2^e) is the
// recorded 1/(1.m) (table rcp_m) with its exponent lowered by e; subnormal
// results flush to ±0.
func MufuRcp(x uint32) (uint32, bool) {
	t := cur().tab(tRcp)
	if t == nil {
		return 0, false
	}
	s, e, m := fields(x)
	switch {
	case e == 255 && m != 0:
		return canonNaN, true
	case e == 255:
		return s, true
	case e == 0:
		return s | inf32, true
	}
	return rescale(s, t.at(int(m)), 127-int(e)), true
}

// MufuRsq is MUFU.RSQ (rsqrt.approx.ftz.f32). Model: with x = 1.m × 2^(2k+p),
// p in {0,1}, the result is the recorded rsqrt(1.m × 2^p) (table rsqrt_m)
// times 2^-k.
func MufuRsq(x uint32) (uint32, bool) {
	t := cur().tab(tRsqrt)
	if t == nil {
		return 0, false
	}
	s, e, m := fields(x)
	switch {
	case e == 255 && m != 0:
		return canonNaN, true
	case e == 0:
		return s | inf32, true
	case s != 0:
		return canonNaN, true
	case e == 255:
		return 0, true
	}
	u := int(e) - 127
	p := u & 1
	k := (u - p) >> 1
	return rescale(0, t.at(p<<23|int(m)), -k), true
}

// MufuSqrt is MUFU.SQRT (sqrt.approx.ftz.f32). Model as MufuRsq with the
// table sqrt_m and the factor 2^k.
func MufuSqrt(x uint32) (uint32, bool) {
	t := cur().tab(tSqrt)
	if t == nil {
		return 0, false
	}
	s, e, m := fields(x)
	switch {
	case e == 255 && m != 0:
		return canonNaN, true
	case e == 0:
		return s, true
	case s != 0:
		return canonNaN, true
	case e == 255:
		return inf32, true
	}
	u := int(e) - 127
	p := u & 1
	k := (u - p) >> 1
	return rescale(0, t.at(p<<23|int(m)), k), true
}

// ex2Fixed is the operand conversion of the EX2 model: J = trunc(|x| 2^23)
// for |x| < 128 (ok == false when |x| >= 128).
func ex2Fixed(e, m uint32) (J uint64, ok bool) {
	mm := uint64(m | 1<<23)
	sh := int(e) - 127
	switch {
	case sh >= 7:
		return 0, false
	case sh >= 0:
		return mm << sh, true
	case sh > -64:
		return mm >> -sh, true
	}
	return 0, true
}

// MufuEx2 is MUFU.EX2 (ex2.approx.ftz.f32). Model: |x| is truncated to a
// fixed-point number with 23 fraction bits, J = i 2^23 + F; the result is
// the recorded 2^(F 2^-23) (table ex2_pos) times 2^i for x >= 0, and the
// recorded 2^(-F 2^-23) (table ex2_neg) times 2^-i for x < 0; subnormal
// results flush to +0, overflow gives +inf. Only the table of x's sign is
// decoded, and none for the special operands (softmax's ex2 of x - max
// reads only ex2_neg).
func MufuEx2(x uint32) (uint32, bool) {
	src := cur()
	if !src.available() {
		return 0, false
	}
	s, e, m := fields(x)
	switch {
	case e == 255 && m != 0:
		return canonNaN, true
	case e == 255 && s != 0:
		return 0, true
	case e == 255:
		return inf32, true
	case e == 0:
		return one32, true
	}
	J, fin := ex2Fixed(e, m)
	if !fin {
		if s != 0 {
			return 0, true
		}
		return inf32, true
	}
	i, F := int(J>>23), int(J&mask23)
	if s != 0 {
		if t := src.tab(tEx2Neg); t != nil {
			return rescale(0, t.at(F), -i), true
		}
	} else if t := src.tab(tEx2Pos); t != nil {
		return rescale(0, t.at(F), i), true
	}
	return 0, false
}

// MufuLg2 is MUFU.LG2 (lg2.approx.ftz.f32). Model: the hardware forms
// e + lg2(1.m) in fixed point and truncates it (toward zero) to f32. Table
// lg2_m holds x in [0.5, 2): lg2(1.m) truncated (e = 0) and -1 + lg2(1.m)
// truncated (e = -1); for other e the truncation of e + L is derived from
// them exactly (README.md, "lg2").
func MufuLg2(x uint32) (uint32, bool) {
	t := cur().tab(tLg2)
	if t == nil {
		return 0, false
	}
	s, e, m := fields(x)
	switch {
	case e == 255 && m != 0:
		return canonNaN, true
	case e == 0:
		return sign32 | inf32, true
	case s != 0:
		return canonNaN, true
	case e == 255:
		return inf32, true
	}
	u := int(e) - 127
	switch {
	case u == 0:
		return t.at(1<<23 | int(m)), true
	case u == -1:
		return t.at(int(m)), true
	case u > 0:
		// u + floor(H 2^q) 2^-q, H = trunc(L), q = 23 - floor(log2 u)
		H := f32(t.at(1<<23 | int(m)))
		q := 23 - (bits.Len(uint(u)) - 1)
		v := math.Ldexp(math.Ldexp(float64(u), q)+math.Floor(math.Ldexp(H, q)), -q)
		return math.Float32bits(float32(v)), true
	}
	// u <= -2: -(|u| - ceil(L 2^q) 2^-q), with ceil(L 2^p) 2^-p = 1 - |T_lo|
	au := -u
	C := 1 - math.Abs(f32(t.at(int(m))))
	if C == 0 {
		return math.Float32bits(float32(u)), true
	}
	k := bits.Len(uint(au)) - 1
	if au&(au-1) == 0 {
		k--
	}
	q := 23 - k
	v := -math.Ldexp(math.Ldexp(float64(au), q)-math.Ceil(math.Ldexp(C, q)), -q)
	return math.Float32bits(float32(v)), true
}

// sinCosFixed is the operand conversion of the SIN/COS model: t in
// revolutions to J = trunc(|t| 2^25) mod 2^25 = quadrant (2 bits) and
// fraction (23 bits).
func sinCosFixed(e, m uint32) uint64 {
	mm := uint64(m | 1<<23)
	sh := int(e) - 125
	switch {
	case sh >= 25:
		return 0
	case sh >= 0:
		return mm << sh & (1<<25 - 1)
	case sh > -64:
		return mm >> -sh
	}
	return 0
}

// mufuSinCos is the quadrant model on t (revolutions): quadrant q and
// fraction f of |t|; sin uses quadrant q and the sign of t, cos quadrant
// q+1; even quadrants read the first-quadrant sine table (sin_q0) at f, odd
// ones at ^f (the 23-bit ones' complement); quadrants 2 and 3 negate.
func mufuSinCos(t uint32, cos bool, tq *table) uint32 {
	s, e, m := fields(t)
	switch {
	case e == 255:
		return canonNaN
	case e == 0:
		if cos {
			return one32
		}
		return s
	}
	J := sinCosFixed(e, m)
	q, f := uint32(J>>23), uint32(J&mask23)
	var sign uint32
	if cos {
		q = (q + 1) & 3
		sign = q >> 1 << 31
	} else {
		sign = s ^ q>>1<<31
	}
	if q&1 != 0 {
		f = ^f & mask23
	}
	return tq.at(int(f))&^sign32 | sign
}

// MufuSin is MUFU.SIN of t in revolutions (sin(2πt)).
func MufuSin(t uint32) (uint32, bool) {
	tq := cur().tab(tSinQ0)
	if tq == nil {
		return 0, false
	}
	return mufuSinCos(t, false, tq), true
}

// MufuCos is MUFU.COS of t in revolutions (cos(2πt)).
func MufuCos(t uint32) (uint32, bool) {
	tq := cur().tab(tSinQ0)
	if tq == nil {
		return 0, false
	}
	return mufuSinCos(t, true, tq), true
}

// tanhRange returns the binades (biased exponents) with a complete tanh
// table: [lo, hi]; ok == false when there are none or they are not
// contiguous.
func (s *source) tanhRange() (lo, hi int, ok bool) {
	s.tanhOnce.Do(func() {
		s.tanhLo, s.tanhHi = 256, -1
		if s.tables == nil {
			return
		}
		seen := map[int]bool{}
		for _, d := range s.tables.Datasets {
			if e, err := strconv.Atoi(strings.TrimPrefix(d.Name, "tanh_e")); err == nil &&
				strings.HasPrefix(d.Name, "tanh_e") && d.stride() == 1 {
				seen[e] = true
				s.tanhLo, s.tanhHi = min(s.tanhLo, e), max(s.tanhHi, e)
			}
		}
		for e := s.tanhLo; e <= s.tanhHi; e++ {
			if !seen[e] {
				s.tanhHi = -1
			}
		}
	})
	return s.tanhLo, s.tanhHi, s.tanhHi >= s.tanhLo
}

// MufuTanh is MUFU.TANH (tanh.approx.f32; subnormals pass through). Model:
// odd; the recorded table of each binade tanh_e<E>; below the recorded
// binades the identity, above them ±1.
func MufuTanh(x uint32) (uint32, bool) {
	src := cur()
	lo, hi, ok := src.tanhRange()
	if !ok {
		return 0, false
	}
	s, e, m := fields(x)
	switch {
	case e == 255 && m != 0:
		return canonNaN, true
	case int(e) < lo:
		return x, true
	case int(e) > hi:
		return s | one32, true
	}
	t := src.tanhTab(e)
	if t == nil {
		return 0, false
	}
	return t.at(int(m))&^sign32 | s, true
}

// MufuRcp64H is MUFU.RCP64H on the upper word of an f64 (1.11.20): the
// recorded 1/(1.m) (table rcp64h_m, m 20 bits) with its exponent lowered by
// e; subnormal results flush to ±0.
func MufuRcp64H(hi uint32) (uint32, bool) {
	t := cur().tab(tRcp64H)
	if t == nil {
		return 0, false
	}
	s, e, m := hi&sign32, hi>>20&0x7FF, hi&(1<<20-1)
	switch {
	case e == 0x7FF && m != 0:
		return canonNaN, true
	case e == 0x7FF:
		return s, true
	case e == 0:
		return s | 0x7FF00000, true
	}
	return rescale64h(s, t.at(int(m)), 1023-int(e)), true
}

// MufuRsq64H is MUFU.RSQ64H on the upper word: as MufuRsq with the table
// rsqrt64h_m (x in [1,4), 20-bit mantissas).
func MufuRsq64H(hi uint32) (uint32, bool) {
	t := cur().tab(tRsqrt64H)
	if t == nil {
		return 0, false
	}
	s, e, m := hi&sign32, hi>>20&0x7FF, hi&(1<<20-1)
	switch {
	case e == 0x7FF && m != 0:
		return canonNaN, true
	case e == 0:
		return s | 0x7FF00000, true
	case s != 0:
		return canonNaN, true
	case e == 0x7FF:
		return 0, true
	}
	u := int(e) - 1023
	p := u & 1
	k := (u - p) >> 1
	return rescale64h(0, t.at(p<<20|int(m)), -k), true
}

func rescale64h(sign, v uint32, de int) uint32 {
	ex := int(v>>20&0x7FF) + de
	switch {
	case ex <= 0:
		return sign
	case ex >= 0x7FF:
		return sign | 0x7FF00000
	}
	return sign | uint32(ex)<<20 | v&(1<<20-1)
}
