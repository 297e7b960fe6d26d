package warpsimd

// The integer forms: d[l] = (a[l] op b[l]) & m for all 32 lanes, m the
// mask of the instruction's type (0xffff, 0xffffffff or all ones), d any
// of a and b. MulWideU32 and MulWideS32 multiply the low 32 bits of a[l]
// and b[l], unsigned or signed, into the 64-bit product (m all ones).

// AddQ is add: d[l] = (a[l] + b[l]) & m.
func AddQ(d, a, b *[32]uint64, m uint64) {
	if hasFMA {
		addQAVX2(d, a, b, m)
		return
	}
	addQGo(d, a, b, m)
}

func addQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = (a[l] + b[l]) & m
	}
}

// SubQ is sub: d[l] = (a[l] - b[l]) & m.
func SubQ(d, a, b *[32]uint64, m uint64) {
	if hasFMA {
		subQAVX2(d, a, b, m)
		return
	}
	subQGo(d, a, b, m)
}

func subQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = (a[l] - b[l]) & m
	}
}

// AndQ is and: d[l] = a[l] & b[l] & m.
func AndQ(d, a, b *[32]uint64, m uint64) {
	if hasFMA {
		andQAVX2(d, a, b, m)
		return
	}
	andQGo(d, a, b, m)
}

func andQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = a[l] & b[l] & m
	}
}

// OrQ is or: d[l] = (a[l] | b[l]) & m.
func OrQ(d, a, b *[32]uint64, m uint64) {
	if hasFMA {
		orQAVX2(d, a, b, m)
		return
	}
	orQGo(d, a, b, m)
}

func orQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = (a[l] | b[l]) & m
	}
}

// XorQ is xor: d[l] = (a[l] ^ b[l]) & m.
func XorQ(d, a, b *[32]uint64, m uint64) {
	if hasFMA {
		xorQAVX2(d, a, b, m)
		return
	}
	xorQGo(d, a, b, m)
}

func xorQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = (a[l] ^ b[l]) & m
	}
}

// MulWideU32 is mul.wide.u32: d[l] = uint32(a[l]) * uint32(b[l]) in 64 bits.
func MulWideU32(d, a, b *[32]uint64) {
	if hasFMA {
		mulWideU32AVX2(d, a, b, ^uint64(0))
		return
	}
	mulWideU32Go(d, a, b)
}

func mulWideU32Go(d, a, b *[32]uint64) {
	for l := range 32 {
		d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l]))
	}
}

// MulWideS32 is mul.wide.s32: d[l] = int32(a[l]) * int32(b[l]) in 64 bits.
func MulWideS32(d, a, b *[32]uint64) {
	if hasFMA {
		mulWideS32AVX2(d, a, b, ^uint64(0))
		return
	}
	mulWideS32Go(d, a, b)
}

func mulWideS32Go(d, a, b *[32]uint64) {
	for l := range 32 {
		d[l] = uint64(int64(int32(a[l])) * int64(int32(b[l])))
	}
}
