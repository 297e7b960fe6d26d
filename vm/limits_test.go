package vm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// recurseSrc calls down(0) from every thread: down(n) calls down(n+1)
// until n reaches the kernel's parameter, then returns n. With a limit
// above the stack it never reaches, the recursion never ends.
const recurseSrc = `
.file 1 "rec.cu"

.func (.param .b32 func_retval0) down(
	.param .b32 down_param_0,
	.param .b32 down_param_1
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;

	ld.param.u32 	%r1, [down_param_0];
	ld.param.u32 	%r2, [down_param_1];
	mov.u32 	%r5, %r1;
	setp.ge.u32 	%p1, %r1, %r2;
	@%p1 bra 	$L__ret;
	add.s32 	%r3, %r1, 1;
	.loc	1 4 12
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0], %r3;
	.param .b32 param1;
	st.param.b32 	[param1], %r2;
	.param .b32 retval0;
	call.uni (retval0), down, (param0, param1);
	ld.param.b32 	%r5, [retval0];
	} // callseq 0
$L__ret:
	st.param.b32 	[func_retval0], %r5;
	ret;
}

.visible .entry k(.param .u64 p0, .param .u32 p1)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;

	ld.param.u64 	%rd1, [p0];
	ld.param.u32 	%r2, [p1];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, 0;
	{ // callseq 1, 0
	.param .b32 param0;
	st.param.b32 	[param0], %r1;
	.param .b32 param1;
	st.param.b32 	[param1], %r2;
	.param .b32 retval0;
	call.uni (retval0), down, (param0, param1);
	ld.param.b32 	%r3, [retval0];
	} // callseq 1
	st.global.u32 	[%rd2], %r3;
	ret;
}`

// TestStackLimit: a call chain deeper than the per-thread stack is a fault
// that names the kernel, the block, the thread, the PTX and CUDA lines of
// the call and how deep the calls went; within the stack it runs.
func TestStackLimit(t *testing.T) {
	for _, c := range []struct {
		name  string
		depth uint32
		limit uint64
		err   string
	}{
		// down(0) ... down(depth): depth+1 nested calls of 16 bytes each
		// (no local depot): 1024 bytes hold 64.
		{"within the default", 62, 0, ""},
		{"at the default", 63, 0, ""},
		{"past the default", 64, 0, "stack overflow: 65 nested calls need about 1040 bytes of stack per thread, more than the launch's 1024 (cudaLimitStackSize"},
		{"never ends", 1 << 30, 0, "stack overflow: 65 nested calls"},
		{"raised", 200, 4096, ""},
		{"raised, never ends", 1 << 30, 4096, "stack overflow: 257 nested calls need about 4112 bytes of stack per thread, more than the launch's 4096"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dev := vm.NewDevice()
			m, err := dev.LoadModule("rec.ptx", []byte(header+recurseSrc))
			require.NoError(t, err)
			out, err := dev.Malloc(4, "out")
			require.NoError(t, err)
			l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{2, 1, 1}, Block: [3]uint32{32, 1, 1}}, [][]byte{u64arg(out), u32arg(c.depth)})
			require.NoError(t, err)
			l.StackLimit = c.limit
			_, err = runAll(l, options{maxInst: 1 << 24})
			if c.err == "" {
				require.NoError(t, err)
				got := make([]byte, 4)
				require.NoError(t, dev.MemcpyDtoH(got, out))
				assert.Equal(t, []uint32{c.depth}, bytesU32(got))
				return
			}
			var f *vm.Fault
			require.True(t, errors.As(err, &f), "got %v", err)
			assert.Contains(t, f.Msg, c.err)
			assert.Equal(t, "down", f.Func)
			assert.Equal(t, [3]uint32{0, 0, 0}, f.Block)
			assert.Equal(t, [3]uint32{0, 0, 0}, f.Thread)
			assert.Equal(t, lineOf(recurseSrc, "call.uni (retval0), down, (param0, param1);")+strings.Count(header, "\n"), f.PTXLine)
			assert.Contains(t, f.Source, "rec.cu:4")
			assert.Contains(t, err.Error(), "rec.ptx:")
			assert.Contains(t, err.Error(), "kernel k (in down), block (0,0,0), thread (0,0,0)")
		})
	}
}

// lineOf is the 1-based line of the first line of src containing s.
func lineOf(src, s string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return -1
}

// A kernel without recursion never overflows: the driver sizes its stack.
func TestNoStackLimitWithoutRecursion(t *testing.T) {
	src := `
.func (.param .b32 r) leaf(.param .b32 a)
{
	.local .align 4 .b8 buf[4096];
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [a];
	st.param.b32 [r], %r1;
	ret;
}
.visible .entry k(.param .u64 p0)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, 7;
	{
	.param .b32 param0;
	st.param.b32 [param0], %r1;
	.param .b32 retval0;
	call.uni (retval0), leaf, (param0);
	ld.param.b32 %r2, [retval0];
	}
	st.global.u32 [%rd2], %r2;
	ret;
}`
	out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, [][]uint32{{0}})
	require.NoError(t, err, "a 4 KiB frame is fine: ptxas sizes the stack of a kernel without recursion")
	assert.Equal(t, uint32(7), out[0][0])
}

// TestBudgetNamesTheLoop: the budget error says which loop the warp was
// in: the innermost one around where it stopped, with its PTX lines and
// CUDA line.
func TestBudgetNamesTheLoop(t *testing.T) {
	src := `
.file 1 "loop.cu"
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<3>;
	.reg .b32 %r<6>;
	mov.u32 %r1, 0;
$L__outer:
	mov.u32 %r2, 0;
$L__inner:
	add.s32 %r2, %r2, 1;
	.loc 1 9 5
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra $L__inner;
	add.s32 %r1, %r1, 1;
	.loc 1 11 3
	bra.uni $L__outer;
}`
	_, _, err := runOpt(t, options{maxInst: 100000}, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{{0}})
	require.ErrorIs(t, err, vm.ErrBudget)
	be, ok := vm.IsBudget(err)
	require.True(t, ok)
	require.NotNil(t, be.Loop)
	first := lineOf(src, "add.s32 %r2, %r2, 1;") + strings.Count(header, "\n")
	branch := lineOf(src, "@%p1 bra $L__inner;") + strings.Count(header, "\n")
	assert.Equal(t, first, be.Loop.FirstLine, "the inner loop, not the outer one")
	assert.Equal(t, branch, be.Loop.BranchLine)
	assert.Equal(t, "loop.cu:9:5", be.Loop.Source)
	assert.Contains(t, err.Error(), "kernel k: instruction budget exhausted after")
	assert.Contains(t, err.Error(), "warp 0 of that block was in the loop of test.ptx:")
	assert.Contains(t, err.Error(), ", source loop.cu:9")
}
