//go:build !amd64

package hier

const hasAVX2 = false

func xorSpanAVX2(x *[32]uint64) uint64 { return xorSpanGo(x) }
