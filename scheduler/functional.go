package scheduler

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
)

// Quantum is how many warp instructions a warp runs before the next warp
// of its SM takes its turn in the functional run: small enough that the
// warps' memory accesses interleave roughly as the GPU's schedulers
// interleave them (what L1 and L2 hit rates depend on), large enough that
// switching costs little.
const Quantum = 32

// LongQuantum is the turn of a warp in a functional run that nothing
// watches, when the kernel's warps cannot order their accesses with
// respect to one another's other than at barriers
// (vm.Kernel.WarpsCommunicate): a warp then usually runs from one barrier
// to the next in one turn, and the fused instructions that a turn's end
// would cut run whole (docs/performance.md, tenth pass).
const LongQuantum = 1024

// Options control a functional run.
type Options struct {
	// Workers is the number of host goroutines running SMs (0: GOMAXPROCS,
	// or 1 for a kernel whose blocks interact through global atomics,
	// vm.Kernel.BlocksInteract: its results would otherwise depend on
	// thread timing; more than 1 for such a kernel runs its blocks in
	// parallel, and its order-dependent results vary from run to run, as
	// they do on the GPU).
	Workers int
	// MaxInst stops the launch after this many warp instructions (0: no limit).
	MaxInst int64
	// Strict makes behaviour the PTX ISA leaves undefined a fault (see
	// vm.Launch.Strict).
	Strict bool
	// NoCounters runs without the memory hierarchy model (no counters
	// beyond instruction counts; the bare interpreter's speed).
	NoCounters bool
	// Registers is the registers per thread for the occupancy calculator
	// (0: estimated from the PTX, package regs; RunSpec takes the spec's
	// "registers" field first).
	Registers int
	// Mode is ModeFunctional ("" too) or ModeTiming (RunSpec runs
	// RunTimed).
	Mode string
	// Trace, in timing mode, records a timeline.
	Trace *timing.Trace
	// AnyTarget runs a module whose .target the GPU cannot run (PTX for a
	// newer architecture) with the GPU's limits, instead of refusing it.
	AnyTarget bool
	// Done, if not nil, counts the blocks that have finished, for a
	// progress display.
	Done *atomic.Uint64
	// StreamOutputs leaves a spec's outputs on the device for
	// SpecRun.WriteOutput instead of reading them into SpecRun.Outputs
	// (RunSpec only).
	StreamOutputs bool
	// Sample, in timing mode, samples the launch's waves (timing.Sample:
	// the first waves in detail, the rest extrapolated).
	Sample timing.Sample
	// Apertures are the address ranges that are host or managed memory
	// (hier.Memory.SetApertures); managed pages' states are updated in
	// place.
	Apertures []*hier.Aperture
	// DirtyL2 is the bytes a copy or memset wrote just before this launch
	// at DirtyBase, which the L2 still holds (timing.Options.DirtyL2; in
	// functional mode only with a DirtyBase).
	DirtyL2, DirtyBase uint64
	// L2Before, if not nil, is what the L2 holds when the launch starts:
	// an earlier launch's (hier.Memory.Snapshot), as the steps since left
	// it. A launch whose L2 has another geometry (a sampled slice of the
	// GPU) starts from a clean L2 instead. DirtyL2 is placed on top.
	L2Before *hier.Memory
}

// Result is what a functional run reports.
type Result struct {
	Stats vm.Stats
	// CTAsPerSM is how many blocks each emulated SM ran.
	CTAsPerSM []int
	// Occupancy is the launch's theoretical occupancy on the GPU.
	Occupancy *Occupancy
	// Timing is what the timing model measured (timing mode only).
	Timing *timing.Result
	// Hier is the memory hierarchy the launch's accesses went through, with
	// its counters (nil with Options.NoCounters).
	Hier *hier.Hierarchy
}

// Placement returns the SM each block runs on: blocks are dealt to SMs in
// order, round robin, as the hardware's block scheduler does when every SM
// has room.
func Placement(numCTAs, numSMs int) []int {
	p := make([]int, numCTAs)
	for i := range p {
		p[i] = i % numSMs
	}
	return p
}

// ctasPerSM is how many blocks each of nsm SMs runs when nclusters
// clusters of k blocks are dealt in waves to groups of
// k SMs (k = 1: Placement's counts). A wave holds a multiple of the groups,
// so group g takes clusters g, g+groups, ... whatever the occupancy.
func ctasPerSM(nsm, k, nclusters int) []int {
	out := make([]int, nsm)
	groups := nsm / k
	for g := 0; g < groups && g < nclusters; g++ {
		c := (nclusters-g-1)/groups + 1
		for r := 0; r < k; r++ {
			out[g*k+r] = c
		}
	}
	return out
}

// errStoppedEarlier is the error of a launch that an earlier failure or
// cancellation stopped: its blocks refuse to run again.
var errStoppedEarlier = errors.New("the launch was stopped by an earlier failure or cancellation; prepare it again to rerun it")

// checkLaunch checks that gpu can run l (its PTX target, unless
// opt.AnyTarget, and the launch limits) and returns the launch's occupancy
// there.
func checkLaunch(gpu *Profile, l *vm.Launch, opt Options) (*Occupancy, error) {
	if !opt.AnyTarget {
		if err := CheckTarget(gpu, l.Module.AST.Target); err != nil {
			return nil, fmt.Errorf("%s: %w", l.Module.Filename, err)
		}
	}
	if err := CheckLaunch(gpu, l); err != nil {
		return nil, err
	}
	return LaunchOccupancy(gpu, l, opt.Registers)
}

// RunFunctional runs every block of l to completion with no timing model.
// Blocks are placed on the SMs of gpu; SMs run in parallel on host cores.
// Results do not depend on the number of workers for kernels whose blocks
// do not race with one another, nor on whether the counters are on
// (opt.NoCounters): with them off, and a kernel whose blocks cannot
// synchronise with one another (vm.Kernel.BlocksCommunicate), an SM runs
// its blocks of a wave one after another rather than interleaved, and,
// if the kernel's warps cannot synchronise other than at barriers
// (vm.Kernel.WarpsCommunicate), each warp runs LongQuantum instructions a
// turn instead of Quantum. That changes the bytes only where blocks or
// warps race (one reads or writes what another writes, with nothing to
// order them: the PTX memory model allows either result), and which of
// several faulting warps, or which warp over the budget (opt.MaxInst), is
// reported. Cancelling ctx stops the launch, also in
// the middle of a block. A launch may be run again once it has completed;
// opt.MaxInst counts the instructions of this run only.
func RunFunctional(ctx context.Context, l *vm.Launch, gpu *Profile, opt Options) (*Result, error) {
	occ, err := checkLaunch(gpu, l, opt)
	if err != nil {
		return nil, err
	}
	nsm := gpu.SMs
	l.NumSMs = nsm
	l.MaxInst = 0
	if opt.MaxInst > 0 {
		// The launch counts instructions over all its runs.
		l.MaxInst = l.InstExecuted() + opt.MaxInst
	}
	l.Strict = opt.Strict
	n := l.NumCTAs()
	// Clusters: a cluster's k blocks run together on k SMs of one group of
	// k consecutive SMs (a stand-in for the GPC the GPU places a cluster
	// in), driven by one worker. Without clusters k is 1 and a group is
	// one SM.
	k := max(1, l.ClusterSize())
	groups := nsm / k
	if groups == 0 {
		return nil, fmt.Errorf("kernel %s: clusters of %d blocks need %d SMs; the %s has %d", l.Kernel.Name, k, k, gpu.Name, nsm)
	}
	nclusters := n / k
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
		if l.Kernel.BlocksInteract() {
			workers = 1 // in order: results that do not depend on thread timing
		}
	}
	workers = max(1, min(workers, groups, nclusters))
	perWave := max(1, occ.BlocksPerSM)
	stride := groups * perWave // clusters per wave
	res := &Result{CTAsPerSM: ctasPerSM(nsm, k, nclusters), Occupancy: occ}
	var h *hier.Hierarchy
	if !opt.NoCounters {
		h, err = hier.New(&gpu.Memory, hier.Launch{
			SharedPerCTA:    int(l.Kernel.SharedStatic + l.DynSmem),
			Occupancy:       occ.BlocksOtherThanShared,
			ThreadOccupancy: occ.BlocksByThreads,
		}, hier.Functional)
		if err != nil {
			return nil, err
		}
		if err := h.Memory().SetApertures(opt.Apertures); err != nil {
			return nil, err
		}
		h.Memory().Adopt(opt.L2Before)
		if opt.DirtyL2 > 0 && opt.DirtyBase != 0 {
			h.Memory().Dirty(opt.DirtyBase, opt.DirtyL2)
		}
		res.Hier = h
	}
	// With nothing watching (no hierarchy) and blocks that cannot order
	// their accesses with respect to one another's, an SM runs its blocks
	// of a wave one after another (a cluster at a time) instead of
	// together: the result is the same for kernels whose blocks do not
	// race, and the host's caches hold one block's registers and shared
	// memory instead of a wave's (docs/performance.md, tenth pass).
	alone := h == nil && !l.Kernel.BlocksCommunicate()
	// Then, without clusters, a kernel whose warps do not order their
	// accesses other than at barriers lets each warp run longer a turn.
	quantum := Quantum
	if alone && k == 1 && !l.Kernel.WarpsCommunicate() {
		quantum = LongQuantum
	}
	// A cancelled context stops blocks that are running, not only the
	// blocks that have yet to start.
	defer context.AfterFunc(ctx, l.Stop)()
	var mu sync.Mutex
	type ctaErr struct {
		cta int
		err error
	}
	var errs []ctaErr
	var stopped atomic.Bool
	// k vm.SMs per worker stand for the SMs of each of the worker's groups
	// in turn, so that their blocks reuse its storage.
	sms := make([][]*vm.SM, workers)
	for wk := range sms {
		sms[wk] = make([]*vm.SM, k)
		for r := range sms[wk] {
			sms[wk][r] = l.NewSM(wk*k + r)
		}
	}
	defer func() {
		for _, g := range sms {
			for _, s := range g {
				res.Stats.Add(s.Stats)
			}
		}
	}()
	// Blocks run in waves, as the GPU's block scheduler fills its SMs: a
	// wave gives every SM as many blocks as it holds at once (the
	// occupancy), SM sm taking blocks sm, sm+nsm, sm+2·nsm, ...
	// (Placement; with clusters, group g takes clusters g, g+groups, ...,
	// each block of a cluster on the group's SM of its rank). An SM runs
	// its blocks of a wave together, their warps taking turns of Quantum
	// instructions (vm.RunPlaced; a group's SMs run their blocks together),
	// or, alone, one after another in the same order (a cluster's blocks
	// still together), their warps taking turns of LongQuantum where their
	// kernel lets them. Between waves, with no SM running, the hierarchy's
	// L2 traffic is drained in its fixed order; so every counter is the
	// same for any number of workers.
	for first := 0; first < nclusters; first += stride {
		if ctx.Err() != nil || len(errs) > 0 || stopped.Load() {
			break
		}
		g, gctx := errgroup.WithContext(ctx)
		for wk := 0; wk < workers; wk++ {
			ws := sms[wk]
			g.Go(func() error {
				var blocks []vm.Placed
				var members []int
				for grp := wk; grp < groups; grp += workers {
					for r, s := range ws {
						s.ID = grp*k + r
						if h != nil {
							s.Observer = h.SM(s.ID)
						}
					}
					blocks = blocks[:0]
					for ci := first + grp; ci < nclusters && ci < first+stride; ci += groups {
						members = l.ClusterBlocks(ci, members[:0])
						for r, b := range members {
							blocks = append(blocks, vm.Placed{SM: ws[r], Index: b})
						}
					}
					if len(blocks) == 0 || gctx.Err() != nil {
						continue
					}
					if err := runWave(blocks, alone, k, quantum); err != nil {
						if vm.IsStopped(err) {
							stopped.Store(true)
							return nil
						}
						l.Stop()
						mu.Lock()
						errs = append(errs, ctaErr{blocks[0].Index, err})
						mu.Unlock()
						return nil
					}
					if opt.Done != nil {
						opt.Done.Add(uint64(len(blocks)))
					}
				}
				return nil
			})
		}
		_ = g.Wait()
		if h != nil {
			h.Drain()
		}
	}
	if len(errs) > 0 {
		// Report the fault of the lowest-numbered block among those seen,
		// so that a single faulting block is reported the same way on any
		// number of cores.
		sort.Slice(errs, func(i, j int) bool { return errs[i].cta < errs[j].cta })
		return res, errs[0].err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if stopped.Load() {
		// Stopped, but by nothing of this run: the launch had failed or
		// been cancelled before, and its blocks did not run.
		return res, fmt.Errorf("kernel %s: %w", l.Kernel.Name, errStoppedEarlier)
	}
	return res, nil
}

// runWave runs the blocks of one SM's (or, with clusters of k blocks, one
// group's) wave: all together (vm.RunPlaced), or with alone one cluster at
// a time (a block at a time without clusters), in order; each warp runs
// quantum instructions a turn.
func runWave(blocks []vm.Placed, alone bool, k, quantum int) error {
	if !alone || len(blocks) <= k {
		return vm.RunPlaced(blocks, quantum)
	}
	for i := 0; i < len(blocks); i += k {
		if err := vm.RunPlaced(blocks[i:i+k], quantum); err != nil {
			return err
		}
	}
	return nil
}
