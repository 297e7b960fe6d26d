package hier

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A profile's host_link is checked, apertures must not overlap, and a
// managed aperture counts the bytes of its pages on the device.
func TestHostLinkConfigAndApertures(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  HostLinkConfig
		want string
	}{
		{"zero", HostLinkConfig{}, ""},
		{"negative bandwidth", HostLinkConfig{ReadBytesPerCycle: -1}, "must not be negative"},
		{"page not a power of two", HostLinkConfig{MigrateBytes: 3000}, "managed_page_bytes 3000 is not a power of two"},
		{"negative packet rate", HostLinkConfig{WriteTxnCycles: -2}, "must not be negative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.validate()
			if c.want == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, c.want)
			}
		})
	}
	cfg, err := LoadConfig("h100")
	require.NoError(t, err)
	m := newMemory(cfg)
	a := NewAperture(Sysmem, 1<<20, 1<<20, 0, 0)
	b := NewAperture(Managed, 1<<20+4096, 1<<16, cfg.HostLink.MigrateBytes, PageHost)
	assert.ErrorContains(t, m.SetApertures([]*Aperture{a, b}), "overlap")
	c := NewAperture(Managed, 4<<20, 3<<16+100, 1<<16, PageUntouched)
	require.Len(t, c.Pages, 4, "a partial last page")
	assert.Zero(t, c.Resident())
	c.Pages[0], c.Pages[3] = PageDevice, PageDevice
	assert.Equal(t, uint64(1<<16+100), c.Resident(), "the last page counts its bytes only")
	require.NoError(t, m.SetApertures([]*Aperture{c, a}))
	assert.Same(t, a, m.aperture(a.Base>>7), "found by its lines")
	assert.Same(t, c, m.aperture((c.Base+c.Bytes-1)>>7))
	assert.Nil(t, m.aperture((c.Base+c.Bytes+1024)>>7), "device memory")
}

// A write's fault migrates host-resident pages in WriteMigrateFactor of
// the time a read's takes (testdata/host: write-only first touches ran
// 9-16% faster than reads of the same memory); untouched pages are made
// at the populate rate either way.
func TestWriteFaultMigrates(t *testing.T) {
	cfg, err := LoadConfig("h100")
	require.NoError(t, err)
	hl := cfg.HostLink
	require.Greater(t, hl.WriteMigrateFactor, 0.0)
	lastArrival := func(op uint8, state PageState) float64 {
		m := newMemory(cfg)
		a := NewAperture(Managed, 4<<20, 2<<20, hl.MigrateBytes, state)
		require.NoError(t, m.SetApertures([]*Aperture{a}))
		m.migrate(a, txn{line: a.Base >> 7, mask: 1, op: op}, 0)
		return float64(a.arrive[len(a.Pages)-1]) - float64(hl.FaultCycles)
	}
	read, write := lastArrival(opRead, PageHost), lastArrival(opWrite, PageHost)
	assert.InDelta(t, float64(2<<20)/hl.MigrateBytesPerCycle, read, 2, "a read's fault moves 2 MiB at the migrate rate")
	assert.InDelta(t, hl.WriteMigrateFactor*read, write, 2)
	assert.Equal(t, lastArrival(opRead, PageUntouched), lastArrival(opWrite, PageUntouched), "populating does not depend on the access")
}

// A line written in part counts its bytes and the runs of contiguous bytes
// they make, across sector boundaries (a mapped write leaves one packet a
// run: HostLinkConfig.WriteRunCycles).
func TestWrittenRuns(t *testing.T) {
	cfg, err := LoadConfig("h100")
	require.NoError(t, err)
	m := newMemory(cfg)
	const all = 0xFFFFFFFF
	for _, c := range []struct {
		name        string
		mask, part  uint8
		wb          [4]uint32
		bytes, runs int
	}{
		{"a whole line", 0xF, 0, [4]uint32{}, 128, 1},
		{"two whole sectors apart", 0x5, 0, [4]uint32{}, 64, 2},
		{"a word a line (stride 32)", 0x1, 0x1, [4]uint32{0xF}, 4, 1},
		{"a word a sector (stride 8)", 0xF, 0xF, [4]uint32{0xF, 0xF, 0xF, 0xF}, 16, 4},
		{"every other word (stride 2)", 0xF, 0xF, [4]uint32{0x0F0F0F0F, 0x0F0F0F0F, 0x0F0F0F0F, 0x0F0F0F0F}, 64, 16},
		{"a run over a sector boundary", 0x3, 0x3, [4]uint32{0xF0000000, 0x0000000F}, 8, 1},
		{"a part sector after a whole one", 0x3, 0x2, [4]uint32{0, 0xF}, 36, 1},
		{"a whole sector after a part one ending short", 0x3, 0x1, [4]uint32{0x0F000000, all}, 36, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			bytes, runs := m.writtenRuns(txn{mask: c.mask, part: c.part}, c.wb[:])
			assert.Equal(t, uint64(c.bytes), bytes)
			assert.Equal(t, c.runs, runs)
		})
	}
}

// TestHostLinesSweeps holds the host's memory of lines written in part
// (HostLinkConfig.HostWriteCacheBytes) to what a store_perm sweep of mapped
// memory asks of it: a buffer swept again and again misses only on the
// first sweep when it fits, about half the time at one and a half times
// the capacity, and nearly always at four times (random replacement: the
// GPU's writes slow from 24 MiB on and not all at once); two arrays given
// the same lines answer the same.
func TestHostLinesSweeps(t *testing.T) {
	const capacity, line = 1 << 20, 128
	for _, c := range []struct {
		name      string
		footprint float64 // in capacities
		lo, hi    float64 // the share of misses after the first sweeps
	}{
		{"half the capacity", 0.5, 0, 0},
		{"nearly the capacity", 0.95, 0, 0},
		{"one and a half", 1.5, 0.4, 0.75},
		{"four times", 4, 0.9, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := newHostLines(capacity, line), newHostLines(capacity, line)
			lines := uint64(c.footprint * capacity / line)
			var miss, n int
			for sweep := 0; sweep < 6; sweep++ {
				for l := uint64(0); l < lines; l++ {
					held := a.touch(l)
					require.Equal(t, held, b.touch(l), "line %d of sweep %d", l, sweep)
					if sweep >= 2 {
						n++
						if !held {
							miss++
						}
					}
				}
			}
			share := float64(miss) / float64(n)
			assert.GreaterOrEqual(t, share, c.lo)
			assert.LessOrEqual(t, share, c.hi)
		})
	}
	assert.Nil(t, newHostLines(line*hostLineWays-1, line), "less than a set holds nothing")
}

// TestPartialWriteMissCostsTheLink: a mapped line written in part that the
// host does not hold takes write_miss_cycles on the link, one it holds the
// link's packet rate; lines written whole never ask the host's cache; and
// a line of several runs pays its runs whether or not it is held.
func TestPartialWriteMissCostsTheLink(t *testing.T) {
	h := newTest(t, "h100")
	m := h.Memory()
	hl := &m.cfg.HostLink
	require.Greater(t, hl.WriteMissCycles, hl.WriteTxnCycles)
	const base = 1 << 32
	require.NoError(t, m.SetApertures([]*Aperture{NewAperture(Sysmem, base, 1<<20, 0, PageHost)}))
	line := uint64(base) >> (m.g.sectorShift + m.g.lineShift)
	word := []uint32{0xF, 0, 0, 0}             // one run: a word of sector 0
	strided := []uint32{0xF, 0xF, 0xF, 0xF}    // four runs: a word a sector
	cost := func(t txn, wb []uint32) float64 { // link cycles the write takes from an idle link
		m.linkWriteFree = 0
		m.serveSysmem(t, 0, 0, wb)
		return m.linkWriteFree
	}
	part1 := txn{line: line, mask: 0x1, part: 0x1, lanes: 1, op: opWrite}
	assert.InDelta(t, hl.WriteMissCycles, cost(part1, word), 1e-9, "first partial write of the line: a miss")
	assert.InDelta(t, hl.WriteTxnCycles, cost(part1, word), 1e-9, "the same line again: held")
	whole := txn{line: line + 1, mask: 0xF, op: opWrite}
	assert.InDelta(t, float64(128+hl.WriteOverheadBytes)/hl.WriteBytesPerCycle, cost(whole, nil), 1e-9, "a whole line: its bytes")
	part4 := txn{line: line + 1, mask: 0xF, part: 0xF, lanes: 1, op: opWrite}
	assert.Nil(t, m.hostLines.find(line+1), "a whole line is not a partial write: the host's cache is not asked")
	assert.InDelta(t, 4*hl.WriteRunCycles, cost(part4, strided), 1e-9, "four runs, the line not held")
	assert.InDelta(t, 4*hl.WriteRunCycles, cost(part4, strided), 1e-9, "four runs, the line held")
}
