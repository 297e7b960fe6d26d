package fpu

import "math/bits"

// Tensor-core dot products, as the H100/H200 computes them. Learned from
// the recorded vectors of issue 24 (testdata/conformance/issue24/
// mma_vectors: 7 forms x 8192 elements of m16n8k16 .f32.f16.f16.f32, every
// one matched bit for bit; mma_vectors2: the other types, below and
// docs/semantics.md). For f16, bf16 and tf32 multiplicands:
//
//   - each product a[k]*b[k] of two f16 values is exact (subnormal inputs
//     kept), carried as an unnormalised significand in [0, 4) with the
//     exponent ea+eb (the sum of the two exponent fields, -14 for a
//     subnormal: not the exponent of its leading bit);
//   - all k products and c (exponent field, -126 when subnormal) are
//     summed in one step: the terms are aligned to the largest of those
//     exponents, E, and every bit of weight below 2^(E-25) is dropped,
//     each term truncated toward zero (sign and magnitude, before the
//     sum); the aligned terms are added exactly;
//   - the sum is normalised and rounded toward zero to f32 (subnormal
//     results kept; an overflow gives infinity and a nonzero sum below the
//     smallest subnormal +0, which only the bf16/tf32 vectors reach), or,
//     with an f16 accumulator, to nearest even to f16.
//
// NaN and infinity: any NaN input, inf*0, or infinities of both signs give
// CanonNaN32; otherwise an infinite product or c gives that infinity.
//
// Rejected by the same vectors: groups of 4 or 8 products accumulated in
// turn, 22-24 and 26-28 kept bits, truncation toward minus infinity (two's
// complement), alignment to each term's leading bit, round-to-nearest at
// the end.

// mmaKeep is the number of bits kept below the alignment exponent.
const mmaKeep = 25

// MmaIn is the format of a tensor-core multiplicand.
type MmaIn uint8

// The multiplicand formats: f16 and bf16 in the low 16 bits of a word,
// tf32 as an f32 bit pattern whose low 13 bits the tensor core ignores
// (truncation; measured: m16n8k8/m16n8k4 .tf32 vectors, half of whose
// inputs carry junk there).
const (
	MmaF16 MmaIn = iota
	MmaBF16
	MmaTF32
)

// mmaFmt is a multiplicand format's exponent bias, mantissa bits and the
// shift of its bits inside the word.
type mmaFmt struct {
	bias, mb, sh, eb uint32
}

var mmaFmts = [3]mmaFmt{{15, 10, 0, 5}, {127, 7, 0, 8}, {127, 10, 13, 8}}

// tcDot is the tensor core's sum of up to 16 products of a and b (format
// f) and the already decoded c term (cm * 2^(cl), aligned at ce, negative
// when cneg; cm 0 for a zero c). kind: 0 a number sum * 2^sc, 1 NaN, 2
// +inf, 3 -inf, 4 every term zero.
func tcDot(f MmaIn, a, b []uint32, cm uint64, cl, ce int32, cneg bool, cnan, cpinf, cninf bool) (kind int, sum int64, sc int32) {
	ft := mmaFmts[f&3]
	n := min(len(a), len(b), 16)
	var (
		m   [17]uint64 // significands (value m * 2^e)
		e   [17]int32
		neg [17]bool
		nt  int
	)
	nan, posInf, negInf := cnan, cpinf, cninf
	E := int32(-1 << 30)
	emask, mmask := uint32(1)<<ft.eb-1, uint32(1)<<ft.mb-1
	for k := 0; k < n; k++ {
		x, y := a[k]>>ft.sh, b[k]>>ft.sh
		s := (x^y)>>(ft.eb+ft.mb)&1 != 0
		xe, ye := int32(x>>ft.mb&emask), int32(y>>ft.mb&emask)
		xm, ym := uint64(x&mmask), uint64(y&mmask)
		if xe == int32(emask) || ye == int32(emask) {
			switch {
			case xe == int32(emask) && xm != 0, ye == int32(emask) && ym != 0:
				nan = true
			case x&(emask<<ft.mb|mmask) == 0, y&(emask<<ft.mb|mmask) == 0: // inf * 0
				nan = true
			case s:
				negInf = true
			default:
				posInf = true
			}
			continue
		}
		if xe == 0 {
			xe = 1
		} else {
			xm |= 1 << ft.mb
		}
		if ye == 0 {
			ye = 1
		} else {
			ym |= 1 << ft.mb
		}
		p := xm * ym
		if p == 0 {
			continue
		}
		ne := xe + ye - 2*int32(ft.bias) // ea + eb, unbiased
		m[nt], e[nt], neg[nt] = p, ne-2*int32(ft.mb), s
		nt++
		E = max(E, ne)
	}
	if cm != 0 {
		m[nt], e[nt], neg[nt] = cm, cl, cneg
		nt++
		E = max(E, ce)
	}
	switch {
	case nan, posInf && negInf:
		return 1, 0, 0
	case posInf:
		return 2, 0, 0
	case negInf:
		return 3, 0, 0
	case nt == 0:
		return 4, 0, 0
	}
	sc = E - mmaKeep // weight of the last bit kept
	return 0, alignedSum(m[:nt], e[:nt], neg[:nt], sc), sc
}

// alignedSum is the tensor core's one-step sum of terms m[i]·2^e[i] (sign
// neg[i]) aligned on weight 2^sc: each term shifted to that weight, the
// bits below it truncated toward zero (sign and magnitude), the results
// added exactly. The shifts left are small (at most 15 here and 13 in
// DotFP8WG), so no term overflows.
func alignedSum(m []uint64, e []int32, neg []bool, sc int32) int64 {
	var sum int64
	for i := range m {
		var v uint64
		if sh := e[i] - sc; sh >= 0 {
			v = m[i] << uint(sh)
		} else if sh > -64 {
			v = m[i] >> uint(-sh)
		}
		if neg[i] {
			sum -= int64(v)
		} else {
			sum += int64(v)
		}
	}
	return sum
}

// decodeC32 decodes an f32 accumulator for tcDot.
func decodeC32(c uint32) (cm uint64, cl, ce int32, cneg, cnan, cpinf, cninf bool) {
	e, mm := int32(c>>23&0xff), uint64(c&0x7fffff)
	cneg = c>>31 != 0
	if e == 0xff {
		return 0, 0, 0, cneg, mm != 0, mm == 0 && !cneg, mm == 0 && cneg
	}
	if e == 0 {
		e = 1
	} else {
		mm |= 1 << 23
	}
	return mm, e - 127 - 23, e - 127, cneg, false, false, false
}

// DotF32 returns c + sum a[k]*b[k] (up to 16 products) as the tensor
// core's .f32 mma with multiplicands of format f computes one element of
// D: the products exact and aligned on ea+eb, bits below 2^(E-25)
// truncated per term, one sum, rounded toward zero to f32 (an overflow
// gives infinity, a nonzero sum below the smallest subnormal +0).
func DotF32(f MmaIn, a, b []uint32, c uint32) uint32 {
	cm, cl, ce, cneg, cnan, cpinf, cninf := decodeC32(c)
	kind, sum, sc := tcDot(f, a, b, cm, cl, ce, cneg, cnan, cpinf, cninf)
	switch kind {
	case 1:
		return CanonNaN32
	case 2:
		return 0x7f800000
	case 3:
		return 0xff800000
	case 4:
		return mmaZero(f, a, b, c>>31 != 0 && c<<1 == 0)
	}
	return mmaRoundZ32(sum, sc)
}

// DotF16F32 is DotF32 for f16 multiplicands given as f16 bit patterns.
func DotF16F32(a, b []uint16, c uint32) uint32 {
	var x, y [16]uint32
	n := min(len(a), len(b), 16)
	for k := 0; k < n; k++ {
		x[k], y[k] = uint32(a[k]), uint32(b[k])
	}
	return DotF32(MmaF16, x[:n], y[:n], c)
}

// DotF16F16 returns c + sum a[k]*b[k] for f16 multiplicands (low 16 bits
// of a and b) and an f16 accumulator c, as the .f16.f16.f16.f16 mma
// computes one element of D: the same aligned, truncated sum as DotF32
// (c aligned at its exponent), rounded to nearest even to f16 (an overflow
// gives infinity). Measured: m16n8k16 .f16 vectors.
func DotF16F16(a, b []uint32, c uint16) uint16 {
	e, mm := int32(c>>10&0x1f), uint64(c&0x3ff)
	cneg := c>>15 != 0
	var cm uint64
	var cl, ce int32
	cnan, cpinf, cninf := false, false, false
	if e == 0x1f {
		cnan, cpinf, cninf = mm != 0, mm == 0 && !cneg, mm == 0 && cneg
	} else {
		if e == 0 {
			e = 1
		} else {
			mm |= 1 << 10
		}
		cm, cl, ce = mm, e-15-10, e-15
	}
	kind, sum, sc := tcDot(MmaF16, a, b, cm, cl, ce, cneg, cnan, cpinf, cninf)
	switch kind {
	case 1:
		return CanonNaN16
	case 2:
		return 0x7c00
	case 3:
		return 0xfc00
	case 4:
		return uint16(mmaZero(MmaF16, a, b, c == 0x8000) >> 16)
	}
	return mmaRoundN16(sum, sc)
}

// mmaZero is the result when every product and c is a zero (cneg: c is
// -0): -0 when all of them are -0 (IEEE addition of zeros), else +0, as an
// f32 bit pattern. (The recorded vectors agree and do not pin it down.)
func mmaZero(f MmaIn, a, b []uint32, cneg bool) uint32 {
	if !cneg {
		return 0
	}
	ft := mmaFmts[f&3]
	for k := range min(len(a), len(b), 16) {
		if ((a[k]^b[k])>>ft.sh)>>(ft.eb+ft.mb)&1 == 0 {
			return 0
		}
	}
	return 0x80000000
}

// signMag splits a sum of products into its sign and magnitude (the
// magnitude of math.MinInt64 is 1<<63, as uint64 holds it).
func signMag(sum int64) (neg bool, mag uint64) {
	if sum < 0 {
		return true, uint64(-sum)
	}
	return false, uint64(sum)
}

// mmaRoundZ32 rounds sum * 2^sc toward zero to f32. An exact zero is +0
// (IEEE: an exact cancellation is +0 in every mode but RM).
func mmaRoundZ32(sum int64, sc int32) uint32 {
	if sum == 0 {
		return 0
	}
	neg, mag := signMag(sum)
	var sign uint32
	if neg {
		sign = 0x80000000
	}
	lead := sc + int32(bits.Len64(mag)) - 1 // exponent of the leading bit
	if lead > 127 {
		return sign | 0x7f800000 // overflow: infinity, even toward zero (bf16 extreme vectors)
	}
	lsb := max(lead-23, -149)
	var q uint64
	if sh := lsb - sc; sh <= 0 {
		q = mag << uint(-sh)
	} else {
		q = mag >> uint(sh)
	}
	if q == 0 {
		return 0 // below the smallest subnormal: +0 (bf16 and tf32 subnormal vectors)
	}
	if q < 1<<23 { // subnormal
		return sign | uint32(q)
	}
	return sign | uint32(lsb+23+127)<<23 | uint32(q&0x7fffff)
}

// mmaRoundN16 rounds sum * 2^sc to nearest even to f16 (an overflow gives
// infinity, a sum that rounds to zero +0).
func mmaRoundN16(sum int64, sc int32) uint16 {
	if sum == 0 {
		return 0
	}
	neg, mag := signMag(sum)
	var sign uint16
	if neg {
		sign = 0x8000
	}
	lead := sc + int32(bits.Len64(mag)) - 1
	lsb := max(lead-10, -24)
	var q uint64
	if sh := lsb - sc; sh <= 0 {
		q = mag << uint(-sh)
	} else {
		if sh < 64 {
			q = mag >> uint(sh)
			rem, half := mag&(1<<uint(sh)-1), uint64(1)<<uint(sh-1)
			if rem > half || rem == half && q&1 != 0 {
				q++
			}
		}
		if q == 1<<11 { // carried into the next binade
			q >>= 1
			lsb++
		}
	}
	if q == 0 {
		return 0
	}
	if q < 1<<10 {
		return sign | uint16(q)
	}
	ef := lsb + 10 + 15
	if ef > 30 {
		return sign | 0x7c00
	}
	return sign | uint16(ef)<<10 | uint16(q&0x3ff)
}

// DotS8S32 returns c + sum a[k]*b[k] over up to 32 signed bytes (each
// a[k], b[k] the low 8 bits), wrapping modulo 2^32, or clamped to the s32
// range with sat (.satfinite): the exact integer sum (measured: m16n8k32
// .s8 vectors with and without .satfinite).
func DotS8S32(a, b []uint32, c uint32, sat bool) uint32 {
	s := int64(int32(c))
	for k := range min(len(a), len(b), 32) {
		s += int64(int8(a[k])) * int64(int8(b[k]))
	}
	if sat {
		s = max(min(s, 1<<31-1), -1<<31)
	}
	return uint32(s)
}

// DotF64 returns c + sum a[k]*b[k] as the .f64 mma (m8n8k4) computes one
// element of D: a chain of fused multiply-adds in k order, each rounded to
// nearest (measured: m8n8k4 .f64 vectors).
func DotF64(a, b []uint64, c uint64) uint64 {
	for k := range min(len(a), len(b)) {
		c = Fma64(a[k], b[k], c, RN)
	}
	return c
}
