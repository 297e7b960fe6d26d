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
	// the first SM's over the life of its first block, at a finer grain.
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

	type smSpans struct {
		blocks, warps, stalls []timing.Span
	}
	bySM := map[int]*smSpans{}
	tr.Spans(func(s timing.Span) {
		x := bySM[s.SM]
		if x == nil {
			x = &smSpans{}
			bySM[s.SM] = x
		}
		switch s.Kind {
		case timing.SpanBlock:
			x.blocks = append(x.blocks, s)
		case timing.SpanWarp:
			x.warps = append(x.warps, s)
		case timing.SpanStall:
			x.stalls = append(x.stalls, s)
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
	first := true
	for _, sm := range sms {
		x := bySM[sm]
		if len(x.warps) == 0 {
			continue
		}
		tl.Warps = append(tl.Warps, warpView(sm, x.warps, x.stalls, 0, tl.Cycles, tl.Columns))
		if first {
			first = false
			// The first block's life on this SM, in detail.
			sort.Slice(x.blocks, func(i, j int) bool { return x.blocks[i].Start < x.blocks[j].Start })
			if len(x.blocks) > 0 {
				b := x.blocks[0]
				if d := warpView(sm, x.warps, x.stalls, b.Start, b.Start+b.Cycles, detailColumns); len(d.Slots) > 0 {
					tl.Detail = &d
				}
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

// warpView aggregates one SM's warp and stall spans over [from, to).
func warpView(sm int, warps, stalls []timing.Span, from, to uint64, cols int) WarpSM {
	if to <= from {
		to = from + 1
	}
	w := WarpSM{SM: sm, From: from, To: to, Columns: cols, ColumnCycles: float64(to-from) / float64(cols)}
	nstate := stReasons + int(timing.NumStalls)
	slots := map[int][]float64{}
	starts := map[int][]int{}
	grid := func(slot int) []float64 {
		g := slots[slot]
		if g == nil {
			g = make([]float64, cols*nstate)
			slots[slot] = g
		}
		return g
	}
	col := func(c uint64) int { return int(float64(c-from) / w.ColumnCycles) }
	add := func(g []float64, st int, a, b uint64, sign float64) {
		if b <= from || a >= to {
			return
		}
		a, b = max(a, from), min(b, to)
		for c := col(a); c < cols; c++ {
			lo, hi := float64(from)+float64(c)*w.ColumnCycles, float64(from)+float64(c+1)*w.ColumnCycles
			if lo >= float64(b) {
				break
			}
			if o := math.Min(hi, float64(b)) - math.Max(lo, float64(a)); o > 0 {
				g[c*nstate+st] += sign * o
			}
		}
	}
	for _, s := range warps {
		if s.Start+s.Cycles <= from || s.Start >= to {
			continue
		}
		g := grid(s.Slot)
		add(g, stActive, s.Start, s.Start+s.Cycles, 1)
		if s.Start >= from {
			starts[s.Slot] = append(starts[s.Slot], col(s.Start))
		}
	}
	for _, s := range stalls {
		if s.Reason >= timing.NumStalls || s.Start+s.Cycles <= from || s.Start >= to {
			continue
		}
		g := grid(s.Slot)
		add(g, stReasons+int(s.Reason), s.Start, s.Start+s.Cycles, 1)
		add(g, stActive, s.Start, s.Start+s.Cycles, -1)
	}
	var ids []int
	for slot := range slots {
		ids = append(ids, slot)
	}
	sort.Ints(ids)
	for _, slot := range ids {
		g := slots[slot]
		ws := WarpSlot{Slot: slot}
		for c := 0; c < cols; c++ {
			cell := g[c*nstate : (c+1)*nstate]
			resident := 0.0
			for _, v := range cell[stActive:] {
				resident += v
			}
			best, bestV := stIdle, w.ColumnCycles-resident
			for st := stActive; st < nstate; st++ {
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
		ws.Starts = dedupInts(starts[slot])
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
