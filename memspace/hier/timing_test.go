package hier

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
)

// In timing mode the SM side serves its L2 traffic at once and returns
// latencies built from the configured figures.
func TestTimingLatencies(t *testing.T) {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	cfg.Latency.DRAMJitter = 0 // the figures alone (TestDRAMJitter)
	h, err := New(cfg, Launch{Occupancy: 8}, Timing)
	require.NoError(t, err)
	lat := cfg.Latency
	sm := h.SM(0)
	sm.SetCycle(1000)
	load := func(addr uint64) uint32 {
		return sm.Observe(acc(memspace.Global, memspace.Load, 4, 1, func(int) uint64 { return addr })).Latency
	}
	// Find one line homed near SM 0 and one far.
	var near, far uint64
	for i := uint64(0); near == 0 || far == 0; i++ {
		line := (base >> 7) + i
		if h.mem.partitionOf(h.mem.sliceOf(line)) == sm.part {
			if near == 0 {
				near = line << 7
			}
		} else if far == 0 {
			far = line << 7
		}
	}
	assert.Equal(t, lat.L1Hit+lat.L2HitNear+lat.DRAM, load(near), "cold: DRAM")
	assert.Equal(t, lat.L1Hit, load(near), "then an L1 hit")
	assert.Equal(t, lat.L1Hit+lat.L2HitFar+lat.DRAM, load(far), "far partition")
	// Another SM finds the line in L2.
	sm2 := h.SM(1)
	sm2.SetCycle(5000)
	got := sm2.Observe(acc(memspace.Global, memspace.Load, 4, 1, func(int) uint64 { return near })).Latency
	assert.Contains(t, []uint32{lat.L1Hit + lat.L2HitNear, lat.L1Hit + lat.L2HitFar}, got)
	// Shared memory: one cycle count per extra wavefront.
	conflict := sm.Observe(acc(memspace.Shared, memspace.Load, 4, all, func(l int) uint64 { return uint64(128 * l) })).Latency
	assert.Equal(t, lat.Shared+31*lat.PerWavefront, conflict)
	assert.Equal(t, lat.Store, sm.Observe(acc(memspace.Global, memspace.Store, 4, 1, func(int) uint64 { return near })).Latency)
	assert.Zero(t, sm.Pending(), "nothing is buffered in timing mode")
}

// Back-to-back misses queue at their slice and on DRAM channels.
func TestTimingQueues(t *testing.T) {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	cfg.DRAM.Channels = 1
	cfg.DRAM.BytesPerCycle = 1     // 32 cycles a sector
	cfg.Latency.DRAMLoadCycles = 0 // the queue alone (TestDRAMLatencyGrowsWithLoad)
	cfg.Latency.DRAMWriteLoadCycles = 0
	cfg.Latency.DRAMJitter = 0 // and TestDRAMJitter
	h, err := New(cfg, Launch{Occupancy: 8}, Timing)
	require.NoError(t, err)
	sm := h.SM(0)
	sm.SetCycle(0)
	// A second line in the same partition as the first (the same L2
	// latency), in another DRAM unit.
	part := func(addr uint64) int { return h.mem.partitionOf(h.mem.sliceOf(addr >> 7)) }
	other := base + 4096
	for part(other) != part(base) {
		other += 4096
	}
	first := sm.Observe(acc(memspace.Global, memspace.Load, 4, 1, func(int) uint64 { return base })).Latency
	second := sm.Observe(acc(memspace.Global, memspace.Load, 4, 1, func(int) uint64 { return other })).Latency
	assert.Greater(t, second, first, "the second miss waits for the channel")
	assert.InDelta(t, 64, float64(second-first), 2, "a miss reads a 64 B unit: two sectors of 32 cycles")
}

// A DRAM read's latency grows with the DRAM's recent utilisation ρ, of
// which writes make ρw, by (DRAMLoadCycles·ρ + DRAMWriteLoadCycles·ρw)/(1−ρ):
// idle it is the profile's, under a stream of misses longer, the longer
// the more of the stream is writes, and it falls back once the stream
// stops. (The H100 profile has no read term: reduce_shfl's reads keep
// the DRAM 79% busy on the H100 and wait about as long as the model's
// unloaded reads, 20.2 warp-cycles of long_scoreboard per instruction
// against the model's 19.2; the copy and the stencil, whose streams are
// 43% writes, wait longer.)
func TestDRAMLatencyGrowsWithLoad(t *testing.T) {
	for _, c := range []struct {
		name      string
		k, kw     float64
		writes    int // of the 24 sectors a cycle
		wantExtra float64
	}{
		{"reads, read term", 100, 0, 0, 100},
		{"reads, write term", 0, 300, 0, 0},
		{"half writes, write term", 0, 300, 12, 150},
		{"half writes, both", 100, 300, 12, 250},
		{"writes, write term", 0, 300, 24, 300},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Profile("h100")
			require.NoError(t, err)
			cfg.Latency.DRAMLoadCycles, cfg.Latency.DRAMWriteLoadCycles = c.k, c.kw
			cfg.Latency.DRAMJitter = 0
			h, err := New(cfg, Launch{Occupancy: 8}, Timing)
			require.NoError(t, err)
			m := h.Memory()
			idle := m.serve(txn{line: 1 << 20, mask: 0x3, op: opRead}, 0, 0, nil) - m.dram(0, 0, 0, false)
			assert.Positive(t, idle)
			// Half the DRAM's bandwidth for a window: 1530/2 bytes a cycle.
			for cyc := uint64(0); cyc < 8*loadWindow; cyc++ {
				for i := 0; i < 24; i++ {
					m.dram(cyc<<10|uint64(i), 0x1, cyc, i < c.writes)
				}
			}
			assert.InDelta(t, 0.5, m.util, 0.05, "utilisation")
			busy := m.loadLatency(0, 0, 8*loadWindow)
			assert.InDelta(t, c.wantExtra, float64(busy), 10+c.wantExtra/20, "what a read waits more at ρ = 0.5")
			assert.Equal(t, busy+7, m.loadLatency(0, 7, 8*loadWindow), "plus its wait for the channel")
			m.dram(0, 0, 10*loadWindow, false)
			assert.Zero(t, m.loadLatency(0, 0, 10*loadWindow), "idle again")
		})
	}
}

// An L2 left dirty (Memory.Dirty, as a cudaMemset before the launch
// leaves it) makes the launch's misses write the lines they evict back to
// DRAM; a clean L2 writes nothing back. Dirty leaves each slice two thirds
// dirty lines (those it homes) and one third clean near copies (half the
// lines homed in the other partition, written from this one), so the
// misses' evictions, one at the home slice for every line and one at the
// near slice for the half of the lines homed in the other partition, are
// dirty two times in three: 4 sectors × 1.5 × 2/3 = 4 a line read.
func TestDirtyL2WritesBack(t *testing.T) {
	for _, dirty := range []bool{false, true} {
		cfg, err := Profile("h100")
		require.NoError(t, err)
		h, err := New(cfg, Launch{Occupancy: 8}, Timing)
		require.NoError(t, err)
		if dirty {
			// A terabyte: only the last two L2s' worth are written (a
			// loop over all of it would not end in the test's time).
			h.Memory().Dirty(1<<44, 1<<40)
		}
		sm := h.SM(0)
		sm.SetCycle(100)
		// 4096 coalesced warp loads of distinct lines: they miss and
		// allocate in the L2.
		const lines = 4096
		for i := uint64(0); i < lines; i++ {
			sm.Observe(acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + i<<7 + uint64(4*l) }))
		}
		c := h.Counts()
		assert.Equal(t, uint64(4*lines), c[DRAMReadSectors], "every line read from DRAM")
		if dirty {
			assert.InDelta(t, 4*lines, float64(c[DRAMWriteSectors]), 0.1*4*lines, "two evictions in three are of dirty lines")
		} else {
			assert.Zero(t, c[DRAMWriteSectors], "a clean L2 writes nothing back")
		}
	}
}

// Reads from an idle DRAM spread uniformly over ±DRAMJitter around the
// unloaded latency, the same on every run.
func TestDRAMJitter(t *testing.T) {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	j := cfg.Latency.DRAMJitter
	require.Positive(t, j)
	h, err := New(cfg, Launch{Occupancy: 8}, Timing)
	require.NoError(t, err)
	m := h.Memory()
	const n = 20000
	var sum float64
	lo, hi := int64(j), int64(-j)
	low := 0
	for i := uint64(0); i < n; i++ {
		d := m.loadLatency(i*7919, 0, i*13)
		assert.Equal(t, d, m.loadLatency(i*7919, 0, i*13), "deterministic")
		sum += float64(d)
		lo, hi = min(lo, d), max(hi, d)
		if d < 0 {
			low++
		}
	}
	assert.InDelta(t, 0, sum/n, float64(j)/20, "mean: the unloaded latency")
	assert.GreaterOrEqual(t, lo, int64(-j))
	assert.LessOrEqual(t, hi, int64(j))
	assert.Less(t, lo, int64(-j*9/10), "reaches the bottom of the range")
	assert.Greater(t, hi, int64(j*9/10), "and the top")
	assert.InDelta(t, n/2, low, n/20, "half below")
}

func TestFunctionalOutcomeIsZero(t *testing.T) {
	h := newTest(t, "h100")
	out := h.SM(0).Observe(acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + uint64(4*l) }))
	assert.Zero(t, out.Latency, "functional mode leaves latency to the timing model")
	assert.Equal(t, 1, h.SM(0).Pending())
	h.Drain()
	assert.Zero(t, h.SM(0).Pending())
}
