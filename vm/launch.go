package vm

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
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
// Its CTAs run on SMs (Launch.NewSM), each SM on one goroutine at a time.
type Launch struct {
	Kernel  *Kernel
	Module  *Module
	Grid    [3]uint32
	Block   [3]uint32
	DynSmem uint64
	// Cluster is the shape of the launch's clusters, in blocks: (1,1,1)
	// when it has none (every block is then a cluster of one, as on the
	// GPU). The grid is a multiple of it (cluster.go).
	Cluster [3]uint32
	// ExplicitCluster is what %is_explicit_cluster reads: the launch named
	// a cluster shape, or the kernel declares one (.reqnctapercluster,
	// .explicitcluster).
	ExplicitCluster bool
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
	// StackLimit is cudaLimitStackSize, the per-thread stack of a kernel
	// whose calls recurse (0: DefaultStackLimit); see limits.go.
	StackLimit uint64

	recursiveKernel bool
	params          *memspace.Allocation
	instTotal       atomic.Int64
	stop            atomic.Bool

	// the clusters with blocks resident, by linear index, and retired
	// clusters' storage for reuse (clusters of more than one block only)
	clMu     sync.Mutex
	clusters map[int]*Cluster
	clPool   []*Cluster
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

// IsLoad reports an error positioned in the PTX: a module the emulator does
// not load, or a kernel it does not lower (as the driver refuses some).
func IsLoad(err error) bool {
	var pe *ptx.Error
	var pl ptx.ErrorList
	return errors.As(err, &pe) || errors.As(err, &pl)
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

// Stop asks every SM running the launch to stop at its next check (after a
// fault elsewhere).
func (l *Launch) Stop() { l.stop.Store(true) }

// InstExecuted is the number of warp instructions executed so far.
func (l *Launch) InstExecuted() int64 { return l.instTotal.Load() }

// Recount adds n (negative: takes away) to the warp instructions the
// launch counts against MaxInst, for a timing model whose program runs an
// instruction the PTX does not run (an if-converted one no lane enables)
// or leaves out one it runs: the budget then counts the PTX's
// instructions, as a functional run does.
func (l *Launch) Recount(n int64) { l.instTotal.Add(n) }

// DeviceBytes is the device memory allocated on the launch's device (its
// buffers, symbols and parameters): at most what the launch can touch.
func (l *Launch) DeviceBytes() uint64 {
	if l.Module == nil || l.Module.dev == nil {
		return 0
	}
	var n uint64
	for _, a := range l.Module.dev.Mem.Allocations() {
		n += a.Size
	}
	return n
}

// Release frees the launch's parameter buffer.
func (l *Launch) Release() {
	if l.params != nil {
		_ = l.Module.dev.Mem.Free(l.params.Base)
		l.params = nil
	}
}

// Stats are an SM's counters.
type Stats struct {
	Inst       uint64 // warp instructions executed (PTX instructions, not machine ones)
	ThreadInst uint64 // thread instructions: the active lanes of each warp instruction
	CTAs       uint64 // blocks retired
}

// Add accumulates o into s.
func (s *Stats) Add(o Stats) {
	s.Inst += o.Inst
	s.ThreadInst += o.ThreadInst
	s.CTAs += o.CTAs
}

var errStopped = errors.New("launch stopped")

// IsStopped reports whether err only says that another SM failed first.
func IsStopped(err error) bool { return errors.Is(err, errStopped) }
