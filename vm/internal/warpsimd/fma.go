package warpsimd

import "github.com/ptxvm/ptxvm/vm/internal/fpu"

// FmaRN32 sets d[l] to fma.rn.f32 of the low 32 bits of a[l], b[l] and c[l]
// (fpu.Fma32(a, b, c, fpu.RN, false, false)) for all 32 lanes. d may be any
// of a, b and c.
func FmaRN32(d, a, b, c *[32]uint64) {
	if hasFMA {
		fmaRN32AVX2(d, a, b, c)
		return
	}
	fmaRN32Go(d, a, b, c)
}

// fmaRN32Go is FmaRN32 one lane at a time.
func fmaRN32Go(d, a, b, c *[32]uint64) {
	for l := range 32 {
		x, y, z := uint32(a[l]), uint32(b[l]), uint32(c[l])
		r, ok := fpu.FmaRN32Fast(x, y, z)
		if !ok {
			r = fpu.Fma32(x, y, z, fpu.RN, false, false)
		}
		d[l] = uint64(r)
	}
}
