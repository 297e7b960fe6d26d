package vm_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// layoutKernel holds the cases a storage layout by liveness can get wrong,
// each writing its result for thread t at out[4t+case]:
//  0. a guarded write leaves the old value in the lanes it skips, while
//     temporaries come and go between the two writes;
//  1. the two sides of a divergent branch define different registers,
//     read after the join;
//  2. a register carried around a loop's back edge beside temporaries
//     defined in the body;
//  3. a register read before anything writes it (0, as in a frame of one
//     slot per register).
const layoutKernel = `
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 4;
	cvt.u64.u32 %rd2, %r2;
	add.s64 %rd3, %rd1, %rd2;

	mov.u32 %r3, 7;
	mul.lo.u32 %r4, %r1, 3;
	add.u32 %r5, %r4, 5;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 mov.u32 %r3, %r5;
	add.u32 %r6, %r3, 1;
	st.global.u32 [%rd3], %r6;

	and.b32 %r7, %r1, 1;
	setp.eq.u32 %p2, %r7, 0;
	@%p2 bra EVEN;
	mul.lo.u32 %r8, %r1, 11;
	add.u32 %r9, %r8, 1;
	bra.uni JOIN;
EVEN:
	mul.lo.u32 %r10, %r1, 13;
	add.u32 %r11, %r10, 2;
JOIN:
	selp.u32 %r12, %r11, %r9, %p2;
	st.global.u32 [%rd3+4], %r12;

	mov.u32 %r13, 0;
	mov.u32 %r14, 0;
LOOP:
	mul.lo.u32 %r15, %r14, %r1;
	xor.b32 %r16, %r15, 0x55;
	add.u32 %r13, %r13, %r16;
	add.u32 %r14, %r14, 1;
	setp.lt.u32 %p3, %r14, 5;
	@%p3 bra LOOP;
	st.global.u32 [%rd3+8], %r13;

	add.u32 %r17, %r39, %r1;
	st.global.u32 [%rd3+12], %r17;
	ret;
}
`

// TestLayoutKeepsValues: the cases of layoutKernel give the values the
// PTX defines, with the registers' storage shared by liveness and with one
// slot per register alike; and the layout does share (fewer slots than
// registers).
func TestLayoutKeepsValues(t *testing.T) {
	want := make([]uint32, 4*64)
	for tid := uint32(0); tid < 64; tid++ {
		v := uint32(7)
		if tid < 16 {
			v = 3*tid + 5
		}
		want[4*tid] = v + 1
		if tid%2 == 0 {
			want[4*tid+1] = 13*tid + 2
		} else {
			want[4*tid+1] = 11*tid + 1
		}
		var s uint32
		for i := uint32(0); i < 5; i++ {
			s += i*tid ^ 0x55
		}
		want[4*tid+2] = s
		want[4*tid+3] = tid
	}
	m, err := vm.NewDevice().LoadModule("t.ptx", []byte(header+layoutKernel))
	require.NoError(t, err)
	k, err := m.Kernel("k")
	require.NoError(t, err)
	slots, regs := k.Entry.LayoutSlots()
	require.Less(t, slots, regs-20)

	for _, shared := range []bool{true, false} {
		restore := func() {}
		if !shared {
			restore = vm.WithoutLayout()
		}
		out, _, err := run(t, layoutKernel, "k", [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, [][]uint32{make([]uint32, 4*64)})
		restore()
		require.NoError(t, err)
		require.Equal(t, want, out[0], "storage shared: %v", shared)
	}
}

// TestLayoutTiledMatmul: the bundled tiled multiply's 133 registers take
// at most 40 slots of a frame (ptxas gives it 32 machine registers).
func TestLayoutTiledMatmul(t *testing.T) {
	src, err := os.ReadFile("../kernels/ptx/matmul.ptx")
	require.NoError(t, err)
	m, err := vm.NewDevice().LoadModule("matmul.ptx", src)
	require.NoError(t, err)
	k, err := m.Kernel("_Z12matmul_tiledPfPKfS1_j")
	require.NoError(t, err)
	slots, regs := k.Entry.LayoutSlots()
	require.Equal(t, 133, regs)
	require.LessOrEqual(t, slots, 40)
}
