package hier

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// xorSpanAVX2 is xorSpan four lanes at a time (xorspan_amd64.s).
//
//go:noescape
func xorSpanAVX2(x *[32]uint64) uint64
