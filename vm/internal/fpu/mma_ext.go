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

// DotFP8 returns c + sum a[k]*b[k] for fp8 multiplicands (a5, b5: e5m2,
// else e4m3; the low 8 bits of each word) with an f32 accumulator (f16:
// an f16 one, c and the result in the low 16 bits) as sm_90 computes the
// fp8 mma.sync, which has no fp8 tensor instruction: ptxas unpacks the
// fp8 values to f16 (exactly: F2FP.F16.E4M3/E5M2.UNPACK_B, the low two
// bytes of each register, then the high two) and runs two f16 mma steps,
// the first from a zero accumulator over the products whose k%4 < 2, the
// second over the others on top of it; c is added last (FADD, HADD2:
// rounded to nearest). (SASS of ptxas 13.0 for sm_90; recorded:
// mma_vectors3 mma3_fp8*.) The sparse form passes the products in the
// order of A's compressed elements (their index for k).
func DotFP8(a5, b5 bool, a, b []uint32, c uint32, f16 bool) uint32 {
	n := min(len(a), len(b), 64)
	var x, y [2][32]uint32
	var m [2]int
	for k := 0; k < n; k++ {
		s := k >> 1 & 1
		x[s][m[s]], y[s][m[s]] = FP8ToF16(a[k], a5), FP8ToF16(b[k], b5)
		m[s]++
	}
	if f16 {
		acc := DotF16F16(x[0][:m[0]], y[0][:m[0]], 0)
		acc = DotF16F16(x[1][:m[1]], y[1][:m[1]], acc)
		return uint32(Add16(uint16(c), acc, RN, false, false))
	}
	acc := DotF32(MmaF16, x[0][:m[0]], y[0][:m[0]], 0)
	acc = DotF32(MmaF16, x[1][:m[1]], y[1][:m[1]], acc)
	return Add32(c, acc, RN, false, false)
}

// FP8ToF16 converts the fp8 value in the low 8 bits of x (e5m2 when e5,
// else e4m3) to f16 bits, exactly (every fp8 value is an f16 value); a NaN
// gives the canonical f16 NaN.
func FP8ToF16(x uint32, e5 bool) uint32 {
	x &= 0xff
	if e5 {
		if x&0x7f > 0x7c { // NaN
			return uint32(CanonNaN16)
		}
		return x << 8
	}
	return uint32(Convert(uint64(x), E4M3, F16, RN, 0))
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
