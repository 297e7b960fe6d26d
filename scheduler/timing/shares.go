package timing

import "sync/atomic"

// shares hands a window's SM groups out to the workers that advance them.
// Worker w owns a contiguous share of the groups and takes them from its
// front; a worker whose share is used up takes what is left of the others'
// from their backs. So the workers of a window end within about one
// group's work of each other, whichever group is slow in that window,
// where a fixed assignment (group g to worker g mod workers) leaves the
// busier worker's extra work at every window's barrier; and two workers
// advance groups far apart in memory, rather than neighbours whose state
// may share cache lines.
//
// Results do not depend on which worker advanced a group: a group's SMs
// touch only their own state, and what they count goes to the advancing
// worker's tally, whose sums do not depend on the order (Run sets sm.acc
// before each advance).
type shares struct {
	s []share
}

// share is one worker's groups not yet taken: [lo, hi) packed as lo |
// hi<<32, on a cache line of its own.
type share struct {
	v atomic.Uint64
	_ [56]byte
}

func newShares(workers int) *shares { return &shares{s: make([]share, workers)} }

// reset gives worker w the groups [w*groups/n, (w+1)*groups/n) of n
// workers. Call it while no worker takes.
func (sh *shares) reset(groups int) {
	n := len(sh.s)
	for w := range sh.s {
		lo, hi := w*groups/n, (w+1)*groups/n
		sh.s[w].v.Store(uint64(lo) | uint64(hi)<<32)
	}
}

// take returns the next group for worker w, or -1 when none is left.
func (sh *shares) take(w int) int {
	if g := sh.s[w].front(); g >= 0 {
		return g
	}
	for i := 1; i < len(sh.s); i++ {
		if g := sh.s[(w+i)%len(sh.s)].back(); g >= 0 {
			return g
		}
	}
	return -1
}

// front takes the share's first group (-1: empty).
func (s *share) front() int {
	for {
		v := s.v.Load()
		lo, hi := uint32(v), uint32(v>>32)
		if lo >= hi {
			return -1
		}
		if s.v.CompareAndSwap(v, uint64(lo+1)|uint64(hi)<<32) {
			return int(lo)
		}
	}
}

// back takes the share's last group (-1: empty).
func (s *share) back() int {
	for {
		v := s.v.Load()
		lo, hi := uint32(v), uint32(v>>32)
		if lo >= hi {
			return -1
		}
		if s.v.CompareAndSwap(v, uint64(lo)|uint64(hi-1)<<32) {
			return int(hi - 1)
		}
	}
}
