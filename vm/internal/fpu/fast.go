package fpu

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
