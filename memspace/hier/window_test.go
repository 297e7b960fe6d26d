package hier

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
)

// windowRun drives the SM sides of cfg in windowed mode: in each window of
// 100 cycles, SM s presents its stream's accesses of that window, one every
// 7 cycles from cycle 3·s, on worker s % workers; Resolve ends the window.
// With deferFills (Hierarchy.DeferFills) each worker calls ResolveFills
// before its SM's accesses. It returns the counts and, per SM, each group's
// completion, and how many SM-windows had fills left to date and groups
// waiting on fills in flight at Resolve.
func windowRun(t *testing.T, cfg *Config, st [][][]memspace.Access, workers int, deferFills bool) (Counts, [][]Completion, [2]int) {
	h, err := New(cfg, Launch{Occupancy: 8}, Windowed)
	require.NoError(t, err)
	if deferFills {
		h.DeferFills()
	}
	var seen [2]int
	done := make([][]Completion, len(st))
	for e := range st[0] {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for sm := w; sm < len(st); sm += workers {
					s := h.SM(sm)
					if deferFills && e%3 != 2 {
						s.ResolveFills() // every third window left to Resolve
					}
					for i := range st[sm][e] {
						s.SetCycle(uint64(e*100*len(st[sm][e])) + uint64(3*sm+7*i))
						lat := s.Observe(&st[sm][e][i]).Latency
						assert.NotZero(t, lat, "the SM's own part of the latency")
						if i%13 == 0 {
							runtime.Gosched()
						}
					}
				}
			}()
		}
		wg.Wait()
		for _, s := range h.sms {
			if len(s.newFills) > 0 {
				seen[0]++
			}
			if len(s.deps) > 0 {
				seen[1]++
			}
		}
		h.Resolve()
		for sm := range st {
			done[sm] = append(done[sm], h.SM(sm).Completions()...)
			assert.Zero(t, h.SM(sm).Pending())
		}
	}
	return h.Counts(), done, seen
}

// Windowed mode gives the same counters and completion cycles whatever the
// number of goroutines running the SM sides, and whether the SM sides date
// their own fills (DeferFills) or Resolve does.
func TestWindowedDeterminism(t *testing.T) {
	cfg := smallConfig(t)
	st := streams(cfg.SMs, 3, 150)
	want, wantDone, seen := windowRun(t, cfg, st, 1, false)
	require.NotZero(t, want[L2ReadHit])
	require.NotEmpty(t, wantDone[0])
	require.NotZero(t, seen[0], "fills to date")
	require.NotZero(t, seen[1], "groups waiting on fills in flight")
	for _, c := range []struct {
		workers    int
		deferFills bool
	}{{2, false}, {5, false}, {16, false}, {1, true}, {2, true}, {5, true}} {
		got, gotDone, _ := windowRun(t, cfg, st, c.workers, c.deferFills)
		assert.Equal(t, want, got, "%+v", c)
		assert.Equal(t, wantDone, gotDone, "%+v", c)
	}
}

// Presented in cycle order, windowed mode serves the traffic as timing mode
// does: the same counters, and the same latencies but where an access hits
// sectors still on their way from L2, which it waits for in windowed mode
// (timing mode counts it as an L1 hit at once).
func TestWindowedMatchesTiming(t *testing.T) {
	cfg := smallConfig(t)
	st := streams(4, 1, 100)
	type ev struct {
		sm, i int
		at    uint64
	}
	var evs []ev
	for i := 0; i < 100; i++ {
		for sm := 0; sm < 4; sm++ {
			evs = append(evs, ev{sm, i, uint64(10*i + sm)})
		}
	}
	tm, err := New(cfg, Launch{Occupancy: 8}, Timing)
	require.NoError(t, err)
	timing := map[[2]int]uint64{}
	for _, e := range evs {
		s := tm.SM(e.sm)
		s.SetCycle(e.at)
		a := st[e.sm][0][e.i]
		timing[[2]int{e.sm, e.i}] = e.at + uint64(s.Observe(&a).Latency)
	}
	wm, err := New(cfg, Launch{Occupancy: 8}, Windowed)
	require.NoError(t, err)
	local := map[[2]int]uint64{}
	group := map[[2]int]uint64{}
	for _, e := range evs {
		s := wm.SM(e.sm)
		s.SetCycle(e.at)
		a := st[e.sm][0][e.i]
		local[[2]int{e.sm, e.i}] = e.at + uint64(s.Observe(&a).Latency)
		if s.Waits() {
			group[[2]int{e.sm, e.i}] = s.Group()
		}
	}
	wm.Resolve()
	waited, same, inflight := 0, 0, 0
	for _, e := range evs {
		k := [2]int{e.sm, e.i}
		got := local[k]
		if g, ok := group[k]; ok {
			waited++
			for _, c := range wm.SM(e.sm).Completions() {
				if c.Group == g {
					got = c.Cycle
				}
			}
		}
		if a := st[e.sm][0][e.i]; a.Kind == memspace.Store || a.Space == memspace.Shared {
			continue // a store's latency is when it leaves the SM, in both modes
		}
		if got != timing[k] {
			assert.Greater(t, got, timing[k], "SM %d access %d (%s %s): only waits for fills in flight differ", e.sm, e.i, st[e.sm][0][e.i].Space, st[e.sm][0][e.i].Kind)
			inflight++
		} else {
			same++
		}
	}
	assert.Greater(t, same, 3*inflight, "most accesses see the same latency")
	assert.Greater(t, waited, 50)
	assert.Equal(t, tm.Counts(), wm.Counts())
}

// A cold load's completion in windowed mode is the profile's L1 + L2 + DRAM
// latency; once its line is in L1 the next load completes locally.
func TestWindowedCold(t *testing.T) {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	cfg.Latency.DRAMJitter = 0 // the figures alone (TestDRAMJitter)
	h, err := New(cfg, Launch{Occupancy: 8}, Windowed)
	require.NoError(t, err)
	lat := cfg.Latency
	s := h.SM(0)
	var near uint64
	for i := uint64(0); near == 0; i++ {
		if line := (base >> 7) + i; h.mem.partitionOf(h.mem.sliceOf(line)) == s.part {
			near = line << 7
		}
	}
	load := acc(memspace.Global, memspace.Load, 4, 1, func(int) uint64 { return near })
	s.SetCycle(1000)
	assert.Equal(t, lat.L1Hit, s.Observe(load).Latency)
	require.True(t, s.Waits())
	g := s.Group()
	s.SetCycle(1001)
	assert.Equal(t, lat.L1Hit, s.Observe(load).Latency, "the sector is allocated: an L1 hit...")
	assert.True(t, s.Waits(), "... on data still in flight: it waits for the fill")
	g2 := s.Group()
	s.SetCycle(1002)
	s.Observe(acc(memspace.Global, memspace.Store, 4, 1, func(int) uint64 { return near + 4096 }))
	assert.False(t, s.Waits(), "a store waits for nothing")
	assert.Equal(t, 2, s.Pending())
	h.Resolve()
	done := 1000 + uint64(lat.L1Hit+lat.L2HitNear+lat.DRAM)
	assert.Equal(t, []Completion{{Group: g, Cycle: done}, {Group: g2, Cycle: done}}, s.Completions())
	// In the next window the fill is dated: a hit before it arrives waits
	// for it, one after is an L1 hit.
	s.SetCycle(done - 100)
	assert.Equal(t, uint32(100), s.Observe(load).Latency)
	assert.False(t, s.Waits())
	s.SetCycle(done + 1)
	assert.Equal(t, lat.L1Hit, s.Observe(load).Latency)
	h.Resolve()
	assert.Zero(t, s.inflight.n, "arrived fills are forgotten")
}

// A kernel parameter's line that one warp's miss is still fetching into the
// constant cache makes every warp that reads it meanwhile wait for the fill,
// as an L1 line in flight does: the H100 starts most of an SM's first
// blocks within about 160 cycles (testdata/perf/micro/sched/burst.*), and
// they wait for the parameters together (ncu's imc_miss on the transposes at 1024:
// TestColdParametersStallAsOnH100 in scheduler/timing). Once the fill is
// dated, a read before it arrives waits for the rest; one after is a
// constant-cache hit.
func TestWindowedConstantFillWaits(t *testing.T) {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	cfg.Latency.DRAMJitter = 0
	h, err := New(cfg, Launch{Occupancy: 8}, Windowed)
	require.NoError(t, err)
	lat := cfg.Latency
	s := h.SM(0)
	param := acc(memspace.Param, memspace.Load, 8, all, func(int) uint64 { return 0x210 })
	s.SetCycle(1000)
	own := lat.Const + lat.ConstMiss
	assert.Equal(t, own, s.Observe(param).Latency, "the miss's own part")
	require.True(t, s.Waits())
	g := s.Group()
	s.SetCycle(1010)
	assert.Equal(t, lat.Const, s.Observe(param).Latency, "a hit in the tags...")
	assert.True(t, s.Waits(), "... on a line in flight: it waits for the fill")
	g2 := s.Group()
	s.SetCycle(1011)
	other := acc(memspace.Param, memspace.Load, 4, all, func(int) uint64 { return 0x210 + 64 })
	s.Observe(other)
	assert.True(t, s.Waits(), "another line misses on its own")
	h.Resolve()
	var first, second uint64
	for _, c := range s.Completions() {
		switch c.Group {
		case g:
			first = c.Cycle
		case g2:
			second = c.Cycle
		}
	}
	require.NotZero(t, first)
	assert.Greater(t, first, 1000+uint64(own+lat.L2HitNear), "the miss went to L2 or beyond")
	assert.Equal(t, first, second, "the second reader gets the line when the first does")
	s.SetCycle(first - 50)
	assert.Equal(t, uint32(50), s.Observe(param).Latency, "dated: the rest of the wait")
	assert.False(t, s.Waits())
	s.SetCycle(first + 1)
	assert.Equal(t, lat.Const, s.Observe(param).Latency, "arrived: a hit")
}

// Memory.Params leaves the parameter lines in L2: a block's first
// parameter load misses the constant cache and hits in L2 (near or far
// partition), reading nothing from DRAM; without it the line comes from
// DRAM.
func TestParamsAreInL2(t *testing.T) {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	cfg.Latency.DRAMJitter = 0
	param := acc(memspace.Param, memspace.Load, 8, all, func(int) uint64 { return 0x210 })
	for _, placed := range []bool{true, false} {
		h, err := New(cfg, Launch{Occupancy: 8}, Timing)
		require.NoError(t, err)
		if placed {
			h.Memory().Params(0x228)
		}
		s := h.SM(0)
		s.SetCycle(1000)
		got := s.Observe(param).Latency
		own := cfg.Latency.Const + cfg.Latency.ConstMiss
		if placed {
			assert.Contains(t, []uint32{own + cfg.Latency.L2HitNear, own + cfg.Latency.L2HitFar}, got, "an L2 hit")
			assert.Zero(t, h.Counts()[DRAMReadSectors], "nothing read from DRAM")
		} else {
			assert.Greater(t, got, own+cfg.Latency.L2HitFar, "from DRAM")
			assert.NotZero(t, h.Counts()[DRAMReadSectors])
		}
	}
}

// Atomics of many lanes on one line occupy its L2 slice per lane when the
// profile says so: the second of two back-to-back atomics waits.
func TestAtomicLanesSerialise(t *testing.T) {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	cfg.Latency.L2AtomicCycles = 2
	cfg.Latency.L2AtomicTxnCycles = 0
	h, err := New(cfg, Launch{Occupancy: 8}, Timing)
	require.NoError(t, err)
	s := h.SM(0)
	s.SetCycle(100)
	s.Observe(acc(memspace.Global, memspace.Load, 4, 1, func(int) uint64 { return base })) // the line in L2
	s.SetCycle(10000)
	one := acc(memspace.Global, memspace.Atomic, 4, all, func(int) uint64 { return base })
	first := s.Observe(one).Latency
	second := s.Observe(one).Latency
	assert.Equal(t, uint32(64), second-first, "32 lanes at 2 cycles each")
	assert.Equal(t, 2, s.Wavefronts(), "one line per access")
}

// With a cost per sector, the atomic unit takes a transaction's sectors one
// after another, each for its first update and the further lanes of its
// busiest address; when the line is at hand (the slice's previous atomic
// was on it) the first sector's first update costs a lane's chain.
func TestAtomicSectorsOneAfterAnother(t *testing.T) {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	cfg.Latency.L2AtomicCycles = 2
	cfg.Latency.L2AtomicAddrCycles = 0
	cfg.Latency.L2AtomicSectorCycles = 3
	cfg.Latency.L2AtomicTxnCycles = 0
	cfg.Latency.L2AtomicRepeatCycles = 0
	h, err := New(cfg, Launch{Occupancy: 8}, Timing)
	require.NoError(t, err)
	s := h.SM(0)
	s.SetCycle(100)
	s.Observe(acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + uint64(4*l) })) // the line in L2
	s.SetCycle(10000)
	// Lanes l and l+16 on word l: 16 words, two sectors, two lanes on
	// each word. The second atomic waits for the first's time at the
	// slice: 3 (the first sector's first update: the load left the line
	// without an atomic) + 3 (the second sector's) + 2*2 (each sector's
	// second lane on its busiest word).
	words := acc(memspace.Global, memspace.Atomic, 4, all, func(l int) uint64 { return base + uint64(4*(l%16)) })
	first := s.Observe(words).Latency
	second := s.Observe(words).Latency
	assert.Equal(t, uint32(3+1*3+2*2), second-first, "two sectors, two lanes on each word")
}

// Atomics on distinct addresses of one line cost per address; a store
// writing part of its sectors costs per line and per such sector.
func TestAtomicAddressesAndPartialWrites(t *testing.T) {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	cfg.Latency.L2AtomicCycles = 2
	cfg.Latency.L2AtomicAddrCycles = 0.5
	cfg.Latency.L2AtomicSectorCycles = 0 // the per-address cost, not the per-sector one
	cfg.Latency.L2AtomicTxnCycles = 1
	cfg.Latency.L2PartialWriteCycles = 4
	cfg.Latency.L2PartialWriteTxnCycles = 1
	h, err := New(cfg, Launch{Occupancy: 8}, Timing)
	require.NoError(t, err)
	s := h.SM(0)
	s.SetCycle(100)
	s.Observe(acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + uint64(4*l) })) // the line in L2
	s.SetCycle(10000)
	pairs := acc(memspace.Global, memspace.Atomic, 4, all, func(l int) uint64 { return base + uint64(8*(l/2)) })
	first := s.Observe(pairs).Latency
	second := s.Observe(pairs).Latency
	assert.Equal(t, uint32(9), second-first, "1 per transaction and 16 addresses at 0.5 (more than 2 lanes per address at 2)")
	s.SetCycle(20000)
	strided := acc(memspace.Global, memspace.Store, 4, all, func(l int) uint64 { return base + 4096 + uint64(128*l) })
	s.Observe(strided) // 32 lines, one sector each, 4 of its 32 bytes
	line := (base + 4096) >> 7
	sl := h.mem.sliceOf(line)
	same := 0 // the lines of the store homed on that slice
	for l := uint64(0); l < 32; l++ {
		if h.mem.sliceOf(line+l) == sl {
			same++
		}
	}
	assert.InDelta(t, float64(20000+(1+4)*same), h.mem.sliceFree[sl], 1e-9, "a line with a partial sector: 1 cycle, and 4 for the sector")
	s.SetCycle(30000)
	whole := acc(memspace.Global, memspace.Store, 4, all, func(l int) uint64 { return base + 8192 + uint64(4*l) })
	s.Observe(whole)
	assert.InDelta(t, float64(30000+128/cfg.Latency.L2BytesPerCycle), h.mem.sliceFree[h.mem.sliceOf((base+8192)>>7)], 1e-9, "a whole line: its bytes at the slice's bandwidth")
}
