package hier

import (
	"fmt"
	"math/bits"
	"sort"
)

// HostLinkConfig is what a kernel's accesses to memory on the host cost:
// system memory (pinned and mapped host memory, which the GPU reaches over
// the host link, PCIe) and managed memory (migrated to the device on
// first touch). Latencies in SM cycles, bandwidths in bytes per SM cycle.
// A zero config makes host memory cost what device memory costs.
type HostLinkConfig struct {
	// LatencyCycles is what a read of system memory waits beyond an L2
	// hit: the round trip over the link to host memory.
	LatencyCycles uint32 `json:"latency_cycles"`
	// ReadBytesPerCycle and WriteBytesPerCycle are the link's bandwidth
	// for the GPU's reads of host memory and its posted writes.
	ReadBytesPerCycle  float64 `json:"read_bytes_per_cycle"`
	WriteBytesPerCycle float64 `json:"write_bytes_per_cycle"`
	// CacheSysmem says whether the L2 keeps the system-memory sectors it
	// read (a second read of one in the same kernel hits); writes go
	// through to the link.
	CacheSysmem bool `json:"cache_sysmem"`

	// WriteTxnCycles and ReadTxnCycles are the fewest cycles one
	// transaction takes on the link whatever its size (the link's
	// packet rate: a warp's strided accesses, a sector each, are bound
	// by it). Read requests carry ReadOverheadBytes beside their
	// sectors (the completion's header); writes carry WriteOverheadBytes
	// beside the bytes written (a sector written in part: 4 bytes).
	ReadTxnCycles      float64 `json:"read_txn_cycles"`
	WriteTxnCycles     float64 `json:"write_txn_cycles"`
	ReadOverheadBytes  int     `json:"read_overhead_bytes"`
	WriteOverheadBytes int     `json:"write_overhead_bytes"`
	// WriteRunCycles, if not 0, is what each run of contiguous bytes of a
	// line written in part takes on the link when the line has several:
	// they leave one packet at a time (H200, testdata/host/hostmem8.jsonl
	// group mapped8: store_perm into mapped memory with strides of 2 and
	// 8 words, several words a line in separate runs, writes 4 bytes in
	// 2.0 ns at 4-128 MiB, where one word a line takes 1.3 ns at 4-16
	// MiB).
	WriteRunCycles float64 `json:"write_run_cycles,omitempty"`
	// HostWriteCacheBytes, if not 0, is how much of the lines the GPU
	// writes in part the host keeps at hand (in lines of the GPU's, with
	// random replacement), and WriteMissCycles the fewest cycles a partial
	// write of a line it no longer holds takes on the link: the host reads
	// the line from its DRAM to merge the bytes. (H200, hostmem9.jsonl
	// group mapw: store_perm into mapped memory with a stride of 32 words,
	// which sweeps the buffer 32 times writing a word a line, writes 3.2
	// GB/s at 8-16 MiB, 2.9 at 24, 2.3 at 32 and 2.0 at 64-128, where the
	// same words written a 2 or 8 MiB window at a time stay at 3.2 GB/s at
	// every size and 2 MiB host pages change nothing; strides of 2 and 8,
	// bound by WriteRunCycles, do not slow.)
	HostWriteCacheBytes int64   `json:"host_write_cache_bytes,omitempty"`
	WriteMissCycles     float64 `json:"write_miss_cycles,omitempty"`

	// Managed memory, in pages of MigrateBytes aligned in the buffer. A
	// kernel's touch of a page that is not on the device faults: the
	// first fault of a launch is served FaultCycles later, each later
	// one FaultBatchCycles later; a fault migrates its page and the pages
	// after it up to PrefetchBytes (the driver's prefetch), one after
	// another at MigrateBytesPerCycle, and a touch halfway through
	// them migrates the next PrefetchBytes ahead with no fault. A page
	// nobody has touched is made on the device instead, at
	// PopulateBytesPerCycle. Buffers larger than HostCacheBytes move at
	// the *BeyondCache rates (the host's data no longer in its
	// last-level cache). Zero: managed memory costs what device memory
	// costs.
	MigrateBytes                     int     `json:"managed_page_bytes"`
	PrefetchBytes                    int     `json:"managed_prefetch_bytes"`
	FaultCycles                      uint32  `json:"managed_fault_cycles"`
	FaultBatchCycles                 uint32  `json:"managed_fault_batch_cycles"`
	MigrateBytesPerCycle             float64 `json:"managed_migrate_bytes_per_cycle"`
	MigrateBeyondCacheBytesPerCycle  float64 `json:"managed_migrate_beyond_cache_bytes_per_cycle"`
	PopulateBytesPerCycle            float64 `json:"managed_populate_bytes_per_cycle"`
	PopulateBeyondCacheBytesPerCycle float64 `json:"managed_populate_beyond_cache_bytes_per_cycle"`
	HostCacheBytes                   int64   `json:"host_cache_bytes"`
	// WriteMigrateFactor is the time the pages a write's fault migrates
	// from the host take, as a fraction of a read's (0: the same). A
	// kernel that faults on reads (or reads before it writes) moves them
	// at the rates above.
	WriteMigrateFactor float64 `json:"managed_write_migrate_factor,omitempty"`
}

func (c *HostLinkConfig) validate() error {
	if c.ReadBytesPerCycle < 0 || c.WriteBytesPerCycle < 0 || c.MigrateBytesPerCycle < 0 || c.PopulateBytesPerCycle < 0 ||
		c.MigrateBeyondCacheBytesPerCycle < 0 || c.PopulateBeyondCacheBytesPerCycle < 0 || c.ReadOverheadBytes < 0 || c.WriteOverheadBytes < 0 ||
		c.ReadTxnCycles < 0 || c.WriteTxnCycles < 0 || c.WriteRunCycles < 0 || c.HostWriteCacheBytes < 0 || c.WriteMissCycles < 0 || c.PrefetchBytes < 0 || c.HostCacheBytes < 0 || c.WriteMigrateFactor < 0 {
		return fmt.Errorf("bandwidths and overheads must not be negative")
	}
	if c.MigrateBytes < 0 || (c.MigrateBytes > 0 && c.MigrateBytes&(c.MigrateBytes-1) != 0) {
		return fmt.Errorf("managed_page_bytes %d is not a power of two", c.MigrateBytes)
	}
	return nil
}

// ApertureKind says where a range of addresses lives.
type ApertureKind uint8

const (
	// Sysmem is host memory the GPU reaches over the host link (pinned
	// and mapped allocations).
	Sysmem ApertureKind = iota + 1
	// Managed is managed memory: device memory once its pages have
	// migrated (Aperture.Pages).
	Managed
)

func (k ApertureKind) String() string {
	switch k {
	case Sysmem:
		return "sysmem"
	case Managed:
		return "managed"
	}
	return "device"
}

// PageState is where one page of managed memory is.
type PageState uint8

const (
	// PageHost: on the host (the host wrote it); a kernel's touch
	// migrates it.
	PageHost PageState = iota
	// PageUntouched: never touched; a kernel's touch makes it on the
	// device, moving nothing.
	PageUntouched
	// PageDevice: on the device.
	PageDevice
)

// Aperture is a range of addresses that is not device memory: system
// memory, or managed memory with the state of each of its pages (of
// HostLinkConfig.MigrateBytes). A launch's Memory updates Pages in place,
// so that a program of several launches carries them from one to the next.
type Aperture struct {
	Base, Bytes uint64
	Kind        ApertureKind
	Pages       []PageState
	// PageBytes is the size of Pages' pages (the last may be partial).
	PageBytes uint64
	// arrive is, per page, the cycle its migration ends (timing modes);
	// migrate and populate the rates this aperture's pages move at.
	arrive            []uint64
	migrate, populate float64
}

// NewAperture returns an aperture of kind k over [base, base+bytes). A
// managed one starts with every page in state initial, pages of
// pageBytes (a power of two; HostLinkConfig.MigrateBytes).
func NewAperture(k ApertureKind, base, bytes uint64, pageBytes int, initial PageState) *Aperture {
	a := &Aperture{Base: base, Bytes: bytes, Kind: k}
	if k == Managed {
		if pageBytes <= 0 {
			pageBytes = 64 << 10
		}
		n := (bytes + uint64(pageBytes) - 1) / uint64(pageBytes)
		a.Pages = make([]PageState, n)
		a.PageBytes = uint64(pageBytes)
		for i := range a.Pages {
			a.Pages[i] = initial
		}
	}
	return a
}

// Resident is the bytes of a managed aperture on the device.
func (a *Aperture) Resident() uint64 {
	var n uint64
	for i, p := range a.Pages {
		if p == PageDevice {
			n += a.PageLen(i)
		}
	}
	return n
}

// PageLen is the bytes of page i (the last one may be partial).
func (a *Aperture) PageLen(i int) uint64 {
	return min(a.PageBytes, a.Bytes-uint64(i)*a.PageBytes)
}

// SetApertures tells the memory which address ranges are host or managed
// memory (none by default: every address is device memory). The ranges
// must not overlap; managed apertures' Pages are updated as kernels touch
// them.
func (m *Memory) SetApertures(as []*Aperture) error {
	sorted := append([]*Aperture(nil), as...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Base < sorted[j].Base })
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1].Base+sorted[i-1].Bytes > sorted[i].Base {
			return fmt.Errorf("apertures at %#x and %#x overlap", sorted[i-1].Base, sorted[i].Base)
		}
	}
	hl := &m.cfg.HostLink
	for _, a := range sorted {
		if a.Kind == Managed {
			a.arrive = make([]uint64, len(a.Pages))
			a.migrate, a.populate = hl.MigrateBytesPerCycle, hl.PopulateBytesPerCycle
			if hl.HostCacheBytes > 0 && a.Bytes > uint64(hl.HostCacheBytes) {
				if hl.MigrateBeyondCacheBytesPerCycle > 0 {
					a.migrate = hl.MigrateBeyondCacheBytesPerCycle
				}
				if hl.PopulateBeyondCacheBytesPerCycle > 0 {
					a.populate = hl.PopulateBeyondCacheBytesPerCycle
				}
			}
		}
	}
	m.apert = sorted
	return nil
}

// aperture returns the aperture holding line, or nil (device memory).
func (m *Memory) aperture(line uint64) *Aperture {
	addr := line << (m.g.sectorShift + m.g.lineShift)
	i := sort.Search(len(m.apert), func(i int) bool { return m.apert[i].Base+m.apert[i].Bytes > addr })
	if i < len(m.apert) && m.apert[i].Base <= addr {
		return m.apert[i]
	}
	return nil
}

// serveSysmem serves a transaction on system memory from an SM of
// partition part: counted at the L2 (which keeps read sectors when
// CacheSysmem), its misses and writes carried over the host link. A line
// homed in the other partition is looked up at a near slice first and at
// its home over the fabric, as device memory is (Nsight Compute counts
// both: the sysmem sectors of a coalesced copy are 1.5 times its data's).
// It returns the latency.
func (m *Memory) serveSysmem(t txn, part int, now uint64, wb []uint32) uint32 {
	c := m.tally.at(t.inst)
	hl := &m.cfg.HostLink
	home := m.sliceOf(t.line)
	n := uint64(bits.OnesCount8(t.mask))
	looks := n
	if m.partitionOf(home) != part {
		c[L2FarSectors] += n
		if m.cfg.L2.NearCopies {
			looks = 2 * n
			c[L2FabricSectors] += n
		}
	}
	op := t.op & opMask
	base := m.cfg.Latency.L2HitNear
	if op == opWrite {
		c[L2WriteSectors] += looks
		c[L2SysmemWriteSectors] += looks
		if !t.konst {
			c[L2TexWriteSectors] += n
		}
		if hl.CacheSysmem {
			// A write updates a kept copy.
			if e := m.slices[home].find(t.line); e != nil {
				e.valid |= t.mask
			}
		}
		payload := n << m.g.sectorShift
		least := hl.WriteTxnCycles
		if t.lanes != 0 {
			payload = n * 4 // a sector written in part: a word
			if len(wb) >= int(m.g.spl) {
				bytes, runs := m.writtenRuns(t, wb)
				payload = bytes
				if runs > 1 && hl.WriteRunCycles > 0 {
					least = max(least, float64(runs)*hl.WriteRunCycles)
				}
			}
			if hl.WriteMissCycles > 0 && !m.hostHolds(t.line) {
				least = max(least, hl.WriteMissCycles)
			}
		}
		c[HostLinkWriteBytes] += payload
		return base + m.link(&m.linkWriteFree, payload+uint64(hl.WriteOverheadBytes), hl.WriteBytesPerCycle, least, now)
	}
	// Reads, and atomics (performed by the host's memory: a read and a
	// write over the link).
	c[L2ReadSectors] += looks
	c[L2SysmemReadSectors] += looks
	if !t.konst {
		c[L2TexReadSectors] += n
	}
	miss := t.mask
	if hl.CacheSysmem && op == opRead {
		e := m.lookup(home, t.line, prioNormal, c, now)
		miss &^= e.valid
		hit := uint64(bits.OnesCount8(t.mask &^ miss))
		c[L2ReadHit] += hit
		if !t.konst {
			c[L2TexReadHit] += hit
		}
		e.valid |= t.mask
	}
	nm := uint64(bits.OnesCount8(miss))
	if nm == 0 {
		return base
	}
	c[HostLinkReadBytes] += nm << m.g.sectorShift
	wait := m.link(&m.linkReadFree, nm<<m.g.sectorShift+uint64(hl.ReadOverheadBytes), hl.ReadBytesPerCycle, hl.ReadTxnCycles, now)
	if op != opRead {
		c[HostLinkWriteBytes] += nm << m.g.sectorShift
		m.link(&m.linkWriteFree, nm<<m.g.sectorShift+uint64(hl.WriteOverheadBytes), hl.WriteBytesPerCycle, hl.WriteTxnCycles, now)
	}
	return base + hl.LatencyCycles + wait
}

// hostHolds reports whether the host still holds line, written in part
// before, and holds it from now on (HostLinkConfig.HostWriteCacheBytes;
// false when the host keeps none).
func (m *Memory) hostHolds(line uint64) bool {
	if m.hostLines == nil {
		m.hostLines = newHostLines(m.cfg.HostLink.HostWriteCacheBytes, m.cfg.LineBytes)
		if m.hostLines == nil {
			return false
		}
	}
	return m.hostLines.touch(line)
}

// link queues one transaction of bytes bytes on one direction of the host
// link (free: when it is next free) from cycle now, for at least
// minCycles, and returns the cycles until it has crossed.
func (m *Memory) link(free *float64, bytes uint64, bytesPerCycle, minCycles float64, now uint64) uint32 {
	if bytesPerCycle <= 0 {
		return 0
	}
	start := max(float64(now), *free)
	*free = start + max(float64(bytes)/bytesPerCycle, minCycles)
	return uint32(*free - float64(now))
}

// migrate makes the page of a managed aperture that line lies in resident
// on the device (a fault: it and the pages after it up to PrefetchBytes
// migrate, the first of a launch after FaultCycles, later ones after
// FaultBatchCycles), counting the faults and the bytes moved, starts the
// next prefetch when the touch is halfway through one, and returns the
// cycles from now until the page is there (0 if it already is).
func (m *Memory) migrate(a *Aperture, t txn, now uint64) uint32 {
	addr := t.line << (m.g.sectorShift + m.g.lineShift)
	p := int((addr - a.Base) / a.PageBytes)
	if p >= len(a.Pages) {
		return 0
	}
	hl := &m.cfg.HostLink
	ahead := max(1, hl.PrefetchBytes/int(a.PageBytes))
	write := t.op&opMask == opWrite
	if a.Pages[p] != PageDevice {
		c := m.tally.at(t.inst)
		c[ManagedFaults]++
		lat := hl.FaultBatchCycles
		if !m.faulted {
			lat = hl.FaultCycles
			m.faulted = true
		}
		m.request(a, p, ahead, float64(now)+float64(lat), c, write)
	} else if q := p + ahead/2; ahead > 1 && q < len(a.Pages) && a.Pages[q] != PageDevice {
		m.request(a, q, ahead, float64(now), m.tally.at(t.inst), write)
	}
	if a.arrive[p] > now {
		return uint32(min(a.arrive[p]-now, 1<<31))
	}
	return 0
}

// request migrates (or makes) the pages of a from p on, up to n of them,
// that are not on the device, one after another from cycle at on; write
// says a write asked (HostLink.WriteMigrateFactor).
func (m *Memory) request(a *Aperture, p, n int, at float64, c *Counts, write bool) {
	factor := 1.0
	if f := m.cfg.HostLink.WriteMigrateFactor; write && f > 0 {
		factor = f
	}
	for q := p; q < min(p+n, len(a.Pages)); q++ {
		page := float64(a.PageLen(q))
		if a.Pages[q] == PageDevice {
			continue
		}
		bw := a.migrate
		if a.Pages[q] == PageHost {
			c[ManagedMigratedBytes] += a.PageLen(q)
			page *= factor
		} else {
			bw = a.populate
		}
		a.Pages[q] = PageDevice
		start := max(at, m.migrateFree)
		if bw > 0 {
			m.migrateFree = start + page/bw
		} else {
			m.migrateFree = start
		}
		a.arrive[q] = uint64(m.migrateFree)
	}
}

// writtenRuns returns the bytes write t writes into its line and the runs
// of contiguous bytes they make (a sector written in part writes the bytes
// of its mask in wb; a whole one, all of its bytes).
func (m *Memory) writtenRuns(t txn, wb []uint32) (bytes uint64, runs int) {
	prev := false // the byte before the sector's first was written
	for j := 0; j < int(m.g.spl); j++ {
		bit := uint8(1) << j
		var w uint32
		switch {
		case t.mask&bit == 0:
		case t.part&bit != 0:
			w = wb[j]
		default:
			w = m.g.whole
		}
		if w == 0 {
			prev = false
			continue
		}
		bytes += uint64(bits.OnesCount32(w)) << m.g.unitShift
		starts := w &^ (w << 1) // a byte written whose predecessor is not
		if prev {
			starts &^= 1
		}
		runs += bits.OnesCount32(starts)
		prev = w>>uint(bits.Len32(m.g.whole)-1)&1 != 0
	}
	return bytes, runs
}
