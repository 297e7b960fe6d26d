package hier

import (
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// SM is the SM side of the hierarchy: the coalescer, the shared-memory
// banks, the L1, the constant and texture caches of one emulated SM, with
// their counters. It implements memspace.Observer. One goroutine at a time
// uses an SM; the counts it keeps depend only on the accesses it is given and
// their order, never on other SMs.
//
// In functional mode the L2 traffic the SM makes (L1 misses, stores,
// atomics) is buffered until Hierarchy.Drain hands it to the shared side in
// a defined order. In timing mode it is served at once and Observe returns
// the access's latency.
type SM struct {
	id   int
	part int // L2 partition this SM is attached to
	cfg  *Config
	g    geometry // sectors and lines in Config units

	fill  uint8 // L1 fill unit, in sectors
	l1    *cache
	cc    *cache // constant cache
	ccSh  uint   // log2 constant-cache line bytes
	tex   *cache // texture cache; nil: texture fetches use the L1
	banks *banks

	ls    lineSet
	sub   memspace.Access // a generic access's part in one space
	tally Tally
	out   []txn
	// outWB: the byte masks (lineSet.wr) of the buffered writes with
	// sectors written in part, spl per such write, in order.
	outWB []uint32

	mem *Memory // non-nil in timing mode
	now uint64

	// Windowed mode: for each buffered transaction, the cycle its access
	// was made, the latency of the access's part on the SM side, and its
	// group (the accesses observed since one SetCycle) with waitBit set when
	// the group waits for its data; the current group; and the completions
	// Resolve reported.
	windowed bool
	outAt    []uint64
	outLat   []uint32
	outGrp   []uint64
	group    uint64
	grpWaits bool
	grpWave  int
	grpFill  int // sectors the group's loads fetch from L2 (FillSectors)
	done     []Completion

	// Windowed mode: the L1 fills in flight (line → the fill), and the
	// groups that hit sectors of a fill not yet resolved (they complete
	// when it does).
	inflight fillTable
	newFills []fillRef // fills of this window, to be dated by Resolve
	dated    []fillRef // fills dated by Resolve, until they arrive
	deps     []groupDep
	extra    []Completion
	// deferred: Resolve left the window's fills to ResolveFills.
	deferred bool
}

// groupDep says that group waits for the fill that group on fetches, and
// completes no earlier than floor (its own access's L1 latency).
type groupDep struct {
	group, on, floor uint64
}

// waitBit marks, in SM.outGrp, a transaction whose data its group waits for.
const waitBit = 1 << 63

// Completion says when the data of a group of accesses (those observed
// between two SetCycle calls) is back at the SM, in windowed mode.
type Completion struct {
	Group uint64
	Cycle uint64
}

// Address keys keep the spaces apart in caches that hold several: the L1
// holds global and local lines, the L2 also constant lines. Local lines are
// keyed by SM, block and warp as well, so that no two warps' local memory
// ever shares a line.
const (
	keyLocal uint64 = 1 << 62
	keyConst uint64 = 1 << 63
	keyParam uint64 = 1<<63 | 1<<62
)

func (s *SM) localKey(o *memspace.Origin) uint64 {
	return keyLocal | uint64(s.id&0xff)<<52 | (o.CTA&0xfff)<<40 | uint64(o.Warp&0x3f)<<34
}

// ID returns the SM's number.
func (s *SM) ID() int { return s.id }

// SetCycle tells the SM the current cycle (timing and windowed modes): the
// shared side's queues are evaluated at it. In windowed mode it also starts a
// new group: the accesses observed until the next SetCycle (one
// instruction's) complete together (Group, Waits, Completions). Cycles must
// not decrease.
func (s *SM) SetCycle(now uint64) {
	s.now = now
	s.grpWave, s.grpFill = 0, 0
	if s.windowed {
		s.group++
		s.grpWaits = false
	}
}

// Wavefronts returns how many passes through the SM's L1/shared data path
// the accesses observed since the last SetCycle need (timing and windowed
// modes): a shared access's wavefronts, a global or local access's 128 B
// lines, a constant access's distinct addresses, a texture fetch's
// requests. A timing model occupies its data pipe for that many cycles.
func (s *SM) Wavefronts() int { return s.grpWave }

// FillSectors returns how many sectors the global and local loads observed
// since the last SetCycle fetch from L2 into the SM (L1 misses and loads
// that bypass L1; not bulk copies, which the TMA unit moves): a timing
// model may hold its data pipe while they arrive (gpu.Timing's
// FillCyclesPerSector).
func (s *SM) FillSectors() int { return s.grpFill }

// Group is the number of the current group of accesses (windowed mode).
func (s *SM) Group() uint64 { return s.group }

// Waits reports whether the current group sent L2 traffic whose data it
// waits for (loads and atomics that missed in the SM's caches): its
// completion cycle is then known only after the next Resolve. Stores and
// reductions wait for nothing.
func (s *SM) Waits() bool { return s.grpWaits }

// Completions returns what the last Resolve reported for this SM: for each
// group that waited, in group order, the cycle its last datum came back.
// The slice is valid until the next Resolve.
func (s *SM) Completions() []Completion { return s.done }

// Tally returns the SM's counters per instruction (the L2 and DRAM
// counters are the shared side's).
func (s *SM) Tally() *Tally { return &s.tally }

// Pending returns the number of L2 transactions buffered for the next
// Drain.
func (s *SM) Pending() int { return len(s.out) }

// Observe counts access a and, in timing mode, returns its latency.
func (s *SM) Observe(a *memspace.Access) memspace.Outcome {
	if a.Mask == 0 {
		return memspace.Outcome{}
	}
	if a.Space == memspace.Shared {
		// The common case of a timing model's steps (a tiled kernel's
		// loads from its tiles): shared accesses send nothing to L2, so
		// the transactions' bookkeeping below has nothing to do.
		s.tally.note(a)
		var lat uint32
		if a.Mask == ^uint32(0) && a.Size != 0 && int(a.Size) <= s.banks.cfg.BankBytes && !a.Sync && !a.AsyncCopy &&
			(a.Kind == memspace.Load || a.Kind == memspace.Store) && fullSpan(a)>>s.banks.rowSh == 0 {
			// shared for its commonest case (the tiled matmul's rows
			// and broadcasts), here without its call and its switches: a
			// full warp's plain load or store of words of one bank width
			// or less in one aligned row of the banks is one wavefront,
			// no conflict.
			c := s.tally.at(a.Origin.Inst)
			s.grpWave++
			if a.Kind == memspace.Load {
				c[SharedLdRequests]++
				c[SharedLdWavefronts]++
			} else {
				c[SharedStRequests]++
				c[SharedStWavefronts]++
			}
			lat = s.cfg.Latency.Shared
		} else {
			lat = s.shared(a)
		}
		if s.windowed || s.mem != nil {
			return memspace.Outcome{Latency: lat}
		}
		return memspace.Outcome{}
	}
	before, deps := len(s.out), len(s.deps)
	if a.Space != memspace.Generic && a.Space != memspace.Texture {
		s.tally.note(a)
	}
	var lat uint32
	switch a.Space {
	case memspace.Global:
		lat = s.global(a, 0)
	case memspace.Local:
		lat = s.global(a, s.localKey(&a.Origin))
	case memspace.Shared:
		lat = s.shared(a)
	case memspace.Const:
		lat = s.constant(a, keyConst)
	case memspace.Param:
		lat = s.constant(a, keyParam)
	case memspace.Texture:
		lat = s.texture(a)
	case memspace.Generic:
		lat = s.generic(a)
	}
	if s.windowed {
		// The L2 part of a waiting transaction's latency adds to what the
		// SM side took before it (Resolve).
		for i := before; i < len(s.outLat); i++ {
			s.outLat[i] = lat
		}
		for i := deps; i < len(s.deps); i++ {
			s.deps[i].floor = s.now + uint64(lat)
		}
		return memspace.Outcome{Latency: lat}
	}
	if s.mem == nil {
		return memspace.Outcome{} // functional mode: no latencies
	}
	return memspace.Outcome{Latency: lat}
}

// generic splits an access in generic addresses by the window each lane's
// address falls in. (The VM normally reports the resolved space.)
func (s *SM) generic(a *memspace.Access) uint32 {
	var masks [3]uint32
	spaces := [3]memspace.Space{memspace.Global, memspace.Shared, memspace.Local}
	for m := a.Mask; m != 0; m &= m - 1 {
		l := bits.TrailingZeros32(m)
		sp, _ := memspace.ResolveGeneric(a.Addr[l])
		for i := range spaces {
			if spaces[i] == sp {
				masks[i] |= 1 << l
			}
		}
	}
	var lat uint32
	for i, m := range masks {
		if m == 0 {
			continue
		}
		s.sub = *a
		s.sub.Space, s.sub.Mask = spaces[i], m
		s.sub.SpanKnown, s.sub.XorSpan = false, 0 // the addresses change
		for x := m; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x)
			_, s.sub.Addr[l] = memspace.ResolveGeneric(a.Addr[l])
		}
		lat = max(lat, s.Observe(&s.sub).Latency)
	}
	return lat
}

// send hands one L2 transaction on: buffered in functional mode, served at
// once (returning its latency) in timing mode.
func (s *SM) send(t txn) uint32 {
	return s.sendWB(t, nil)
}

// sendWB sends write t, whose sectors written in part (t.part) hold the
// bytes of wb.
func (s *SM) sendWB(t txn, wb []uint32) uint32 {
	if s.mem != nil {
		return s.mem.serve(t, s.part, s.now, wb)
	}
	if t.part != 0 {
		s.outWB = append(s.outWB, wb...)
	}
	s.out = append(s.out, t)
	if s.windowed {
		g := s.group
		if op := t.op & opMask; op == opRead || op == opAtom {
			g |= waitBit
			s.grpWaits = true
		}
		s.outAt = append(s.outAt, s.now)
		s.outLat = append(s.outLat, 0)
		s.outGrp = append(s.outGrp, g)
	}
	return 0
}

// endRequest marks the end of one access's L2 traffic (the unit the drain
// interleaves SMs by).
func (s *SM) endRequest(before int) {
	if n := len(s.out); n > before {
		s.out[n-1].op |= flagEnd
	}
}

// l2Evict turns the L2 eviction hint into transaction flags.
func l2Flags(a *memspace.Access) uint8 {
	switch {
	case a.L2Evict == memspace.EvictFirst || a.Cache == memspace.CacheCS || a.Cache == memspace.CacheLU:
		return flagEvictFirst
	case a.L2Evict == memspace.EvictLast:
		return flagEvictLast
	}
	return 0
}

// global handles global and (with a non-zero key) local accesses.
func (s *SM) global(a *memspace.Access, key uint64) uint32 {
	c := s.tally.at(a.Origin.Inst)
	requested := coalesce(&s.g, a, key, &s.ls)
	nsec := s.ls.sectors()
	before := len(s.out)
	defer s.endRequest(before)
	if a.Bulk {
		// The TMA unit's traffic: not the L1 data stage's wavefronts.
		return s.bulk(a, c, nsec)
	}
	s.grpWave += s.ls.n
	local := key != 0
	switch a.Kind {
	case memspace.Load:
		h := hint{allocate: true, prio: prioNormal}
		if local {
			c[LocalLdRequests] += localRequests(a)
			c[LocalLdSectors] += uint64(nsec)
			h = hintFor(a.L1Evict, h)
			return s.loadLines(a, c, LocalLdHit, LocalLdMiss, NumCounters, h)
		}
		c[GlobalLdRequests]++
		c[GlobalLdSectors] += uint64(nsec)
		c[GlobalLdBytes] += uint64(requested)
		h.allocate = s.cfg.L1.CacheGlobalLoads
		switch a.Cache {
		case memspace.CacheCA:
			h.allocate = true
		case memspace.CacheCG, memspace.CacheCV:
			// Cached in L2 only; .cv also drops a stale L1 copy.
			for i := 0; i < s.ls.n; i++ {
				if a.Cache == memspace.CacheCV {
					s.l1.drop(s.ls.line[i], s.ls.mask[i])
				}
			}
			return s.bypassLines(a, c, GlobalLdMiss, GlobalLdFetched)
		case memspace.CacheCS, memspace.CacheLU:
			h.prio = prioFirst
		}
		if !h.allocate {
			return s.bypassLines(a, c, GlobalLdMiss, GlobalLdFetched)
		}
		return s.loadLines(a, c, GlobalLdHit, GlobalLdMiss, GlobalLdFetched, hintFor(a.L1Evict, h))
	case memspace.Store:
		if local {
			c[LocalStRequests] += localRequests(a)
			c[LocalStSectors] += uint64(nsec)
			return s.storeLines(a, key, c, s.cfg.L1.LocalStorePolicy, LocalStHit, LocalStMiss, NumCounters)
		}
		c[GlobalStRequests]++
		c[GlobalStSectors] += uint64(nsec)
		c[GlobalStBytes] += uint64(requested)
		return s.storeLines(a, key, c, s.cfg.L1.StorePolicy, GlobalStHit, GlobalStMiss, GlobalStWritten)
	default: // atomics and reductions are performed in L2
		req, sec, miss, op := GlobalAtomRequests, GlobalAtomSectors, GlobalAtomMiss, opAtom
		if a.Kind == memspace.Reduction {
			req, sec, miss, op = GlobalRedRequests, GlobalRedSectors, GlobalRedMiss, opRed
		}
		c[req]++
		c[sec] += uint64(nsec)
		c[miss] += uint64(nsec)
		var lat uint32
		for i := 0; i < s.ls.n; i++ {
			s.l1.drop(s.ls.line[i], s.ls.mask[i])
			most, addrs, chain := lanesOnLine(a, s.ls.line[i], s.g.sectorShift+s.g.lineShift, s.g.sectorShift, key)
			lat = max(lat, s.send(txn{line: s.ls.line[i], mask: s.ls.mask[i], op: op | l2Flags(a), inst: a.Origin.Inst,
				lanes: most, addrs: addrs, chain: chain, float: a.FloatOp, cas: a.CAS}))
		}
		if a.CAS {
			lat += s.cfg.Latency.L2AtomicCASLatency
		}
		return s.cfg.Latency.L1Hit + lat
	}
}

// localRequests is the requests a local access makes: one per 4-byte word
// of each lane, since the interleaved layout puts each word of the warp in a
// 128 B chunk of its own (ncu counts an 8-byte local load as 2 requests, a
// 16-byte one as 4: local_dyn_index_uniform, nbody_rsqrt at -G).
func localRequests(a *memspace.Access) uint64 {
	if a.WordStride != 0 && a.Size > 4 {
		return uint64(a.Size) / 4
	}
	return 1
}

// loadLines looks the request's lines up in L1 and fetches what misses.
// fetched (NumCounters: none) counts the bytes requested from L2.
func (s *SM) loadLines(a *memspace.Access, c *Counts, hitC, missC, fetched Counter, h hint) uint32 {
	lat := s.cfg.Latency.L1Hit + s.cfg.Latency.PerWavefront*uint32(max(0, s.ls.n-1))
	var l2 uint32
	fl := l2Flags(a)
	for i := 0; i < s.ls.n; i++ {
		line, mask := s.ls.line[i], s.ls.mask[i]
		hit, fetch := s.l1.read(line, mask, s.fill, h)
		c[hitC] += uint64(bits.OnesCount8(hit))
		c[missC] += uint64(bits.OnesCount8(mask &^ hit))
		if hit != 0 && s.windowed {
			lat = max(lat, s.inFlight(line, hit, s.cfg.Latency.L1Hit))
		}
		if fetch != 0 {
			if fetched < NumCounters {
				c[fetched] += uint64(bits.OnesCount8(fetch)) << s.g.sectorShift
			}
			l2 = max(l2, s.send(txn{line: line, mask: fetch, op: opRead | fl, inst: a.Origin.Inst}))
			s.grpFill += bits.OnesCount8(fetch)
			if s.windowed {
				s.startFill(line, fetch)
			}
		}
	}
	return lat + l2
}

// bulk serves the global side of a bulk copy or TMA transfer: straight
// to and from L2, as the TMA unit moves it.
func (s *SM) bulk(a *memspace.Access, c *Counts, nsec int) uint32 {
	if a.Kind == memspace.Load {
		c[BulkRdRequests]++
		return s.bypassLines(a, c, BulkRdSectors, BulkRdBytes)
	}
	c[BulkWrRequests]++
	c[BulkWrSectors] += uint64(nsec)
	// A bulk reduction's read-modify-write happens in L2: its traffic is
	// counted as writes.
	fl := l2Flags(a)
	var l2 uint32
	for i := 0; i < s.ls.n; i++ {
		l2 = max(l2, s.send(txn{line: s.ls.line[i], mask: s.ls.mask[i], op: opWrite | fl, inst: a.Origin.Inst}))
	}
	return s.cfg.Latency.L1Hit + l2
}

// bypassLines sends a load that does not use L1 straight to L2.
func (s *SM) bypassLines(a *memspace.Access, c *Counts, missC, fetched Counter) uint32 {
	var l2 uint32
	fl := l2Flags(a)
	for i := 0; i < s.ls.n; i++ {
		n := bits.OnesCount8(s.ls.mask[i])
		c[missC] += uint64(n)
		c[fetched] += uint64(n) << s.g.sectorShift
		if !a.Bulk {
			s.grpFill += n
		}
		l2 = max(l2, s.send(txn{line: s.ls.line[i], mask: s.ls.mask[i], op: opRead | fl, inst: a.Origin.Inst}))
	}
	return s.cfg.Latency.L1Hit + l2
}

// storeLines applies the store policy to L1 and writes through to L2
// (key: the access's address key).
func (s *SM) storeLines(a *memspace.Access, key uint64, c *Counts, policy string, hitC, missC, written Counter) uint32 {
	h := hintFor(a.L1Evict, hint{allocate: policy == StoreAllocate, prio: prioNormal})
	switch a.Cache {
	case memspace.CacheCG:
		h.allocate = false
	case memspace.CacheCS:
		h.prio = prioFirst
	}
	fl := l2Flags(a)
	if a.Cache == memspace.CacheWT {
		fl |= flagWriteThrough
	}
	byLine := s.cfg.L1.StoreHit == "line"
	fermi := s.cfg.Coalescing == RulesFermi
	s.ls.written(&s.g, a, key)
	for i := 0; i < s.ls.n; i++ {
		line, mask := s.ls.line[i], s.ls.mask[i]
		n := bits.OnesCount8(mask)
		e, victim := s.l1.lookup(line)
		var hit int
		if e != nil {
			if byLine {
				hit = n
			} else {
				hit = bits.OnesCount8(e.valid & mask)
			}
		}
		c[hitC] += uint64(hit)
		c[missC] += uint64(n - hit)
		switch {
		case policy == StoreInvalidate:
			if e != nil {
				s.l1.drop(line, s.g.full)
			}
		case h.allocate:
			if e == nil {
				e, _, _, _ = s.l1.alloc(line, h.prio, victim)
			} else if !h.unchanged {
				s.l1.touch(e)
			}
			e.valid |= mask
		}
		if written < NumCounters {
			if fermi {
				c[written] += uint64(storeTransactionBytes(mask, s.g.spl, 1<<s.g.sectorShift))
			} else {
				c[written] += uint64(n) << s.g.sectorShift
			}
		}
		t := txn{line: line, mask: mask, op: opWrite | fl, inst: a.Origin.Inst, part: s.ls.part[i]}
		if written < NumCounters && (s.mem != nil || s.windowed) && (s.cfg.Latency.L2PartialWriteCycles > 0 || s.cfg.Latency.L2PartialWriteTxnCycles > 0) && t.part != 0 {
			t.lanes = 1
		}
		s.sendWB(t, s.ls.wr[i][:s.g.spl])
	}
	return s.cfg.Latency.Store
}

// shared counts the wavefronts and bank conflicts of a shared access.
func (s *SM) shared(a *memspace.Access) uint32 {
	c := s.tally.at(a.Origin.Inst)
	var wf, ideal int
	if a.Mask == ^uint32(0) && int(a.Size) <= s.banks.cfg.BankBytes && a.Size != 0 &&
		(a.Kind == memspace.Load || a.Kind == memspace.Store || a.Sync) && fullSpan(a)>>s.banks.rowSh == 0 {
		// wavefronts' first answer, without its tests: a full warp's
		// words of one bank width or less, not an atomic's, in one
		// aligned row of the banks (banks.narrow).
		wf, ideal = 1, 1
	} else {
		wf, ideal = s.banks.wavefronts(a)
	}
	s.grpWave += wf
	req, wav, con := SharedLdRequests, SharedLdWavefronts, SharedLdConflicts
	switch a.Kind {
	case memspace.Store:
		req, wav, con = SharedStRequests, SharedStWavefronts, SharedStConflicts
	case memspace.Atomic, memspace.Reduction:
		req, wav, con = SharedAtomRequests, SharedAtomWavefronts, SharedAtomConflicts
	}
	switch {
	case a.Sync:
		req, wav, con = SharedSyncRequests, SharedSyncWavefronts, NumCounters
	case a.AsyncCopy:
		req, wav, con = SharedAsyncRequests, SharedAsyncWavefronts, NumCounters
	}
	c[req]++
	c[wav] += uint64(wf)
	if con < NumCounters {
		c[con] += uint64(wf - ideal)
	}
	return s.cfg.Latency.Shared + s.cfg.Latency.PerWavefront*uint32(max(0, wf-1))
}

// fullSpan is xorSpan(&a.Addr) for a full warp's access a: the producer's
// (Access.SpanKnown) where it gave it.
func fullSpan(a *memspace.Access) uint64 {
	if a.SpanKnown {
		return a.XorSpan
	}
	return xorSpan(&a.Addr)
}

// constant serves a constant- or parameter-bank load: one constant-cache
// access per distinct address, one after another.
func (s *SM) constant(a *memspace.Access, key uint64) uint32 {
	c := s.tally.at(a.Origin.Inst)
	c[ConstRequests]++
	var seen [32]uint64
	n := 0
	for m := a.Mask; m != 0; m &= m - 1 {
		addr := a.Addr[bits.TrailingZeros32(m)]
		if a.Size <= 4 {
			addr &^= 3 // sub-word loads of one word are one access
		}
		j := 0
		for j < n && seen[j] != addr {
			j++
		}
		if j == n {
			seen[n] = addr
			n++
		}
	}
	c[ConstWavefronts] += uint64(n)
	s.grpWave += n
	before := len(s.out)
	defer s.endRequest(before)
	var l2, pend uint32
	misses := 0
	for _, addr := range seen[:n] {
		cl := (key | addr) >> s.ccSh
		if hit, _ := s.cc.read(cl, 1, 1, hint{allocate: true, prio: prioNormal}); hit != 0 {
			c[ConstHit]++
			if s.windowed {
				// A line another warp's miss is still fetching: this
				// warp waits for it too.
				pend = max(pend, s.inFlight(cl, 1, s.cfg.Latency.Const))
			}
			continue
		}
		c[ConstMiss]++
		misses++
		// The constant line's sectors in L2.
		s.ls.reset()
		s.ls.add(&s.g, cl<<s.ccSh, 1<<s.ccSh)
		for i := 0; i < s.ls.n; i++ {
			l2 = max(l2, s.send(txn{line: s.ls.line[i], mask: s.ls.mask[i], op: opRead, inst: a.Origin.Inst, konst: true}))
		}
		if s.windowed {
			// Keyed by the constant cache's line, whose address key sets
			// bit 63 (bit 57 after the shift): never an L1 line's number.
			s.startFill(cl, 1)
		}
	}
	// Misses are served one after another from the next level.
	return max(pend, s.cfg.Latency.Const+s.cfg.Latency.PerWavefront*uint32(max(0, n-1))+uint32(misses)*s.cfg.Latency.ConstMiss+l2)
}

// texture counts a texture fetch: requests per group of lanes with texels
// to read, sectors per request, and the texture cache's hits.
func (s *SM) texture(a *memspace.Access) uint32 {
	if a.Surface {
		return s.surface(a)
	}
	c := s.tally.at(a.Origin.Inst)
	c[TexInstructions]++
	tc, fill := s.tex, uint8(1)
	if tc == nil {
		tc, fill = s.l1, s.fill
	}
	group := s.cfg.Tex.LanesPerRequest
	fp := a.Tex
	if fp != nil && fp.Linear && fp.TexelSize <= 4 {
		group = s.cfg.Tex.LanesPerRequestLinear4
	}
	before := len(s.out)
	defer s.endRequest(before)
	var l2 uint32
	for g := 0; g < 32; g += group {
		m := a.Mask & (uint32(uint64(1)<<group-1) << g)
		s.ls.reset()
		for ; m != 0; m &= m - 1 {
			l := bits.TrailingZeros32(m)
			if fp == nil {
				s.ls.add(&s.g, a.Addr[l], uint64(max(1, a.Size)))
				continue
			}
			for k := 0; k < int(fp.Count[l]) && k < len(fp.Addr[l]); k++ {
				s.ls.add(&s.g, fp.Addr[l][k], uint64(max(1, fp.TexelSize)))
			}
		}
		if s.ls.n == 0 {
			continue
		}
		c[TexRequests]++
		s.grpWave++
		c[TexSectors] += uint64(s.ls.sectors())
		for i := 0; i < s.ls.n; i++ {
			line, mask := s.ls.line[i], s.ls.mask[i]
			hit, fetch := tc.read(line, mask, fill, hint{allocate: true, prio: prioNormal})
			c[TexHit] += uint64(bits.OnesCount8(hit))
			c[TexMiss] += uint64(bits.OnesCount8(mask &^ hit))
			if fetch != 0 {
				l2 = max(l2, s.send(txn{line: line, mask: fetch, op: opRead, inst: a.Origin.Inst}))
			}
		}
	}
	return s.cfg.Latency.Tex + l2
}

// surface counts a surface load, store or reduction (suld, sust, sured):
// the texture unit serves it per group of lanes (as texture fetches);
// loads look the elements up in the texture cache (L1TEX on the H100),
// stores write through to L2 dropping the cached copy, reductions are
// performed in L2.
func (s *SM) surface(a *memspace.Access) uint32 {
	c := s.tally.at(a.Origin.Inst)
	tc, fill := s.tex, uint8(1)
	if tc == nil {
		tc, fill = s.l1, s.fill
	}
	req, sec, op := SurfLdRequests, SurfLdSectors, uint8(opRead)
	switch a.Kind {
	case memspace.Store:
		req, sec, op = SurfStRequests, SurfStSectors, opWrite
	case memspace.Reduction, memspace.Atomic:
		req, sec, op = SurfRedRequests, SurfRedSectors, opRed
	}
	group := s.cfg.Tex.LanesPerRequest
	before := len(s.out)
	defer s.endRequest(before)
	var l2 uint32
	for g := 0; g < 32; g += group {
		m := a.Mask & (uint32(uint64(1)<<group-1) << g)
		if m == 0 {
			continue
		}
		s.ls.reset()
		for ; m != 0; m &= m - 1 {
			s.ls.add(&s.g, a.Addr[bits.TrailingZeros32(m)], uint64(max(1, a.Size)))
		}
		c[req]++
		s.grpWave++
		c[sec] += uint64(s.ls.sectors())
		for i := 0; i < s.ls.n; i++ {
			line, mask := s.ls.line[i], s.ls.mask[i]
			if op != opRead {
				tc.drop(line, mask)
				l2 = max(l2, s.send(txn{line: line, mask: mask, op: op, inst: a.Origin.Inst}))
				continue
			}
			hit, fetch := tc.read(line, mask, fill, hint{allocate: true, prio: prioNormal})
			c[SurfLdHit] += uint64(bits.OnesCount8(hit))
			c[SurfLdMiss] += uint64(bits.OnesCount8(mask &^ hit))
			if fetch != 0 {
				l2 = max(l2, s.send(txn{line: line, mask: fetch, op: opRead, inst: a.Origin.Inst}))
			}
		}
	}
	if op == opWrite {
		return s.cfg.Latency.Store
	}
	return s.cfg.Latency.Tex + l2
}

// lanesOnLine returns, for the lanes of a whose address falls in line, the
// most lanes on one address and the number of distinct addresses.
func lanesOnLine(a *memspace.Access, line uint64, shift, sectorShift uint, key uint64) (most, addrs, chain uint8) {
	var seen [32]uint64
	var count [32]uint8
	var bySector [8]uint8
	n := 0
	for m := a.Mask; m != 0; m &= m - 1 {
		addr := key | a.Addr[bits.TrailingZeros32(m)]
		if addr>>shift != line {
			continue
		}
		j := 0
		for j < n && seen[j] != addr {
			j++
		}
		if j == n {
			seen[n] = addr
			n++
		}
		count[j]++
		most = max(most, count[j])
		sec := (addr >> sectorShift) & 7
		bySector[sec] = max(bySector[sec], count[j])
	}
	for _, c := range bySector {
		chain += c
	}
	return most, uint8(n), chain
}

// startFill records that the current group fetches sectors mask of line
// into L1, or a line into the constant cache (windowed mode).
func (s *SM) startFill(line uint64, mask uint8) {
	f := s.inflight.put(line)
	if f.ready == 0 && f.group == s.group && f.mask != 0 {
		f.mask |= mask
		return
	}
	f.group, f.mask, f.ready = s.group, mask, 0
	s.newFills = append(s.newFills, fillRef{line: line, group: s.group})
}

// inFlight handles a hit on sectors of line that may still be on their
// way from L2 (windowed mode): a hit on a fill not yet resolved makes the
// current group wait for it (and take at least own, its access's latency);
// on a resolved one that has not arrived, the returned latency covers its
// arrival.
func (s *SM) inFlight(line uint64, hit uint8, own uint32) uint32 {
	f := s.inflight.get(line)
	if f == nil || f.mask&hit == 0 {
		return 0
	}
	if f.ready != 0 && f.ready <= s.now {
		s.inflight.del(line) // arrived
		return 0
	}
	if f.ready == 0 {
		if f.group != s.group {
			s.deps = append(s.deps, groupDep{s.group, f.group, s.now + uint64(own)})
			s.grpWaits = true
		}
		return 0
	}
	if f.ready > s.now {
		return uint32(min(f.ready-s.now, 1<<31))
	}
	return 0
}
