package hier

import (
	"cmp"
	"slices"
)

// Resolve ends a window of windowed mode: it serves every SM side's
// buffered L2 traffic on the shared side and empties the buffers. Call it
// from one goroutine while no SM side is in use.
//
// The order is fixed: by the cycle of the access that made each transaction
// (timing mode serves a transaction at that cycle too), ties broken by SM
// number, then by each SM's own order. So the L2 and DRAM counters
// and every completion cycle depend only on what each SM did and when, not
// on how host goroutines ran the SMs. A transaction is served at its own
// cycle (the slice and DRAM-channel queues see the traffic of all SMs in
// cycle order); a group that waits completes when its last waited-for
// transaction's data is back (SM.Completions).
//
// A timing model that keeps each window shorter than the shortest L2 round
// trip (Config.Latency.L1Hit + L2HitNear) loses nothing by resolving at the
// window's end: every completion falls after it.
//
// After DeferFills, Resolve leaves part of each SM side's own work to
// SM.ResolveFills (see there).
func (h *Hierarchy) Resolve() {
	m := &h.merge
	m.items = m.items[:0]
	for i, s := range h.sms {
		h.pos[i], h.wbPos[i] = 0, 0
		s.ResolveFills() // a caller that did not (an SM it did not use)
		s.done = s.done[:0]
		if len(s.out) > 0 {
			m.items = append(m.items, mergeItem{at: s.outAt[0], sm: i})
		}
	}
	m.init()
	for len(m.items) > 0 {
		it := &m.items[0]
		s := h.sms[it.sm]
		p := h.pos[it.sm]
		t, at, g := s.out[p], s.outAt[p], s.outGrp[p]
		lat := h.mem.serve(t, s.part, at, h.wb(it.sm, t))
		if g&waitBit != 0 {
			g &^= waitBit
			done := at + uint64(s.outLat[p]) + uint64(lat)
			if n := len(s.done); n > 0 && s.done[n-1].Group == g {
				s.done[n-1].Cycle = max(s.done[n-1].Cycle, done)
			} else {
				s.done = append(s.done, Completion{Group: g, Cycle: done})
			}
		}
		p++
		h.pos[it.sm] = p
		if p < len(s.out) {
			it.at = s.outAt[p]
			m.down(0)
		} else {
			m.popTop()
		}
	}
	for _, s := range h.sms {
		s.out, s.outAt, s.outLat, s.outGrp, s.outWB = s.out[:0], s.outAt[:0], s.outLat[:0], s.outGrp[:0], s.outWB[:0]
		if !h.deferFills {
			s.resolveFills()
			continue
		}
		// The groups' completions must be whole when Resolve returns (the
		// caller reads them to choose its next window); the fills' dates
		// only when the SM side is used again.
		if len(s.deps) > 0 {
			s.dateFills() // from the completions before the groups that hit fills raise them
			s.resolveDeps()
		}
		s.deferred = true
	}
}

// DeferFills makes Resolve leave to SM.ResolveFills the dating of each SM
// side's fills of the window (when each arrives) and the dropping of those
// that have arrived, work of the SM side alone that a caller advancing SMs
// on several goroutines can do on them rather than between windows.
// Completions are whole when Resolve returns either way.
func (h *Hierarchy) DeferFills() { h.deferFills = true }

// ResolveFills does what Resolve left to it after DeferFills: call it, on
// any goroutine, after Resolve and before the SM side observes, changes
// cycle or is drained again (Resolve does it for an SM side that was not
// used). The results are those of a Resolve that did it itself. It does
// nothing when there is nothing left.
func (s *SM) ResolveFills() {
	if s.deferred { // small enough to inline: most calls have nothing to do
		s.resolveDeferred()
	}
}

func (s *SM) resolveDeferred() {
	s.deferred = false
	s.dateFills()
	s.forgetArrived()
}

// resolveFills completes the groups that hit fills in flight (when the
// fill arrives) and dates the fills of this window. It runs after the
// merge, whose completions are in group order.
func (s *SM) resolveFills() {
	s.dateFills()
	s.resolveDeps()
	s.forgetArrived()
}

// find returns the index of group g's completion in s.done and whether
// there is one.
func (s *SM) find(g uint64) (int, bool) {
	lo, hi := 0, len(s.done) // sort.Search's, without its closure
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); s.done[m].Group < g {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s.done) && s.done[lo].Group == g
}

// dateFills dates the fills of this window: each arrives when its group
// completes (before resolveDeps raises the completions of groups that
// hit other fills).
func (s *SM) dateFills() {
	if len(s.newFills) == 0 {
		return
	}
	for _, r := range s.newFills {
		f := s.inflight.get(r.line)
		if f == nil || f.group != r.group || f.ready != 0 {
			continue // a later miss of the line replaced it
		}
		if i, ok := s.find(r.group); ok {
			f.ready = s.done[i].Cycle
		} else {
			f.ready = 1 // nothing to wait for
		}
		r.ready = f.ready
		s.dated = append(s.dated, r)
	}
	s.newFills = s.newFills[:0]
}

// resolveDeps completes the groups that hit fills in flight when the fill
// arrives (and no earlier than their own access's latency).
func (s *SM) resolveDeps() {
	if len(s.deps) > 0 {
		extra := s.extra[:0]
		for _, d := range s.deps {
			i, ok := s.find(d.on)
			if !ok {
				continue
			}
			c := max(s.done[i].Cycle, d.floor)
			if j, ok := s.find(d.group); ok {
				s.done[j].Cycle = max(s.done[j].Cycle, c)
			} else if n := len(extra); n > 0 && extra[n-1].Group == d.group {
				extra[n-1].Cycle = max(extra[n-1].Cycle, c)
			} else {
				extra = append(extra, Completion{Group: d.group, Cycle: c})
			}
		}
		if len(extra) > 0 {
			s.done = append(s.done, extra...)
			slices.SortFunc(s.done, func(a, b Completion) int { return cmp.Compare(a.Group, b.Group) })
		}
		s.extra = extra[:0]
		s.deps = s.deps[:0]
	}
}

// forgetArrived drops the fills that have arrived by the SM's cycle: a hit
// on their sectors is a plain L1 hit, as it is with no fill (inFlight),
// and a miss starts a new fill either way (startFill).
func (s *SM) forgetArrived() {
	kept := s.dated[:0]
	for _, r := range s.dated {
		if r.ready > s.now {
			kept = append(kept, r)
			continue
		}
		if f := s.inflight.get(r.line); f != nil && f.group == r.group {
			s.inflight.del(r.line)
		}
	}
	s.dated = kept
}

// mergeItem is an SM side's next buffered transaction in Resolve's merge.
type mergeItem struct {
	at uint64 // cycle of the access that made it
	sm int
}

// mergeHeap orders SM sides by their next transaction's cycle, then by SM
// (a binary min-heap; no allocation).
type mergeHeap struct{ items []mergeItem }

func (m *mergeHeap) less(i, j int) bool {
	a, b := &m.items[i], &m.items[j]
	return a.at < b.at || a.at == b.at && a.sm < b.sm
}

func (m *mergeHeap) init() {
	for i := len(m.items)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
}

func (m *mergeHeap) down(i int) {
	n := len(m.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && m.less(r, l) {
			c = r
		}
		if !m.less(c, i) {
			return
		}
		m.items[i], m.items[c] = m.items[c], m.items[i]
		i = c
	}
}

func (m *mergeHeap) popTop() {
	n := len(m.items) - 1
	m.items[0] = m.items[n]
	m.items = m.items[:n]
	m.down(0)
}
