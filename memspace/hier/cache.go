package hier

import "github.com/ptxvm/ptxvm/memspace"

// cache is a sectored set-associative cache of tags and sector states; it
// holds no data. Every use (L1, L2 slices, constant and texture caches) is
// one of these, configured by geometry, associativity, replacement and the
// policies its owner applies. It is not safe for concurrent use.
type cache struct {
	sets, ways int
	lru        bool     // false: FIFO
	xor        bool     // set index: hashed (true) or line modulo sets
	tag        []uint64 // line+1; 0 means empty
	valid      []uint8  // sectors holding data
	dirty      []uint8  // sectors written and not yet written back
	stamp      []uint64 // last use (LRU) or allocation (FIFO)
	prio       []uint8  // eviction priority: prioFirst < prioNormal < prioLast
	tick       uint64
}

// Eviction priorities (from the evict_* hints and streaming cache operators).
const (
	prioFirst uint8 = iota
	prioNormal
	prioLast
)

func newCache(bytes, lineBytes, ways int, lru, xor bool) *cache {
	lines := bytes / lineBytes
	c := &cache{sets: lines / ways, ways: ways, lru: lru, xor: xor}
	c.tag = make([]uint64, lines)
	c.valid = make([]uint8, lines)
	c.dirty = make([]uint8, lines)
	c.stamp = make([]uint64, lines)
	c.prio = make([]uint8, lines)
	return c
}

// setOf returns the first slot of line's set.
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
	return int(h%uint64(c.sets)) * c.ways
}

// find returns line's slot, or -1.
func (c *cache) find(line uint64) int {
	s := c.setOf(line)
	t := line + 1
	for i := s; i < s+c.ways; i++ {
		if c.tag[i] == t {
			return i
		}
	}
	return -1
}

// touch records a use of slot i.
func (c *cache) touch(i int) {
	if c.lru {
		c.tick++
		c.stamp[i] = c.tick
	}
}

// alloc places line in its set, evicting the victim: an empty slot if
// there is one, else the lowest eviction priority, least recently used (or
// first allocated) among those. It returns the slot and what was evicted.
func (c *cache) alloc(line uint64, prio uint8) (i int, victim uint64, vdirty uint8, evicted bool) {
	s := c.setOf(line)
	i = -1
	for j := s; j < s+c.ways; j++ {
		if c.tag[j] == 0 {
			i = j
			break
		}
		if i < 0 || c.prio[j] < c.prio[i] || c.prio[j] == c.prio[i] && c.stamp[j] < c.stamp[i] {
			i = j
		}
	}
	if c.tag[i] != 0 {
		victim, vdirty, evicted = c.tag[i]-1, c.dirty[i], true
	}
	c.tag[i], c.valid[i], c.dirty[i], c.prio[i] = line+1, 0, 0, prio
	c.tick++
	c.stamp[i] = c.tick
	return i, victim, vdirty, evicted
}

// drop invalidates the sectors of mask in line (the whole line when none
// is left valid).
func (c *cache) drop(line uint64, mask uint8) {
	if i := c.find(line); i >= 0 {
		c.valid[i] &^= mask
		c.dirty[i] &^= mask
		if c.valid[i] == 0 && c.dirty[i] == 0 {
			c.tag[i] = 0
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
	i := c.find(line)
	if i >= 0 {
		hit = c.valid[i] & mask
		if !h.unchanged {
			c.touch(i)
			c.prio[i] = h.prio
		}
	}
	miss := mask &^ hit
	if miss == 0 {
		return hit, 0
	}
	if !h.allocate {
		return hit, miss
	}
	if i < 0 {
		i, _, _, _ = c.alloc(line, h.prio)
	}
	fetch = expand(miss, fillSectors) &^ c.valid[i]
	c.valid[i] |= fetch
	return hit, fetch
}
