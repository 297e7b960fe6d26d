//go:build !amd64

package memspace

const hasAVX2 = false

func words32AVX2(dst, addr *[32]uint64, mem *byte, base, last uint64) bool { return false }
