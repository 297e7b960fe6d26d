package vm_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// header is the module preamble nvcc writes.
const header = `.version 8.5
.target sm_90
.address_size 64
`

// run loads src, allocates one u32 buffer per entry of bufs (filled with
// its contents), launches kernel with the buffers' addresses followed by
// extra args, and returns the buffers afterwards.
func run(t *testing.T, src, kernel string, grid, block [3]uint32, bufs [][]uint32, extra ...[]byte) ([][]uint32, *vm.Stats, error) {
	t.Helper()
	return runOpt(t, options{maxInst: 1 << 24}, src, kernel, grid, block, bufs, extra...)
}

// options are the launch settings a test may change.
type options struct {
	maxInst int64
	strict  bool
	header  string // the module preamble; header (sm_90) when empty
}

// runAll runs every block of l in order on SM 0.
func runAll(l *vm.Launch, opt options) (*vm.Stats, error) {
	l.MaxInst, l.Strict = opt.maxInst, opt.strict
	sm := l.NewSM(0)
	for i := 0; i < l.NumCTAs(); i++ {
		if err := sm.RunCTA(i); err != nil {
			return &sm.Stats, err
		}
	}
	return &sm.Stats, nil
}

func runOpt(t *testing.T, opt options, src, kernel string, grid, block [3]uint32, bufs [][]uint32, extra ...[]byte) ([][]uint32, *vm.Stats, error) {
	t.Helper()
	dev := vm.NewDevice()
	h := header
	if opt.header != "" {
		h = opt.header
	}
	m, err := dev.LoadModule("test.ptx", []byte(h+src))
	if err != nil {
		return nil, nil, err
	}
	var addrs []uint64
	var args [][]byte
	for i, b := range bufs {
		a, err := dev.Malloc(uint64(4*len(b)), fmt.Sprintf("buf%d", i))
		require.NoError(t, err)
		require.NoError(t, dev.MemcpyHtoD(a, u32bytes(b)))
		addrs = append(addrs, a)
		args = append(args, binary.LittleEndian.AppendUint64(nil, a))
	}
	args = append(args, extra...)
	l, err := m.PrepareLaunch(kernel, vm.LaunchConfig{Grid: grid, Block: block}, args)
	if err != nil {
		return nil, nil, err
	}
	res, err := runAll(l, opt)
	if err != nil {
		return nil, res, err
	}
	out := make([][]uint32, len(bufs))
	for i, b := range bufs {
		raw := make([]byte, 4*len(b))
		require.NoError(t, dev.MemcpyDtoH(raw, addrs[i]))
		out[i] = bytesU32(raw)
	}
	return out, res, nil
}

func u32bytes(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func bytesU32(b []byte) []uint32 {
	v := make([]uint32, len(b)/4)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return v
}

func u32arg(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// gtid computes the global thread index into %r1 and the byte offset of
// element %r1 of the first buffer into %rd2 (address) — the usual prologue.
const prologue = `
	ld.param.u64 	%rd1, [p0];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r1, %r2, %r3, %r4;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd2, %rd1, %rd3;
`

func TestDivergenceReconverges(t *testing.T) {
	// Odd lanes take one path, even lanes the other; both then run the
	// join block together. With reconvergence, the warp executes the join
	// once, so the warp-instruction count is exact.
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
` + prologue + `
	and.b32 	%r5, %r1, 1;
	setp.eq.s32 	%p1, %r5, 0;
	@%p1 bra 	$L__even;
	mul.lo.s32 	%r6, %r1, 3;
	bra.uni 	$L__join;
$L__even:
	shl.b32 	%r6, %r1, 1;
$L__join:
	add.s32 	%r7, %r6, 100;
	st.global.u32 	[%rd2], %r7;
	ret;
}`
	out, res, err := run(t, src, "k", [3]uint32{2, 1, 1}, [3]uint32{64, 1, 1}, [][]uint32{make([]uint32, 128)})
	require.NoError(t, err)
	for i, v := range out[0] {
		want := uint32(i*2 + 100)
		if i%2 == 1 {
			want = uint32(i*3 + 100)
		}
		require.Equal(t, want, v, "element %d", i)
	}
	// 8 prologue + and, setp, bra (3) + odd path 2 + even path 1 + join 3 = 17 per warp.
	require.Equal(t, uint64(17*4), res.Inst)
}

func TestLoopWithPerLaneTripCounts(t *testing.T) {
	// Collatz steps: every lane leaves the loop at its own iteration.
	src := `
.visible .entry collatz(.param .u64 p0)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
` + prologue + `
	add.s32 	%r5, %r1, 1;
	mov.u32 	%r6, 0;
$L__loop:
	setp.eq.s32 	%p1, %r5, 1;
	@%p1 bra 	$L__done;
	and.b32 	%r7, %r5, 1;
	setp.eq.s32 	%p2, %r7, 0;
	shr.u32 	%r8, %r5, 1;
	mad.lo.s32 	%r9, %r5, 3, 1;
	selp.b32 	%r5, %r8, %r9, %p2;
	add.s32 	%r6, %r6, 1;
	bra.uni 	$L__loop;
$L__done:
	st.global.u32 	[%rd2], %r6;
	ret;
}`
	out, _, err := run(t, src, "collatz", [3]uint32{1, 1, 1}, [3]uint32{100, 1, 1}, [][]uint32{make([]uint32, 100)})
	require.NoError(t, err)
	for i, v := range out[0] {
		n, steps := uint32(i+1), uint32(0)
		for n != 1 {
			if n%2 == 0 {
				n /= 2
			} else {
				n = 3*n + 1
			}
			steps++
		}
		require.Equal(t, steps, v, "collatz(%d)", i+1)
	}
}

func TestBarrierAcrossWarps(t *testing.T) {
	// Reverse a block's values through shared memory: correct only if the
	// barrier makes every warp's store visible before any load.
	src := `
.visible .entry rev(.param .u64 p0)
{
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 buf[1024];
` + prologue + `
	ld.global.u32 	%r5, [%rd2];
	shl.b32 	%r6, %r4, 2;
	mov.u32 	%r7, buf;
	add.s32 	%r8, %r7, %r6;
	st.shared.u32 	[%r8], %r5;
	bar.sync 	0;
	sub.s32 	%r9, 255, %r4;
	shl.b32 	%r9, %r9, 2;
	add.s32 	%r9, %r7, %r9;
	ld.shared.u32 	%r5, [%r9];
	st.global.u32 	[%rd2], %r5;
	ret;
}`
	in := make([]uint32, 512)
	for i := range in {
		in[i] = uint32(i * 7)
	}
	out, _, err := run(t, src, "rev", [3]uint32{2, 1, 1}, [3]uint32{256, 1, 1}, [][]uint32{in})
	require.NoError(t, err)
	for i, v := range out[0] {
		blk, tid := i/256, i%256
		require.Equal(t, uint32((blk*256+255-tid)*7), v, "element %d", i)
	}
}

func TestEarlyExitDoesNotBlockBarrier(t *testing.T) {
	// Threads with an odd global index exit before the barrier; the rest
	// must not wait for them forever.
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
` + prologue + `
	and.b32 	%r5, %r1, 1;
	setp.ne.s32 	%p1, %r5, 0;
	@%p1 exit;
	bar.sync 	0;
	st.global.u32 	[%rd2], 1;
	ret;
}`
	out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{96, 1, 1}, [][]uint32{make([]uint32, 96)})
	require.NoError(t, err)
	for i, v := range out[0] {
		require.Equal(t, uint32(1-i%2), v, "element %d", i)
	}
}

func TestRecursiveCall(t *testing.T) {
	// fib through a recursive .func with the call sequence nvcc emits.
	src := `
.func  (.param .b32 func_retval0) fib(
	.param .b32 fib_param_0
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;

	ld.param.u32 	%r1, [fib_param_0];
	setp.lt.u32 	%p1, %r1, 2;
	mov.u32 	%r7, %r1;
	@%p1 bra 	$L__ret;
	add.s32 	%r2, %r1, -1;
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0], %r2;
	.param .b32 retval0;
	call.uni (retval0), fib, (param0);
	ld.param.b32 	%r3, [retval0];
	} // callseq 0
	add.s32 	%r4, %r1, -2;
	{ // callseq 1, 0
	.param .b32 param0;
	st.param.b32 	[param0], %r4;
	.param .b32 retval0;
	call.uni (retval0), fib, (param0);
	ld.param.b32 	%r5, [retval0];
	} // callseq 1
	add.s32 	%r7, %r5, %r3;
$L__ret:
	st.param.b32 	[func_retval0], %r7;
	ret;
}

.visible .entry k(.param .u64 p0)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
` + prologue + `
	and.b32 	%r5, %r1, 15;
	{ // callseq 2, 0
	.param .b32 param0;
	st.param.b32 	[param0], %r5;
	.param .b32 retval0;
	call.uni (retval0), fib, (param0);
	ld.param.b32 	%r6, [retval0];
	} // callseq 2
	st.global.u32 	[%rd2], %r6;
	ret;
}`
	out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, [][]uint32{make([]uint32, 64)})
	require.NoError(t, err)
	fib := func(n int) uint32 {
		a, b := uint32(0), uint32(1)
		for i := 0; i < n; i++ {
			a, b = b, a+b
		}
		return a
	}
	for i, v := range out[0] {
		require.Equal(t, fib(i%16), v, "fib(%d)", i%16)
	}
}

func TestLocalArrayRuntimeIndex(t *testing.T) {
	// A per-thread local array written and read at run-time indices, in a
	// depot addressed through %SP as nvcc does.
	src := `
.visible .entry k(.param .u64 p0)
{
	.local .align 4 .b8 	__local_depot0[64];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;

	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
` + prologue + `
	mov.u32 	%r5, 0;
$L__fill:
	mul.wide.u32 	%rd4, %r5, 4;
	add.s64 	%rd5, %SP, %rd4;
	mad.lo.s32 	%r6, %r5, %r1, 3;
	st.u32 	[%rd5], %r6;
	add.s32 	%r5, %r5, 1;
	setp.lt.u32 	%p1, %r5, 16;
	@%p1 bra 	$L__fill;
	and.b32 	%r7, %r1, 15;
	mul.wide.u32 	%rd4, %r7, 4;
	add.s64 	%rd6, %SPL, %rd4;
	ld.local.u32 	%r8, [%rd6];
	st.global.u32 	[%rd2], %r8;
	ret;
}`
	out, _, err := run(t, src, "k", [3]uint32{2, 1, 1}, [3]uint32{40, 1, 1}, [][]uint32{make([]uint32, 80)})
	require.NoError(t, err)
	for i, v := range out[0] {
		require.Equal(t, uint32((i%16)*i+3), v, "element %d", i)
	}
}

func TestOutOfBoundsStoreIsAFault(t *testing.T) {
	src := `
.visible .entry oob(.param .u64 p0)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
` + prologue + `
	st.global.u32 	[%rd2], %r1;
	ret;
}`
	_, _, err := run(t, src, "oob", [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, [][]uint32{make([]uint32, 40)})
	require.Error(t, err)
	var f *vm.Fault
	require.True(t, errors.As(err, &f), "got %v", err)
	require.Equal(t, "oob", f.Kernel)
	require.Equal(t, [3]uint32{40, 0, 0}, f.Thread, "the first lane out of bounds")
	require.Equal(t, 19, f.PTXLine)
	require.Contains(t, err.Error(), "test.ptx:19: kernel oob, block (0,0,0), thread (40,0,0)")
	require.Contains(t, err.Error(), "store of 4 bytes to global address")
	require.Contains(t, err.Error(), "0 bytes past the end of buf0")
}

func TestMisalignedLoadIsAFault(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
` + prologue + `
	ld.global.u32 	%r5, [%rd2+2];
	ret;
}`
	_, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 40)})
	require.ErrorContains(t, err, "misaligned address")
}

func TestBudgetStopsRunawayKernel(t *testing.T) {
	src := `
.visible .entry spin(.param .u64 p0)
{
$L__top:
	bra.uni 	$L__top;
}`
	_, _, err := run(t, src, "spin", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 1)})
	require.ErrorIs(t, err, vm.ErrBudget)
	require.True(t, vm.IsRuntime(err))
}

func TestBarrierDeadlockIsReported(t *testing.T) {
	// A barrier waiting for 64 threads in a block of 32 can never complete.
	src := `
.visible .entry k(.param .u64 p0)
{
	bar.sync 	1, 64;
	ret;
}`
	_, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 1)})
	require.ErrorIs(t, err, vm.ErrDeadlock)
	require.ErrorContains(t, err, "barrier 1 has 32 of 64 threads")
}

func TestLaunchChecks(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0, .param .u32 p1)
.maxntid 128, 1, 1
{
	ret;
}`
	cases := []struct {
		name  string
		grid  [3]uint32
		block [3]uint32
		extra [][]byte
		want  string
	}{
		{"too many threads", [3]uint32{1, 1, 1}, [3]uint32{2048, 1, 1}, [][]byte{u32arg(0)}, "exceeds the limits"},
		{"maxntid", [3]uint32{1, 1, 1}, [3]uint32{256, 1, 1}, [][]byte{u32arg(0)}, "at most 128 threads per block (.maxntid)"},
		{"zero grid", [3]uint32{0, 1, 1}, [3]uint32{32, 1, 1}, [][]byte{u32arg(0)}, "no zero dimension"},
		{"missing arg", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, nil, "takes 2 parameters, 1 arguments were given"},
		{"short arg", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]byte{{1, 2}}, "argument has 2 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := run(t, src, "k", c.grid, c.block, [][]uint32{{0}}, c.extra...)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestUnknownInstructionIsNamed(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .b32 %r<3>;
	frobnicate.b32 	%r1, %r2;
	ret;
}`
	_, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{{0}})
	require.ErrorContains(t, err, "test.ptx:8:")
	require.ErrorContains(t, err, "unknown instruction frobnicate.b32")
}

func TestUnknownRegisterIsPositioned(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .b32 %r<3>;
	add.s32 	%r1, %r2, %q9;
	ret;
}`
	_, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{{0}})
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "test.ptx:8:") && strings.Contains(err.Error(), "unknown register or symbol %q9"), "got %v", err)
}

func TestFaultNamesCUDASourceLine(t *testing.T) {
	// nvcc's -lineinfo PTX of the naive matmul, launched for n = 64 with a
	// C buffer of 16 elements: the store runs off its end, and the fault
	// names the CUDA line of the store.
	src, err := os.ReadFile("../testdata/nvcc/ptx/matmul.O3.ptx")
	require.NoError(t, err)
	dev := vm.NewDevice()
	m, err := dev.LoadModule("matmul.O3.ptx", src)
	require.NoError(t, err)
	c, _ := dev.Malloc(64, "C")
	a, _ := dev.Malloc(64*64*4, "A")
	b, _ := dev.Malloc(64*64*4, "B")
	args := [][]byte{u64arg(c), u64arg(a), u64arg(b), u32arg(64)}
	l, err := m.PrepareLaunch("_Z12matmul_naivePfPKfS1_j", vm.LaunchConfig{Grid: [3]uint32{4, 4, 1}, Block: [3]uint32{16, 16, 1}}, args)
	require.NoError(t, err)
	_, err = runAll(l, options{})
	var f *vm.Fault
	require.True(t, errors.As(err, &f), "got %v", err)
	require.Contains(t, f.Source, "matmul.cu:17")
	require.Contains(t, err.Error(), "kernel _Z12matmul_naivePfPKfS1_j, block (0,0,0), thread (0,1,0)")
	require.Contains(t, err.Error(), "store of 4 bytes to global address")
}

func u64arg(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func TestCTAID(t *testing.T) {
	tests := []struct {
		grid [3]uint32
		i    int
		want [3]uint32
	}{
		{[3]uint32{4, 3, 2}, 0, [3]uint32{0, 0, 0}},
		{[3]uint32{4, 3, 2}, 5, [3]uint32{1, 1, 0}},
		{[3]uint32{4, 3, 2}, 23, [3]uint32{3, 2, 1}},
		{[3]uint32{1, 1, 7}, 6, [3]uint32{0, 0, 6}},
		// Beyond 2^32 blocks the index must not be truncated to 32 bits.
		{[3]uint32{1<<31 - 1, 65535, 65535}, 1 << 32, [3]uint32{2, 2, 0}},
		{[3]uint32{1<<31 - 1, 65535, 65535}, (1<<31-1)*65535*65535 - 1, [3]uint32{1<<31 - 2, 65534, 65534}},
	}
	for _, tt := range tests {
		l := &vm.Launch{Grid: tt.grid}
		require.Equal(t, tt.want, l.CTAID(tt.i), "block %d of %v", tt.i, tt.grid)
	}
}

// TestFallOffTheEnd: a kernel whose body ends without ret or exit, and that
// declares no predicate, ends at the implicit exit lowering adds.
func TestFallOffTheEnd(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 	%rd1, [p0];
	mov.u32 	%r1, 7;
	st.global.u32 	[%rd1], %r1;
}`
	out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, [][]uint32{{0}})
	require.NoError(t, err)
	require.Equal(t, []uint32{7}, out[0])
}
