package scheduler_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

const header = `.version 8.5
.target sm_90
.address_size 64
`

// launch loads src into a fresh device, allocates one zeroed buffer of
// bufBytes and prepares kernel with the buffer's address followed by extra.
func launch(t *testing.T, src, kernel string, grid, block [3]uint32, bufBytes uint64, extra ...[]byte) (*vm.Launch, *vm.Device, uint64) {
	t.Helper()
	dev := vm.NewDevice()
	m, err := dev.LoadModule("test.ptx", []byte(header+src))
	require.NoError(t, err)
	buf, err := dev.Malloc(bufBytes, "buffer out")
	require.NoError(t, err)
	args := append([][]byte{binary.LittleEndian.AppendUint64(nil, buf)}, extra...)
	l, err := m.PrepareLaunch(kernel, vm.LaunchConfig{Grid: grid, Block: block}, args)
	require.NoError(t, err)
	return l, dev, buf
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func readU32s(t *testing.T, dev *vm.Device, addr uint64, n int) []uint32 {
	t.Helper()
	b := make([]byte, 4*n)
	require.NoError(t, dev.MemcpyDtoH(b, addr))
	v := make([]uint32, n)
	for i := range v {
		v[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return v
}

var workerCounts = []int{1, 2, 8}

// corpusCases are nvcc cases with many blocks whose outputs do not depend
// on the order blocks run in: global and shared atomics (integer, so
// commutative), shared-memory tiles with barriers, a 3-D grid.
var corpusCases = []string{"hist_global_atomic", "hist_shared_atomic", "matmul_tiled_ragged", "reduce_sum_f32", "grid3d"}

// TestRunSpecSameOutputsForAnyWorkerCount runs recorded nvcc cases on 1, 2
// and 8 workers, with the counters and without (whose run may take the
// blocks and warps in another order: they do not race): the outputs are
// byte-identical to one another and to what the GPU produced, and so are
// the counters.
func TestRunSpecSameOutputsForAnyWorkerCount(t *testing.T) {
	cache := spec.NewModuleCache()
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "testdata", "nvcc", "cases", name, "O3")
			sp, err := spec.Load(filepath.Join(dir, "spec.json"))
			require.NoError(t, err)
			require.Nil(t, sp.Tolerance, "pick cases that are bit-exact")
			var first *scheduler.SpecRun
			for i := range 2 * len(workerCounts) {
				w, bare := workerCounts[i%len(workerCounts)], i >= len(workerCounts)
				run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{Workers: w, MaxInst: 1 << 30, NoCounters: bare}, cache)
				require.NoError(t, err, "workers=%d", w)
				require.NotEmpty(t, run.Outputs)
				assert.EqualValues(t, run.Prepared.Launch.NumCTAs(), run.Result.Stats.CTAs, "workers=%d", w)
				if first == nil {
					first = run
					for out, got := range run.Outputs {
						want, err := os.ReadFile(filepath.Join(dir, "expected", out+".bin"))
						require.NoError(t, err)
						require.True(t, bytesEqual(want, got), "%s differs from the GPU's output", out)
					}
					continue
				}
				require.Equal(t, len(first.Outputs), len(run.Outputs))
				for out, got := range run.Outputs {
					require.True(t, bytesEqual(first.Outputs[out], got), "workers=%d, bare=%v: output %s differs from workers=1", w, bare, out)
				}
				assert.Equal(t, first.Result.Stats, run.Result.Stats, "workers=%d, bare=%v", w, bare)
				assert.Equal(t, first.Result.CTAsPerSM, run.Result.CTAsPerSM, "workers=%d, bare=%v", w, bare)
			}
		})
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// whereSrc records, for each block, the SM it ran on and %nsmid.
const whereSrc = `
.visible .entry where(.param .u64 p0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
	mov.u32 	%r4, %tid.x;
	setp.ne.u32 	%p1, %r4, 0;
	@%p1 bra 	$L__done;
	ld.param.u64 	%rd1, [p0];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ctaid.y;
	mov.u32 	%r3, %nctaid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r1;
	mov.u32 	%r6, %smid;
	mov.u32 	%r7, %nsmid;
	mul.wide.u32 	%rd2, %r5, 8;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.v2.u32 	[%rd3], {%r6, %r7};
$L__done:
	ret;
}`

// TestPlacement checks that blocks are dealt to SMs round robin, that
// %smid and %nsmid say so, and that placement does not depend on the
// number of workers.
func TestPlacement(t *testing.T) {
	for _, gpu := range []*scheduler.Profile{scheduler.H100, scheduler.GF100} {
		for _, w := range workerCounts {
			t.Run(fmt.Sprintf("%s/workers=%d", gpu.Name, w), func(t *testing.T) {
				grid := [3]uint32{50, 6, 1} // 300 blocks: more than one round on every SM
				n := 300
				l, dev, buf := launch(t, whereSrc, "where", grid, [3]uint32{64, 1, 1}, uint64(8*n))
				// The kernel targets sm_90; the GF100 runs it with its own
				// limits only when asked to.
				res, err := scheduler.RunFunctional(context.Background(), l, gpu, scheduler.Options{Workers: w, AnyTarget: gpu == scheduler.GF100})
				require.NoError(t, err)
				out := readU32s(t, dev, buf, 2*n)
				perSM := make([]int, gpu.SMs)
				for i := 0; i < n; i++ {
					require.Equal(t, uint32(i%gpu.SMs), out[2*i], "%%smid of block %d", i)
					require.Equal(t, uint32(gpu.SMs), out[2*i+1], "%%nsmid of block %d", i)
					perSM[i%gpu.SMs]++
				}
				assert.Equal(t, perSM, res.CTAsPerSM)
				assert.EqualValues(t, n, res.Stats.CTAs)
			})
		}
	}
}

func TestPlacementFunction(t *testing.T) {
	tests := []struct {
		ctas, sms int
		want      []int
	}{
		{0, 4, []int{}},
		{3, 4, []int{0, 1, 2}},
		{9, 4, []int{0, 1, 2, 3, 0, 1, 2, 3, 0}},
		{5, 1, []int{0, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, scheduler.Placement(tt.ctas, tt.sms), "%d CTAs on %d SMs", tt.ctas, tt.sms)
	}
}

// spinSrc never ends.
const spinSrc = `
.visible .entry spin(.param .u64 p0)
{
$L__top:
	bra.uni 	$L__top;
}`

func TestMaxInstStopsRunawayKernel(t *testing.T) {
	for _, w := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", w), func(t *testing.T) {
			l, _, _ := launch(t, spinSrc, "spin", [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, 4)
			const budget = 1 << 20
			_, err := scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: w, MaxInst: budget})
			require.ErrorIs(t, err, vm.ErrBudget)
			assert.True(t, vm.IsRuntime(err))
			assert.Contains(t, err.Error(), "kernel spin: instruction budget exhausted after ")
			assert.Contains(t, err.Error(), "block (")
			assert.Greater(t, l.InstExecuted(), int64(budget))
		})
	}
}

// loopSrc runs a loop of 40 iterations per thread and stores the count.
const loopSrc = `
.visible .entry loop(.param .u64 p0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 	%rd1, [p0];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	mov.u32 	%r5, 0;
$L__loop:
	add.s32 	%r5, %r5, 1;
	setp.lt.u32 	%p1, %r5, 40;
	@%p1 bra 	$L__loop;
	mul.wide.u32 	%rd2, %r4, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r5;
	ret;
}`

// TestMaxInstIsExact: a budget of exactly the instructions the launch
// needs is enough; one fewer is not.
func TestMaxInstIsExact(t *testing.T) {
	grid, block := [3]uint32{20, 1, 1}, [3]uint32{96, 1, 1}
	l, _, _ := launch(t, loopSrc, "loop", grid, block, 4*20*96)
	res, err := scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: 1})
	require.NoError(t, err)
	need := int64(res.Stats.Inst)
	require.Greater(t, need, int64(20*3*40))
	for _, w := range workerCounts {
		budgetIsExact(t, scheduler.RunFunctional, loopSrc, "loop", grid, block, w, need, func(int) uint32 { return 40 })
	}
}

// budgetIsExact checks that run, on workers host goroutines, completes
// kernel k of src (one u32 out a thread) within a budget of need warp
// instructions, writing want(i) for thread i, and stops with one fewer.
func budgetIsExact(t *testing.T, run func(context.Context, *vm.Launch, *scheduler.Profile, scheduler.Options) (*scheduler.Result, error),
	src, k string, grid, block [3]uint32, workers int, need int64, want func(i int) uint32) {
	t.Helper()
	n := int(grid[0] * block[0])
	l, dev, buf := launch(t, src, k, grid, block, uint64(4*n))
	_, err := run(context.Background(), l, scheduler.H100, scheduler.Options{Workers: workers, MaxInst: need})
	require.NoError(t, err, "workers=%d, budget %d", workers, need)
	for i, v := range readU32s(t, dev, buf, n) {
		require.Equal(t, want(i), v, "thread %d", i)
	}
	l, _, _ = launch(t, src, k, grid, block, uint64(4*n))
	_, err = run(context.Background(), l, scheduler.H100, scheduler.Options{Workers: workers, MaxInst: need - 1})
	require.ErrorIs(t, err, vm.ErrBudget, "workers=%d, budget %d", workers, need-1)
}

// faultSrc stores to a null pointer in one thread of one block (block
// p1, linear thread p2); every other thread stores its block index to its
// block's word of the buffer.
const faultSrc = `
.visible .entry oob(.param .u64 p0, .param .u32 p1, .param .u32 p2)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 	%rd1, [p0];
	ld.param.u32 	%r1, [p1];
	ld.param.u32 	%r2, [p2];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %tid.x;
	mov.u32 	%r5, %tid.y;
	mov.u32 	%r6, %ntid.x;
	mad.lo.s32 	%r7, %r5, %r6, %r4;
	setp.eq.u32 	%p1, %r3, %r1;
	setp.eq.u32 	%p2, %r7, %r2;
	and.pred 	%p1, %p1, %p2;
	cvta.to.global.u64 	%rd1, %rd1;
	mul.wide.u32 	%rd2, %r3, 4;
	add.s64 	%rd1, %rd1, %rd2;
	@!%p1 bra 	$L__ok;
	mov.u64 	%rd1, 0;
$L__ok:
	st.global.u32 	[%rd1], %r3;
	ret;
}`

func TestFaultInOneBlockIsReported(t *testing.T) {
	stLine := 0
	for i, line := range strings.Split(header+faultSrc, "\n") {
		if strings.Contains(line, "st.global.u32") {
			stLine = i + 1
		}
	}
	require.NotZero(t, stLine)
	tests := []struct {
		block, thread uint32 // linear thread index in a 32×4 block
		tid           [3]uint32
	}{
		{37, 7 + 32, [3]uint32{7, 1, 0}},
		{0, 0, [3]uint32{0, 0, 0}},
		{199, 127, [3]uint32{31, 3, 0}},
	}
	for _, tt := range tests {
		for _, w := range workerCounts {
			t.Run(fmt.Sprintf("block%d/thread%d/workers=%d", tt.block, tt.thread, w), func(t *testing.T) {
				l, _, _ := launch(t, faultSrc, "oob", [3]uint32{200, 1, 1}, [3]uint32{32, 4, 1}, 4*200, u32(tt.block), u32(tt.thread))
				_, err := scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: w})
				require.Error(t, err)
				var f *vm.Fault
				require.True(t, errors.As(err, &f), "not a *vm.Fault: %v", err)
				assert.Equal(t, [3]uint32{tt.block, 0, 0}, f.Block)
				assert.Equal(t, tt.tid, f.Thread)
				assert.Equal(t, "oob", f.Kernel)
				assert.Equal(t, stLine, f.PTXLine)
				require.NotNil(t, f.MemFault)
				assert.Equal(t, uint64(0), f.MemFault.Addr)
				msg := err.Error()
				assert.Contains(t, msg, fmt.Sprintf("test.ptx:%d: kernel oob, block (%d,0,0), thread (%d,%d,%d)", stLine, tt.block, tt.tid[0], tt.tid[1], tt.tid[2]))
				assert.Contains(t, msg, "store of 4 bytes to global address 0x0: not inside any allocation")
			})
		}
	}
	// The same kernel with no bad thread runs cleanly: the fault above
	// is the bad thread's, not the kernel's.
	l, _, _ := launch(t, faultSrc, "oob", [3]uint32{200, 1, 1}, [3]uint32{32, 4, 1}, 4*200, u32(1000), u32(0))
	_, err := scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: 2})
	require.NoError(t, err)
}

// TestStoppedLaunchIsNotReportedAsDone: a launch stopped by a fault or the
// budget has not run; running it again must not report success.
func TestStoppedLaunchIsNotReportedAsDone(t *testing.T) {
	l, dev, buf := launch(t, loopSrc, "loop", [3]uint32{4, 1, 1}, [3]uint32{32, 1, 1}, 4*4*32)
	_, err := scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: 1, MaxInst: 10})
	require.ErrorIs(t, err, vm.ErrBudget)
	_, err = scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: 1})
	if err == nil {
		// If a rerun is allowed, it must have done the work.
		for i, v := range readU32s(t, dev, buf, 4*32) {
			require.Equal(t, uint32(40), v, "thread %d: the rerun reported success without running", i)
		}
	}
}

// TestRerunKeepsItsOwnBudget: running a launch that completed again
// (the same kernel, the same arguments) gets the whole budget again.
func TestRerunKeepsItsOwnBudget(t *testing.T) {
	l, _, _ := launch(t, loopSrc, "loop", [3]uint32{4, 1, 1}, [3]uint32{32, 1, 1}, 4*4*32)
	res, err := scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: 1})
	require.NoError(t, err)
	need := int64(res.Stats.Inst)
	for i := 0; i < 3; i++ {
		_, err = scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: 2, MaxInst: need})
		require.NoError(t, err, "run %d", i)
	}
}

func TestCancelledContext(t *testing.T) {
	t.Run("before the launch", func(t *testing.T) {
		l, dev, buf := launch(t, loopSrc, "loop", [3]uint32{4, 1, 1}, [3]uint32{32, 1, 1}, 4*4*32)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := scheduler.RunFunctional(ctx, l, scheduler.H100, scheduler.Options{})
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, make([]uint32, 4*32), readU32s(t, dev, buf, 4*32), "no block ran")
	})
	t.Run("while a block runs", func(t *testing.T) {
		// A kernel that never ends, with a budget of some seconds' work
		// as a safety net: cancelling must stop it long before.
		l, _, _ := launch(t, spinSrc, "spin", [3]uint32{4, 1, 1}, [3]uint32{32, 1, 1}, 4)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			for l.InstExecuted() == 0 {
				runtime.Gosched()
			}
			cancel()
		}()
		_, err := scheduler.RunFunctional(ctx, l, scheduler.H100, scheduler.Options{Workers: 2, MaxInst: 1 << 27})
		require.ErrorIs(t, err, context.Canceled)
		assert.NotErrorIs(t, err, vm.ErrBudget)
	})
}

// TestLargestGrid: the largest grid compute capability 9.0 allows (about
// 2^63 blocks) is placed lazily; a budget stops it.
func TestLargestGrid(t *testing.T) {
	grid := [3]uint32{1<<31 - 1, 65535, 65535}
	for _, w := range workerCounts {
		l, _, _ := launch(t, spinSrc, "spin", grid, [3]uint32{32, 1, 1}, 4)
		var err error
		var res *scheduler.Result
		require.NotPanics(t, func() {
			res, err = scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: w, MaxInst: 100000})
		})
		require.ErrorIs(t, err, vm.ErrBudget, "workers=%d", w)
		require.Len(t, res.CTAsPerSM, 132)
		total := 0
		for _, c := range res.CTAsPerSM {
			total += c
		}
		assert.Equal(t, l.NumCTAs(), total)
	}
}

// hammockSrc runs a loop with a branch over one add (a hammock the timing
// model if-converts, as ptxas predicates it): odd blocks branch past it in
// every lane, even ones run it.
const hammockSrc = `
.visible .entry hammock(.param .u64 p0)
{
	.reg .pred %p<3>;
	.reg .b32 %r<9>;
	.reg .b64 %rd<4>;
	ld.param.u64 	%rd1, [p0];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	and.b32 	%r6, %r1, 1;
	setp.ne.u32 	%p2, %r6, 0;
	mov.u32 	%r5, 0;
	mov.u32 	%r7, 0;
$L__loop:
	@%p2 bra 	$L__skip;
	add.s32 	%r7, %r7, 3;
$L__skip:
	add.s32 	%r5, %r5, 1;
	setp.lt.u32 	%p1, %r5, 40;
	@%p1 bra 	$L__loop;
	add.s32 	%r8, %r5, %r7;
	mul.wide.u32 	%rd2, %r4, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r8;
	ret;
}`

// TestTimedMaxInstCountsPTX: in timing mode the budget counts the PTX's
// instructions, as a functional run does, although the timed program runs
// an if-converted add in the blocks whose PTX branches past it: the budget
// a functional run needs is enough, one fewer is not.
func TestTimedMaxInstCountsPTX(t *testing.T) {
	grid, block := [3]uint32{8, 1, 1}, [3]uint32{64, 1, 1}
	l, _, _ := launch(t, hammockSrc, "hammock", grid, block, 4*8*64)
	fres, err := scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: 1})
	require.NoError(t, err)
	need := int64(fres.Stats.Inst)
	l, _, _ = launch(t, hammockSrc, "hammock", grid, block, 4*8*64)
	tres, err := scheduler.RunTimed(context.Background(), l, scheduler.H100, scheduler.Options{Workers: 1})
	require.NoError(t, err)
	require.Equal(t, fres.Stats.Inst, tres.Stats.Inst, "the same PTX instructions in both modes")
	skipped := false
	for _, in := range tres.Timing.Insts {
		skipped = skipped || in.Execs > in.PTXExecs
	}
	require.True(t, skipped, "the timed program runs the if-converted add where the PTX does not")
	assert.Equal(t, need, l.InstExecuted(), "the launch counts the PTX's instructions")
	budgetIsExact(t, scheduler.RunTimed, hammockSrc, "hammock", grid, block, 1, need,
		func(i int) uint32 { return uint32(40 + 120*(1-(i/64)%2)) })
}

// orderSrc adds 0.1·(global thread id) to a float at out[0] with
// atom.global.add.f32 (a sum that depends on the order the adds land in)
// and stores each thread's ticket from atom.global.add.u32 on out[1] at
// out[2+id] (the order itself).
const orderSrc = `
.visible .entry order(.param .u64 p0)
{
	.reg .b32 %r<8>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<6>;
	ld.param.u64 	%rd1, [p0];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	cvt.rn.f32.u32 	%f1, %r4;
	mul.f32 	%f2, %f1, 0f3DCCCCCD;
	atom.global.add.f32 	%f3, [%rd1], %f2;
	atom.global.add.u32 	%r5, [%rd1+4], 1;
	mul.wide.u32 	%rd2, %r4, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3+8], %r5;
	ret;
}`

// TestBlocksThatInteractRunInOrder: a kernel whose blocks interact
// through global atomics gives the same float sum and the same tickets on
// every run with the default worker count, in both modes, as on one
// worker (and so the same cycles in timing mode).
func TestBlocksThatInteractRunInOrder(t *testing.T) {
	grid, block := [3]uint32{64, 1, 1}, [3]uint32{128, 1, 1}
	n := 2 + 64*128
	for _, mode := range []struct {
		name string
		run  func(context.Context, *vm.Launch, *scheduler.Profile, scheduler.Options) (*scheduler.Result, error)
	}{{"functional", scheduler.RunFunctional}, {"timing", scheduler.RunTimed}} {
		t.Run(mode.name, func(t *testing.T) {
			var want []uint32
			var wantCycles uint64
			for i, w := range []int{1, 0, 0, 0} {
				l, dev, buf := launch(t, orderSrc, "order", grid, block, uint64(4*n))
				require.True(t, l.Kernel.BlocksInteract())
				res, err := mode.run(context.Background(), l, scheduler.H100, scheduler.Options{Workers: w})
				require.NoError(t, err)
				got := readU32s(t, dev, buf, n)
				var cycles uint64
				if res.Timing != nil {
					cycles = res.Timing.Cycles
				}
				if i == 0 {
					want, wantCycles = got, cycles
					continue
				}
				require.Equal(t, want, got, "run %d with the default workers", i)
				require.Equal(t, wantCycles, cycles, "run %d with the default workers", i)
			}
		})
	}
}

// raceSrc has every thread store its block index to word b mod 132 of
// the buffer (the word of the SM block b runs on, so that SMs run by
// different workers do not race), loop for longer than a turn (Quantum),
// read the word back and store what it read to word 132+b: blocks of one
// SM that run interleaved read the last of them to store, blocks run one
// after another their own index. %LD% is the load's qualifiers.
const raceSrc = `
.visible .entry race(.param .u64 p0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	ld.param.u64 	%rd1, [p0];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %ctaid.x;
	rem.u32 	%r4, %r1, 132;
	mul.wide.u32 	%rd4, %r4, 4;
	add.s64 	%rd5, %rd1, %rd4;
	st.global.u32 	[%rd5], %r1;
	mov.u32 	%r5, 0;
$L__loop:
	add.s32 	%r5, %r5, 1;
	setp.lt.u32 	%p1, %r5, 40;
	@%p1 bra 	$L__loop;
	ld%LD%.u32 	%r2, [%rd5];
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3+528], %r2;
	ret;
}`

// TestBareRunsBlocksOneAfterAnother: with the counters off, an SM runs its
// blocks of a wave one after another, unless the kernel's blocks can
// synchronise (vm.Kernel.BlocksCommunicate): then, and with the counters
// on, they run interleaved. Blocks that race (raceSrc: SM s holds blocks
// s and s+132 in one wave) see the difference; the PTX memory model
// allows either result, as nothing orders the blocks' accesses.
func TestBareRunsBlocksOneAfterAnother(t *testing.T) {
	const sms = 132
	grid, block := [3]uint32{2 * sms, 1, 1}, [3]uint32{32, 1, 1}
	interleaved := func(b int) uint32 { return uint32(b%sms + sms) }
	own := func(b int) uint32 { return uint32(b) }
	for _, c := range []struct {
		ld          string
		bare        bool
		communicate bool
		want        func(b int) uint32
	}{
		{".global", true, false, own},
		{".global", false, false, interleaved},
		{".volatile.global", true, true, interleaved},
		{".volatile.global", false, true, interleaved},
		{".acquire.gpu.global", true, true, interleaved},
	} {
		for _, w := range []int{1, 2} {
			t.Run(fmt.Sprintf("ld%s/bare=%v/workers=%d", c.ld, c.bare, w), func(t *testing.T) {
				src := strings.ReplaceAll(raceSrc, "%LD%", c.ld)
				l, dev, buf := launch(t, src, "race", grid, block, 4*(sms+2*sms))
				require.Equal(t, c.communicate, l.Kernel.BlocksCommunicate())
				require.Equal(t, sms, scheduler.H100.SMs)
				res, err := scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: w, NoCounters: c.bare})
				require.NoError(t, err)
				require.GreaterOrEqual(t, res.Occupancy.BlocksPerSM, 2)
				got := readU32s(t, dev, buf, sms+2*sms)[sms:]
				for b, v := range got {
					require.Equal(t, c.want(b), v, "block %d", b)
				}
				for sm, n := range res.CTAsPerSM {
					require.Equal(t, 2, n, "SM %d", sm)
				}
			})
		}
	}
}

// warpRaceSrc has every thread store its warp's index to a shared word,
// loop for longer than a turn of Quantum instructions, read the word
// back and store what it read to its own word of the buffer: warps that
// take turns of Quantum read the last of them to store, warps that run
// from start to end in one turn their own index. %LD% is the load's
// qualifiers.
const warpRaceSrc = `
.visible .entry wrace(.param .u64 p0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 s;
	ld.param.u64 	%rd1, [p0];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r3, %tid.x;
	shr.u32 	%r1, %r3, 5;
	st.shared.u32 	[s], %r1;
	mov.u32 	%r5, 0;
$L__loop:
	add.s32 	%r5, %r5, 1;
	setp.lt.u32 	%p1, %r5, 40;
	@%p1 bra 	$L__loop;
	ld%LD%.u32 	%r2, [s];
	mul.wide.u32 	%rd2, %r3, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r2;
	ret;
}`

// TestBareRunsWarpsLonger: with the counters off, a kernel whose warps
// cannot order their accesses other than at barriers
// (vm.Kernel.WarpsCommunicate) runs each warp LongQuantum instructions a
// turn; with the counters on, or warps that can (a volatile shared load),
// Quantum. Warps that race (warpRaceSrc) see the difference, which the
// PTX memory model allows.
func TestBareRunsWarpsLonger(t *testing.T) {
	const warps = 4
	grid, block := [3]uint32{1, 1, 1}, [3]uint32{32 * warps, 1, 1}
	last := func(int) uint32 { return warps - 1 }
	own := func(th int) uint32 { return uint32(th / 32) }
	for _, c := range []struct {
		ld          string
		bare        bool
		communicate bool
		want        func(th int) uint32
	}{
		{".shared", true, false, own},
		{".shared", false, false, last},
		{".volatile.shared", true, true, last},
		{".volatile.shared", false, true, last},
		{".relaxed.cta.shared", true, true, last},
	} {
		t.Run(fmt.Sprintf("ld%s/bare=%v", c.ld, c.bare), func(t *testing.T) {
			src := strings.ReplaceAll(warpRaceSrc, "%LD%", c.ld)
			l, dev, buf := launch(t, src, "wrace", grid, block, 4*32*warps)
			require.False(t, l.Kernel.BlocksCommunicate())
			require.Equal(t, c.communicate, l.Kernel.WarpsCommunicate())
			_, err := scheduler.RunFunctional(context.Background(), l, scheduler.H100, scheduler.Options{Workers: 1, NoCounters: c.bare})
			require.NoError(t, err)
			for th, v := range readU32s(t, dev, buf, 32*warps) {
				require.Equal(t, c.want(th), v, "thread %d", th)
			}
		})
	}
}
