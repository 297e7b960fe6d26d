package sasscost

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The tensor-core forms cost what the H200 microbenchmark measured
// (mma.go): one HMMA.16816 a slot of the tensor pipe, the emulated forms
// their measured throughput.
func TestMmaCost(t *testing.T) {
	k := kernelOf(t, `
	.reg .b32 %r<64>;
	.reg .b64 %rd<8>;
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r8, %r9}, {%r0, %r1, %r2, %r3};
	mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%rd0, %rd1}, {%rd2}, {%rd3}, {%rd0, %rd1};
	mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r8, %r9}, {%r0, %r1, %r2, %r3};
	mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r8, %r9}, {%r0, %r1, %r2, %r3};
	mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 {%r0, %r1, %r2, %r3, %r10, %r11, %r12, %r13}, {%r4, %r5}, {%r8, %r9}, {%r0, %r1, %r2, %r3, %r10, %r11, %r12, %r13};
	mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11}, {%r0, %r1, %r2, %r3}, %r20, 1;
	mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r8}, {%r0, %r1, %r2, %r3};
	wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32 {%r0, %r1, %r2, %r3, %r10, %r11, %r12, %r13}, {%r4, %r5, %r6, %r7}, {%r20, %r21, %r22, %r23}, {%r0, %r1, %r2, %r3, %r10, %r11, %r12, %r13};
	exit;`, false)
	tab := &Table{Name: "t", Forms: map[string]Cost{}, Classes: map[string]Cost{"half": {Slots: 1, Pipe: PipeHalf}}}
	want := []Cost{
		{Slots: 1, Pipe: PipeTensor},
		{Slots: 2.49, Pipe: PipeTensor, Latency: 26},
		{Slots: 0.98, Pipe: PipeTensor, Latency: 67},
		{Slots: 46.4, Pipe: PipeTensor, Latency: 214},
		{Slots: 20.6, Pipe: PipeTensor, Latency: 219},
		{Slots: 1.31, Pipe: PipeTensor, Latency: 34},
		{Slots: 0.68, Pipe: PipeTensor, Latency: 35},
		{Slots: 2.57, Pipe: PipeTensor, Latency: 33},
	}
	ro := NewFacts(k.Entry)
	for i, w := range want {
		c, _ := tab.Lookup(k.Insts[i], ro, false)
		assert.Equal(t, w, c, "instruction %d", i)
	}
}
