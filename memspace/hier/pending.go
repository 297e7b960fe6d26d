package hier

// pendingFills remembers, for the L2 slices, the sectors whose data is still
// on its way from DRAM (or, for a near copy, from the home slice): the
// cycle their first requester receives them. A read that finds such a
// sector valid in the tags (ncu counts it as a hit) gets its data no
// earlier than that. Without it, the SMs of a launch that walk the same
// rows in step (a naive matrix multiply: every SM reads row k of B at about
// the same time) saw one DRAM round trip and 131 L2 hits, where the GPU
// makes all of them wait for the one DRAM fill.
//
// It is a fixed open-addressed table: a record whose cycle has passed is
// free, and when a probe finds no free slot the record is dropped (its
// sectors then look ready, as before this model). No allocation after
// construction.
type pendingFills struct {
	key   []uint64 // slice<<56 | line, +1 (0: empty)
	ready []uint64 // cycle the first requester's data arrives
	mask  []uint8  // sectors in flight
}

const (
	pendingSize  = 1 << 13
	pendingProbe = 8
)

func newPendingFills() pendingFills {
	return pendingFills{key: make([]uint64, pendingSize), ready: make([]uint64, pendingSize), mask: make([]uint8, pendingSize)}
}

func pendingKey(slice int, line uint64) uint64 { return (uint64(slice)<<56 | line) + 1 }

func pendingHash(k uint64) int { return int((k * 0x9E3779B97F4A7C15) >> 51) } // 13 bits

// note records that sectors mask of line at slice arrive at cycle ready
// (seen from cycle now).
func (p *pendingFills) note(slice int, line uint64, mask uint8, ready, now uint64) {
	if mask == 0 || ready <= now {
		return
	}
	k := pendingKey(slice, line)
	free := -1
	for i, h := 0, pendingHash(k); i < pendingProbe; i++ {
		j := (h + i) & (pendingSize - 1)
		switch {
		case p.key[j] == k:
			if p.ready[j] <= now {
				p.mask[j] = 0
			}
			p.mask[j] |= mask
			p.ready[j] = max(p.ready[j], ready)
			return
		case free < 0 && (p.key[j] == 0 || p.ready[j] <= now):
			free = j
		}
	}
	if free >= 0 {
		p.key[free], p.ready[free], p.mask[free] = k, ready, mask
	}
}

// until returns the cycle the sectors hit of line at slice arrive, or 0
// when none of them is in flight at cycle now.
func (p *pendingFills) until(slice int, line uint64, hit uint8, now uint64) uint64 {
	if hit == 0 {
		return 0
	}
	k := pendingKey(slice, line)
	for i, h := 0, pendingHash(k); i < pendingProbe; i++ {
		j := (h + i) & (pendingSize - 1)
		if p.key[j] == k {
			if p.ready[j] > now && p.mask[j]&hit != 0 {
				return p.ready[j]
			}
			return 0
		}
	}
	return 0
}
