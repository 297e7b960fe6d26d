package hier

import (
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// Tally holds counters per instruction: the block of instruction id i
// (memspace.Origin.Inst) is at index i+1, index 0 collects accesses with no
// instruction id. Blocks are allocated on an instruction's first access, so
// only memory instructions cost memory; counting is one increment into a
// slice, never a map look-up.
type Tally struct {
	blocks []*Counts
	slab   []Counts
	pats   []Pattern // by the same index as blocks
	// full has a bit for each index below 256 whose pattern has 32 lanes
	// (note has nothing more to do for it): a test in the SM's own state,
	// where reading pats missed the host's caches once per window.
	full [4]uint64
}

// Pattern is the shape of one of an instruction's warp-wide accesses: the
// first one with the most active lanes (over SMs, the lowest-numbered SM's),
// what a diagnosis needs to name an access pattern ("stride-32",
// "misaligned", "uniform"). Texture fetches have none.
type Pattern struct {
	// Lanes is the number of active lanes, Size the bytes each moves.
	Lanes, Size int
	// Distinct is the number of distinct lane addresses.
	Distinct int
	// Stride is the distance in bytes from each active lane's address to
	// the next active lane's when it is the same for all of them (Regular);
	// 0 for a uniform address.
	Stride  int64
	Regular bool
	// First is the lowest active lane's address (its alignment matters).
	First uint64
}

// note records the pattern of access a for its instruction unless one with
// as many lanes was recorded.
func (t *Tally) note(a *memspace.Access) {
	// The common case, small enough to inline: a full warp's pattern is
	// recorded already.
	if i := uint(int(a.Origin.Inst) + 1); i < 256 && t.full[i>>6]&(1<<(i&63)) != 0 {
		return
	}
	t.noteMore(a)
}

// noteMore is note past its first test.
func (t *Tally) noteMore(a *memspace.Access) {
	i := int(a.Origin.Inst) + 1
	if i < 0 {
		i = 0
	}
	if i < 256 && t.full[i>>6]&(1<<(i&63)) != 0 {
		return
	}
	if i < len(t.pats) && t.pats[i].Lanes >= 32 {
		return
	}
	lanes := bits.OnesCount32(a.Mask)
	if i < len(t.pats) && t.pats[i].Lanes >= lanes {
		return
	}
	if i >= len(t.pats) {
		n := max(2*len(t.pats), i+1, 64)
		np := make([]Pattern, n)
		copy(np, t.pats)
		t.pats = np
	}
	p := Pattern{Lanes: lanes, Size: int(a.Size), Regular: true}
	var seen [32]uint64
	var prev uint64
	n := 0
	for m := a.Mask; m != 0; m &= m - 1 {
		addr := a.Addr[bits.TrailingZeros32(m)]
		j := 0
		for j < p.Distinct && seen[j] != addr {
			j++
		}
		if j == p.Distinct {
			seen[p.Distinct] = addr
			p.Distinct++
		}
		switch n {
		case 0:
			p.First = addr
		case 1:
			p.Stride = int64(addr - prev)
		default:
			if int64(addr-prev) != p.Stride {
				p.Regular = false
			}
		}
		prev = addr
		n++
	}
	if !p.Regular {
		p.Stride = 0
	}
	t.pats[i] = p
	if lanes >= 32 && i < 256 {
		t.full[i>>6] |= 1 << (i & 63)
	}
}

// Pattern returns the recorded pattern of instruction inst (Lanes 0 when
// none was).
func (t *Tally) Pattern(inst int32) Pattern {
	i := int(inst) + 1
	if i >= 0 && i < len(t.pats) {
		return t.pats[i]
	}
	return Pattern{}
}

// at returns the block of instruction inst.
func (t *Tally) at(inst int32) *Counts {
	// The common case, small enough to inline: the block exists.
	if i := uint(int(inst) + 1); i < uint(len(t.blocks)) {
		if b := t.blocks[i]; b != nil {
			return b
		}
	}
	return t.alloc(inst)
}

// alloc is at past its first test: it allocates the block.
func (t *Tally) alloc(inst int32) *Counts {
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
// do not depend on the order SMs are merged in; a pattern of o replaces t's
// only when it has more lanes (so merging SMs in ascending order keeps the
// lowest SM's among equals).
func (t *Tally) Merge(o *Tally) {
	for i, b := range o.blocks {
		if b != nil {
			t.at(int32(i - 1)).Add(b)
		}
	}
	for i, p := range o.pats {
		if p.Lanes == 0 {
			continue
		}
		if i >= len(t.pats) {
			np := make([]Pattern, max(len(o.pats), 2*len(t.pats)))
			copy(np, t.pats)
			t.pats = np
		}
		if p.Lanes > t.pats[i].Lanes {
			t.pats[i] = p
		}
	}
}
