package memspace

import "golang.org/x/sys/cpu"

// hasAVX2: the host runs words32AVX2.
var hasAVX2 = cpu.X86.HasAVX2

// words32AVX2 is words32Go four lanes at a time (words_amd64.s).
//
//go:noescape
func words32AVX2(dst, addr *[32]uint64, mem *byte, base, last uint64) bool
