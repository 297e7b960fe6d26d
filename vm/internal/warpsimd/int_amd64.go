package warpsimd

// The integer forms eight lanes at a time (int_amd64.s).

//go:noescape
func addQAVX2(d, a, b *[32]uint64, m uint64)

//go:noescape
func subQAVX2(d, a, b *[32]uint64, m uint64)

//go:noescape
func andQAVX2(d, a, b *[32]uint64, m uint64)

//go:noescape
func orQAVX2(d, a, b *[32]uint64, m uint64)

//go:noescape
func xorQAVX2(d, a, b *[32]uint64, m uint64)

//go:noescape
func mulWideU32AVX2(d, a, b *[32]uint64, m uint64)

//go:noescape
func mulWideS32AVX2(d, a, b *[32]uint64, m uint64)

//go:noescape
func addKQAVX2(d, a *[32]uint64, k, m uint64)

//go:noescape
func shlQAVX2(d, a, b *[32]uint64, m uint64)

//go:noescape
func shrQAVX2(d, a, b *[32]uint64, m uint64)
