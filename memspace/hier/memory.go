package hier

import (
	"math"
	"math/bits"
)

// txn is one L2 transaction: the sectors of one line an SM reads, writes or
// updates atomically. 16 bytes, buffered per SM in functional mode.
type txn struct {
	line uint64
	inst int32 // instruction id, for attribution
	mask uint8 // sectors
	op   uint8 // opRead..opRed | flags
	// For an atomic or reduction: the most lanes on one address of the
	// line (they serialise) and its distinct addresses on the line, and
	// chain, the sum over its sectors of the most lanes on one address of
	// the sector (the atomic unit takes a sector at a time). For a write:
	// lanes is 1 when the line's sectors are written in part.
	lanes, addrs, chain uint8
	// konst marks a constant-cache miss: traffic that does not come from
	// L1TEX (ncu's srcunit_tex).
	konst bool
	// float marks an atomic or reduction of floating-point arithmetic,
	// cas a compare-and-swap.
	float, cas bool
	// part: for a write, the sectors it writes in part (the SM hands their
	// byte masks to serve beside the transaction).
	part uint8
}

// Transaction operations and flags.
const (
	opRead uint8 = iota
	opWrite
	opAtom
	opRed
	opMask = 0x0f

	flagEnd          = 1 << 4 // last transaction of one access (the drain's unit)
	flagWriteThrough = 1 << 5 // st.wt: written to DRAM at once
	flagEvictFirst   = 1 << 6 // L2::evict_first, .cs, .lu
	flagEvictLast    = 1 << 7 // L2::evict_last
)

// Memory is the shared side: the L2 slices of all partitions and DRAM, with
// their counters. It is used by one goroutine at a time: Hierarchy.Drain in
// functional mode, the cycle loop's SMs in timing mode.
type Memory struct {
	cfg    *Config
	g      geometry
	slices []*cache
	perPar int // slices per partition
	tally  Tally

	// Timing mode: when each slice and each DRAM channel is next free.
	sliceFree []float64
	// fabricFree: when the fabric into each partition is next free
	// (Latency.L2FabricSectorsPerCycle).
	fabricFree []float64
	// lastAtom is, per slice, the line (+1) of the last atomic or
	// reduction it performed (0: none).
	lastAtom []uint64
	chanFree []float64
	chanCyc  float64 // cycles one sector occupies a DRAM channel

	dramUnit uint8 // sectors DRAM reads at a time

	pend pendingFills // timing mode: sectors valid in the tags whose data is still coming

	// Timing mode: the DRAM's recent utilisation, a moving average over
	// about loadWindow cycles, the part of it that writes make, and the
	// cycle they were last updated.
	util, wutil float64
	utilAt      uint64

	// Host memory (host.go): the apertures by base, and when each direction of the host link and the
	// managed migrations are next free (timing modes).
	apert                       []*Aperture
	linkReadFree, linkWriteFree float64
	migrateFree                 float64
	faulted                     bool // a managed page has faulted in this launch
	// hostLines: the lines written in part the host holds (nil until the
	// first such write, HostLinkConfig.HostWriteCacheBytes).
	hostLines *hostLines
}

// loadWindow is the cycles over which the DRAM's utilisation is averaged.
const loadWindow = 2000

func newMemory(cfg *Config) *Memory {
	m := &Memory{cfg: cfg, g: newGeometry(cfg.SectorBytes, cfg.LineBytes)}
	m.perPar = cfg.L2.Slices / cfg.L2.Partitions
	per := cfg.L2.SizeBytes / cfg.L2.Slices
	lru := cfg.L2.Replacement == "lru"
	m.slices = make([]*cache, cfg.L2.Slices)
	for i := range m.slices {
		m.slices[i] = newCache(per, cfg.LineBytes, cfg.L2.Ways, lru, true)
		m.slices[i].spl = int(m.g.spl)
	}
	m.sliceFree = make([]float64, cfg.L2.Slices)
	m.fabricFree = make([]float64, max(cfg.L2.Partitions, 1))
	m.lastAtom = make([]uint64, cfg.L2.Slices)
	m.chanFree = make([]float64, cfg.DRAM.Channels)
	m.chanCyc = float64(cfg.SectorBytes) * float64(cfg.DRAM.Channels) / cfg.DRAM.BytesPerCycle
	m.dramUnit = uint8(max(1, cfg.DRAM.AccessBytes/cfg.SectorBytes))
	m.pend = newPendingFills()
	return m
}

// sliceOf is a line's home slice. Consecutive lines interleave over the
// slices: each aligned run of as many lines as there are slices covers
// every slice once, rotated by a multiplicative hash of the run's number
// (independent of the set hash inside the slice), so that no address
// pattern camps on one slice and every slice homes the same share of any
// large range. (A hash of the line alone left some slices with a few per
// cent more of a transpose's lines than others: the naive transpose, bound
// by the slices' byte-masked writes, came out 6% to 14% slow where the
// H100 spends the same 3.0 cycles a sector at every size; with the
// interleave, 4% to 6%.)
func (m *Memory) sliceOf(line uint64) int {
	n := uint64(len(m.slices))
	run := line / n
	h := (run ^ run>>17) * 0xC2B2AE3D27D4EB4F
	return int((line + h>>32) % n)
}

// Dirty leaves the L2 as a kernel that wrote bytes bytes from base up, in
// order, leaves a write-back cache: the lines it wrote last fill their
// sets at their home slices, every sector dirty, to be written to DRAM
// when the next reads evict them, and (with near copies) half the lines
// keep a clean copy in the partition that does not home them, as the
// writes of SMs spread over both partitions leave. Nothing is counted and
// nothing waits.
// (cudaMemset before a kernel does this; ncu's cache control, which
// flushes the caches before each pass, does not.)
func (m *Memory) Dirty(base, bytes uint64) {
	shift := m.g.sectorShift + m.g.lineShift
	// Lines written before the last two L2s' worth are evicted by then.
	end := base + bytes
	if keep := 2 * uint64(m.cfg.L2.SizeBytes); bytes > keep {
		base = end - keep
	}
	for line := base >> shift; line < end>>shift; line++ {
		m.place(line, true)
		// The SMs that wrote it are spread over the partitions: a line
		// written from the partition that does not home it keeps a
		// clean near copy there, as a far write leaves (the H200's
		// memset leaves 75% of a buffer it set in the L2 for a reading
		// SM, as a kernel's writes do: ncu_hostmem7_l2after.csv).
		if m.cfg.L2.NearCopies {
			home := m.partitionOf(m.sliceOf(line))
			if w := int(((line^line>>17)*0xD6E8FEB86659FD93)>>33) % m.cfg.L2.Partitions; w != home {
				m.placeIn(m.nearSlice(line, w), line, uint8(1)<<(1<<m.g.lineShift)-1, 0)
			}
		}
	}
}

// Params leaves in L2 the lines of a kernel's parameter buffer of bytes
// bytes (constant bank 0), as we take the launch that writes them (after
// ncu's cache flush) to leave them: a block's first parameter load misses
// its SM's constant cache and finds the line in L2, not in DRAM. (Not
// measured directly: with the lines in DRAM the H100 calibration fits
// worse, README "The kernel's parameters at the start of a launch".)
// Nothing is counted and nothing waits.
func (m *Memory) Params(bytes uint64) {
	shift := m.g.sectorShift + m.g.lineShift
	for line := keyParam >> shift; line <= (keyParam+max(bytes, 1)-1)>>shift; line++ {
		m.place(line, false)
	}
}

// place puts every sector of line in its home slice, dirty or clean.
func (m *Memory) place(line uint64, dirty bool) {
	all := uint8(1)<<(1<<m.g.lineShift) - 1
	var d uint8
	if dirty {
		d = all
	}
	m.placeIn(m.sliceOf(line), line, all, d)
}

// Partition returns the L2 partition of slice i.
func (m *Memory) partitionOf(slice int) int { return slice / m.perPar }

// Tally returns the shared side's counters per instruction.
func (m *Memory) Tally() *Tally { return &m.tally }

// serve performs one transaction from an SM of partition part at cycle now
// and returns its latency (meaningful in timing mode only). For a write
// with sectors written in part (t.part), wb holds the written bytes of each
// sector of the line (lineSet.wr).
//
// With L2Config.NearCopies (the H100), a transaction goes to a slice of the
// SM's own partition: the line's home slice when it is homed there, else a
// slice that keeps near copies of the other partition's lines. A read that
// misses a near copy is looked up at the home slice over the fabric
// between the partitions (and from DRAM when the home slice misses too);
// writes update the near copy and go on to the home slice, which holds the
// dirty data; atomics and reductions are performed at the home slice.
// Without it every transaction goes to its home slice, near or far.
func (m *Memory) serve(t txn, part int, now uint64, wb []uint32) uint32 {
	if len(m.apert) > 0 {
		if a := m.aperture(t.line); a != nil {
			if a.Kind == Sysmem {
				return m.serveSysmem(t, part, now, wb)
			}
			w := m.migrate(a, t, now)
			return w + m.serveDevice(t, part, now+uint64(w), wb)
		}
	}
	return m.serveDevice(t, part, now, wb)
}

// serveDevice serves a transaction on device memory (serve).
func (m *Memory) serveDevice(t txn, part int, now uint64, wb []uint32) uint32 {
	home := m.sliceOf(t.line)
	c := m.tally.at(t.inst)
	n := uint64(bits.OnesCount8(t.mask))
	lat := &m.cfg.Latency
	op := t.op & opMask
	far := m.partitionOf(home) != part
	if far {
		c[L2FarSectors] += n
	}
	if !far || !m.cfg.L2.NearCopies {
		base := lat.L2HitNear
		if far {
			base = lat.L2HitFar
		}
		hit, wait := m.access(home, t, c, false, true, true, now, wb)
		if op == opWrite {
			return base + wait
		}
		u := m.pend.until(home, t.line, hit, now)
		f := m.fill(home, t, hit, c, now+uint64(wait))
		lat := base + wait + f
		if f > 0 {
			m.pend.note(home, t.line, t.mask&^hit, now+uint64(lat), now)
		}
		return after(lat, u, now)
	}
	// The time a transaction takes is charged where it is performed: at
	// the near slice for a read its near copy serves whole, else at the
	// home slice. A far write takes both: the near slice updates its copy
	// (Nsight Compute counts far writes at both slices, and the padded
	// transpose, which writes as many sectors as it reads, runs at 74 to
	// 78 of the 80 slices' sectors a cycle from 2048 up), and the home
	// slice performs it. A far read's lookup of its near copy takes none
	// of the near slice's bandwidth (charging it made the DRAM-bound
	// reductions 30% slow).
	near := m.nearSlice(t.line, part)
	switch op {
	case opRead:
		hit, _ := m.access(near, t, c, false, false, false, now, nil)
		miss := t.mask &^ hit
		u := m.pend.until(near, t.line, hit, now)
		if miss == 0 {
			return after(lat.L2HitNear+m.occupy(near, t, n, now), u, now)
		}
		ft := t
		ft.mask = miss
		fw := m.crossFabric(home, uint64(bits.OnesCount8(miss)), now)
		at := now + uint64(fw)
		hit2, wait := m.access(home, ft, c, true, true, true, at, nil)
		u = max(u, m.pend.until(home, t.line, hit2, at))
		f := m.fill(home, ft, hit2, c, at+uint64(wait))
		l := after(lat.L2HitFar+fw+wait+f, u, now)
		m.pend.note(near, t.line, miss, now+uint64(l), now)
		if f > 0 {
			m.pend.note(home, t.line, miss&^hit2, now+uint64(l), now)
		}
		return l
	case opWrite:
		// The near slice updates its copy at its bandwidth; the
		// byte-masked merge is done once, at home.
		m.access(near, t, c, false, false, false, now, nil)
		tw := t
		tw.lanes = 0
		m.occupy(near, tw, n, now)
		fw := m.crossFabric(home, n, now)
		_, wait := m.access(home, t, c, true, true, true, now+uint64(fw), wb)
		return lat.L2HitFar + fw + wait
	default:
		// The near copy is looked up (and dropped: the result lives at
		// home); the operation is performed at the home slice.
		m.access(near, t, c, false, false, false, now, nil)
		m.slices[near].drop(t.line, t.mask)
		fw := m.crossFabric(home, n, now)
		at := now + uint64(fw)
		hit, wait := m.access(home, t, c, true, true, true, at, nil)
		return lat.L2HitFar + fw + wait + m.fill(home, t, hit, c, at+uint64(wait))
	}
}

// crossFabric queues n sectors on the fabric into the partition of slice
// home from cycle now (Latency.L2FabricSectorsPerCycle a cycle each way;
// unset, the fabric takes no time) and returns the cycles they wait.
func (m *Memory) crossFabric(home int, n uint64, now uint64) uint32 {
	r := m.cfg.Latency.L2FabricSectorsPerCycle
	if r <= 0 {
		return 0
	}
	p := m.partitionOf(home)
	start := max(float64(now), m.fabricFree[p])
	m.fabricFree[p] = start + float64(n)/r
	return uint32(start - float64(now))
}

// after is latency lat from cycle now, made to reach at least cycle until
// (0: no constraint).
func after(lat uint32, until, now uint64) uint32 {
	if until > now+uint64(lat) {
		return uint32(min(until-now, 1<<31))
	}
	return lat
}

// nearSlice is the slice of partition part that keeps a near copy of line
// (a line homed in another partition): a second hash over the partition's
// slices.
func (m *Memory) nearSlice(line uint64, part int) int {
	h := (line ^ line>>23) * 0x9E3779B97F4A7C15
	return part*m.perPar + int((h>>40)%uint64(m.perPar))
}

// lookup returns line's slot in slice, touched, or a new one (its valid
// sectors none) allocated with priority prio; a dirty victim is written to
// DRAM, its sectors written in part read from DRAM first (the GPU merges
// them with the rest of the sector: read-modify-write).
func (m *Memory) lookup(slice int, line uint64, prio uint8, c *Counts, now uint64) *slot {
	l2 := m.slices[slice]
	e, victim := l2.lookup(line)
	if e != nil {
		l2.touch(e)
		return e
	}
	opart := victim.part
	e, old, odirty, evicted := l2.alloc(line, prio, victim)
	if evicted && odirty != 0 {
		if rmw := opart & odirty; rmw != 0 {
			c[DRAMReadSectors] += uint64(bits.OnesCount8(rmw))
			m.dram(old, rmw, now, false)
		}
		c[DRAMWriteSectors] += uint64(bits.OnesCount8(odirty))
		m.dram(old, odirty, now, true)
	}
	return e
}

// access looks the sectors of t up in slice, allocating the line on a miss
// (a dirty victim is written to DRAM), counts them (under the fabric's
// counters when fabric is set) and marks them valid; home says whether the
// slice is the line's home (written data is dirty there, and write-through
// stores go to DRAM from there); queue whether the transaction takes the
// slice's bandwidth (timing mode). A read or atomic finds a sector written
// only in part a miss (fill fetches it); a write's sectors written in part
// (their bytes in wb) are kept as such at the home slice until written
// whole or filled, and become valid at a near slice only where it already
// held them. It returns the sectors that hit and the cycles the
// transaction queued at the slice.
func (m *Memory) access(slice int, t txn, c *Counts, fabric, home, queue bool, now uint64, wb []uint32) (hit uint8, wait uint32) {
	n := uint64(bits.OnesCount8(t.mask))
	prio := prioNormal
	switch {
	case t.op&flagEvictFirst != 0:
		prio = prioFirst
	case t.op&flagEvictLast != 0:
		prio = prioLast
	}
	e := m.lookup(slice, t.line, prio, c, now)
	op := t.op & opMask
	hit = e.valid & t.mask
	if op != opWrite {
		hit &^= e.part
	}
	sectors, hits := L2ReadSectors, L2ReadHit
	switch op {
	case opWrite:
		sectors, hits = L2WriteSectors, L2WriteHit
	case opAtom:
		sectors, hits = L2AtomSectors, L2AtomHit
	case opRed:
		sectors, hits = L2RedSectors, L2RedHit
	}
	h := uint64(bits.OnesCount8(hit))
	if op == opWrite && m.cfg.L2.WritesHit {
		h = n
	}
	c[sectors] += n
	c[hits] += h
	switch {
	case fabric:
		c[L2FabricSectors] += n
		c[L2FabricHit] += h
	case t.konst:
	case op == opRead:
		c[L2TexReadSectors] += n
		c[L2TexReadHit] += h
	case op == opWrite:
		c[L2TexWriteSectors] += n
		c[L2TexWriteHit] += h
	}

	// Queueing at the slice that performs the transaction.
	start := now
	if queue {
		wait = m.occupy(slice, t, n, now)
		start += uint64(wait)
	}

	if op == opWrite {
		m.write(slice, e, t, c, home, start, wb)
	} else {
		e.valid |= t.mask
	}
	if op != opRead && home {
		if t.op&flagWriteThrough != 0 {
			c[DRAMWriteSectors] += n
			m.dram(t.line, t.mask, start, true)
		} else {
			e.dirty |= t.mask
		}
	}
	return hit, wait
}

// write updates slot e of slice with write t (access) from cycle now: the
// sectors it writes whole become valid; a sector it writes in part stays
// valid if it was, and is otherwise kept at the home slice as written in
// part, its bytes merged with earlier partial writes' (written whole when
// they cover it). A write-through store's sectors written in part are read
// from DRAM at once (its data goes to DRAM whole).
func (m *Memory) write(slice int, e *slot, t txn, c *Counts, home bool, now uint64, wb []uint32) {
	whole := t.mask &^ t.part
	e.valid |= whole
	e.part &^= whole
	p := t.part &^ (e.valid &^ e.part) // not valid whole before
	if p == 0 {
		return
	}
	if !home {
		e.valid |= t.part &^ p
		return
	}
	if t.op&flagWriteThrough != 0 || len(wb) < int(m.g.spl) {
		c[DRAMReadSectors] += uint64(bits.OnesCount8(p))
		m.dram(t.line, p, now, false)
		e.valid |= p
		e.part &^= p
		return
	}
	w := m.slices[slice].writtenOf(t.line, e)
	for ; p != 0; p &= p - 1 {
		j := bits.TrailingZeros8(p)
		bit := uint8(1) << j
		if e.part&bit == 0 {
			w[j] = wb[j]
		} else {
			w[j] |= wb[j]
		}
		if w[j] == m.g.whole {
			e.part &^= bit
		} else {
			e.part |= bit
		}
		e.valid |= bit
	}
}

// occupy queues a transaction of n sectors at slice from cycle now: the
// slice moves L2BytesPerCycle a cycle, spends the atomic unit's cycles on
// an atomic or reduction and the read-modify-write's on a partial write
// (fractions of a cycle carried). It returns the cycles the transaction
// waited for the slice.
func (m *Memory) occupy(slice int, t txn, n uint64, now uint64) uint32 {
	lat := &m.cfg.Latency
	start := max(float64(now), m.sliceFree[slice])
	busy := float64(int(n)<<m.g.sectorShift) / float64(lat.L2BytesPerCycle)
	switch op := t.op & opMask; {
	case op == opAtom || op == opRed:
		chain := lat.L2AtomicCycles
		if t.float && lat.L2AtomicFloatCycles > 0 {
			chain = lat.L2AtomicFloatCycles
		}
		if t.cas && lat.L2AtomicCASCycles > 0 {
			// Lanes of a compare-and-swap after the first on an address
			// compare against what it left: most fail and write nothing.
			chain = lat.L2AtomicCASCycles
		}
		// The lanes on one address update it one after another, each
		// waiting for the one before (a float add longer than an
		// integer one); the first waits so for the slice's previous
		// atomic only when that was on the same line.
		base, first := lat.L2AtomicTxnCycles, lat.L2AtomicCycles
		if lat.L2AtomicSectorCycles > 0 {
			first = lat.L2AtomicSectorCycles
		}
		repeat := m.lastAtom[slice] == t.line+1
		if repeat {
			base, first = lat.L2AtomicRepeatCycles, chain // the line is at hand
		}
		m.lastAtom[slice] = t.line + 1
		lanes := first + float64(max(t.lanes, 1)-1)*chain
		addrs := float64(t.addrs) * lat.L2AtomicAddrCycles
		if sec := lat.L2AtomicSectorCycles; sec > 0 && t.chain > 0 {
			// The unit takes the line's sectors one after another, each
			// as long as its busiest address's lanes; only the first
			// finds its sector at hand when the line is. The cost per
			// address applies to a line at hand only (its addresses were
			// just updated by the transaction before).
			nsec := bits.OnesCount8(t.mask)
			lanes = first + float64(nsec-1)*sec + float64(max(int(t.chain), 1)-nsec)*chain
			if !repeat {
				addrs = 0
			}
		}
		busy = max(busy, base+max(lanes, addrs))
	case op == opWrite && t.lanes != 0:
		busy = max(busy, lat.L2PartialWriteTxnCycles+float64(bits.OnesCount8(t.part))*lat.L2PartialWriteCycles)
	case op == opRead:
		if lat.L2ReadBytesPerCycle > 0 {
			busy = float64(int(n)<<m.g.sectorShift) / lat.L2ReadBytesPerCycle
		}
		busy = max(busy, lat.L2ReadTxnCycles)
	}
	m.sliceFree[slice] = start + busy
	return uint32(start - float64(now))
}

// fill fetches from DRAM, for a read or an atomic at the home slice, the
// sectors of t that missed, in units of DRAMConfig.AccessBytes (the other
// sectors of a unit become valid too), and returns the DRAM latency.
func (m *Memory) fill(slice int, t txn, hit uint8, c *Counts, now uint64) uint32 {
	op := t.op & opMask
	miss := t.mask &^ hit
	if miss == 0 || op == opWrite {
		return 0
	}
	fetch := miss
	e := m.slices[slice].find(t.line)
	if u := m.dramUnit; u > 1 {
		fetch = expand(miss, u)
		if e != nil {
			fetch &^= e.valid &^ e.part &^ miss
			e.valid |= fetch
		}
	}
	if e != nil {
		e.part &^= fetch // merged with what was written
	}
	c[DRAMReadSectors] += uint64(bits.OnesCount8(fetch))
	return uint32(max(0, int64(m.cfg.Latency.DRAM)+m.loadLatency(t.line, m.dram(t.line, fetch, now, false), now)))
}

// loadLatency is what a read waits beyond the DRAM's unloaded latency:
// wait, its wait for its channel, plus what the DRAM's recent utilisation
// adds (Latency.DRAMLoadCycles, and Latency.DRAMWriteLoadCycles for the
// part of it that writes make), plus the read's jitter
// (Latency.DRAMJitter). Cycles; negative when the jitter takes off more
// than the rest adds.
func (m *Memory) loadLatency(line uint64, wait uint32, now uint64) int64 {
	lat := float64(wait)
	if k, kw := m.cfg.Latency.DRAMLoadCycles, m.cfg.Latency.DRAMWriteLoadCycles; k != 0 || kw != 0 {
		rho := min(m.util, 0.9)
		lat += (k*rho + kw*min(m.wutil, rho)) / (1 - rho)
	}
	if j := m.cfg.Latency.DRAMJitter; j > 0 {
		// u in [0, 1) from the line and the cycle.
		h := (line*0x9E3779B97F4A7C15 ^ now*0xC2B2AE3D27D4EB4F) * 0xD6E8FEB86659FD93
		u := float64(h>>11) / (1 << 53)
		lat += float64(j) * (2*u - 1)
	}
	return int64(math.Round(lat))
}

// dram queues the sectors of mask of line on their channels from cycle now
// (a write if write) and returns the extra cycles the last one waits.
func (m *Memory) dram(line uint64, mask uint8, now uint64, write bool) uint32 {
	// Utilisation: decays linearly over the window, each sector adds its
	// share of the channels' time.
	if now > m.utilAt {
		f := max(0, 1-float64(now-m.utilAt)/loadWindow)
		m.util *= f
		m.wutil *= f
		m.utilAt = now
	}
	u := float64(bits.OnesCount8(mask)) * m.chanCyc / float64(len(m.chanFree)) / loadWindow
	m.util += u
	if write {
		m.wutil += u
	}
	var wait uint32
	for ; mask != 0; mask &= mask - 1 {
		sec := line<<m.g.lineShift | uint64(bits.TrailingZeros8(mask))
		ch := int(((sec ^ sec>>13) * 0x9E3779B97F4A7C15 >> 40) % uint64(len(m.chanFree)))
		start := max(float64(now), m.chanFree[ch])
		m.chanFree[ch] = start + m.chanCyc
		wait = max(wait, uint32(start-float64(now)))
	}
	return wait
}

// BusyUntil is the cycle the last queued L2 slice or DRAM channel work ends
// (timing and windowed modes): a launch is not over before its writes are.
func (m *Memory) BusyUntil() uint64 {
	var t uint64
	for _, f := range m.sliceFree {
		t = max(t, uint64(f))
	}
	for _, f := range m.chanFree {
		t = max(t, uint64(f))
	}
	for _, f := range m.fabricFree {
		t = max(t, uint64(f))
	}
	return max(t, uint64(m.linkReadFree), uint64(m.linkWriteFree), uint64(m.migrateFree))
}
