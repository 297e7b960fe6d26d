package vm_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// wmma: the forms not recorded on the GPU are refused at load with a
// positioned error, and a lane that does not execute it is a fault. (The
// recorded forms run bit for bit in scheduler/suite
// TestIssue24Mma2Vectors.)
func TestWmmaErrors(t *testing.T) {
	const (
		r8  = "{%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}"
		r8b = "{%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}"
	)
	tests := []struct{ name, inst, msg string }{
		{"f16 accumulator load", "wmma.load.c.sync.aligned.row.m16n16k16.global.f16 " + r8 + ", [%rd5], %r4;", "only .f32 fragments"},
		{"f16 accumulator mma", "wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16 " + r8 + ", " + r8b + ", " + r8b + ", " + r8 + ";", "only .m16n16k16.f32.f32"},
		{"other shape", "wmma.load.a.sync.aligned.row.m32n8k16.global.f16 " + r8 + ", [%rd5], %r4;", "only the shape .m16n16k16"},
		{"no layout", "wmma.load.a.sync.aligned.m16n16k16.global.f16 " + r8 + ", [%rd5], %r4;", "needs a layout"},
		{"no .sync", "wmma.load.a.aligned.row.m16n16k16.global.f16 " + r8 + ", [%rd5], %r4;", "needs .sync.aligned"},
		{"store.a", "wmma.store.a.sync.aligned.row.m16n16k16.global.f16 [%rd5], " + r8 + ", %r4;", "only wmma.load.a/.b/.c"},
		{"seven registers", "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd5], %r4;", "needs 8 registers, found 7"},
		{"local space", "wmma.load.a.sync.aligned.row.m16n16k16.local.f16 " + r8 + ", [%rd5], %r4;", "accesses .global, .shared or generic"},
		{"satfinite", "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite " + r8 + ", " + r8b + ", " + r8b + ", " + r8 + ";", "unsupported modifier on wmma"},
		{"divergent warp", "setp.lt.u32 %p1, %r4, 16;\n\t@%p1 wmma.load.a.sync.aligned.row.m16n16k16.global.f16 " + r8 + ", [%rd5], %r4;", "every lane of the warp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := run(t, mmaKernel(tt.inst), "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1},
				[][]uint32{make([]uint32, 128), make([]uint32, 320)})
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.msg)
		})
	}
}
