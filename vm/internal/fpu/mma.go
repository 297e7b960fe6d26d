package fpu

import "math/bits"

// Tensor-core dot products (mma.sync .f32.f16.f16.f32), as the H100/H200
// computes them. Learned from the recorded vectors of issue 24
// (testdata/conformance/issue24/mma_vectors: 7 forms x 8192 elements of
// m16n8k16, every one matched bit for bit):
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
//     results kept).
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

// DotF16F32 returns c + sum a[k]*b[k] (k < len(a); b at least as long) as
// the tensor core's .f32.f16.f16.f32 mma computes one element of D. a and b
// are f16 bit patterns, c and the result f32 bit patterns. Up to 16
// products (the k of m16n8k16); a longer a is cut to 16.
func DotF16F32(a, b []uint16, c uint32) uint32 {
	n := min(len(a), len(b), 16)
	var (
		m   [17]uint64 // significands (value m * 2^e)
		e   [17]int32
		neg [17]bool
		nt  int
	)
	nan, posInf, negInf := false, false, false
	E := int32(-1 << 30)
	for k := 0; k < n; k++ {
		x, y := a[k], b[k]
		s := (x^y)&0x8000 != 0
		xe, ye := int32(x>>10&31), int32(y>>10&31)
		xm, ym := uint64(x&0x3ff), uint64(y&0x3ff)
		if xe == 31 || ye == 31 {
			switch {
			case xe == 31 && xm != 0, ye == 31 && ym != 0:
				nan = true
			case x&0x7fff == 0, y&0x7fff == 0: // inf * 0
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
			xm |= 0x400
		}
		if ye == 0 {
			ye = 1
		} else {
			ym |= 0x400
		}
		p := xm * ym
		if p == 0 {
			continue
		}
		ne := xe + ye - 30 // ea + eb, unbiased
		m[nt], e[nt], neg[nt] = p, ne-20, s
		nt++
		E = max(E, ne)
	}
	ce, cm := int32(c>>23&0xff), uint64(c&0x7fffff)
	if ce == 0xff {
		switch {
		case cm != 0:
			nan = true
		case c>>31 != 0:
			negInf = true
		default:
			posInf = true
		}
	} else if ce != 0 || cm != 0 {
		if ce == 0 {
			ce = 1
		} else {
			cm |= 1 << 23
		}
		ne := ce - 127
		m[nt], e[nt], neg[nt] = cm, ne-23, c>>31 != 0
		nt++
		E = max(E, ne)
	}
	switch {
	case nan, posInf && negInf:
		return CanonNaN32
	case posInf:
		return 0x7f800000
	case negInf:
		return 0xff800000
	case nt == 0:
		return mmaZero(a[:n], b[:n], c)
	}
	sc := E - mmaKeep // weight of the last bit kept
	var sum int64
	for i := 0; i < nt; i++ {
		var v uint64
		if sh := e[i] - sc; sh >= 0 {
			v = m[i] << uint(sh) // sh <= 5: below 2^28
		} else if sh > -64 {
			v = m[i] >> uint(-sh)
		}
		if neg[i] {
			sum -= int64(v)
		} else {
			sum += int64(v)
		}
	}
	return mmaRoundZ32(sum, sc)
}

// mmaZero is the result when every product and c is a zero: -0 when all
// of them are -0 (IEEE addition of zeros), else +0. (The recorded vectors
// do not pin this down; it follows IEEE.)
func mmaZero(a, b []uint16, c uint32) uint32 {
	if c != 0x80000000 {
		return 0
	}
	for k := range a {
		if (a[k]^b[k])&0x8000 == 0 {
			return 0
		}
	}
	return 0x80000000
}

// mmaRoundZ32 rounds sum * 2^sc toward zero to f32. An exact zero is +0
// (IEEE: an exact cancellation is +0 in every mode but RM).
func mmaRoundZ32(sum int64, sc int32) uint32 {
	if sum == 0 {
		return 0
	}
	var sign uint32
	mag := uint64(sum)
	if sum < 0 {
		sign, mag = 0x80000000, uint64(-sum)
	}
	lead := sc + int32(bits.Len64(mag)) - 1 // exponent of the leading bit
	if lead > 127 {
		return sign | 0x7f7fffff // RZ overflow: the largest finite value
	}
	lsb := max(lead-23, -149)
	var q uint64
	if sh := lsb - sc; sh <= 0 {
		q = mag << uint(-sh)
	} else {
		q = mag >> uint(sh)
	}
	if q < 1<<23 { // subnormal (or zero)
		return sign | uint32(q)
	}
	return sign | uint32(lsb+23+127)<<23 | uint32(q&0x7fffff)
}
