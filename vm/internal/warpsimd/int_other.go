//go:build !amd64

package warpsimd

// Never called: hasFMA is false here.
var addQAVX2, subQAVX2, andQAVX2, orQAVX2, xorQAVX2, mulWideU32AVX2, mulWideS32AVX2, shlQAVX2, shrQAVX2 = addQGo, subQGo, andQGo, orQGo, xorQGo, mulWideU32Go, mulWideS32Go, shlQGo, shrQGo

func addKQAVX2(d, a *[32]uint64, k, m uint64) { addKQGo(d, a, k, m) }
