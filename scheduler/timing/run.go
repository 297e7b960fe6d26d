package timing

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/sasscost"
	"github.com/ptxvm/ptxvm/vm"
)

// Options control a timed run.
type Options struct {
	// BlocksPerSM is how many blocks an SM holds at once (the launch's
	// occupancy); at least 1.
	BlocksPerSM int
	// Registers is the registers per thread ptxas allocates (the
	// occupancy's): the list scheduler keeps the registers it has live
	// within them, or within 32 when that is more (0: 32), as ptxas does.
	Registers int
	// Workers is the number of host goroutines SMs run on (0: GOMAXPROCS,
	// or 1 for a kernel whose blocks interact through global atomics,
	// vm.Kernel.BlocksInteract, whose SMs' atomics would otherwise reach
	// memory in an order that depends on thread timing). Results do not
	// depend on it for kernels whose blocks do not race; more than 1 for a
	// kernel whose blocks interact makes order-dependent results (a float
	// atomicAdd's sum, values atomics return, a compare-and-swap loop's
	// retries and so its cycles) vary from run to run.
	Workers int
	// MaxInst stops the launch after this many warp instructions (0: none).
	MaxInst int64
	// Strict: see vm.Launch.Strict.
	Strict bool
	// Trace, if not nil, records a timeline (see Trace).
	Trace *Trace
	// Done, if not nil, counts the blocks that have finished (for a
	// progress display).
	Done *atomic.Uint64
	// DirtyL2 is the bytes a kernel wrote just before this launch (at
	// addresses none of its buffers use) that the L2 still holds dirty,
	// to be written to DRAM as this launch's misses evict them (0: a clean
	// L2, as ncu's cache control leaves it before each pass). The
	// testdata/perf/micro probes flush the L2 with a 128 MB cudaMemset.
	DirtyL2 uint64
	// DirtyBase, if not 0, is where those bytes lie (a buffer of the
	// launch: a copy into it just before leaves its last part in L2);
	// 0: above any device allocation.
	DirtyBase uint64
	// L2Before, if not nil, is what the L2 holds when the launch starts
	// (scheduler.Options.L2Before); a sampled launch, whose slice of the
	// GPU has a smaller L2, starts from a clean one.
	L2Before *hier.Memory
	// Apertures are the address ranges that are host or managed memory
	// (hier.Memory.SetApertures).
	Apertures []*hier.Aperture
	// Sample, if its Mode is not SampleOff, simulates the launch's first
	// waves in detail and extrapolates the rest (sample.go; Result.Sampling).
	Sample Sample
}

// migrates says whether a managed aperture has pages not on the device.
func migrates(as []*hier.Aperture) bool {
	for _, a := range as {
		for _, p := range a.Pages {
			if p != hier.PageDevice {
				return true
			}
		}
	}
	return false
}

// dirtyBase is where the DirtyL2 lines lie: above any device allocation.
const dirtyBase = 1 << 44

// Result is what a timed run measured.
type Result struct {
	// Cycles is the launch's elapsed SM cycles as sm__cycles_elapsed.max
	// counts them: the launch overhead plus the cycles until the last
	// block finished.
	Cycles uint64
	// Busy is the cycles from the first block's start to the last block's
	// end.
	Busy uint64
	// ClockMHz is the clock Cycles convert to time at.
	ClockMHz float64
	// Issued and ThreadIssued estimate the machine instructions (and
	// thread instructions) the SMs issued, from the SASS cost table.
	Issued, ThreadIssued uint64
	// Stalls are warp-cycles per reason, summed over warps.
	Stalls Stalls
	// WarpCycles is the sum over warps of the cycles they were resident;
	// SMCycles the sum over SMs of the cycles they had a block.
	WarpCycles, SMCycles uint64
	WarpsPerSM           int
	SubPartitions        int
	BlocksPerSM          int
	// Stats are the PTX instructions executed, as a functional run counts
	// them (InstStats.PTXExecs, PTXThreads).
	Stats vm.Stats
	// CTAsPerSM is how many blocks each SM ran.
	CTAsPerSM []int
	// Insts are the counts per instruction, by kernel-wide id.
	Insts []InstStats
	// Hier is the memory hierarchy the run used (its counters).
	Hier *hier.Hierarchy
	// Windows is the number of windows the SMs advanced in.
	Windows int
	// Sampling, if not nil, says that the run was sampled: Cycles and Busy
	// are estimates, the other figures count the detailed blocks only
	// (Sampling's doc).
	Sampling *Sampling
	// NotSampled, if not empty, says why a launch Options.Sample asked to
	// sample ran in full.
	NotSampled string
	// Auto, if not nil, says how the automatic sampling decided before
	// the launch (auto.go).
	Auto *AutoSampling
}

// InstStats are one PTX instruction's counts.
type InstStats struct {
	Info *vm.InstInfo
	Form string // its form in the SASS cost table
	// Folded says that ptxas drops the instruction from the machine code
	// (a branch it if-converts): it issues nothing whatever its form.
	Folded bool
	// Execs and Threads are its warp and thread executions in the timed
	// program, the kernel as ptxas compiles it: an instruction predicated
	// in place of a branch over it (ifConvert) executes with its guard
	// false where the PTX's lanes branched past it, and one moved across a
	// barrier (listSchedule) executes per group of a warp's lanes on the
	// side of the barrier where they have not joined. PTXExecs and
	// PTXThreads are its executions in the PTX as written, what a
	// functional run counts (Stats sums them). Issued is the machine
	// instructions Execs issued (a predicated-off one issues).
	Execs, Threads, PTXExecs, PTXThreads, Issued uint64
	// Rounds is, for an atomic, the further rounds its executions needed
	// because lanes shared an address (each execution: the most lanes on
	// one address, less one).
	Rounds uint64
	// Stalls are the cycles warps spent waiting to issue it (and, under
	// Selected, issuing it), as Nsight Compute attributes stall samples to
	// the instruction a warp is about to issue.
	Stalls Stalls
	// Caused are the cycles warps spent waiting for its results (under
	// LongScoreboard, ShortScoreboard and Wait).
	Caused Stalls
}

// run is the state of one timed launch shared by its SMs (read-only while
// they advance).
type run struct {
	cfg        *gpu.Timing
	prog       *program
	lrr        bool
	gtorr      bool
	pipeCycles [sasscost.NumPipes]float64
	issueGap   uint32 // IssueCycles in 1/256
	// offLat is, by queue (qMIO, qLSU, qTex; qNone: a constant or
	// parameter load), the latency of a memory instruction none of whose
	// lanes executes (guard false): its unit still takes it, and what
	// waits on its registers waits that long.
	offLat [4]uint32
	// perWavefront is the latency of each further shared wavefront
	// (memory.latency.per_wavefront).
	perWavefront uint32
	done         *atomic.Uint64
	// sms are the launch's SMs by id, and k its blocks per cluster: the
	// SMs of group g (sms[g*k:g*k+k]) hold its clusters, and one worker
	// advances them together in a window (shares).
	sms []*sm
	k   int
}

// Run runs every block of l on gpu with the cycle loop and returns what it
// measured. The functional result is the same as a functional run's.
func Run(ctx context.Context, l *vm.Launch, prof *gpu.Profile, opt Options) (*Result, error) {
	cfg, err := Resolve(prof)
	if err != nil {
		return nil, err
	}
	occ := max(1, opt.BlocksPerSM)
	// The automatic sampling decides before the launch, on the kernel as
	// written, whether it runs sampled on a slice of the GPU (auto.go).
	var auto *AutoSampling
	opt.Sample, auto = PlanAuto(l, prof, occ, opt.Sample, opt.Apertures)
	tab, err := sasscost.Load(cfg.SASS)
	if err != nil {
		return nil, err
	}
	// The timed run executes the kernel with its basic blocks scheduled as
	// ptxas schedules machine code (reorder.go); the instructions keep
	// their ids, and what the kernel computes does not change.
	// Debug code (nvcc -G) is not scheduled by ptxas: it runs in PTX order
	// with its own issue gap.
	debug := sasscost.Debug(l.Kernel)
	var folded, predicated []int32
	var vec []merged
	var cross map[int32][]crossing
	orig := l.Kernel
	if !debug {
		prog := newProgram(l.Kernel, cfg, tab, prof.Memory.Latency.L1Hit)
		l.Kernel, folded, vec = schedule(orig, prog, opt.Registers, cfg.ScheduleRegisters)
		defer func() { l.Kernel = orig }()
		predicated = ifConverted(orig, l.Kernel)
		cross = barrierCrossings(orig, l.Kernel)
	}
	r := &run{cfg: cfg, prog: newProgram(l.Kernel, cfg, tab, prof.Memory.Latency.L1Hit), lrr: cfg.Scheduler == LRR, gtorr: cfg.Scheduler == GTORR, done: opt.Done}
	for _, id := range folded {
		r.prog.fold(id)
	}
	for _, id := range predicated {
		r.prog.insts[id].ifConv = true
	}
	for id, c := range cross {
		r.prog.insts[id].cross = c
	}
	for _, m := range vec {
		r.prog.merge(m.id, m.lead, m.reg)
	}
	if cfg.SharedOrder == RoundRobin {
		r.prog.poolShared()
	}
	r.prog.finish()
	for p := sasscost.Pipe(0); p < sasscost.NumPipes; p++ {
		r.pipeCycles[p] = cfg.Pipes[p.String()].Cycles
	}
	lat := &prof.Memory.Latency
	r.offLat = [4]uint32{qNone: lat.Const, qMIO: lat.Shared, qLSU: lat.L1Hit, qTex: lat.Tex}
	r.perWavefront = lat.PerWavefront
	r.issueGap = uint32(cfg.IssueCycles*256 + 0.5)
	if debug {
		r.issueGap = uint32(cfg.DebugIssueCycles*256 + 0.5)
	}
	shared := int(l.Kernel.DynamicBase - vm.SharedReserved + l.DynSmem)
	// A sampled launch runs on a slice of the GPU (spatial.go) when asked,
	// or when the automatic sampling chose to before the launch (PlanAuto),
	// and the launch is large enough.
	var sp *spatial
	if opt.Sample.Mode != SampleOff && opt.Sample.MinInst == 0 {
		switch {
		case migrates(opt.Apertures):
		case l.ClusterSize() > 1:
		default:
			sp = newSpatial(prof, opt.Sample.Slice, l.NumCTAs(), occ, l.DeviceBytes())
		}
	}
	mem := &prof.Memory
	dirty := opt.DirtyL2
	if sp != nil {
		mem = &sp.mem
		cfg.CTADispatchCycles *= sp.scale
		dirty = uint64(float64(dirty) * sp.ratio)
	}
	h, err := hier.New(mem, hier.Launch{SharedPerCTA: shared, Occupancy: occ}, hier.Windowed)
	if err != nil {
		return nil, err
	}
	h.Memory().Params(l.Kernel.ParamSize)
	// Each SM dates its own fills at the start of its next advance, on its
	// worker's goroutine, rather than Resolve between windows.
	h.DeferFills()
	if sp == nil {
		h.Memory().Adopt(opt.L2Before)
	}
	if dirty > 0 {
		base := uint64(dirtyBase)
		if opt.DirtyBase != 0 {
			base = opt.DirtyBase
		}
		h.Memory().Dirty(base, dirty)
	}
	if err := h.Memory().SetApertures(opt.Apertures); err != nil {
		return nil, err
	}
	nsm := prof.SMs
	l.NumSMs = nsm
	if sp != nil {
		nsm = sp.sms
	}
	l.MaxInst = 0
	if opt.MaxInst > 0 {
		l.MaxInst = l.InstExecuted() + opt.MaxInst
	}
	l.Strict = opt.Strict
	defer context.AfterFunc(ctx, l.Stop)()

	// Clusters: a cluster's k blocks go together to the k SMs of a group
	// of consecutive SMs (a stand-in for the GPC the GPU places it in),
	// which one worker advances, so that their barrier.cluster and
	// distributed shared memory stay on one goroutine. Units are what the
	// block scheduler dispatches: clusters (k = 1: blocks).
	k := max(1, l.ClusterSize())
	groups := nsm / k
	if groups == 0 {
		return nil, fmt.Errorf("kernel %s: clusters of %d blocks need %d SMs; the %s has %d", l.Kernel.Name, k, k, prof.Name, nsm)
	}
	n := l.NumCTAs() / k // units
	all := n
	if sp != nil {
		n = sp.blocks
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
		if l.Kernel.BlocksInteract() {
			workers = 1 // SMs' atomics in a fixed order: see Options.Workers
		}
	}
	workers = max(1, min(workers, groups, n))
	tallies := make([]*tally, workers)
	for i := range tallies {
		tallies[i] = &tally{perInst: make([]instTally, len(r.prog.insts))}
	}
	// Only the SMs of the first wave ever run blocks (later blocks go where
	// earlier ones ended).
	sms := make([]*sm, min(groups, n)*k)
	r.sms, r.k = sms, k
	for i := range sms {
		s := &sm{id: i, r: r, vm: l.NewSM(i), hs: h.SM(i), next: never, first: never, wake: never, poolAt: never, acc: tallies[0]}
		s.vm.Observer = s.hs
		s.vm.DeferCount = true
		if r.prog.agg != nil {
			s.vm.Observer = &aggregating{next: s.hs, agg: r.prog.agg}
		}
		s.vm.Clock = func() uint64 { return s.clock }
		if n := r.prog.lines; n > 0 {
			// The launch brings the entry's first line.
			s.code = make([]uint64, n)
			s.code[r.prog.entryLine] = 1
			s.settled = make([]uint64, n)
			if c := cfg.Fetch.CacheBytes; c > 0 && cfg.Fetch.LineBytes > 0 && c/cfg.Fetch.LineBytes < n {
				s.capLines = c / cfg.Fetch.LineBytes
				s.cached(r.prog.entryLine)
			}
		}
		s.parts = make([]*part, prof.SM.SubPartitions)
		for j := range s.parts {
			p := &part{}
			p.q[qMIO].depth, p.q[qLSU].depth, p.q[qTex].depth = cfg.MIOQueue, cfg.LSUQueue, cfg.TexQueue
			s.parts[j] = p
		}
		if opt.Trace != nil {
			s.tr = opt.Trace.forSM(i)
		}
		s.insts, s.lastLine, s.perInst = r.prog.insts, r.prog.lastLine, s.acc.perInst
		if s.code != nil {
			s.settle(r.prog.entryLine)
		}
		s.guardCycles = r.prog.guardCycles
		sms[i] = s
	}
	res := &Result{ClockMHz: float64(prof.ClockMHz), WarpsPerSM: prof.SM.MaxWarps, SubPartitions: prof.SM.SubPartitions, BlocksPerSM: occ,
		CTAsPerSM: make([]int, nsm), Hier: h, Auto: auto}

	// The first wave: one block per SM in turn, up to the occupancy, at
	// the block scheduler's pace.
	next := 0
	// A block's launch: CTALaunchCycles plus CTALaunchWarpCycles per warp.
	launch := uint64(float64(cfg.CTALaunchCycles) + cfg.CTALaunchWarpCycles*float64((l.ThreadsPerCTA()+31)/32) + 0.5)
	start0 := launch
	if opt.Sample.Mode != SampleOff && migrates(opt.Apertures) {
		// The first waves would pay for migrations the rest do not.
		opt.Sample.Mode = SampleOff
		res.NotSampled = "not sampled: managed memory migrates to the device during the launch"
	}
	var smp *sampler
	if k == 1 {
		smp = newSampler(opt.Sample, l, h, mem.L2.SizeBytes, mem.SectorBytes, n, len(sms)*occ, start0, all, prof.SMs, sp)
	} else if opt.Sample.Mode != SampleOff && n >= MinSampleWaves*len(sms)/k*occ {
		res.NotSampled = "not sampled: a launch with clusters runs in full (sampling places blocks, not clusters)"
	}
	limit := n        // blocks dispatched at most (the sampler may lower it)
	dispatched := 0.0 // when the block scheduler last dispatched
	pace := func(at uint64) uint64 {
		t := max(float64(at), dispatched+cfg.CTADispatchCycles)
		if next == 0 {
			t = float64(at)
		}
		dispatched = t
		return uint64(math.Ceil(t))
	}
	// admit dispatches unit u to group g: block u (k = 1), or cluster
	// u's blocks, rank r on the group's SM r.
	var members []int
	admit := func(g, u int, at func() uint64) error {
		if k == 1 {
			res.CTAsPerSM[g]++
			sms[g].queue(u, at())
			return nil
		}
		members = l.ClusterBlocks(u, members[:0])
		for rk, b := range members {
			res.CTAsPerSM[g*k+rk]++
			if err := sms[g*k+rk].admit(b, at()); err != nil {
				return err
			}
		}
		return nil
	}
	for round := 0; round < occ && next < n; round++ {
		for g := 0; g < len(sms)/k && next < n; g++ {
			if err := admit(g, next, func() uint64 { return pace(start0) }); err != nil {
				return nil, err
			}
			next++
		}
	}
	type free struct {
		at uint64
		sm int
	}
	var frees []free
	var wg sync.WaitGroup
	sh := newShares(workers)
	// advanceShare advances the groups worker wk takes; what their SMs
	// count goes to its tally.
	advanceShare := func(wk int, start, end uint64) {
		t := tallies[wk]
		for g := sh.take(wk); g >= 0; g = sh.take(wk) {
			for _, s := range sms[g*k : g*k+k] {
				s.acc, s.perInst = t, t.perInst
				s.advance(start, end)
			}
		}
	}
	win := uint64(cfg.WindowCycles)
	start := start0
	for {
		end := start + win
		res.Windows++
		if workers == 1 {
			for _, s := range sms {
				s.advance(start, end)
			}
		} else {
			// The groups go to the workers as they become free (shares);
			// this goroutine is worker 0.
			sh.reset(len(sms) / k)
			wg.Add(workers - 1)
			for wk := 1; wk < workers; wk++ {
				go func() {
					defer wg.Done()
					advanceShare(wk, start, end)
				}()
			}
			advanceShare(0, start, end)
			wg.Wait()
		}
		for _, s := range sms {
			if s.err != nil {
				return nil, s.err
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h.Resolve()
		// Blocks that finished make room: the next blocks go to the SMs
		// in the order their room appeared.
		frees = frees[:0]
		for i, s := range sms {
			for _, at := range s.freed {
				frees = append(frees, free{at, i})
			}
			s.freed = s.freed[:0]
		}
		sort.Slice(frees, func(i, j int) bool {
			return frees[i].at < frees[j].at || frees[i].at == frees[j].at && frees[i].sm < frees[j].sm
		})
		if smp != nil {
			for _, f := range frees {
				smp.retire(f.at)
			}
			limit = smp.decide(next)
		}
		for _, f := range frees {
			if next >= limit {
				break
			}
			if err := admit(f.sm/k, next, func() uint64 { return pace(max(f.at+launch, end)) }); err != nil {
				return nil, err
			}
			next++
		}
		// The next window starts where the earliest SM has work.
		soon := uint64(never)
		resident := false
		for _, s := range sms {
			soon = min(soon, s.next)
			for _, c := range s.hs.Completions() {
				soon = min(soon, c.Cycle)
			}
			if len(s.ctas) > 0 || len(s.queued) > 0 {
				resident = true
			}
		}
		if !resident && next >= limit {
			break
		}
		if soon == never {
			// A barrier.cluster that threads exiting completed releases
			// warps the cycle loop has not heard of: they go on now.
			rescued := false
			for _, s := range sms {
				rescued = s.rescue(end) || rescued
			}
			if rescued {
				start = end
				continue
			}
			for _, s := range sms {
				for _, c := range s.ctas {
					if err := c.c.Deadlock(); err != nil {
						return nil, err
					}
				}
			}
			return nil, fmt.Errorf("kernel %s: the cycle loop found no warp that can go on", l.Kernel.Name)
		}
		start = max(end, soon)
	}

	for _, s := range sms {
		s.hs.ResolveFills() // the last window's (DeferFills)
	}
	var first, last uint64 = never, 0
	for _, s := range sms {
		if s.first == never {
			continue
		}
		first, last = min(first, s.first), max(last, s.end)
		res.WarpCycles += s.warpCycles
		res.SMCycles += union(s.spans)
		res.Stats.Add(s.vm.Stats)
	}
	// The VM counted the executions of the scheduled, if-converted
	// program; the PTX makes some fewer and some more (instTally).
	for _, t := range tallies {
		for i := range t.perInst {
			a := &t.perInst[i]
			res.Stats.Inst = res.Stats.Inst - a.skipped + a.missed
			res.Stats.ThreadInst -= a.skippedThreads
		}
	}
	if first == never {
		first = 0
	}
	// The launch ends when the last block has and its writes have left
	// the L2 and DRAM queues.
	last = max(last, h.Memory().BusyUntil())
	res.Busy = last - first
	res.Cycles = uint64(cfg.LaunchCycles) + last
	if err := smp.finish(ctx, res, orig, occ, workers, opt.Done); err != nil {
		return nil, err
	}
	if res.Sampling != nil {
		res.Sampling.Auto = auto
	}
	pi := make([]instTally, len(r.prog.insts))
	for _, t := range tallies {
		res.Stalls.Add(&t.stalls)
		res.ThreadIssued += t.threadIss
		for i := range pi {
			a, b := &pi[i], &t.perInst[i]
			a.execs += b.execs
			a.threads += b.threads
			a.skipped += b.skipped
			a.skippedThreads += b.skippedThreads
			a.missed += b.missed
			a.issued += b.issued
			a.rounds += b.rounds
			a.stalls.Add(&b.stalls)
			a.caused.Add(&b.caused)
		}
	}
	res.Insts = make([]InstStats, len(pi))
	for i := range pi {
		res.Stalls.Add(&pi[i].stalls)
		res.Issued += pi[i].issued
		in := &r.prog.insts[i]
		res.Insts[i] = InstStats{Info: in.info, Form: in.form, Folded: in.folded, Execs: pi[i].execs, Threads: pi[i].threads,
			PTXExecs: pi[i].execs - pi[i].skipped + pi[i].missed, PTXThreads: pi[i].threads - pi[i].skippedThreads, Issued: pi[i].issued, Rounds: pi[i].rounds,
			Stalls: pi[i].stalls, Caused: pi[i].caused}
	}
	if opt.Trace != nil {
		opt.Trace.finish(res)
	}
	return res, nil
}

// union is the length of the union of the intervals.
func union(sp [][2]uint64) uint64 {
	sort.Slice(sp, func(i, j int) bool { return sp[i][0] < sp[j][0] })
	var total, hi uint64
	for _, s := range sp {
		a := max(s[0], hi)
		if s[1] > a {
			total += s[1] - a
			hi = s[1]
		}
	}
	return total
}

// aggregating passes the accesses of warp-aggregated atomics
// (program.agg) on with only their lowest executing lane, as ptxas's
// machine code makes them (sasscost.Aggregates), and every other access as
// it is.
type aggregating struct {
	next memspace.Observer
	agg  []bool
}

func (o *aggregating) Observe(a *memspace.Access) memspace.Outcome {
	if id := int(a.Origin.Inst); id >= 0 && id < len(o.agg) && o.agg[id] && a.Mask&(a.Mask-1) != 0 {
		b := *a
		b.Mask &= -b.Mask
		return o.next.Observe(&b)
	}
	return o.next.Observe(a)
}
