package vm_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// mmaTile is one warp's operands of mma.m16n8k: A 16xk, B kx8 (f16 bits),
// C 16x8 (f32 bits).
type mmaTile struct {
	k int
	A [16][16]uint16
	B [16][8]uint16
	C [16][8]uint32
}

// fragments packs the tile as the PTX ISA lays it out over the lanes (the
// input buffer of mmaKernel: a at words 0-127, b at 128-191, c at 192-319).
func (m *mmaTile) fragments() []uint32 {
	in := make([]uint32, 320)
	pk := func(lo, hi uint16) uint32 { return uint32(lo) | uint32(hi)<<16 }
	for t := 0; t < 32; t++ {
		g, q := t>>2, t&3
		for r := 0; r < m.k/4; r++ {
			row, col := g+8*(r&1), 2*q+8*(r>>1)
			in[4*t+r] = pk(m.A[row][col], m.A[row][col+1])
		}
		for r := 0; r < m.k/8; r++ {
			in[128+2*t+r] = pk(m.B[2*q+8*r][g], m.B[2*q+8*r+1][g])
		}
		for r := 0; r < 4; r++ {
			in[192+4*t+r] = m.C[g+8*(r>>1)][2*q+(r&1)]
		}
	}
	return in
}

// result reads D back from the lanes' four registers.
func mmaResult(out []uint32) (d [16][8]uint32) {
	for t := 0; t < 32; t++ {
		for r := 0; r < 4; r++ {
			d[t>>2+8*(r>>1)][2*(t&3)+(r&1)] = out[4*t+r]
		}
	}
	return d
}

func mmaKernel(inst string) string {
	return `
.visible .entry k(.param .u64 p0, .param .u64 p1)
{
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
` + prologue + `
	ld.param.u64 	%rd5, [p1];
	cvta.to.global.u64 	%rd5, %rd5;
	mul.wide.u32 	%rd6, %r4, 16;
	add.s64 	%rd7, %rd5, %rd6;
	ld.global.v4.u32 	{%r10, %r11, %r12, %r13}, [%rd7];
	mul.wide.u32 	%rd8, %r4, 8;
	add.s64 	%rd9, %rd5, %rd8;
	ld.global.v2.u32 	{%r14, %r15}, [%rd9+512];
	ld.global.v4.u32 	{%r20, %r21, %r22, %r23}, [%rd7+768];
	` + inst + `
	add.s64 	%rd11, %rd1, %rd6;
	st.global.v4.u32 	[%rd11], {%r30, %r31, %r32, %r33};
	ret;
}`
}

func f16of(x float64) uint16 {
	return fpu.F32ToF16(math.Float32bits(float32(x)), fpu.RN, false, false)
}

// The fragment layouts of mma.m16n8k16 and m16n8k8 (.row.col
// .f32.f16.f16.f32): small integers, whose sums are exact, against a plain
// matrix product; random f16 values against fpu.DotF16F32 on the logical
// matrices (the arithmetic is checked against the GPU in package fpu and
// in scheduler/suite).
func TestMma(t *testing.T) {
	const (
		k16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};"
		k8  = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11}, {%r14}, {%r20, %r21, %r22, %r23};"
		// D names the C registers, then A's and B's (every source is read first).
		k16InPlace = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r20, %r21, %r22, %r23}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};\n\tmov.b32 %r30, %r20;\n\tmov.b32 %r31, %r21;\n\tmov.b32 %r32, %r22;\n\tmov.b32 %r33, %r23;"
		k16OverA   = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r10, %r11, %r14, %r15}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};\n\tmov.b32 %r30, %r10;\n\tmov.b32 %r31, %r11;\n\tmov.b32 %r32, %r14;\n\tmov.b32 %r33, %r15;"
	)
	ints := func(k int, seed uint64) *mmaTile {
		r := rand.New(rand.NewPCG(seed, 1))
		m := &mmaTile{k: k}
		for i := 0; i < 16; i++ {
			for j := 0; j < k; j++ {
				m.A[i][j] = f16of(float64(r.IntN(17) - 8))
			}
		}
		for i := 0; i < k; i++ {
			for j := 0; j < 8; j++ {
				m.B[i][j] = f16of(float64(r.IntN(17) - 8))
			}
		}
		for i := 0; i < 16; i++ {
			for j := 0; j < 8; j++ {
				m.C[i][j] = math.Float32bits(float32(r.IntN(201) - 100))
			}
		}
		return m
	}
	exact := func(m *mmaTile) (d [16][8]uint32) {
		for i := 0; i < 16; i++ {
			for j := 0; j < 8; j++ {
				s := float64(math.Float32frombits(m.C[i][j]))
				for k := 0; k < m.k; k++ {
					s += fpu.ToFloat64(uint64(m.A[i][k]), fpu.F16) * fpu.ToFloat64(uint64(m.B[k][j]), fpu.F16)
				}
				d[i][j] = math.Float32bits(float32(s))
			}
		}
		return d
	}
	random := func(k int, seed uint64) *mmaTile {
		r := rand.New(rand.NewPCG(seed, 2))
		m := &mmaTile{k: k}
		h := func() uint16 { return uint16(r.IntN(0x7800)) | uint16(r.IntN(2))<<15 } // finite f16
		for i := 0; i < 16; i++ {
			for j := 0; j < k; j++ {
				m.A[i][j] = h()
			}
		}
		for i := 0; i < k; i++ {
			for j := 0; j < 8; j++ {
				m.B[i][j] = h()
			}
		}
		for i := 0; i < 16; i++ {
			for j := 0; j < 8; j++ {
				m.C[i][j] = math.Float32bits(float32(r.NormFloat64() * 1000))
			}
		}
		return m
	}
	model := func(m *mmaTile) (d [16][8]uint32) {
		for i := 0; i < 16; i++ {
			for j := 0; j < 8; j++ {
				var col [16]uint16
				for k := 0; k < m.k; k++ {
					col[k] = m.B[k][j]
				}
				d[i][j] = fpu.DotF16F32(m.A[i][:m.k], col[:m.k], m.C[i][j])
			}
		}
		return d
	}
	for _, tt := range []struct {
		name string
		inst string
		tile *mmaTile
		want func(*mmaTile) [16][8]uint32
	}{
		{"m16n8k16 small integers", k16, ints(16, 1), exact},
		{"m16n8k8 small integers", k8, ints(8, 2), exact},
		{"m16n8k16 d in the c registers", k16InPlace, ints(16, 3), exact},
		{"m16n8k16 d over a and b registers", k16OverA, ints(16, 4), exact},
		{"m16n8k16 random f16", k16, random(16, 5), model},
		{"m16n8k8 random f16", k8, random(8, 6), model},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := run(t, mmaKernel(tt.inst), "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1},
				[][]uint32{make([]uint32, 128), tt.tile.fragments()})
			require.NoError(t, err)
			require.Equal(t, tt.want(tt.tile), mmaResult(out[0]))
		})
	}
}

// mma is .sync.aligned: a lane that does not execute it is a fault; the
// forms ptxas refuses for sm_90 (or the GPU stops with an illegal
// instruction) are refused at lowering with a positioned error.
func TestMmaErrors(t *testing.T) {
	tests := []struct{ name, inst, msg string }{
		{"divergent warp", "setp.lt.u32 %p1, %r4, 16;\n\t@%p1 mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};", "every lane of the warp"},
		{"mixed types", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21};", "is not supported: no such form"},
		{"m8n8k4 f16 from f32 (ptxas refuses)", "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11}, {%r14, %r15}, {%r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27};", ".dtype must be .f32"},
		{"m8n8k4 f32 d registers", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11}, {%r14, %r15}, {%r20, %r21, %r22, %r23};", "operand d needs 8 registers, found 4"},
		{"m16n8k4 f64", "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%r30, %r31}, {%r10}, {%r14}, {%r20, %r21};", "is not supported"},
		{"b1 without popc", "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};", ".and.popc or .xor.popc"},
		{"b1 satfinite", "mma.sync.aligned.m16n8k128.row.col.satfinite.s32.b1.b1.s32.xor.popc {%r30, %r31, %r32, %r33}, {%r10, %r11}, {%r14}, {%r20, %r21, %r22, %r23};", ".satfinite is not allowed on .b1"},
		{"sparse selector out of range", "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15, %r16, %r17}, {%r20, %r21, %r22, %r23}, %r24, 2;", "sparsity selector 2 out of range (0-1"},
		{"sparse selector from a register", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11}, {%r14, %r15}, {%r20, %r21, %r22, %r23}, %r24, %r25;", "the sparsity selector is an immediate"},
		{"sparse mixed types", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%r30, %r31, %r32, %r33}, {%r10, %r11}, {%r14, %r15}, {%r20, %r21}, %r24, 0;", "ctype = dtype"},
		{"no such shape", "mma.sync.aligned.m16n16k16.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};", "unknown shape"},
		{"no .sync", "mma.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};", "needs .sync.aligned"},
		{"row row", "mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};", "the layouts are .row.col"},
		{"k8 with k16 a", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14}, {%r20, %r21, %r22, %r23};", "operand a needs 2 registers, found 4"},
		{"three operands", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15};", "takes 4 operands"},
		{"extra modifier", "mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};", ".satfinite is supported only on the integer forms"},
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

// mma's InstInfo: the timing model's half-precision class (HMMA has no
// class of its own), ten registers read (A, B, C) and four written (D); and
// the dynamic operand-set check over the recorded mma vectors.
func TestMmaInstInfo(t *testing.T) {
	t.Cleanup(vm.WithoutLayout()) // checkCorpus reads and poisons registers by index
	dev := vm.NewDevice()
	m, err := dev.LoadModule("t.ptx", []byte(header+mmaKernel("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r30, %r31, %r32, %r33}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%r20, %r21, %r22, %r23};")))
	require.NoError(t, err)
	k, err := m.Kernel("k")
	require.NoError(t, err)
	var mma *vm.InstInfo
	for _, info := range k.Insts {
		if info.Inst().Op.String() == "mma" {
			mma = info
		}
	}
	require.NotNil(t, mma)
	require.Equal(t, vm.ClassHalf, mma.Class)
	require.Len(t, mma.Reads.Regs, 10)
	require.Len(t, mma.Writes.Regs, 4)

	cov := checkCorpus(t, "../testdata/conformance/issue24/mma_vectors/cases")
	require.Equal(t, 7, cov.launches)
}
