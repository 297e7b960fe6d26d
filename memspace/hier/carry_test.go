package hier

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
)

// readLines has SM 0 read lines whole lines from base up, coalesced, in
// the timing hierarchy, and returns the DRAM sectors it read.
func readLines(t *testing.T, h *Hierarchy, lines uint64) uint64 {
	t.Helper()
	sm := h.SM(0)
	sm.SetCycle(100)
	for i := range lines {
		sm.Observe(acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + i<<7 + uint64(4*l) }))
	}
	return h.Counts()[DRAMReadSectors]
}

// A later launch that adopts an earlier one's L2 finds its lines there; a
// copy from the host into them (Invalidate) leaves none; a launch of
// another geometry does not adopt.
func TestL2CarriesAcrossLaunches(t *testing.T) {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	const lines = 4096 // 512 KiB
	first, err := New(cfg, Launch{Occupancy: 8}, Timing)
	require.NoError(t, err)
	require.EqualValues(t, 4*lines, readLines(t, first, lines), "a clean L2: every sector from DRAM")
	after := first.Memory().Snapshot()

	tests := []struct {
		name  string
		prep  func(m *Memory)
		dram  uint64
		adopt bool
	}{
		{"adopted", func(*Memory) {}, 0, true},
		{"half invalidated", func(m *Memory) { m.Invalidate(base, lines/2<<7) }, 4 * lines / 2, true},
		{"all invalidated", func(m *Memory) { m.Invalidate(base, lines<<7) }, 4 * lines, true},
		{"an unaligned range drops the lines it touches", func(m *Memory) { m.Invalidate(base+100, 200) }, 4 * 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := after.Snapshot()
			tt.prep(prev)
			next, err := New(cfg, Launch{Occupancy: 8}, Timing)
			require.NoError(t, err)
			require.Equal(t, tt.adopt, next.Memory().Adopt(prev))
			assert.EqualValues(t, tt.dram, readLines(t, next, lines))
		})
	}
	t.Run("the snapshot is not changed by the launch that adopts it", func(t *testing.T) {
		next, err := New(cfg, Launch{Occupancy: 8}, Timing)
		require.NoError(t, err)
		require.True(t, next.Memory().Adopt(after))
		next.Memory().Invalidate(base, lines<<7)
		again, err := New(cfg, Launch{Occupancy: 8}, Timing)
		require.NoError(t, err)
		require.True(t, again.Memory().Adopt(after))
		assert.Zero(t, readLines(t, again, lines))
	})
	t.Run("another geometry starts clean", func(t *testing.T) {
		small := *cfg
		small.L2.SizeBytes /= 2
		small.L2.Slices /= 2
		other, err := New(&small, Launch{Occupancy: 8}, Timing)
		require.NoError(t, err)
		assert.False(t, other.Memory().Adopt(after))
		assert.False(t, other.Memory().Adopt(nil))
		assert.EqualValues(t, 4*lines, readLines(t, other, lines))
	})
}

// A partly written sector carried to the next launch is still partly
// written there: evicted, it is read from DRAM before it is written back.
func TestL2CarriesPartlyWrittenSectors(t *testing.T) {
	base0, err := Profile("h100")
	require.NoError(t, err)
	cfg := *base0
	cfg.L2.SizeBytes, cfg.L2.Slices = 1<<20, 8 // a small L2, quick to fill
	const partial = 64                         // lines written 4 bytes each
	first, err := New(&cfg, Launch{Occupancy: 8}, Timing)
	require.NoError(t, err)
	sm := first.SM(0)
	sm.SetCycle(100)
	for i := uint64(0); i < partial/32; i++ {
		// 32 lanes, each 4 bytes at the start of its own line.
		sm.Observe(acc(memspace.Global, memspace.Store, 4, all, func(l int) uint64 { return base + (i*32+uint64(l))<<7 }))
	}
	after := first.Memory().Snapshot()
	evict := func(adopt bool) Counts {
		next, err := New(&cfg, Launch{Occupancy: 8}, Timing)
		require.NoError(t, err)
		if adopt {
			require.True(t, next.Memory().Adopt(after))
		}
		sm := next.SM(0)
		sm.SetCycle(100)
		for i := uint64(0); i < 4*(1<<20)>>7; i++ { // four L2s' worth of other lines
			sm.Observe(acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + 1<<30 + i<<7 + uint64(4*l) }))
		}
		return next.Counts()
	}
	clean, carried := evict(false), evict(true)
	assert.EqualValues(t, partial, carried[DRAMWriteSectors]-clean[DRAMWriteSectors], "each carried dirty sector written back once")
	assert.EqualValues(t, partial, carried[DRAMReadSectors]-clean[DRAMReadSectors], "each carried partly written sector read before it is written")
}
