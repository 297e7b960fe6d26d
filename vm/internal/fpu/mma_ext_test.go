package fpu

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The integer, single-bit and fp8 tensor-core dots on hand-checked values
// (every recorded element runs in scheduler/suite TestIssue24Mma3Vectors).
func TestMmaExtDots(t *testing.T) {
	// u8 255 x s8 -128 = -32640; s4 -8 x u4 15 = -120; wrap and .satfinite
	require.Equal(t, uint32(0xffff8080), DotInt([]uint32{0xff}, []uint32{0x80}, false, true, 8, 0, false))
	require.Equal(t, uint32(0xffffff88), DotInt([]uint32{0x8}, []uint32{0xf}, true, false, 4, 0, false))
	require.Equal(t, uint32(0x80000000), DotInt([]uint32{1}, []uint32{1}, true, true, 8, 0x7fffffff, false))
	require.Equal(t, uint32(0x7fffffff), DotInt([]uint32{1}, []uint32{1}, true, true, 8, 0x7fffffff, true))
	// popc of AND and XOR per word, plus c modulo 2^32
	require.Equal(t, uint32(5), DotB1([]uint32{0xf0f0, 1}, []uint32{0xff00, 1}, false, 0))
	require.Equal(t, uint32(8+2), DotB1([]uint32{0xf0f0, 1}, []uint32{0xff00, 2}, true, 0))
	require.Equal(t, uint32(31), DotB1([]uint32{0xffffffff}, []uint32{0xffffffff}, false, 0xffffffff))

	for _, c := range []struct {
		x    uint32
		e5   bool
		want uint32
	}{
		{0x7e, false, 0x5f00}, // e4m3 448
		{0x7f, false, uint32(CanonNaN16)},
		{0x01, false, 0x1800}, // e4m3 2^-9
		{0x81, false, 0x9800},
		{0x7b, true, 0x7b00}, // e5m2 57344
		{0x7c, true, 0x7c00}, // e5m2 inf
		{0x7d, true, uint32(CanonNaN16)},
	} {
		require.Equal(t, c.want, FP8ToF16(c.x, c.e5), "%#x e5m2=%v", c.x, c.e5)
	}
	// c is added last, rounded to nearest: 2^24 + 3 is a tie between
	// 2^24+2 and 2^24+4 and goes to the even one; in the tensor core's
	// own sum (rounded toward zero) it would have been 2^24+2.
	one, two := uint32(0x38), uint32(0x40) // e4m3 1.0, 2.0
	got := DotFP8(false, false, []uint32{one, 0, two, 0}, []uint32{one, 0, one, 0}, 0x4b800000, false)
	require.Equal(t, uint32(0x4b800002), got)
	require.Equal(t, uint32(0x4b800001), DotF32(MmaF16, []uint32{0x3c00, 0x4000}, []uint32{0x3c00, 0x3c00}, 0x4b800000))
}
