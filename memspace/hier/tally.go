package hier

// Tally holds counters per instruction: the block of instruction id i
// (memspace.Origin.Inst) is at index i+1, index 0 collects accesses with no
// instruction id. Blocks are allocated on an instruction's first access, so
// only memory instructions cost memory; counting is one increment into a
// slice, never a map look-up.
type Tally struct {
	blocks []*Counts
	slab   []Counts
}

// at returns the block of instruction inst.
func (t *Tally) at(inst int32) *Counts {
	i := int(inst) + 1
	if i < 0 {
		i = 0
	}
	if i < len(t.blocks) {
		if b := t.blocks[i]; b != nil {
			return b
		}
	} else {
		n := max(2*len(t.blocks), i+1, 64)
		nb := make([]*Counts, n)
		copy(nb, t.blocks)
		t.blocks = nb
	}
	if len(t.slab) == 0 {
		t.slab = make([]Counts, 16)
	}
	b := &t.slab[0]
	t.slab = t.slab[1:]
	t.blocks[i] = b
	return b
}

// Inst returns the counters of instruction id inst (zero when it made no
// access).
func (t *Tally) Inst(inst int32) Counts {
	i := int(inst) + 1
	if i >= 0 && i < len(t.blocks) && t.blocks[i] != nil {
		return *t.blocks[i]
	}
	return Counts{}
}

// Insts returns the instruction ids that made accesses, ascending (-1 for
// accesses with no id).
func (t *Tally) Insts() []int32 {
	var ids []int32
	for i, b := range t.blocks {
		if b != nil {
			ids = append(ids, int32(i-1))
		}
	}
	return ids
}

// Total sums every instruction's counters.
func (t *Tally) Total() Counts {
	var c Counts
	for _, b := range t.blocks {
		if b != nil {
			c.Add(b)
		}
	}
	return c
}

// Merge adds o's counters into t, instruction by instruction. Integer sums
// do not depend on the order SMs are merged in.
func (t *Tally) Merge(o *Tally) {
	for i, b := range o.blocks {
		if b != nil {
			t.at(int32(i - 1)).Add(b)
		}
	}
}
