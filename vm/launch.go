package vm

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/ptxvm/ptxvm/memspace"
)

// Hardware limits checked at launch (compute capability 9.0).
const (
	MaxThreadsPerBlock = 1024
	MaxBlockDimZ       = 64
	MaxGridDimX        = 1<<31 - 1
	MaxGridDimYZ       = 65535
	WarpSize           = 32
)

// Launch is a kernel launch, prepared: parameters written, layout fixed.
// CTAs are run by Runners, one per goroutine.
type Launch struct {
	Kernel  *Kernel
	Module  *Module
	Grid    [3]uint32
	Block   [3]uint32
	DynSmem uint64
	// NumSMs is reported through %nsmid; the scheduler sets it.
	NumSMs int
	// MaxInst stops the launch once this many warp instructions have run
	// (0: no limit).
	MaxInst int64
	GridID  uint64
	// Strict turns behaviour the PTX ISA leaves undefined into faults: a
	// lane running a warp-synchronous instruction outside its membermask, a
	// membermask naming exited lanes, a shuffle reading a lane that is not
	// executing it.
	Strict bool

	params    *memspace.Allocation
	instTotal atomic.Int64
	stop      atomic.Bool
}

// ErrBudget is wrapped by the error of a launch that ran out of its
// instruction budget.
var ErrBudget = errors.New("instruction budget exhausted")

// ErrDeadlock is wrapped by the error of a block whose warps all wait for
// something that cannot happen.
var ErrDeadlock = errors.New("deadlock")

// IsRuntime reports whether err arose while the kernel ran (a fault, a
// deadlock, an exhausted budget) rather than from bad input.
func IsRuntime(err error) bool {
	var f *Fault
	return errors.As(err, &f) || errors.Is(err, ErrBudget) || errors.Is(err, ErrDeadlock)
}

// reservedBase is where the reserved shared memory starts.
func (l *Launch) reservedBase() uint64 { return alignUp(l.Kernel.DynamicBase+l.DynSmem, 16) }

// NumCTAs is the number of blocks in the grid.
func (l *Launch) NumCTAs() int { return int(l.Grid[0]) * int(l.Grid[1]) * int(l.Grid[2]) }

// ThreadsPerCTA is the number of threads in a block.
func (l *Launch) ThreadsPerCTA() int { return int(l.Block[0]) * int(l.Block[1]) * int(l.Block[2]) }

// CTAID returns the block coordinates of the linear block index i.
// Grids may hold more than 2^32 blocks, so the arithmetic is 64-bit.
func (l *Launch) CTAID(i int) [3]uint32 {
	u, gx, gy := uint64(i), uint64(l.Grid[0]), uint64(l.Grid[1])
	return [3]uint32{uint32(u % gx), uint32(u / gx % gy), uint32(u / (gx * gy))}
}

// Stop asks every runner to stop at its next check (after a fault elsewhere).
func (l *Launch) Stop() { l.stop.Store(true) }

// InstExecuted is the number of warp instructions executed so far.
func (l *Launch) InstExecuted() int64 { return l.instTotal.Load() }

// Release frees the launch's parameter buffer.
func (l *Launch) Release() {
	if l.params != nil {
		_ = l.Module.dev.Mem.Free(l.params.Base)
		l.params = nil
	}
}

// Stats are a runner's counters.
type Stats struct {
	Inst       uint64 // warp-level instructions (smsp__inst_executed)
	ThreadInst uint64 // thread-level instructions (smsp__thread_inst_executed)
	CTAs       uint64
}

// Add accumulates o into s.
func (s *Stats) Add(o Stats) {
	s.Inst += o.Inst
	s.ThreadInst += o.ThreadInst
	s.CTAs += o.CTAs
}

// Runner executes CTAs of one launch, one at a time, reusing storage.
// A Runner belongs to one goroutine.
type Runner struct {
	l     *Launch
	cta   CTA
	Stats Stats
}

// NewRunner returns a runner for l.
func (l *Launch) NewRunner() *Runner {
	r := &Runner{l: l}
	nt := l.ThreadsPerCTA()
	nw := (nt + WarpSize - 1) / WarpSize
	r.cta.launch = l
	r.cta.shared = make([]byte, l.reservedBase()+ReservedShared)
	for i := 0; i < nw; i++ {
		w := &Warp{cta: &r.cta, id: i}
		lanes := min(WarpSize, nt-i*WarpSize)
		if lanes == 32 {
			w.live = ^uint32(0)
		} else {
			w.live = 1<<lanes - 1
		}
		r.cta.warps = append(r.cta.warps, w)
	}
	return r
}

// sliceInst is how many instructions a warp runs before the runner checks
// the budget and lets the next warp run.
const sliceInst = 1 << 16

// RunCTA runs block ctaid to completion on emulated SM smid.
func (r *Runner) RunCTA(ctaid [3]uint32, smid int) error {
	l := r.l
	c := &r.cta
	c.ctaid, c.smid = ctaid, smid
	clear(c.shared)
	c.bars = [16]barrier{}
	c.liveThreads = l.ThreadsPerCTA()
	k := l.Kernel
	for _, w := range c.warps {
		w.initForCTA(l, c)
	}
	r.Stats.CTAs++
	running := len(c.warps)
	for running > 0 {
		progress := false
		running = 0
		for _, w := range c.warps {
			if w.done() {
				continue
			}
			f := w.top()
			if f.cur == 0 && f.waiting == 0 {
				running++
				continue // held at a barrier
			}
			before := w.Inst
			slice := int64(sliceInst)
			if l.MaxInst > 0 {
				// Stop within the budget, not up to a slice past it.
				slice = max(1, min(slice, l.MaxInst-l.instTotal.Load()+1))
			}
			if err := w.run(int(slice)); err != nil {
				return err
			}
			n := int64(w.Inst - before)
			if n > 0 {
				progress = true
				if t := l.instTotal.Add(n); l.MaxInst > 0 && t > l.MaxInst {
					l.Stop()
					return fmt.Errorf("kernel %s: %w after %d warp instructions (block (%d,%d,%d)); raise the budget if the kernel is meant to run this long",
						k.Name, ErrBudget, t, ctaid[0], ctaid[1], ctaid[2])
				}
			}
			if !w.done() {
				running++
			}
		}
		if l.stop.Load() {
			return errStopped
		}
		if running > 0 && !progress {
			return fmt.Errorf("kernel %s: %w in block (%d,%d,%d): %s", k.Name, ErrDeadlock, ctaid[0], ctaid[1], ctaid[2], c.deadlock())
		}
	}
	for _, w := range c.warps {
		r.Stats.Inst += w.Inst
		r.Stats.ThreadInst += w.ThreadInst
		w.Inst, w.ThreadInst = 0, 0
	}
	return nil
}

var errStopped = errors.New("launch stopped")

// IsStopped reports whether err only says that another runner failed first.
func IsStopped(err error) bool { return errors.Is(err, errStopped) }

func (w *Warp) initForCTA(l *Launch, c *CTA) {
	k := l.Kernel
	w.exited = 0
	w.depth = 0
	w.barHeld = [16]uint32{}
	bx, by := l.Block[0], l.Block[1]
	for i := 0; i < 32; i++ {
		t := uint32(w.id*32 + i)
		w.sregs[srTidX][i] = uint64(t % bx)
		w.sregs[srTidY][i] = uint64(t / bx % by)
		w.sregs[srTidZ][i] = uint64(t / (bx * by))
		w.sregs[srLaneid][i] = uint64(i)
		w.sregs[srLanemaskEq][i] = uint64(uint32(1) << i)
		w.sregs[srLanemaskLt][i] = uint64(uint32(1)<<i - 1)
		w.sregs[srLanemaskLe][i] = uint64(uint32(1)<<i - 1 | uint32(1)<<i)
		w.sregs[srLanemaskGe][i] = uint64(^(uint32(1)<<i - 1))
		w.sregs[srLanemaskGt][i] = uint64(^(uint32(1)<<i - 1 | uint32(1)<<i))
	}
	fill := func(s sreg, v uint64) {
		for i := range w.sregs[s] {
			w.sregs[s][i] = v
		}
	}
	fill(srNtidX, uint64(l.Block[0]))
	fill(srNtidY, uint64(l.Block[1]))
	fill(srNtidZ, uint64(l.Block[2]))
	fill(srCtaidX, uint64(c.ctaid[0]))
	fill(srCtaidY, uint64(c.ctaid[1]))
	fill(srCtaidZ, uint64(c.ctaid[2]))
	fill(srNctaidX, uint64(l.Grid[0]))
	fill(srNctaidY, uint64(l.Grid[1]))
	fill(srNctaidZ, uint64(l.Grid[2]))
	fill(srWarpid, uint64(w.id))
	fill(srNwarpid, 64)
	fill(srSmid, uint64(c.smid))
	fill(srNsmid, uint64(max(l.NumSMs, 1)))
	fill(srGridid, l.GridID)
	fill(srDynSmem, l.DynSmem)
	fill(srTotalSmem, k.DynamicBase+l.DynSmem)
	fill(srZero, 0)
	fill(srOne, 1)
	rb := l.reservedBase()
	fill(srResBegin, rb)
	fill(srResEnd, rb+ReservedShared)
	fill(srResCap, ReservedShared)
	fill(srRes0, rb)
	fill(srRes1, rb+ReservedShared/2)
	// Local memory: zero what earlier blocks used, so results never depend
	// on which block ran before on this runner.
	for i := range w.local {
		clear(w.local[i][:min(uint64(len(w.local[i])), w.localHW)])
	}
	w.ensureLocal(k.Entry.LocalSize)
	w.view = memspace.View{
		Global:    l.Module.dev.Mem,
		Shared:    c.shared,
		Local:     &w.local,
		ConstBase: l.Module.constBank.Base,
		ConstSize: l.Module.constBank.Size,
		ParamBase: l.params.Base,
		ParamSize: l.params.Size,
	}
	f := w.pushFrame(k.Entry, w.live, 0)
	w.view.FParam, w.view.FParamStride = f.params, int(k.Entry.ParamBlock)
}
