package hier

import (
	"fmt"
	"math/bits"
)

// Launch is what the hierarchy needs to know of a launch.
type Launch struct {
	// SharedPerCTA is a block's own shared memory, static + dynamic, in
	// bytes (without the system's reserve); with Occupancy it decides the
	// carveout and so the L1 capacity (Config.Carveout).
	SharedPerCTA int
	// Occupancy is the blocks per SM the other limits (threads, warps,
	// registers, the block limit) allow.
	Occupancy int
	// ThreadOccupancy is the blocks per SM the warp, block and barrier
	// limits allow, registers aside (0: unknown; see Config.CarveoutFor).
	ThreadOccupancy int
}

// Mode says how the SM sides reach the shared side.
type Mode uint8

const (
	// Functional: SM sides run on any number of goroutines and buffer their
	// L2 traffic; Drain feeds it to the shared side in a defined order.
	Functional Mode = iota
	// Timing: one goroutine drives every SM in cycle order; L2 traffic is
	// served at once and Observe returns latencies.
	Timing
	// Windowed: SM sides run on any number of goroutines, each in cycle
	// order within a window of cycles; Observe returns the latency of what
	// the SM serves itself (L1, shared memory, constant and texture hits)
	// and buffers its L2 traffic with the cycle it reaches L2. At the
	// window's end Resolve serves every SM's traffic in cycle order (ties by
	// SM number) and reports when each waiting access's data is back
	// (SM.Completions). See Resolve.
	Windowed
)

// Hierarchy is the memory hierarchy of one GPU for one launch: an SM side
// per SM and the shared L2/DRAM side.
type Hierarchy struct {
	cfg    *Config
	mode   Mode
	shared int // carveout, bytes
	l1     int // L1 capacity, bytes
	sms    []*SM
	mem    *Memory
	pos    []int // drain cursors
	wbPos  []int // drain cursors in the SMs' outWB
	active []int // SMs with traffic left in this drain
	merge  mergeHeap
	// deferFills: Resolve leaves each SM side's fills to SM.ResolveFills
	// (DeferFills).
	deferFills bool
}

// New builds the hierarchy cfg describes for launch l.
func New(cfg *Config, l Launch, mode Mode) (*Hierarchy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if l.SharedPerCTA < 0 || l.Occupancy < 0 {
		return nil, fmt.Errorf("hierarchy %q: negative shared memory or occupancy", cfg.Name)
	}
	h := &Hierarchy{cfg: cfg, mode: mode, mem: newMemory(cfg)}
	h.shared, h.l1 = cfg.CarveoutFor(l.SharedPerCTA, l.Occupancy, l.ThreadOccupancy)
	g := newGeometry(cfg.SectorBytes, cfg.LineBytes)
	lruL1 := cfg.L1.Replacement == "lru"
	h.sms = make([]*SM, cfg.SMs)
	h.pos = make([]int, cfg.SMs)
	h.wbPos = make([]int, cfg.SMs)
	// The SM sides (some 20 KB each, most of it the coalescer's lineSet)
	// and their bank models in one allocation each, not one per SM: the
	// scheduler's suites build a hierarchy for each of thousands of small
	// launches.
	sms := make([]SM, cfg.SMs)
	bks := make([]banks, cfg.SMs)
	for i := range h.sms {
		s := &sms[i]
		s.id = i
		// The SMs alternate between the partitions: blocks go to SMs 0, 1,
		// 2, ..., and the GPU's block scheduler spreads consecutive blocks
		// over its GPCs, so a grid of half the SMs reads from both
		// partitions' slices (TestSMsAlternatePartitions).
		s.part = i % max(cfg.L2.Partitions, 1)
		s.cfg, s.g = cfg, g
		s.fill = uint8(cfg.L1.FillBytes / cfg.SectorBytes)
		bks[i] = *newBanks(cfg.Shared)
		s.banks = &bks[i]
		s.cc = newCache(cfg.Const.CacheBytes, cfg.Const.LineBytes, cfg.Const.Ways, true, false)
		s.ccSh = uint(bits.TrailingZeros(uint(cfg.Const.LineBytes)))
		if h.l1 > 0 {
			s.l1 = newCache(h.l1, cfg.LineBytes, cfg.L1.Ways, lruL1, true)
		} else {
			s.l1 = newCache(cfg.LineBytes*cfg.L1.Ways, cfg.LineBytes, cfg.L1.Ways, lruL1, false)
		}
		if !cfg.Tex.Unified {
			s.tex = newCache(cfg.Tex.CacheBytes, cfg.LineBytes, cfg.Tex.Ways, true, false)
		}
		switch mode {
		case Timing:
			s.mem = h.mem
		case Windowed:
			s.windowed = true
		}
		h.sms[i] = s
	}
	return h, nil
}

// Config returns the hierarchy's configuration.
func (h *Hierarchy) Config() *Config { return h.cfg }

// Carveout returns the launch's shared-memory carveout and L1 capacity in
// bytes.
func (h *Hierarchy) Carveout() (shared, l1 int) { return h.shared, h.l1 }

// SM returns the SM side of SM i (a memspace.Observer).
func (h *Hierarchy) SM(i int) *SM { return h.sms[i] }

// NumSMs returns the number of SM sides.
func (h *Hierarchy) NumSMs() int { return len(h.sms) }

// Memory returns the shared side.
func (h *Hierarchy) Memory() *Memory { return h.mem }

// Drain hands every SM side's buffered L2 traffic to the shared side and
// empties the buffers. Call it from one goroutine while no SM side is in
// use: at the end of each epoch (a wave of blocks in functional mode) and
// at the end of the launch.
//
// The order is fixed and independent of how SMs were spread over host
// goroutines: round robin over the SMs in ascending number, one access's
// transactions at a time (an SM whose buffer is empty drops out), as if
// every SM issued its accesses at the same rate. So the L2 and DRAM counters
// depend only on each SM's own access order, which is the order of its
// blocks and warps.
func (h *Hierarchy) Drain() {
	active := h.active[:0]
	for i, s := range h.sms {
		h.pos[i], h.wbPos[i] = 0, 0
		if len(s.out) > 0 {
			active = append(active, i)
		}
	}
	for len(active) > 0 {
		n := 0
		for _, i := range active {
			s := h.sms[i]
			p := h.pos[i]
			for p < len(s.out) {
				t := s.out[p]
				p++
				h.mem.serve(t, s.part, 0, h.wb(i, t))
				if t.op&flagEnd != 0 {
					break
				}
			}
			h.pos[i] = p
			if p < len(s.out) {
				active[n] = i
				n++
			}
		}
		active = active[:n]
	}
	h.active = active
	for _, s := range h.sms {
		s.out, s.outWB = s.out[:0], s.outWB[:0]
	}
}

// wb returns the byte masks SM i buffered for its transaction t, its next
// one served (nil when t writes no sector in part).
func (h *Hierarchy) wb(i int, t txn) []uint32 {
	if t.part == 0 {
		return nil
	}
	spl := int(h.mem.g.spl)
	p := h.wbPos[i]
	h.wbPos[i] = p + spl
	return h.sms[i].outWB[p : p+spl]
}

// Tally returns all counters per instruction: every SM side's and the
// shared side's, merged (the sum does not depend on any order).
func (h *Hierarchy) Tally() *Tally {
	t := &Tally{}
	for _, s := range h.sms {
		t.Merge(&s.tally)
	}
	t.Merge(&h.mem.tally)
	return t
}

// Counts returns the launch's total counters.
func (h *Hierarchy) Counts() Counts {
	var c Counts
	for _, s := range h.sms {
		t := s.tally.Total()
		c.Add(&t)
	}
	t := h.mem.tally.Total()
	c.Add(&t)
	return c
}
