package hier

import "github.com/ptxvm/ptxvm/memspace"

// cache is a sectored set-associative cache of tags and sector states; it
// holds no data. Every use (L1, L2 slices, constant and texture caches) is
// one of these, configured by geometry, associativity, replacement and the
// policies its owner applies. It is not safe for concurrent use.
type cache struct {
	sets, ways int
	lru        bool // false: FIFO
	xor        bool // set index: hashed (true) or line modulo sets
	// The slots, chunkSets sets per chunk, allocated when a set of the
	// chunk is first used: a launch that touches little of a 50 MiB L2 pays
	// for little of it.
	chunks [][]slot
	tick   uint32
	// The L2's partly written sectors: which bytes were written (a
	// geometry.unitShift unit a bit), spl masks per slot, parallel to
	// chunks and allocated with a chunk's first partly written sector;
	// meaningful where slot.part says so.
	spl     int
	written [][]uint32
}

// chunkSets is the number of sets allocated together.
const chunkSets = 8

// slot is one way of one set, 16 bytes: a set's slots are adjacent, so a
// lookup reads a few cache lines of the host.
type slot struct {
	tag   uint64 // line+1; 0 means empty
	stamp uint32 // last use (LRU) or allocation (FIFO); see next
	valid uint8  // sectors holding data
	dirty uint8  // sectors written and not yet written back
	prio  uint8  // eviction priority: prioFirst < prioNormal < prioLast
	// part (L2 only): valid sectors that hold only the bytes stores wrote
	// (cache.written says which), never filled from DRAM nor written
	// whole. Evicted, such a sector is read from DRAM and merged before it
	// is written back; a read of it fetches from DRAM.
	part uint8
}

// next advances the cache's clock. Before it wraps, every stamp is halved
// (ages keep their order, except that neighbours may become equal).
func (c *cache) next() uint32 {
	if c.tick == 1<<32-1 {
		for _, ch := range c.chunks {
			for i := range ch {
				ch[i].stamp >>= 1
			}
		}
		c.tick >>= 1
	}
	c.tick++
	return c.tick
}

// Eviction priorities (from the evict_* hints and streaming cache operators).
const (
	prioFirst uint8 = iota
	prioNormal
	prioLast
)

func newCache(bytes, lineBytes, ways int, lru, xor bool) *cache {
	sets := bytes / lineBytes / ways
	return &cache{sets: sets, ways: ways, lru: lru, xor: xor, chunks: make([][]slot, (sets+chunkSets-1)/chunkSets)}
}

// set returns the ways of line's set, or nil when its chunk was never
// allocated and alloc is false.
func (c *cache) set(line uint64, alloc bool) []slot {
	i := c.setOf(line)
	ch := c.chunks[i/chunkSets]
	if ch == nil {
		if !alloc {
			return nil
		}
		ch = make([]slot, chunkSets*c.ways)
		c.chunks[i/chunkSets] = ch
	}
	off := i % chunkSets * c.ways
	return ch[off : off+c.ways : off+c.ways]
}

// setOf returns the number of line's set.
func (c *cache) setOf(line uint64) int {
	h := line
	if c.xor {
		// Fold the higher line bits onto the low ones so that power-of-two
		// strides spread over the sets (GPUs hash their set indices; the
		// exact functions are not published).
		h ^= h>>11 ^ h>>23 ^ h>>37
		h *= 0x9E3779B97F4A7C15
		h ^= h >> 29
	}
	return int(h % uint64(c.sets))
}

// find returns line's slot, or nil.
func (c *cache) find(line uint64) *slot {
	set := c.set(line, false)
	t := line + 1
	for j := range set {
		if set[j].tag == t {
			return &set[j]
		}
	}
	return nil
}

// lookup returns line's slot (or nil) and, in the same pass over the set,
// the slot a miss would replace: an empty one, else the lowest eviction
// priority, least recently used (or first allocated) among those.
func (c *cache) lookup(line uint64) (hit, victim *slot) {
	set := c.set(line, true)
	t := line + 1
	v := -1
	var vp uint8
	var vs uint32
	for j := range set {
		e := &set[j]
		if e.tag == t {
			return e, nil
		}
		if v >= 0 && vp == 0 && vs == 0 {
			continue // an empty slot: nothing can beat it
		}
		p, st := e.prio, e.stamp
		if e.tag == 0 {
			p, st = 0, 0
		}
		if v < 0 || p < vp || p == vp && st < vs {
			v, vp, vs = j, p, st
		}
	}
	return nil, &set[v]
}

// touch records a use of e.
func (c *cache) touch(e *slot) {
	if c.lru {
		e.stamp = c.next()
	}
}

// alloc places line in victim (the slot lookup chose for it; nil: choose
// it now) and reports what was evicted.
func (c *cache) alloc(line uint64, prio uint8, victim *slot) (e *slot, old uint64, odirty uint8, evicted bool) {
	if victim == nil {
		_, victim = c.lookup(line)
	}
	if victim.tag != 0 {
		old, odirty, evicted = victim.tag-1, victim.dirty, true
	}
	*victim = slot{tag: line + 1, stamp: c.next(), prio: prio}
	return victim, old, odirty, evicted
}

// writtenOf returns the byte masks of e's sectors (e is line's slot),
// allocating its chunk's on first use.
func (c *cache) writtenOf(line uint64, e *slot) []uint32 {
	i := c.setOf(line)
	k := i / chunkSets
	ch := c.chunks[k]
	j := i % chunkSets * c.ways
	for end := j + c.ways - 1; j < end && &ch[j] != e; j++ {
	}
	if c.written == nil {
		c.written = make([][]uint32, len(c.chunks))
	}
	w := c.written[k]
	if w == nil {
		w = make([]uint32, len(ch)*c.spl)
		c.written[k] = w
	}
	return w[j*c.spl : (j+1)*c.spl : (j+1)*c.spl]
}

// drop invalidates the sectors of mask in line (the whole line when none
// is left valid).
func (c *cache) drop(line uint64, mask uint8) {
	if e := c.find(line); e != nil {
		e.valid &^= mask
		e.dirty &^= mask
		e.part &^= mask
		if e.valid == 0 && e.dirty == 0 {
			e.tag = 0
		}
	}
}

// hint is how an access asks to be cached.
type hint struct {
	allocate  bool  // allocate on a miss
	prio      uint8 // priority of an allocated or hit line
	unchanged bool  // a hit leaves the line's age and priority alone
}

// hintFor turns an access's eviction priority into a hint, starting from
// the cache operator's.
func hintFor(e memspace.Evict, h hint) hint {
	switch e {
	case memspace.EvictFirst:
		h.prio = prioFirst
	case memspace.EvictLast:
		h.prio = prioLast
	case memspace.EvictUnchanged:
		h.unchanged = true
	case memspace.NoAllocate:
		h.allocate = false
	}
	return h
}

// read looks up the sectors of mask in line. It returns those found valid,
// and those to fetch from the next level: the missing ones, widened to whole
// fill units of fillSectors when h.allocate makes the line present (they are
// then valid).
func (c *cache) read(line uint64, mask, fillSectors uint8, h hint) (hit, fetch uint8) {
	e, victim := c.lookup(line)
	if e != nil {
		hit = e.valid & mask
		if !h.unchanged {
			c.touch(e)
			e.prio = h.prio
		}
	}
	miss := mask &^ hit
	if miss == 0 {
		return hit, 0
	}
	if !h.allocate {
		return hit, miss
	}
	if e == nil {
		e, _, _, _ = c.alloc(line, h.prio, victim)
	}
	fetch = expand(miss, fillSectors) &^ e.valid
	e.valid |= fetch
	return hit, fetch
}
