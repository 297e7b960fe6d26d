package report

import (
	"errors"
	"math"
	"sort"

	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// Timeline is a timed launch over its cycles, aggregated into columns so
// that a launch of any size draws in a bounded number of marks: the blocks
// resident on each SM, and, for the SMs the trace sampled, what each warp
// slot was doing. Each column of a warp slot is in the state that held it
// for most of the column's cycles.
type Timeline struct {
	// Cycles is the launch's length (sm__cycles_elapsed.max); the columns
	// cover [0, Cycles), each ColumnCycles long.
	Cycles       uint64  `json:"cycles"`
	Columns      int     `json:"columns"`
	ColumnCycles float64 `json:"column_cycles"`
	// BlocksPerSM is the most blocks an SM holds at once.
	BlocksPerSM int `json:"blocks_per_sm"`
	// SMs are the SMs that ran blocks, in order: the blocks resident, as
	// runs of columns of about the same average (Value).
	SMs []SMRow `json:"sms"`
	// Warps are the sampled SMs' warp slots over the whole launch; Detail
	// the first SM's from the start of its first block, at a finer grain
	// (an eighth of the block's life, at least 2,000 cycles).
	Warps  []WarpSM `json:"warps"`
	Detail *WarpSM  `json:"detail,omitempty"`
	// MinStall is the shortest stall the trace recorded (shorter waits
	// count as active); TruncatedStalls the stalls it left out past its
	// event budget.
	MinStall        uint64 `json:"min_stall_cycles"`
	TruncatedStalls int    `json:"truncated_stalls"`
}

// SMRow is one SM's resident blocks over the launch.
type SMRow struct {
	SM int `json:"sm"`
	// Blocks is how many blocks it ran.
	Blocks int   `json:"blocks"`
	Runs   []Run `json:"runs"`
}

// Run is columns [From, To) of a row in one state: for an SM row, Value
// is the average number of resident blocks (rounded to a quarter block);
// for a warp slot, State is "idle" (no warp), "active" (issuing, or
// waiting less than MinStall cycles) or a stall reason.
type Run struct {
	From  int     `json:"from"`
	To    int     `json:"to"`
	Value float64 `json:"value,omitempty"`
	State string  `json:"state,omitempty"`
}

// WarpSM is the warp slots of one SM over a span of cycles.
type WarpSM struct {
	SM int `json:"sm"`
	// From and To are the cycles the columns cover; Columns and
	// ColumnCycles as in Timeline.
	From         uint64     `json:"from"`
	To           uint64     `json:"to"`
	Columns      int        `json:"columns"`
	ColumnCycles float64    `json:"column_cycles"`
	Slots        []WarpSlot `json:"slots"`
	// RecordedUntil, when not 0, is the cycle after which the trace
	// recorded no more of this SM's stalls (its event budget ran out):
	// later columns show warps as active whatever they did.
	RecordedUntil uint64 `json:"recorded_until,omitempty"`
}

// WarpSlot is one warp slot's states over the columns; Starts are the
// columns where a warp began (a slot hosts one warp after another).
type WarpSlot struct {
	Slot   int   `json:"slot"`
	Runs   []Run `json:"runs"`
	Starts []int `json:"starts,omitempty"`
}

// Columns of the timeline.
const (
	TimelineColumns = 400
	detailColumns   = 400
	detailCycles    = 2000
)

// AddTimeline aggregates the trace a timed run recorded
// (scheduler.Options.Trace) into the report's timing section.
func (r *Report) AddTimeline(tr *timing.Trace) error {
	if r.Timing == nil {
		return errors.New("the run was not timed")
	}
	if tr == nil || !tr.Recorded() {
		return errors.New("the trace recorded no run")
	}
	t := r.Timing
	tl := &Timeline{Cycles: t.Cycles, Columns: TimelineColumns, BlocksPerSM: t.BlocksPerSM, MinStall: tr.MinStall, TruncatedStalls: tr.TruncatedStalls}
	if tl.Cycles == 0 {
		tl.Cycles = 1
	}
	tl.ColumnCycles = float64(tl.Cycles) / float64(tl.Columns)

	// Blocks and warps first (a few per block); the stalls, which may be
	// millions, are streamed into the grids afterwards.
	type smSpans struct {
		blocks, warps []timing.Span
	}
	bySM := map[int]*smSpans{}
	tr.Spans(func(s timing.Span) {
		if s.Kind == timing.SpanStall {
			return
		}
		x := bySM[s.SM]
		if x == nil {
			x = &smSpans{}
			bySM[s.SM] = x
		}
		if s.Kind == timing.SpanBlock {
			x.blocks = append(x.blocks, s)
		} else {
			x.warps = append(x.warps, s)
		}
	})
	var sms []int
	for sm := range bySM {
		sms = append(sms, sm)
	}
	sort.Ints(sms)
	for _, sm := range sms {
		x := bySM[sm]
		if len(x.blocks) == 0 {
			continue
		}
		occ := make([]float64, tl.Columns)
		for _, b := range x.blocks {
			spread(occ, 0, tl.ColumnCycles, b.Start, b.Start+b.Cycles, 1)
		}
		row := SMRow{SM: sm, Blocks: len(x.blocks)}
		for c := range occ {
			v := math.Round(4*occ[c]/tl.ColumnCycles) / 4
			if n := len(row.Runs); n > 0 && row.Runs[n-1].Value == v && row.Runs[n-1].To == c {
				row.Runs[n-1].To = c + 1
				continue
			}
			row.Runs = append(row.Runs, Run{From: c, To: c + 1, Value: v})
		}
		tl.SMs = append(tl.SMs, row)
	}
	type grids struct {
		full, detail *warpGrid
		cut          uint64
		isCut        bool
	}
	bySMGrid := map[int]*grids{}
	var order []int
	for _, sm := range sms {
		x := bySM[sm]
		if len(x.warps) == 0 {
			continue
		}
		g := &grids{full: newWarpGrid(sm, 0, tl.Cycles, tl.Columns)}
		g.cut, g.isCut = tr.StallsCut(sm)
		if len(order) == 0 && len(x.blocks) > 0 {
			// The start of the first block on this SM, in detail: an
			// eighth of its life, at least detailCycles (all of it if
			// shorter), so that single stalls show.
			sort.Slice(x.blocks, func(i, j int) bool { return x.blocks[i].Start < x.blocks[j].Start })
			b := x.blocks[0]
			n := min(b.Cycles, max(detailCycles, b.Cycles/8))
			g.detail = newWarpGrid(sm, b.Start, b.Start+max(n, 1), detailColumns)
		}
		for _, w := range x.warps {
			g.full.add(w)
			if g.detail != nil {
				g.detail.add(w)
			}
		}
		bySMGrid[sm] = g
		order = append(order, sm)
	}
	tr.Spans(func(s timing.Span) {
		if s.Kind != timing.SpanStall {
			return
		}
		if g := bySMGrid[s.SM]; g != nil {
			g.full.add(s)
			if g.detail != nil {
				g.detail.add(s)
			}
		}
	})
	for _, sm := range order {
		g := bySMGrid[sm]
		wv := g.full.finish()
		if g.isCut {
			wv.RecordedUntil = max(g.cut, 1)
		}
		tl.Warps = append(tl.Warps, wv)
		if g.detail != nil {
			if d := g.detail.finish(); len(d.Slots) > 0 {
				if g.isCut && g.cut < d.To {
					d.RecordedUntil = max(g.cut, 1)
				}
				tl.Detail = &d
			}
		}
	}
	t.Timeline = tl
	return nil
}

// spread adds weight × the overlap of [from, to) with each column of
// acc (columns of colCycles from origin).
func spread(acc []float64, origin uint64, colCycles float64, from, to uint64, weight float64) {
	if to <= from || to <= origin {
		return
	}
	a, b := float64(max(from, origin)-origin), float64(to-origin)
	c0 := int(a / colCycles)
	for c := c0; c < len(acc); c++ {
		lo, hi := float64(c)*colCycles, float64(c+1)*colCycles
		if lo >= b {
			break
		}
		if o := math.Min(hi, b) - math.Max(lo, a); o > 0 {
			acc[c] += weight * o
		}
	}
}

// warp states of a column: idle, active, then the stall reasons.
const (
	stIdle = iota
	stActive
	stReasons
)

// warpGrid aggregates one SM's warp and stall spans over [from, to) into
// columns: per warp slot and column, the cycles in each state.
type warpGrid struct {
	w      WarpSM
	slots  map[int][]float64
	starts map[int][]int
}

const numStates = stReasons + int(timing.NumStalls)

func newWarpGrid(sm int, from, to uint64, cols int) *warpGrid {
	if to <= from {
		to = from + 1
	}
	return &warpGrid{w: WarpSM{SM: sm, From: from, To: to, Columns: cols, ColumnCycles: float64(to-from) / float64(cols)},
		slots: map[int][]float64{}, starts: map[int][]int{}}
}

func (g *warpGrid) col(c uint64) int { return int(float64(c-g.w.From) / g.w.ColumnCycles) }

// spread adds sign × the overlap of [a, b) with each column to state st
// of a slot's grid.
func (g *warpGrid) spread(grid []float64, st int, a, b uint64, sign float64) {
	w := &g.w
	if b <= w.From || a >= w.To {
		return
	}
	a, b = max(a, w.From), min(b, w.To)
	for c := g.col(a); c < w.Columns; c++ {
		lo, hi := float64(w.From)+float64(c)*w.ColumnCycles, float64(w.From)+float64(c+1)*w.ColumnCycles
		if lo >= float64(b) {
			break
		}
		if o := math.Min(hi, float64(b)) - math.Max(lo, float64(a)); o > 0 {
			grid[c*numStates+st] += sign * o
		}
	}
}

// add takes a warp's span (it is active over it) or a stall (within its
// warp's span).
func (g *warpGrid) add(s timing.Span) {
	w := &g.w
	if s.Start+s.Cycles <= w.From || s.Start >= w.To {
		return
	}
	if s.Kind == timing.SpanStall && s.Reason >= timing.NumStalls {
		return
	}
	grid := g.slots[s.Slot]
	if grid == nil {
		grid = make([]float64, w.Columns*numStates)
		g.slots[s.Slot] = grid
	}
	switch s.Kind {
	case timing.SpanWarp:
		g.spread(grid, stActive, s.Start, s.Start+s.Cycles, 1)
		if s.Start >= w.From {
			g.starts[s.Slot] = append(g.starts[s.Slot], g.col(s.Start))
		}
	case timing.SpanStall:
		g.spread(grid, stReasons+int(s.Reason), s.Start, s.Start+s.Cycles, 1)
		g.spread(grid, stActive, s.Start, s.Start+s.Cycles, -1)
	}
}

// finish picks each column's state: the one that held the slot longest.
func (g *warpGrid) finish() WarpSM {
	w := g.w
	var ids []int
	for slot := range g.slots {
		ids = append(ids, slot)
	}
	sort.Ints(ids)
	for _, slot := range ids {
		grid := g.slots[slot]
		ws := WarpSlot{Slot: slot}
		for c := 0; c < w.Columns; c++ {
			cell := grid[c*numStates : (c+1)*numStates]
			resident := 0.0
			for _, v := range cell[stActive:] {
				resident += v
			}
			best, bestV := stIdle, w.ColumnCycles-resident
			for st := stActive; st < numStates; st++ {
				if cell[st] > bestV+1e-9 {
					best, bestV = st, cell[st]
				}
			}
			name := "idle"
			switch {
			case best == stActive:
				name = "active"
			case best >= stReasons:
				name = timing.Stall(best - stReasons).String()
			}
			if n := len(ws.Runs); n > 0 && ws.Runs[n-1].State == name && ws.Runs[n-1].To == c {
				ws.Runs[n-1].To = c + 1
				continue
			}
			ws.Runs = append(ws.Runs, Run{From: c, To: c + 1, State: name})
		}
		ws.Starts = dedupInts(g.starts[slot])
		w.Slots = append(w.Slots, ws)
	}
	return w
}

func dedupInts(xs []int) []int {
	sort.Ints(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
