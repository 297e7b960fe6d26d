package fpu

import "math/bits"

// Tensor-core dot products of the integer, single-bit and fp8 mma forms
// (issue 24 items 1-3; testdata/conformance/issue24/mma_vectors3,
// docs/semantics.md "The other mma types and wmma").

// DotInt returns c + sum a[k]*b[k] over integer elements of width bits
// (8 or 4; the low bits of each a[k], b[k]; as/bs: signed), wrapping
// modulo 2^32, or clamped to the s32 range with sat (.satfinite): the
// exact integer sum.
func DotInt(a, b []uint32, as, bs bool, width uint, c uint32, sat bool) uint32 {
	s := int64(int32(c))
	sh := 64 - width
	for k := range min(len(a), len(b)) {
		x, y := int64(a[k])<<sh, int64(b[k])<<sh
		if as {
			x >>= sh
		} else {
			x = int64(uint64(x) >> sh)
		}
		if bs {
			y >>= sh
		} else {
			y = int64(uint64(y) >> sh)
		}
		s += x * y
	}
	if sat {
		s = max(min(s, 1<<31-1), -1<<31)
	}
	return uint32(s)
}

// DotB1 returns c + sum popc(a[w] AND b[w]) (XOR with xor) over 32-bit
// words of single-bit elements, modulo 2^32.
func DotB1(a, b []uint32, xor bool, c uint32) uint32 {
	s := c
	for w := range min(len(a), len(b)) {
		x := a[w] & b[w]
		if xor {
			x = a[w] ^ b[w]
		}
		s += uint32(bits.OnesCount32(x))
	}
	return s
}

// fp8Fmt is an fp8 format: exponent bias, mantissa bits, exponent bits;
// e4m3 has no infinity (S.1111.111 is NaN), e5m2 is IEEE-like.
type fp8Fmt struct {
	bias, mb, eb int32
	ieee         bool
}

var fp8Fmts = [2]fp8Fmt{{7, 3, 4, false}, {15, 2, 5, true}}

// fp8Decode splits an fp8 value: class 0 number (m * 2^e, m including the
// hidden bit; exponent field fe, 1 for a subnormal), 1 NaN, 2 infinity.
func fp8Decode(x uint32, f fp8Fmt) (class int, neg bool, m uint64, fe int32) {
	neg = x>>7&1 != 0
	e := int32(x>>f.mb) & (1<<f.eb - 1)
	mm := uint64(x) & (1<<f.mb - 1)
	top := int32(1)<<f.eb - 1
	switch {
	case f.ieee && e == top && mm != 0, !f.ieee && e == top && mm == 1<<f.mb-1:
		return 1, neg, 0, 0
	case f.ieee && e == top:
		return 2, neg, 0, 0
	}
	if e == 0 {
		return 0, neg, mm, 1
	}
	return 0, neg, mm | 1<<f.mb, e
}

// DotFP8 returns c + sum a[k]*b[k] for fp8 multiplicands (a5, b5: e5m2,
// else e4m3; the low 8 bits of each word) and an f32 accumulator (f16: an
// f16 one, c and the result in the low 16 bits), as the tensor core's
// aligned, truncated sum (tcDot's rule with the fp8 products).
func DotFP8(a5, b5 bool, a, b []uint32, c uint32, f16 bool) uint32 {
	fa, fb := fp8Fmts[b2u(a5)], fp8Fmts[b2u(b5)]
	var (
		m   [65]uint64
		e   [65]int32
		neg [65]bool
		nt  int
	)
	nan, pinf, ninf := false, false, false
	E := int32(-1 << 30)
	n := min(len(a), len(b), 64)
	for k := 0; k < n; k++ {
		ca, sa, ma, ea := fp8Decode(a[k]&0xff, fa)
		cb, sb, mb, eb := fp8Decode(b[k]&0xff, fb)
		s := sa != sb
		switch {
		case ca == 1 || cb == 1:
			nan = true
			continue
		case ca == 2 || cb == 2:
			if ca == 2 && cb == 0 && mb == 0 || cb == 2 && ca == 0 && ma == 0 {
				nan = true
			} else if s {
				ninf = true
			} else {
				pinf = true
			}
			continue
		}
		p := ma * mb
		if p == 0 {
			continue
		}
		ne := ea - fa.bias + eb - fb.bias
		m[nt], e[nt], neg[nt] = p, ne-fa.mb-fb.mb, s
		nt++
		E = max(E, ne)
	}
	var cm uint64
	var cl, ce int32
	var cneg bool
	if f16 {
		h := uint16(c)
		ef, mm := int32(h>>10&0x1f), uint64(h&0x3ff)
		cneg = h>>15 != 0
		if ef == 0x1f {
			nan = nan || mm != 0
			pinf = pinf || mm == 0 && !cneg
			ninf = ninf || mm == 0 && cneg
		} else {
			if ef == 0 {
				ef = 1
			} else {
				mm |= 1 << 10
			}
			cm, cl, ce = mm, ef-15-10, ef-15
		}
	} else {
		var cn, cp, cni bool
		cm, cl, ce, cneg, cn, cp, cni = decodeC32(c)
		nan, pinf, ninf = nan || cn, pinf || cp, ninf || cni
	}
	if cm != 0 {
		m[nt], e[nt], neg[nt] = cm, cl, cneg
		nt++
		E = max(E, ce)
	}
	switch {
	case nan, pinf && ninf:
		if f16 {
			return uint32(CanonNaN16)
		}
		return CanonNaN32
	case pinf:
		if f16 {
			return 0x7c00
		}
		return 0x7f800000
	case ninf:
		if f16 {
			return 0xfc00
		}
		return 0xff800000
	case nt == 0:
		return 0
	}
	sc := E - mmaKeep
	var sum int64
	for i := 0; i < nt; i++ {
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
	if f16 {
		return uint32(mmaRoundN16(sum, sc))
	}
	return mmaRoundZ32(sum, sc)
}

func b2u(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DotF64Rnd is DotF64 with the rounding of each fused multiply-add rnd
// (wmma .m8n8k4 .f64 with .rn/.rz/.rm/.rp).
func DotF64Rnd(a, b []uint64, c uint64, rnd Round) uint64 {
	for k := range min(len(a), len(b)) {
		c = Fma64(a[k], b[k], c, rnd)
	}
	return c
}
