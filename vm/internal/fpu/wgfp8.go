package fpu

import "math/bits"

// The fp8 warpgroup multiply-accumulate of sm_90a (wgmma.mma_async
// .e4m3/.e5m2, QGMMA in SASS), as the H200 computes one element of D:
// sm_90a has a native fp8 tensor instruction, unlike the fp8 mma.sync that
// ptxas emulates with two f16 steps (DotFP8). Learned from the recorded
// wgmma vectors (testdata/tma, docs/semantics.md "Warpgroup matrix
// multiply-accumulate"):
//
//   - each product a[k]*b[k] is exact (fp8 subnormals kept), with the
//     exponent ea+eb of the two exponent fields (a subnormal's is 1-bias);
//   - the 32 products and c are summed in one step: aligned to the largest
//     of those exponents and c's, E, every bit below 2^(E-13) dropped from
//     each term toward zero (sign and magnitude), the aligned terms added
//     exactly: the f16/bf16 rule (tcDot) with 13 bits kept instead of 25;
//   - the sum is rounded toward zero to 13 fraction bits (an f32 whose low
//     10 mantissa bits are zero) with an f32 accumulator, or to nearest
//     even to f16 with an f16 one.
//
// NaN and infinity: a NaN input (e4m3 S.1111.111, e5m2 S.11111.mm with mm
// nonzero, or c), inf*0 and infinities of both signs give the canonical
// NaN; otherwise an infinite product (e5m2) or c gives that infinity.

// wgFP8Keep is the number of bits kept below the alignment exponent.
const wgFP8Keep = 13

// wgFP8Out is the number of fraction bits of an f32 result.
const wgFP8Out = 13

// fp8Decode splits the fp8 value in the low 8 bits of x (e5m2 when e5,
// else e4m3) into its sign, significand m and exponent field e (value m *
// 2^(e-mb), e unbiased, 1-bias for a subnormal), and says whether it is a
// NaN or an infinity.
func fp8Decode(x uint32, e5 bool) (neg bool, m uint64, e, mb int32, nan, inf bool) {
	x &= 0xff
	neg = x&0x80 != 0
	bias, eb := int32(7), uint32(4)
	mb = 3
	if e5 {
		bias, eb, mb = 15, 5, 2
	}
	ef := int32(x >> uint32(mb) & (1<<eb - 1))
	m = uint64(x & (1<<uint32(mb) - 1))
	switch {
	case e5 && ef == 31:
		return neg, 0, 0, mb, m != 0, m == 0
	case !e5 && x&0x7f == 0x7f:
		return neg, 0, 0, mb, true, false
	}
	if ef == 0 {
		ef = 1
	} else {
		m |= 1 << uint32(mb)
	}
	return neg, m, ef - bias, mb, false, false
}

// DotFP8WG returns c + sum a[k]*b[k] (up to 32 products) for fp8
// multiplicands (a5, b5: e5m2, else e4m3; the low 8 bits of each word) as
// the fp8 wgmma computes one element of D: with an f32 accumulator (f16
// false) c and the result are f32 bit patterns; with an f16 one (f16
// true) they are f16 bit patterns in the low 16 bits.
func DotFP8WG(a5, b5 bool, a, b []uint32, c uint32, f16 bool) uint32 {
	n := min(len(a), len(b), 32)
	var (
		m   [33]uint64 // significands (value m * 2^lsb)
		lsb [33]int32
		neg [33]bool
		nt  int
	)
	nan, posInf, negInf := false, false, false
	allNegZero := true // every product a -0 (for the sign of a zero result)
	E := int32(-1 << 30)
	for k := 0; k < n; k++ {
		xs, xm, xe, xb, xn, xi := fp8Decode(a[k], a5)
		ys, ym, ye, yb, yn, yi := fp8Decode(b[k], b5)
		s := xs != ys
		if xn || yn || xi && ym == 0 && !yi || yi && xm == 0 && !xi {
			nan = true
			continue
		}
		if xi || yi {
			if s {
				negInf = true
			} else {
				posInf = true
			}
			continue
		}
		p := xm * ym
		if p == 0 {
			allNegZero = allNegZero && s
			continue
		}
		allNegZero = false
		ne := xe + ye
		m[nt], lsb[nt], neg[nt] = p, ne-xb-yb, s
		nt++
		E = max(E, ne)
	}
	// c, as tcDot's callers decode it
	var cm uint64
	var cl, ce int32
	var cneg bool
	if f16 {
		h := uint16(c)
		e, mm := int32(h>>10&0x1f), uint64(h&0x3ff)
		cneg = h>>15 != 0
		switch {
		case e == 0x1f && mm != 0:
			nan = true
		case e == 0x1f && cneg:
			negInf = true
		case e == 0x1f:
			posInf = true
		default:
			if e == 0 {
				e = 1
			} else {
				mm |= 1 << 10
			}
			cm, cl, ce = mm, e-15-10, e-15
		}
	} else {
		var cnan, cpinf, cninf bool
		cm, cl, ce, cneg, cnan, cpinf, cninf = decodeC32(c)
		nan, posInf, negInf = nan || cnan, posInf || cpinf, negInf || cninf
	}
	if cm != 0 {
		m[nt], lsb[nt], neg[nt] = cm, cl, cneg
		nt++
		E = max(E, ce)
	}
	switch {
	case nan, posInf && negInf:
		if f16 {
			return uint32(CanonNaN16)
		}
		return CanonNaN32
	case posInf:
		if f16 {
			return 0x7c00
		}
		return 0x7f800000
	case negInf:
		if f16 {
			return 0xfc00
		}
		return 0xff800000
	case nt == 0: // every term a zero: -0 only when c and every product are -0
		if allNegZero && cneg {
			if f16 {
				return 0x8000
			}
			return 0x80000000
		}
		return 0
	}
	sc := E - wgFP8Keep // weight of the last bit kept
	sum := alignedSum(m[:nt], lsb[:nt], neg[:nt], sc)
	if f16 {
		return uint32(mmaRoundN16(sum, sc))
	}
	return roundZ32Frac(sum, sc, wgFP8Out)
}

// roundZ32Frac rounds sum * 2^sc toward zero to an f32 with fb fraction
// bits (the low 23-fb mantissa bits zero): an overflow gives infinity, a
// result below the smallest normal keeps the bits of weight 2^-149 and up
// that the fb-bit significand would hold, an exact zero is +0.
func roundZ32Frac(sum int64, sc int32, fb int32) uint32 {
	if sum == 0 {
		return 0
	}
	neg, mag := signMag(sum)
	var sign uint32
	if neg {
		sign = 0x80000000
	}
	lead := sc + int32(bits.Len64(mag)) - 1
	if lead > 127 {
		return sign | 0x7f800000
	}
	lsb := max(lead-fb, -149)
	var q uint64
	if sh := lsb - sc; sh <= 0 {
		q = mag << uint(-sh)
	} else if sh < 64 {
		q = mag >> uint(sh)
	}
	if q == 0 {
		return 0
	}
	if lead >= -126 { // normal: q holds fb+1 bits
		return sign | uint32(lead+127)<<23 | uint32(q<<uint(23-fb))&0x7fffff
	}
	return sign | uint32(q<<uint(lsb+149)) // subnormal, in units of 2^-149
}
