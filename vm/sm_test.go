package vm_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/kernels"
	"github.com/ptxvm/ptxvm/vm"
)

// tiledMatmul prepares the bundled tiled matrix multiply at n×n (16×16
// blocks) with fixed inputs.
func tiledMatmul(t *testing.T, n int) *kernels.Setup {
	t.Helper()
	e, err := kernels.Lookup("matmul_tiled")
	require.NoError(t, err)
	s, err := e.WithSize(n).Prepare(vm.NewDevice(), 7)
	require.NoError(t, err)
	return s
}

// stepCTA steps block c warp instruction by warp instruction, choosing the
// next warp with pick among the ready ones, until it is done.
func stepCTA(t *testing.T, sm *vm.SM, c *vm.CTA, pick func(ready []*vm.Warp) *vm.Warp) {
	t.Helper()
	var st vm.Step
	var ready []*vm.Warp
	for !c.Done() {
		ready = ready[:0]
		for _, w := range c.Warps() {
			if w.State() == vm.WarpReady {
				ready = append(ready, w)
			}
		}
		if len(ready) == 0 {
			require.NoError(t, c.Deadlock())
			t.Fatal("no warp is ready, and Deadlock says none is waiting")
		}
		w := pick(ready)
		info, active := w.Next()
		require.NoError(t, sm.Step(w, &st))
		require.Same(t, info, st.Info, "Next names the instruction Step executes")
		require.Equal(t, active, st.Active)
		require.Same(t, st.Info, c.SM().Launch().Kernel.Insts[st.Info.ID])
		if st.Exec != 0 && (st.Info.Class == vm.ClassLSUGlobal || st.Info.Class == vm.ClassLSUShared) {
			require.Len(t, st.Accesses, 1, "%s", st.Info.Inst().Op)
			require.Equal(t, st.Exec, st.Accesses[0].Mask)
		}
	}
}

// TestStepOrdersGiveTheSameBytes runs a tiled-matmul grid three ways, the
// functional loop, round robin over the warps of each block (one instruction
// each), and a random order, and requires the same output bytes and counts.
func TestStepOrdersGiveTheSameBytes(t *testing.T) {
	const n = 48 // 3×3 blocks of 16×16 threads
	ref := tiledMatmul(t, n)
	sm := ref.Launch.NewSM(0)
	for i := 0; i < ref.Launch.NumCTAs(); i++ {
		require.NoError(t, sm.RunCTA(i))
	}
	require.NoError(t, ref.Check())
	want, err := ref.Outputs()
	require.NoError(t, err)

	rng := rand.New(rand.NewPCG(1, 2))
	orders := map[string]func(ready []*vm.Warp) *vm.Warp{
		"round-robin": nil, // set per block below
		"random":      func(ready []*vm.Warp) *vm.Warp { return ready[rng.IntN(len(ready))] },
	}
	for name, pick := range orders {
		t.Run(name, func(t *testing.T) {
			s := tiledMatmul(t, n)
			sm := s.Launch.NewSM(3)
			for i := 0; i < s.Launch.NumCTAs(); i++ {
				c, err := sm.Admit(i)
				require.NoError(t, err)
				p := pick
				if p == nil {
					next := 0 // round robin: the next ready warp after the last one stepped
					p = func(ready []*vm.Warp) *vm.Warp {
						for _, w := range ready {
							if w.ID() >= next {
								next = w.ID() + 1
								return w
							}
						}
						next = ready[0].ID() + 1
						return ready[0]
					}
				}
				stepCTA(t, sm, c, p)
				sm.Retire(c)
			}
			got, err := s.Outputs()
			require.NoError(t, err)
			require.Equal(t, want, got)
			assert.Equal(t, ref.Launch.NumCTAs(), int(sm.Stats.CTAs))
		})
	}
}

// TestSeveralCTAsOnOneSM keeps four blocks resident on one SM and steps a
// random ready warp of any of them, admitting the next block as one retires.
func TestSeveralCTAsOnOneSM(t *testing.T) {
	const n = 64 // 16 blocks
	ref := tiledMatmul(t, n)
	refSM := ref.Launch.NewSM(0)
	for i := 0; i < ref.Launch.NumCTAs(); i++ {
		require.NoError(t, refSM.RunCTA(i))
	}
	want, err := ref.Outputs()
	require.NoError(t, err)

	s := tiledMatmul(t, n)
	sm := s.Launch.NewSM(1)
	rng := rand.New(rand.NewPCG(3, 4))
	next := 0
	admit := func() {
		if next < s.Launch.NumCTAs() {
			_, err := sm.Admit(next)
			require.NoError(t, err)
			next++
		}
	}
	for range 4 {
		admit()
	}
	var st vm.Step
	slots := map[int]bool{}
	for len(sm.Resident()) > 0 {
		var ready []*vm.Warp
		clear(slots)
		for _, c := range sm.Resident() {
			for _, w := range c.Warps() {
				require.False(t, slots[w.Slot()], "two resident warps share slot %d", w.Slot())
				slots[w.Slot()] = true
				if w.State() == vm.WarpReady {
					ready = append(ready, w)
				}
			}
		}
		require.NotEmpty(t, ready)
		w := ready[rng.IntN(len(ready))]
		require.NoError(t, sm.Step(w, &st))
		if c := w.CTA(); c.Done() {
			sm.Retire(c)
			admit()
		}
	}
	got, err := s.Outputs()
	require.NoError(t, err)
	require.Equal(t, want, got)
	assert.Equal(t, refSM.Stats, sm.Stats, "the same instructions, in another order")
}

// TestWarpStates steps a block with a barrier and an early exit and checks
// the states its warps go through.
func TestWarpStates(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	mov.u32 	%r1, %tid.x;
	setp.ge.u32 	%p1, %r1, 32;
	@%p1 bra 	$L__wait;
	exit;
$L__wait:
	bar.sync 	0;
	ret;
}`
	dev := vm.NewDevice()
	m, err := dev.LoadModule("t.ptx", []byte(header+src))
	require.NoError(t, err)
	l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{96, 1, 1}}, [][]byte{u64arg(0)})
	require.NoError(t, err)
	sm := l.NewSM(0)
	c, err := sm.Admit(0)
	require.NoError(t, err)
	w0, w1, w2 := c.Warps()[0], c.Warps()[1], c.Warps()[2]
	var st vm.Step
	stepTo := func(w *vm.Warp, state vm.WarpState) {
		for i := 0; w.State() != state; i++ {
			require.Less(t, i, 10)
			require.NoError(t, sm.Step(w, &st))
		}
	}
	stepTo(w1, vm.WarpAtBarrier)
	info, _ := w1.Next()
	assert.Nil(t, info, "a warp at a barrier issues nothing")
	assert.ErrorIs(t, sm.Step(w1, &st), vm.ErrNotReady)
	assert.NoError(t, c.Deadlock(), "warps 0 and 2 can still run")
	stepTo(w0, vm.WarpExited)
	assert.Equal(t, vm.WarpAtBarrier, w1.State(), "the exit of warp 0's 32 threads leaves 64 to arrive")
	stepTo(w2, vm.WarpReady) // already ready
	info, _ = w2.Next()
	for info.Class != vm.ClassBarrier {
		require.NoError(t, sm.Step(w2, &st))
		info, _ = w2.Next()
	}
	require.NoError(t, sm.Step(w2, &st))
	assert.Equal(t, vm.WarpReady, w1.State(), "the barrier completed")
	assert.Equal(t, vm.WarpReady, w2.State())
	stepTo(w1, vm.WarpExited)
	stepTo(w2, vm.WarpExited)
	assert.True(t, c.Done())
	assert.NoError(t, c.Deadlock())
}

// TestStepDeadlock: a barrier that waits for more threads than the block
// has leaves every warp waiting, and Deadlock says why.
func TestStepDeadlock(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	bar.sync 	1, 64;
	ret;
}`
	dev := vm.NewDevice()
	m, err := dev.LoadModule("t.ptx", []byte(header+src))
	require.NoError(t, err)
	l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}}, [][]byte{u64arg(0)})
	require.NoError(t, err)
	sm := l.NewSM(0)
	c, err := sm.Admit(0)
	require.NoError(t, err)
	var st vm.Step
	require.NoError(t, sm.Step(c.Warps()[0], &st))
	assert.Equal(t, vm.WarpAtBarrier, c.Warps()[0].State())
	err = c.Deadlock()
	require.ErrorIs(t, err, vm.ErrDeadlock)
	assert.ErrorContains(t, err, "barrier 1 has 32 of 64 threads")
}

// TestClockReadsTheSMClock: %clock64 reads the clock the caller provides.
func TestClockReadsTheSMClock(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .b64 %rd<4>;
	ld.param.u64 	%rd1, [p0];
	mov.u64 	%rd2, %clock64;
	st.global.u64 	[%rd1], %rd2;
	ret;
}`
	dev := vm.NewDevice()
	m, err := dev.LoadModule("t.ptx", []byte(header+src))
	require.NoError(t, err)
	buf, err := dev.Malloc(8, "out")
	require.NoError(t, err)
	l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1}}, [][]byte{u64arg(buf)})
	require.NoError(t, err)
	sm := l.NewSM(0)
	sm.Clock = func() uint64 { return 123456789 }
	require.NoError(t, sm.RunCTA(0))
	out := make([]byte, 8)
	require.NoError(t, dev.MemcpyDtoH(out, buf))
	assert.Equal(t, uint64(123456789), leU64(out))

	// Without one, the warp's executed instructions: ld and mov before it.
	sm.Clock = nil
	require.NoError(t, sm.RunCTA(0))
	require.NoError(t, dev.MemcpyDtoH(out, buf))
	assert.Equal(t, uint64(2), leU64(out))
}

func leU64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}
