package timing

import (
	"fmt"
	"strings"
	"sync"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/sasscost"
)

// Schedulers (gpu.Timing.Scheduler).
const (
	GTO = "gto"
	LRR = "lrr"
	// GTORR is greedy while back to back, then the oldest block's least
	// recently issued ready warp.
	GTORR = "gto_rr"
)

// Orders of the data path's shared-memory operations
// (gpu.Timing.SharedOrder).
const (
	Arrival    = "arrival"
	RoundRobin = "round_robin"
)

// maxQueue bounds the queues' depth (their rings are arrays).
const maxQueue = 64

// Resolve returns the complete timing section of profile p: its own
// fields, and for each field it leaves zero the value of the embedded
// profile of the same name, or else the H100's; checked.
func Resolve(p *gpu.Profile) (*gpu.Timing, error) {
	t := p.Timing
	d, err := embeddedTiming(p.Name)
	if err != nil {
		return nil, err
	}
	str := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	num := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	flt := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	str(&t.Scheduler, d.Scheduler)
	num(&t.WindowCycles, d.WindowCycles)
	str(&t.SASS, d.SASS)
	num(&t.LaunchCycles, d.LaunchCycles)
	num(&t.CTALaunchCycles, d.CTALaunchCycles)
	flt(&t.CTALaunchWarpCycles, d.CTALaunchWarpCycles)
	num(&t.CTARetireCycles, d.CTARetireCycles)
	flt(&t.CTADispatchCycles, d.CTADispatchCycles)
	flt(&t.IssueCycles, d.IssueCycles)
	flt(&t.DebugIssueCycles, d.DebugIssueCycles)
	num(&t.GuardCycles, d.GuardCycles)
	flt(&t.ScheduleRegisters, d.ScheduleRegisters)
	num(&t.BranchCycles, d.BranchCycles)
	num(&t.BarrierCycles, d.BarrierCycles)
	flt(&t.BarrierWarpCycles, d.BarrierWarpCycles)
	flt(&t.BarrierUnitCycles, d.BarrierUnitCycles)
	num(&t.MembarCycles, d.MembarCycles)
	num(&t.AsyncCopyCycles, d.AsyncCopyCycles)
	num(&t.ClusterSharedCycles, d.ClusterSharedCycles)
	num(&t.ClusterBarrierCycles, d.ClusterBarrierCycles)
	num(&t.MIOQueue, d.MIOQueue)
	num(&t.LSUQueue, d.LSUQueue)
	num(&t.TexQueue, d.TexQueue)
	flt(&t.DataCycles, d.DataCycles)
	flt(&t.TexCycles, d.TexCycles)
	flt(&t.FillCyclesPerSector, d.FillCyclesPerSector)
	flt(&t.StoreCyclesPerLine, d.StoreCyclesPerLine)
	str(&t.SharedOrder, d.SharedOrder)
	str(&t.SharedOrder, Arrival)
	flt(&t.SharedCAS.RoundCycles32, d.SharedCAS.RoundCycles32)
	flt(&t.SharedCAS.RoundCycles64, d.SharedCAS.RoundCycles64)
	flt(&t.SharedCAS.WordCycles32, d.SharedCAS.WordCycles32)
	flt(&t.SharedCAS.WordCycles64, d.SharedCAS.WordCycles64)
	flt(&t.SharedCAS.ReturnCycles, d.SharedCAS.ReturnCycles)
	flt(&t.SharedCAS.WavefrontCycles, d.SharedCAS.WavefrontCycles)
	flt(&t.SharedCAS.RoundSlots32, d.SharedCAS.RoundSlots32)
	flt(&t.SharedCAS.RoundSlots64, d.SharedCAS.RoundSlots64)
	flt(&t.SharedCAS.CASCycles, d.SharedCAS.CASCycles)
	flt(&t.SharedCAS.CASLaneCycles, d.SharedCAS.CASLaneCycles)
	flt(&t.SharedCAS.CASDataFactor, d.SharedCAS.CASDataFactor)
	num(&t.Fetch.LineBytes, d.Fetch.LineBytes)
	flt(&t.Fetch.MissCycles, d.Fetch.MissCycles)
	flt(&t.Fetch.SequentialCycles, d.Fetch.SequentialCycles)
	num(&t.Fetch.CacheBytes, d.Fetch.CacheBytes)
	pipes := map[string]gpu.Pipe{}
	for k, v := range d.Pipes {
		pipes[k] = v
	}
	for k, v := range t.Pipes {
		pipes[k] = v
	}
	t.Pipes = pipes
	if err := check(p, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// check validates a complete timing section.
func check(p *gpu.Profile, c *gpu.Timing) error {
	e := func(field, format string, a ...any) error {
		return fmt.Errorf("GPU profile %q: timing.%s: %s", p.Name, field, fmt.Sprintf(format, a...))
	}
	if c.Scheduler != GTO && c.Scheduler != LRR && c.Scheduler != GTORR {
		return e("scheduler", "%q is none of %q, %q and %q", c.Scheduler, GTO, LRR, GTORR)
	}
	if c.SharedOrder != Arrival && c.SharedOrder != RoundRobin {
		return e("shared_order", "%q is neither %q nor %q", c.SharedOrder, Arrival, RoundRobin)
	}
	lat := &p.Memory.Latency
	if rt := int(lat.L1Hit + lat.L2HitNear); c.WindowCycles <= 0 || c.WindowCycles > rt {
		return e("window_cycles", "%d is not in 1..%d (the shortest L2 round trip: memory.latency.l1_hit + l2_hit_near)", c.WindowCycles, rt)
	}
	for _, f := range []struct {
		n string
		v int
	}{{"launch_cycles", c.LaunchCycles}, {"cta_launch_cycles", c.CTALaunchCycles}, {"cta_retire_cycles", c.CTARetireCycles},
		{"guard_cycles", c.GuardCycles}, {"branch_cycles", c.BranchCycles}, {"barrier_cycles", c.BarrierCycles}, {"membar_cycles", c.MembarCycles}} {
		if f.v < 0 {
			return e(f.n, "must not be negative (got %d)", f.v)
		}
	}
	if c.IssueCycles < 1 || c.DebugIssueCycles < 1 {
		return e("issue_cycles", "issue_cycles and debug_issue_cycles must be at least 1 (got %g, %g)", c.IssueCycles, c.DebugIssueCycles)
	}
	for _, f := range []struct {
		n string
		v int
	}{{"mio_queue", c.MIOQueue}, {"lsu_queue", c.LSUQueue}, {"tex_queue", c.TexQueue}} {
		if f.v < 1 || f.v > maxQueue {
			return e(f.n, "%d is not in 1..%d", f.v, maxQueue)
		}
	}
	if c.BarrierUnitCycles < 0 {
		return e("barrier_unit_cycles", "must not be negative")
	}
	if c.CTALaunchWarpCycles < 0 {
		return e("cta_launch_warp_cycles", "must not be negative")
	}
	if c.DataCycles < 0 || c.TexCycles < 0 || c.FillCyclesPerSector < 0 || c.StoreCyclesPerLine < 0 || c.CTADispatchCycles < 0 || c.BarrierWarpCycles < 0 {
		return e("data_cycles_per_wavefront", "cycles per wavefront, request or dispatch must not be negative")
	}
	if q := c.SharedCAS; q.RoundCycles32 < 0 || q.RoundCycles64 < 0 || q.WordCycles32 < 0 || q.WordCycles64 < 0 ||
		q.ReturnCycles < 0 || q.WavefrontCycles < 0 || q.RoundSlots32 < 0 || q.RoundSlots64 < 0 ||
		q.CASCycles < 0 || q.CASLaneCycles < 0 || q.CASDataFactor < 0 {
		return e("shared_cas", "cycles and slots must not be negative")
	}
	if f := c.Fetch; f.LineBytes > 0 && (f.LineBytes < 16 || f.LineBytes&(f.LineBytes-1) != 0) || f.LineBytes < -1 {
		return e("fetch.line_bytes", "%d is neither a power of two of at least 16 nor -1 (no fetch model)", f.LineBytes)
	}
	if f := c.Fetch; f.MissCycles < 0 || f.SequentialCycles < 0 || f.CacheBytes < 0 {
		return e("fetch", "cycles and cache_bytes must not be negative (got %g, %g, %d)", f.MissCycles, f.SequentialCycles, f.CacheBytes)
	}
	var names []string
	for p := sasscost.Pipe(1); p < sasscost.NumPipes; p++ {
		names = append(names, p.String())
		if _, ok := c.Pipes[p.String()]; !ok {
			return e("pipes", "no entry for pipe %q", p)
		}
	}
	for name, q := range c.Pipes {
		if _, ok := sasscost.ParsePipe(name); !ok {
			return e("pipes", "unknown pipe %q (have %s)", name, strings.Join(names, ", "))
		}
		if q.Cycles < 0 || q.Latency < 0 {
			return e("pipes."+name, "negative cycles or latency")
		}
	}
	if _, err := sasscost.Load(c.SASS); err != nil {
		return e("sass_table", "%v", err)
	}
	return nil
}

// embeddedTimings caches the timing sections of the embedded profiles.
var embeddedTimings sync.Map

// embeddedTiming is the timing section of the embedded profile name, or
// of the H100 when there is none of that name.
func embeddedTiming(name string) (*gpu.Timing, error) {
	key := strings.ToLower(name)
	if t, ok := embeddedTimings.Load(key); ok {
		return t.(*gpu.Timing), nil
	}
	base, err := gpu.Lookup(name)
	if err != nil {
		if base, err = gpu.Lookup("h100"); err != nil {
			return nil, err
		}
	}
	embeddedTimings.Store(key, &base.Timing)
	return &base.Timing, nil
}
