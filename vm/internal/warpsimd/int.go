package warpsimd

// The integer forms: d[l] = (a[l] op b[l]) & m for all 32 lanes, m the
// mask of the instruction's type (0xffff, 0xffffffff or all ones), d any
// of a and b. MulWideU32 and MulWideS32 multiply the low 32 bits of a[l]
// and b[l], unsigned or signed, into the 64-bit product.

// binForm is the signature of every form here, in AVX2 and in Go.
type binForm func(d, a, b *[32]uint64, m uint64)

// bin runs avx where the host has AVX2, else the Go loop g.
func bin(avx, g binForm, d, a, b *[32]uint64, m uint64) {
	if hasFMA {
		avx(d, a, b, m)
		return
	}
	g(d, a, b, m)
}

// AddQ is add: d[l] = (a[l] + b[l]) & m.
func AddQ(d, a, b *[32]uint64, m uint64) { bin(addQAVX2, addQGo, d, a, b, m) }

// AddKQ adds a constant: d[l] = (a[l] + k) & m (an address register plus
// an instruction's offset).
func AddKQ(d, a *[32]uint64, k, m uint64) {
	if hasFMA {
		addKQAVX2(d, a, k, m)
		return
	}
	addKQGo(d, a, k, m)
}

// SubQ is sub: d[l] = (a[l] - b[l]) & m.
func SubQ(d, a, b *[32]uint64, m uint64) { bin(subQAVX2, subQGo, d, a, b, m) }

// AndQ is and: d[l] = a[l] & b[l] & m.
func AndQ(d, a, b *[32]uint64, m uint64) { bin(andQAVX2, andQGo, d, a, b, m) }

// OrQ is or: d[l] = (a[l] | b[l]) & m.
func OrQ(d, a, b *[32]uint64, m uint64) { bin(orQAVX2, orQGo, d, a, b, m) }

// XorQ is xor: d[l] = (a[l] ^ b[l]) & m.
func XorQ(d, a, b *[32]uint64, m uint64) { bin(xorQAVX2, xorQGo, d, a, b, m) }

// MulWideU32 is mul.wide.u32: d[l] = uint32(a[l]) * uint32(b[l]) in 64 bits.
func MulWideU32(d, a, b *[32]uint64) { bin(mulWideU32AVX2, mulWideU32Go, d, a, b, ^uint64(0)) }

// MulWideS32 is mul.wide.s32: d[l] = int32(a[l]) * int32(b[l]) in 64 bits.
func MulWideS32(d, a, b *[32]uint64) { bin(mulWideS32AVX2, mulWideS32Go, d, a, b, ^uint64(0)) }

// The Go loops.

func addQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = (a[l] + b[l]) & m
	}
}

func addKQGo(d, a *[32]uint64, k, m uint64) {
	for l := range 32 {
		d[l] = (a[l] + k) & m
	}
}

func subQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = (a[l] - b[l]) & m
	}
}

func andQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = a[l] & b[l] & m
	}
}

func orQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = (a[l] | b[l]) & m
	}
}

func xorQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = (a[l] ^ b[l]) & m
	}
}

func mulWideU32Go(d, a, b *[32]uint64, _ uint64) {
	for l := range 32 {
		d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l]))
	}
}

func mulWideS32Go(d, a, b *[32]uint64, _ uint64) {
	for l := range 32 {
		d[l] = uint64(int64(int32(a[l])) * int64(int32(b[l])))
	}
}

// ShlQ is shl: d[l] = (a[l] << s) & m for s = uint32(b[l]), 0 when s is
// the type's width or more (for m the mask of a 16-, 32- or 64-bit type,
// the bits shifted past the width are masked off, so the shift by 64 or
// more that Go and VPSLLVQ make 0 is all that needs saying).
func ShlQ(d, a, b *[32]uint64, m uint64) { bin(shlQAVX2, shlQGo, d, a, b, m) }

// ShrQ is shr of unsigned values: d[l] = (a[l] & m) >> uint32(b[l]), 0
// for a shift of the type's width or more.
func ShrQ(d, a, b *[32]uint64, m uint64) { bin(shrQAVX2, shrQGo, d, a, b, m) }

func shlQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = (a[l] << uint32(b[l])) & m
	}
}

func shrQGo(d, a, b *[32]uint64, m uint64) {
	for l := range 32 {
		d[l] = (a[l] & m) >> uint32(b[l])
	}
}
