package memspace

// Checkpoint is the contents of a global memory at one moment, which
// Rollback puts back: a caller may then run code that writes device memory
// (a few blocks of a launch, run ahead to see what they do) and leave the
// memory as it found it. Dense allocations are copied when the checkpoint
// is taken (at most DenseLimit bytes each); a sparse allocation's pages are
// copied on their first write after it, so that taking and rolling back a
// checkpoint costs the pages written in between, not the memory held.
//
// While a checkpoint is held, nothing may allocate, free or SetInit the
// memory's allocations, and writes to a sparse allocation take its lock.
type Checkpoint struct {
	g      *GlobalMemory
	dense  []*Allocation
	saved  [][]byte // the dense allocations' bytes, by index of dense
	sparse []*Allocation
}

// cow is a sparse allocation's state under a checkpoint: its pages as they
// were (orig: nil where none was allocated) and which have been written
// since (their page in the allocation is then a copy, or a new page).
type cow struct {
	orig    []*page
	written []bool
}

// Checkpoint records the memory's contents until Rollback. One checkpoint
// at a time.
func (g *GlobalMemory) Checkpoint() *Checkpoint {
	c := &Checkpoint{g: g}
	for _, a := range g.allocs {
		if a.Data != nil {
			c.dense = append(c.dense, a)
			c.saved = append(c.saved, append([]byte(nil), a.Data...))
			continue
		}
		if a.pages == nil {
			continue
		}
		w := &cow{orig: make([]*page, len(a.pages)), written: make([]bool, len(a.pages))}
		for i := range a.pages {
			w.orig[i] = a.pages[i].Load()
		}
		a.mu.Lock()
		a.cow = w
		a.mu.Unlock()
		c.sparse = append(c.sparse, a)
	}
	return c
}

// copyOnWrite gives page i of a (under checkpoint state c, locked) a page
// of its own before its first write: a copy of the page it had, or none
// (the caller allocates one from the initial contents).
func (a *Allocation) copyOnWrite(c *cow, i uint64) error {
	o := c.orig[i]
	if o != nil {
		if err := a.g.reserveHost(PageSize, a); err != nil {
			return err
		}
		p := new(page)
		*p = *o
		a.held.Add(PageSize)
		a.pages[i].Store(p)
	}
	c.written[i] = true
	return nil
}

// Rollback puts back the contents the memory had when the checkpoint was
// taken and frees the pages written since.
func (c *Checkpoint) Rollback() {
	for i, a := range c.dense {
		copy(a.Data, c.saved[i])
	}
	for _, a := range c.sparse {
		a.mu.Lock()
		w := a.cow
		for i, done := range w.written {
			if !done {
				continue
			}
			if a.pages[i].Load() != nil {
				a.held.Add(^uint64(PageSize - 1))
				c.g.host.Add(^uint64(PageSize - 1))
			}
			a.pages[i].Store(w.orig[i])
		}
		a.cow = nil
		a.mu.Unlock()
	}
	c.dense, c.saved, c.sparse = nil, nil, nil
}
