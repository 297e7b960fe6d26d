package hier

// What the L2 holds from one launch to the next (a program of several
// steps, scheduler/program): the tags and sector states of every slice,
// taken when a launch ends and given to the next launch's Memory, with
// what the steps between them do to it (a copy from the host drops the
// lines it writes; a memset leaves its lines dirty: Dirty).

// Snapshot returns a copy of the L2's tags and sector states (no counters,
// no timing state, no apertures), for a later launch to Adopt.
func (m *Memory) Snapshot() *Memory {
	s := &Memory{cfg: m.cfg, g: m.g, perPar: m.perPar, slices: make([]*cache, len(m.slices))}
	for i, c := range m.slices {
		d := *c
		d.chunks = make([][]slot, len(c.chunks))
		for j, ch := range c.chunks {
			if ch != nil {
				d.chunks[j] = append([]slot(nil), ch...)
			}
		}
		// The byte masks of partly written sectors, alike.
		if c.written != nil {
			d.written = make([][]uint32, len(c.written))
			for j, w := range c.written {
				if w != nil {
					d.written[j] = append([]uint32(nil), w...)
				}
			}
		}
		s.slices[i] = &d
	}
	return s
}

// Adopt makes the L2 hold what prev's held (a Snapshot of an earlier
// launch's Memory, changed since by Invalidate and Dirty) and reports
// whether it could: the two L2s must have the same geometry (a sampled
// launch's smaller slice of the GPU does not). prev is not changed.
func (m *Memory) Adopt(prev *Memory) bool {
	if prev == nil || len(prev.slices) != len(m.slices) || prev.g != m.g || prev.perPar != m.perPar {
		return false
	}
	for i, c := range prev.slices {
		if c.sets != m.slices[i].sets || c.ways != m.slices[i].ways {
			return false
		}
	}
	// Lines the new launch placed before adopting (the kernel's
	// parameters) are placed again on top.
	kept := m.Snapshot()
	for i, c := range prev.Snapshot().slices {
		m.slices[i] = c
	}
	for i, c := range kept.slices {
		for _, ch := range c.chunks {
			for _, e := range ch {
				if e.tag != 0 {
					m.placeIn(i, e.tag-1, e.valid, e.dirty)
				}
			}
		}
	}
	return true
}

// placeIn puts line in slice i with the given sector states, every valid
// sector whole.
func (m *Memory) placeIn(i int, line uint64, valid, dirty uint8) {
	l2 := m.slices[i]
	e, victim := l2.lookup(line)
	if e == nil {
		e, _, _, _ = l2.alloc(line, prioNormal, victim)
	} else {
		l2.touch(e)
	}
	e.valid, e.dirty, e.part = valid, dirty, 0
}

// Invalidate drops from the L2 every line of bytes bytes at base, at its
// home slice and wherever a near copy of it may be: what a copy engine's
// writes from the host leave (the H200 keeps none of a buffer a pinned
// copy just filled: testdata/host/hostmem7.jsonl, group l2after; the next
// read misses 98-100% of its sectors at 4-96 MiB).
func (m *Memory) Invalidate(base, bytes uint64) {
	if bytes == 0 {
		return
	}
	shift := m.g.sectorShift + m.g.lineShift
	all := m.g.full
	parts := len(m.slices) / max(1, m.perPar)
	for line := base >> shift; line <= (base+bytes-1)>>shift; line++ {
		m.slices[m.sliceOf(line)].drop(line, all)
		if m.cfg.L2.NearCopies {
			for p := range parts {
				m.slices[m.nearSlice(line, p)].drop(line, all)
			}
		}
	}
}
