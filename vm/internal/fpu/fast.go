package fpu

import "math"

// Inlinable forms of the commonest instructions (round to nearest even, no
// .ftz, no .sat), for the interpreter's inner loop. Each equals the general
// function with those arguments; the tests check that.

// AddRN32 is add.rn.f32 (= Add32(a, b, RN, false, false)).
func AddRN32(a, b uint32) uint32 {
	if z := b32(f32(a) + f32(b)); !isNaN32(z) {
		return z
	}
	return nan32()
}

// SubRN32 is sub.rn.f32.
func SubRN32(a, b uint32) uint32 {
	if z := b32(f32(a) - f32(b)); !isNaN32(z) {
		return z
	}
	return nan32()
}

// MulRN32 is mul.rn.f32.
func MulRN32(a, b uint32) uint32 {
	if z := b32(f32(a) * f32(b)); !isNaN32(z) {
		return z
	}
	return nan32()
}

// AddRN64 is add.rn.f64 (= Add64(a, b, RN)).
func AddRN64(a, b uint64) uint64 {
	if z := f64(a) + f64(b); z == z { // not NaN
		return b64(z)
	}
	return nanAdd64(a, b)
}

// MulRN64 is mul.rn.f64.
func MulRN64(a, b uint64) uint64 {
	if z := f64(a) * f64(b); z == z { // not NaN
		return b64(z)
	}
	return nanAdd64(a, b)
}

// FmaRN32Fast is fma.rn.f32's common case, small enough to inline: ok is
// false when Fma32(a, b, c, RN, false, false) must compute it: a result
// that is subnormal, huge, infinite or NaN, or a sum on an f32 halfway
// point (about 1 in 2^29; Fma32 then checks whether it was exact). It is
// Fma32's fast path with the magnitude test on the bits (|s| in [2^-126,
// 2^127) is one unsigned comparison), without TwoSum, and with z computed
// whether or not it is used, so that it fits the inliner's budget.
func FmaRN32Fast(a, b, c uint32) (z uint32, ok bool) {
	s := float64(math.Float32frombits(a))*float64(math.Float32frombits(b)) + float64(math.Float32frombits(c))
	u := math.Float64bits(s) << 1 // without the sign
	return b32(float32(s)), u-minNormal32<<1 < (maxFinite32-minNormal32)<<1 && u&(1<<30-1) != 1<<29
}

// The float64 bits of 2^-126 and 2^127.
const (
	minNormal32 = 0x3810000000000000
	maxFinite32 = 0x47e0000000000000
)
