//go:build !amd64

package warpsimd

func addQAVX2(d, a, b *[32]uint64, m uint64)       { addQGo(d, a, b, m) }
func subQAVX2(d, a, b *[32]uint64, m uint64)       { subQGo(d, a, b, m) }
func andQAVX2(d, a, b *[32]uint64, m uint64)       { andQGo(d, a, b, m) }
func orQAVX2(d, a, b *[32]uint64, m uint64)        { orQGo(d, a, b, m) }
func xorQAVX2(d, a, b *[32]uint64, m uint64)       { xorQGo(d, a, b, m) }
func mulWideU32AVX2(d, a, b *[32]uint64, m uint64) { mulWideU32Go(d, a, b) }
func mulWideS32AVX2(d, a, b *[32]uint64, m uint64) { mulWideS32Go(d, a, b) }
