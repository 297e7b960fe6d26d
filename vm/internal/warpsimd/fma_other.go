//go:build !amd64

package warpsimd

const hasFMA = false

func fmaRN32AVX2(d, a, b, c *[32]uint64) { fmaRN32Go(d, a, b, c) }
