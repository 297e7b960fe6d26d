package warpsimd

// Cmp32 compares the low 32 bits of a[l] and b[l] for all 32 lanes, as
// signed or unsigned integers: bit l of lt is a[l] < b[l], of eq a[l] ==
// b[l]. Every integer comparison of setp is one of the two masks or a
// complement.
func Cmp32(a, b *[32]uint64, signed bool) (lt, eq uint32) {
	if hasFMA { // AVX2
		var flip uint32 = 1 << 31 // unsigned order through a signed compare
		if signed {
			flip = 0
		}
		return cmp32AVX2(a, b, flip)
	}
	return cmp32Go(a, b, signed)
}

// cmp32Go is Cmp32 one lane at a time.
func cmp32Go(a, b *[32]uint64, signed bool) (lt, eq uint32) {
	var flip uint32
	if signed {
		flip = 1 << 31
	}
	for l := range 32 {
		x, y := uint32(a[l])^flip, uint32(b[l])^flip
		if x < y {
			lt |= 1 << l
		}
		if x == y {
			eq |= 1 << l
		}
	}
	return lt, eq
}
