package vm_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// wmma: the forms the PTX ISA does not define are refused at load with a
// positioned error, and a lane that does not execute it is a fault. (The
// recorded forms run bit for bit in scheduler/suite
// TestIssue24Mma2Vectors and TestIssue24Mma3Vectors.)
func TestWmmaErrors(t *testing.T) {
	const (
		r8  = "{%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}"
		r8b = "{%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}"
	)
	tests := []struct{ name, inst, msg string }{
		{"f16 accumulator registers", "wmma.load.c.sync.aligned.row.m16n16k16.global.f16 " + r8 + ", [%rd5], %r4;", "fragment r needs 4 registers, found 8"},
		{"bf16 with an f16 accumulator", "wmma.mma.sync.aligned.row.col.m16n16k16.f16.bf16.bf16.f16 {%r10, %r11, %r12, %r13}, {%r20, %r21, %r22, %r23}, {%r20, %r21, %r22, %r23}, {%r10, %r11, %r12, %r13};", "does not take .bf16 multiplicands"},
		{"unknown shape", "wmma.load.a.sync.aligned.row.m16n8k16.global.f16 " + r8 + ", [%rd5], %r4;", "unknown shape"},
		{"tf32 at m16n16k16", "wmma.load.a.sync.aligned.row.m16n16k16.global.tf32 {%r10, %r11, %r12, %r13}, [%rd5], %r4;", "not defined for .m16n16k16"},
		{"s4 A column-major", "wmma.load.a.sync.aligned.col.m8n8k32.global.s4 {%r10}, [%rd5], %r4;", "sub-byte fragments are A .row and B .col"},
		{"b1 without an operation", "wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r10, %r11}, {%r20}, {%r21}, {%r10, %r11};", ".b1 needs .xor.popc or .and.popc"},
		{"rounding on f16", "wmma.mma.sync.aligned.row.col.m16n16k16.rz.f32.f32 " + r8 + ", " + r8b + ", " + r8b + ", " + r8 + ";", "only for the .f64 wmma.mma"},
		{"no layout", "wmma.load.a.sync.aligned.m16n16k16.global.f16 " + r8 + ", [%rd5], %r4;", "needs a layout"},
		{"no .sync", "wmma.load.a.aligned.row.m16n16k16.global.f16 " + r8 + ", [%rd5], %r4;", "needs .sync.aligned"},
		{"store.a", "wmma.store.a.sync.aligned.row.m16n16k16.global.f16 [%rd5], " + r8 + ", %r4;", "only wmma.load.a/.b/.c"},
		{"seven registers", "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd5], %r4;", "needs 8 registers, found 7"},
		{"local space", "wmma.load.a.sync.aligned.row.m16n16k16.local.f16 " + r8 + ", [%rd5], %r4;", "accesses .global, .shared or generic"},
		{"satfinite", "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite " + r8 + ", " + r8b + ", " + r8b + ", " + r8 + ";", ".satfinite is for the 8- and 4-bit integer forms"},
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

// wmma.load/mma/store round trip without a stride operand (16 elements),
// in .global and generic spelling, against fpu.DotF16F32 (the arithmetic
// the recorded vectors fix; the fragments are internal to the warp).
func TestWmmaRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 2))
	var A, B [16][16]uint16 // B[k][n]
	var C [16][16]uint32
	in := make([]uint32, 128+128+256)
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			A[i][j] = f16of((r.Float64()*2 - 1) * 4)
			B[i][j] = f16of((r.Float64()*2 - 1) * 4)
			C[i][j] = math.Float32bits(float32(r.NormFloat64() * 8))
		}
	}
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j += 2 {
			in[(16*i+j)/2] = uint32(A[i][j]) | uint32(A[i][j+1])<<16     // A row-major
			in[128+(16*i+j)/2] = uint32(B[j][i]) | uint32(B[j+1][i])<<16 // B col-major: column i
			in[256+16*i+j], in[256+16*i+j+1] = C[j][i], C[j+1][i]        // C col-major
		}
	}
	want := make([]uint32, 256) // D row-major
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			var col [16]uint16
			for k := range col {
				col[k] = B[k][j]
			}
			want[16*i+j] = fpu.DotF16F32(A[i][:], col[:], C[i][j])
		}
	}
	for _, sp := range []string{".global", ""} {
		t.Run("space"+sp, func(t *testing.T) {
			cvt := "cvta.to.global.u64 %rd5, %rd5;\n\tcvta.to.global.u64 %rd1, %rd1;"
			if sp == "" {
				cvt = ""
			}
			src := `
.visible .entry k(.param .u64 p0, .param .u64 p1)
{
	.reg .b32 %r<40>;
	.reg .f32 %f<24>;
	.reg .b64 %rd<20>;
	ld.param.u64 %rd1, [p0];
	ld.param.u64 %rd5, [p1];
	` + cvt + `
	add.s64 %rd6, %rd5, 512;
	add.s64 %rd7, %rd5, 1024;
	wmma.load.a.sync.aligned.row.m16n16k16` + sp + `.f16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, [%rd5];
	wmma.load.b.sync.aligned.col.m16n16k16` + sp + `.f16 {%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}, [%rd6];
	wmma.load.c.sync.aligned.col.m16n16k16` + sp + `.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, [%rd7];
	wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15}, {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, {%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};
	wmma.store.d.sync.aligned.row.m16n16k16` + sp + `.f32 [%rd1], {%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15};
	ret;
}`
			out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 256), in})
			require.NoError(t, err)
			require.Equal(t, want, out[0])
		})
	}
}
