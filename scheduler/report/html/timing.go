package html

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ptxvm/ptxvm/scheduler/report"
)

// The timing model's views: cards, the findings in words, the stall
// charts, the heat columns (view.go) and the timeline.

// instTiming returns the timing of instruction id when the run's timing is
// drawn.
func (v *runView) instTiming(id int32) *report.InstTiming {
	if !v.Timed {
		return nil
	}
	return v.r.Timing.Inst(id)
}

// stallClass is the style class of a stall reason's marks (one colour per
// reason, the same in every chart, the timeline and the legend).
func stallClass(reason string) string { return "st-" + strings.ReplaceAll(reason, "_", "-") }

// timingCards are the timing model's figures at a glance.
func (v *runView) timingCards() []card {
	t := v.r.Timing
	cs := []card{
		{"cycles", comma(float64(t.Cycles)), durationText(t.DurationNs) + " at " + trim(t.ClockMHz, 4) + " MHz", false, false},
		{"achieved occupancy", trim(t.Occupancy, 3) + " %", "theoretical " + trim(v.r.Launch.Occupancy, 3) + " %", t.Occupancy < 0.5*v.r.Launch.Occupancy, false},
		{"IPC", trim(t.IPC, 3), trim(t.IssueUtil, 3) + " % of issue slots used", false, false},
	}
	if top := t.Top(); top != nil {
		cs = append(cs, card{Label: "top stall reason", Value: top.Reason,
			Note: trim(100*top.Share, 3) + " % of stall cycles, " + trim(top.PerIssue, 3) + " per instruction", Warn: top.Share >= 0.4, Words: true})
	}
	return cs
}

// timingCardOrder is the order timingCards makes its cards in.
var timingCardOrder = []string{"cycles", "achieved occupancy", "IPC", "top stall reason"}

func durationText(ns float64) string {
	switch {
	case ns >= 1e6:
		return trim(ns/1e6, 3) + " ms"
	case ns >= 1e3:
		return trim(ns/1e3, 3) + " µs"
	}
	return trim(ns, 3) + " ns"
}

// maxTimeFindings bounds the sentences listed.
const maxTimeFindings = 8

// timeFindings lists where the stall cycles went, in words, each linked to
// its source line.
func (v *runView) timeFindings() {
	if !v.Timed {
		return
	}
	for i, s := range v.r.Timing.Sources {
		if i == maxTimeFindings {
			break
		}
		f := finding{Where: s.Where, Text: s.Sentence, Warn: s.Share >= 0.2}
		f.Href = "#" + v.cudaIDs[s.Where]
		if id, ok := v.cudaIDs[s.Where]; !ok || id == "" {
			f.Href = ""
		}
		if len(s.Insts) > 0 {
			if it := v.r.Timing.Inst(s.Insts[0]); it != nil {
				f.PTX = it.PTX
				if f.Href == "" {
					f.Href = "#" + v.ptxAnchor(it.PTXLine)
				}
			}
			if len(s.Insts) > 1 {
				f.PTX += fmt.Sprintf(" and %d more", len(s.Insts)-1)
			}
		}
		if f.Href == "" {
			f.Href = "#" + v.Prefix + "ptx"
		}
		v.TimeFindings = append(v.TimeFindings, f)
	}
	if len(v.TimeFindings) == 0 {
		v.TimeFindings = []finding{{Text: "The warps never waited."}}
	}
}

// timingScales are the x maxima of the timing charts, shared side by side.
type timingScales struct {
	perIssue, lineCycles float64
	cycles               uint64
}

func (v *runView) timingScales() timingScales {
	var s timingScales
	if !v.Timed {
		return s
	}
	t := v.r.Timing
	for _, r := range t.Stalls {
		s.perIssue = math.Max(s.perIssue, r.PerIssue)
	}
	for _, l := range t.Lines {
		s.lineCycles = math.Max(s.lineCycles, float64(l.StallCycles))
	}
	s.cycles = t.Cycles
	return s
}

func (s *timingScales) merge(o timingScales) {
	s.perIssue = math.Max(s.perIssue, o.perIssue)
	s.lineCycles = math.Max(s.lineCycles, o.lineCycles)
	s.cycles = max(s.cycles, o.cycles)
}

// stallChart draws the stall reasons per issued instruction.
func (v *runView) stallChart(max float64) *chart {
	c := newChart(v.Prefix+"chart-stalls", "Stall reasons",
		"Warp-cycles in each state per issued machine instruction, under Nsight Compute's names (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio); the share is of all stall cycles. selected is the issue itself, one per instruction.", v.chartW, v.labelW)
	t := v.r.Timing
	if len(t.Stalls) == 0 {
		c.Empty = "No warp ever waited."
		return c
	}
	c.LabelW, c.PlotX = math.Max(c.LabelW, 150), math.Max(c.LabelW, 150)+8
	c.PlotW = c.W - c.PlotX - valueW
	scale := c.linear(max)
	for _, s := range t.Stalls {
		if s.PerIssue < 0.005 && s.Reason != "selected" {
			continue // 0.00 per instruction
		}
		val := trim(s.PerIssue, 3)
		if s.Reason != "selected" {
			val += " (" + trim(100*s.Share, 2) + " %)"
		}
		c.bar(chartRow{Label: s.Reason, Value: val, Tip: s.Meaning + " — " + s.Metric}, scale, []float64{s.PerIssue}, []string{stallClass(s.Reason)}, 0)
	}
	c.linearTicks(max, scale, func(x float64) string { return trim(x, 3) })
	c.finish("warp-cycles per issued instruction")
	return c
}

// lineStallChart draws the stall cycles of the busiest source lines,
// stacked by reason.
func (v *runView) lineStallChart(max float64) *chart {
	c := newChart(v.Prefix+"chart-line-stalls", "Stall cycles per source line, by reason",
		"The warp-cycles warps waited to issue each line's instructions, as Nsight Compute's source view counts them: a load's latency shows on the line that uses the loaded value (the findings above name the load itself).", v.chartW, v.labelW)
	t := v.r.Timing
	var lines []report.LineTiming
	for _, l := range t.Lines {
		if l.StallCycles > 0 && float64(l.StallCycles) >= 0.01*float64(t.StallCycles) {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		c.Empty = "No stall cycles."
		return c
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].StallCycles > lines[j].StallCycles })
	lines = lines[:min(maxBars/2, len(lines))]
	// The reasons in the order of the run's totals, so that every bar
	// stacks alike.
	var order []string
	for _, s := range t.Stalls {
		if s.Reason != "selected" {
			order = append(order, s.Reason)
		}
	}
	// The reasons that show: at least a thousandth of the cycles drawn.
	byReason := map[string]uint64{}
	var drawn uint64
	for _, l := range lines {
		for r, n := range l.Stalls {
			byReason[r] += n
			drawn += n
		}
	}
	used := map[string]bool{}
	for r, n := range byReason {
		used[r] = float64(n) >= 0.001*float64(drawn)
	}
	var items []legendItem
	for _, r := range order {
		if used[r] {
			items = append(items, legendItem{Class: stallClass(r), Label: r})
		}
	}
	c.legendWrap(items)
	w := 0.0
	for _, l := range lines {
		w = math.Max(w, 7.0*float64(len(l.Where))+8)
	}
	c.LabelW = math.Min(math.Max(w, math.Max(c.LabelW, v.minLabelW["chart-line-stalls"])), c.W*0.45)
	c.PlotX = c.LabelW + 8
	c.PlotW = c.W - c.PlotX - valueW
	scale := c.linear(max)
	for _, l := range lines {
		var vals []float64
		var cls []string
		for _, r := range order {
			if used[r] {
				vals = append(vals, float64(l.Stalls[r]))
				cls = append(cls, stallClass(r))
			}
		}
		href := v.cudaIDs[l.Where]
		if href == "" {
			if n, ok := strings.CutPrefix(l.Where, "PTX line "); ok {
				href = v.Prefix + "ptx-" + n
			}
		}
		if href != "" {
			href = "#" + href
		}
		c.bar(chartRow{Label: l.Where, Href: href, Value: compact(float64(l.StallCycles)) + " (" + trim(100*float64(l.StallCycles)/math.Max(1, float64(t.StallCycles)), 2) + " %)",
			Tip: l.Where + ": " + comma(float64(l.StallCycles)) + " stall cycles" + reasonsText(l.Stalls, float64(l.StallCycles))}, scale, vals, cls, 0)
	}
	c.linearTicks(max, scale, compact)
	c.finish("warp-cycles")
	return c
}

// legendWrap lays legend items out over as many lines as they need.
func (c *chart) legendWrap(items []legendItem) {
	x, y := c.PlotX, 6.0
	if c.PlotX > c.W/3 {
		x = 8
	}
	start := x
	for _, it := range items {
		w := 30 + 7.2*float64(len(it.Label))
		if x+w > c.W && x > start {
			x, y = start, y+20
		}
		it.X, it.Y = x, y
		c.Legend = append(c.Legend, it)
		x += w
	}
	c.H = math.Max(c.H, y+22)
	c.GridY = y + 20
}

// svgFig is a figure drawn from marks: paths (one per class, so that
// thousands of rectangles stay small), lines and text.
type svgFig struct {
	ID, Title, Desc string
	W, H            float64
	Paths           []svgPath
	Lines           []svgLine
	Texts           []svgText
	Legend          []legendItem
	Note            string
}

type svgPath struct{ Class, D, Title string }

type svgLine struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

type svgText struct {
	X, Y        float64
	Class, Text string
}

// pathSet gathers rectangles by class into path data.
type pathSet struct {
	order []string
	d     map[string]*strings.Builder
}

func (p *pathSet) rect(class string, x, y, w, h float64) {
	if w <= 0 || h <= 0 {
		return
	}
	if p.d == nil {
		p.d = map[string]*strings.Builder{}
	}
	b := p.d[class]
	if b == nil {
		b = &strings.Builder{}
		p.d[class] = b
		p.order = append(p.order, class)
	}
	fmt.Fprintf(b, "M%s %sh%sv%sh-%sz", num(x), num(y), num(w), num(h), num(w))
}

func (p *pathSet) paths(titles map[string]string) []svgPath {
	var out []svgPath
	for _, c := range p.order {
		out = append(out, svgPath{Class: c, D: p.d[c].String(), Title: titles[c]})
	}
	return out
}

// num prints a coordinate with at most one decimal.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// Timeline geometry.
const (
	tlW      = 960.0
	tlLabelW = 92.0
	tlRight  = 16.0
	tlSMRowH = 3.0 // an SM's row in the blocks view
	tlWarpH  = 4.0 // a warp slot's row (3 drawn, 1 gap)
	tlHeadH  = 26.0
)

// timeline draws the run's timeline: blocks resident per SM over cycles,
// and the sampled SMs' warp slots with their states, on an axis of cycles
// that ends at cycles (the longer run's side by side).
func (v *runView) timeline(cycles uint64) *svgFig {
	tl := v.r.Timing.Timeline
	if tl == nil {
		return nil
	}
	f := &svgFig{ID: v.Prefix + "fig-timeline", Title: "Timeline: blocks on the SMs, warps and their stalls",
		Desc: "Top: every SM that ran blocks (a row each, SM 0 at the top), shaded by the blocks resident on it over the launch's cycles. Below: the warp slots of the first SMs, each column coloured by what held the slot for most of its cycles: a stall reason, issuing or ready, or no warp (blank)."}
	if cycles < tl.Cycles {
		cycles = tl.Cycles
	}
	plotX := tlLabelW + 8
	plotW := tlW - plotX - tlRight
	xOf := func(cyc float64) float64 { return plotX + plotW*cyc/float64(cycles) }
	var ps pathSet
	y := 30.0
	// Legend: block shades, then the states the view shows.
	y = v.timelineLegend(f, tl, y)

	head := func(text string) {
		f.Texts = append(f.Texts, svgText{X: 4, Y: y + 16, Class: "hd", Text: text})
		y += tlHeadH
	}
	axis := func(top float64, from, to uint64) {
		// Ticks of a cycle axis under the rows [top, y), for cycles [from, to).
		span := float64(to - from)
		step := niceStep(span / 6)
		x0 := func(c float64) float64 { return plotX + plotW*(c-float64(from))/span }
		if to == cycles && from == 0 {
			x0 = xOf
		}
		for c := math.Ceil(float64(from)/step) * step; c <= float64(to)+0.5; c += step {
			x := x0(c)
			f.Lines = append(f.Lines, svgLine{X1: x, Y1: top, X2: x, Y2: y + 2, Class: "grid"})
			f.Texts = append(f.Texts, svgText{X: x, Y: y + 14, Class: "tick", Text: compact(c)})
		}
		f.Texts = append(f.Texts, svgText{X: plotX + plotW/2, Y: y + 30, Class: "axis", Text: "cycles"})
		y += 40
	}

	// Blocks per SM.
	head(fmt.Sprintf("Blocks resident per SM (%d SMs ran blocks; at most %d each)", len(tl.SMs), tl.BlocksPerSM))
	top := y
	for i, sm := range tl.SMs {
		if i%16 == 0 {
			f.Texts = append(f.Texts, svgText{X: tlLabelW, Y: y + 3, Class: "lb sm", Text: "SM " + strconv.Itoa(sm.SM)})
		}
		for _, r := range sm.Runs {
			if r.Value <= 0 {
				continue
			}
			lvl := int(math.Round(8 * r.Value / float64(max(1, tl.BlocksPerSM))))
			lvl = min(8, max(1, lvl))
			x0 := xOf(float64(r.From) * tl.ColumnCycles)
			x1 := xOf(float64(r.To) * tl.ColumnCycles)
			ps.rect("tb"+strconv.Itoa(lvl), x0, y, x1-x0, tlSMRowH-0.4)
		}
		y += tlSMRowH
	}
	f.Lines = append(f.Lines, svgLine{X1: xOf(float64(tl.Cycles)), Y1: top - 4, X2: xOf(float64(tl.Cycles)), Y2: y + 2, Class: "end"})
	f.Texts = append(f.Texts, svgText{X: xOf(float64(tl.Cycles)) - 4, Y: top - 8, Class: "lb sm", Text: "launch ends (" + comma(float64(tl.Cycles)) + ")"})
	axis(top, 0, cycles)

	warps := func(w *report.WarpSM, full bool) {
		top := y
		span := float64(w.To - w.From)
		x := func(col int) float64 {
			c := float64(col) * w.ColumnCycles
			if full {
				return xOf(float64(w.From) + c)
			}
			return plotX + plotW*c/span
		}
		for i, s := range w.Slots {
			if i%8 == 0 {
				f.Texts = append(f.Texts, svgText{X: tlLabelW, Y: y + 4, Class: "lb sm", Text: "warp " + strconv.Itoa(s.Slot)})
			}
			for _, r := range s.Runs {
				if r.State == "idle" {
					continue
				}
				ps.rect(stallClass(r.State), x(r.From), y, x(r.To)-x(r.From), tlWarpH-1)
			}
			if !full {
				for _, c := range s.Starts {
					f.Lines = append(f.Lines, svgLine{X1: x(c), Y1: y - 0.5, X2: x(c), Y2: y + tlWarpH - 0.5, Class: "start"})
				}
			}
			y += tlWarpH
		}
		if w.RecordedUntil > 0 && w.RecordedUntil < w.To {
			// Past the trace's budget: veil the columns and say so.
			x0 := x(int(float64(w.RecordedUntil-w.From) / w.ColumnCycles))
			x1 := x(w.Columns)
			ps.rect("tl-cut", x0, top-1, x1-x0, y-top+2)
			f.Texts = append(f.Texts, svgText{X: x0 + 4, Y: top + 12, Class: "cut", Text: "stalls not recorded past cycle " + comma(float64(w.RecordedUntil))})
		}
		if full {
			axis(top, 0, cycles)
		} else {
			axis(top, w.From, w.To)
		}
	}
	for i := range tl.Warps {
		w := &tl.Warps[i]
		head(fmt.Sprintf("SM %d: its %d warp slots over the launch", w.SM, len(w.Slots)))
		warps(w, true)
	}
	if tl.Detail != nil {
		d := tl.Detail
		head(fmt.Sprintf("SM %d in detail: cycles %s to %s, from the start of its first block", d.SM, comma(float64(d.From)), comma(float64(d.To))))
		warps(d, false)
	}
	titles := map[string]string{}
	for lvl := 1; lvl <= 8; lvl++ {
		titles["tb"+strconv.Itoa(lvl)] = fmt.Sprintf("about %s blocks resident", trim(float64(lvl)*float64(tl.BlocksPerSM)/8, 2))
	}
	f.Paths = ps.paths(titles)
	// The veil over unrecorded columns goes on top.
	sort.SliceStable(f.Paths, func(i, j int) bool { return f.Paths[i].Class != "tl-cut" && f.Paths[j].Class == "tl-cut" })
	for i := range f.Paths {
		if t, ok := strings.CutPrefix(f.Paths[i].Class, "st-"); ok {
			f.Paths[i].Title = strings.ReplaceAll(t, "-", "_")
		}
	}
	f.W, f.H = tlW, y
	notes := []string{fmt.Sprintf("Each column is %s cycles (%s in the detail view). Issuing or ready: the warp issues, or could and another warp of its scheduler does (not_selected), or waits less than %d cycles.",
		comma(math.Round(tl.ColumnCycles)), detailCols(tl), tl.MinStall)}
	if tl.TruncatedStalls > 0 {
		notes = append(notes, fmt.Sprintf("The trace's event budget ran out: %s later stalls were not recorded, and the warp rows are veiled where they are missing.", comma(float64(tl.TruncatedStalls))))
	}
	f.Note = strings.Join(notes, " ")
	return f
}

func detailCols(tl *report.Timeline) string {
	if tl.Detail == nil {
		return "none"
	}
	return comma(math.Max(1, math.Round(tl.Detail.ColumnCycles)))
}

// timelineLegend draws the legend rows from y and returns the y below them.
func (v *runView) timelineLegend(f *svgFig, tl *report.Timeline, y float64) float64 {
	x := 8.0
	f.Texts = append(f.Texts, svgText{X: x, Y: y - 14, Class: "lg", Text: "blocks resident:"})
	x += 8
	for lvl := 1; lvl <= 8; lvl++ {
		f.Legend = append(f.Legend, legendItem{X: x + 105 + float64(lvl-1)*16, Y: y - 26, Class: "tb" + strconv.Itoa(lvl)})
	}
	f.Texts = append(f.Texts, svgText{X: x + 105 + 8*16 + 6, Y: y - 14, Class: "lg", Text: fmt.Sprintf("few → %d", tl.BlocksPerSM)})
	// States in the run's order of stall cycles.
	seen := map[string]bool{}
	for _, w := range append(append([]report.WarpSM(nil), tl.Warps...), derefWarp(tl.Detail)...) {
		for _, s := range w.Slots {
			for _, r := range s.Runs {
				seen[r.State] = true
			}
		}
	}
	states := []string{"active"}
	label := func(s string) string {
		if s == "active" {
			return "issuing or ready"
		}
		return s
	}
	for _, s := range v.r.Timing.Stalls {
		if seen[s.Reason] {
			states = append(states, s.Reason)
		}
	}
	x, y = 8, y+4
	for _, s := range states {
		w := 30 + 7.2*float64(len(label(s)))
		if x+w > tlW {
			x, y = 8, y+20
		}
		f.Legend = append(f.Legend, legendItem{X: x, Y: y - 12, Class: stallClass(s)})
		f.Texts = append(f.Texts, svgText{X: x + 19, Y: y, Class: "lg", Text: label(s)})
		x += w
	}
	return y + 14
}

func derefWarp(w *report.WarpSM) []report.WarpSM {
	if w == nil {
		return nil
	}
	return []report.WarpSM{*w}
}
