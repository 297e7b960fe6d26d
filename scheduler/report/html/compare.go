package html

import (
	"fmt"
	"math"
	"sort"

	"github.com/ptxvm/ptxvm/scheduler/report"
	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// cmpView is what the templates draw of a comparison.
type cmpView struct {
	A, B      *runView
	Headlines []headline
	Paired    *chart
	Diags     []diagView
	Rows      []cmpRow
	Same      []cmpRow
}

// headline is one difference in words: Big is the emphasised part ("16×
// fewer"), Rest the rest of the sentence.
type headline struct {
	Big, Rest string
}

type diagView struct {
	Access string
	A, B   []diagItem
}

type diagItem struct {
	Where, Href, PTX, Text string
}

type cmpRow struct {
	Name, Help, A, B, Ratio string
	// Fewer and More are the widths (%) of the log-ratio bar's halves.
	Fewer, More float64
}

// headlineMetric is a figure the comparison leads with.
type headlineMetric struct {
	label, fewer, more string
	value              func(m map[string]float64) (float64, bool)
	pct                bool
	// problem marks a figure that is a cost in itself (bank conflicts,
	// local memory): its coming or going leads the headlines.
	problem bool
	// lead puts the figure first whenever it differs (the cycles); atLeast
	// leaves it out unless one run has at least this much.
	lead    bool
	atLeast float64
	// perInst marks a stall reason per instruction: compared by the
	// difference (a change of 2 cycles per instruction weighs as 2×),
	// to two decimals.
	perInst bool
}

func one(name string) func(m map[string]float64) (float64, bool) {
	return func(m map[string]float64) (float64, bool) { v, ok := m[name]; return v, ok }
}

func sum(names ...string) func(m map[string]float64) (float64, bool) {
	return func(m map[string]float64) (float64, bool) {
		var t float64
		any := false
		for _, n := range names {
			v, ok := m[n]
			t += v
			any = any || ok
		}
		return t, any
	}
}

var headlineMetrics = []headlineMetric{
	{label: "cycles", fewer: "fewer", more: "more", value: one(timing.MetricCycles), lead: true},
	{label: "achieved occupancy (%)", fewer: "lower", more: "higher", value: one(timing.MetricOccupancy), pct: true},
	{label: "IPC", fewer: "lower", more: "higher", value: one(timing.MetricIPC)},
	{label: "long-scoreboard stalls per instruction", fewer: "fewer", more: "more", value: one(timing.LongScoreboard.Metric()), atLeast: 0.5, perInst: true},
	{label: "short-scoreboard stalls per instruction", fewer: "fewer", more: "more", value: one(timing.ShortScoreboard.Metric()), atLeast: 0.5, perInst: true},
	{label: "barrier stalls per instruction", fewer: "fewer", more: "more", value: one(timing.Barrier.Metric()), atLeast: 0.5, perInst: true},
	{label: "MIO-throttle stalls per instruction", fewer: "fewer", more: "more", value: one(timing.MIOThrottle.Metric()), atLeast: 0.5, perInst: true},
	{label: "LG-throttle stalls per instruction", fewer: "fewer", more: "more", value: one(timing.LGThrottle.Metric()), atLeast: 0.5, perInst: true},
	{label: "wait stalls per instruction", fewer: "fewer", more: "more", value: one(timing.Wait.Metric()), atLeast: 0.5, perInst: true},
	{label: "PTX warp instructions", fewer: "fewer", more: "more", value: one(mWarpInsts)},
	{label: "global load requests", fewer: "fewer", more: "more", value: one(mLdReq)},
	{label: "global load sectors", fewer: "fewer", more: "more", value: one(mLdSect)},
	{label: "sectors per global load request", fewer: "fewer", more: "more", value: one(mLdPerReq)},
	{label: "global store sectors", fewer: "fewer", more: "more", value: one(mStSect)},
	{label: "sectors per global store request", fewer: "fewer", more: "more", value: one(mStPerReq)},
	{label: "shared load wavefronts", fewer: "fewer", more: "more", value: one(mShLdWave)},
	{label: "shared store wavefronts", fewer: "fewer", more: "more", value: one(mShStWave)},
	{label: "shared bank conflicts", fewer: "fewer", more: "more", value: sum(mShLdConf, mShStConf), problem: true},
	{label: "local memory bytes", fewer: "fewer", more: "more", value: one(mLocalBytes), problem: true},
	{label: "L1 hit rate of global loads (%)", fewer: "lower", more: "higher", value: one(mLdHit), pct: true},
	{label: "L2 sectors", fewer: "fewer", more: "more", value: sum(mL2Read, mL2Write)},
	{label: "L2 hit rate (%)", fewer: "lower", more: "higher", value: one(mL2Hit), pct: true},
	{label: "DRAM bytes", fewer: "fewer", more: "more", value: sum(mDRAMRead, mDRAMWrite)},
}

// newCmpView builds the view of c.
func newCmpView(c *report.Comparison, sources map[string]string) *cmpView {
	// The timing sections are drawn when both runs have one.
	timed := c.A.Timing != nil && c.B.Timing != nil
	v := &cmpView{A: newRunView(c.A, "a-", "A", sources, timed), B: newRunView(c.B, "b-", "B", sources, timed)}
	// Both runs' charts and heat on the same scales.
	cs := v.A.chartScales()
	cs.merge(v.B.chartScales())
	v.A.buildCharts(cs)
	v.B.buildCharts(cs)
	// Again with the label columns of the wider of each pair, so that
	// both have their bars at the same place.
	widths := map[string]float64{}
	for _, rv := range []*runView{v.A, v.B} {
		for _, c := range rv.Charts {
			id := c.ID[len(rv.Prefix):]
			widths[id] = math.Max(widths[id], c.LabelW)
		}
	}
	v.A.minLabelW, v.B.minLabelW = widths, widths
	v.A.buildCharts(cs)
	v.B.buildCharts(cs)
	cu, px := v.A.cudaScales, v.A.ptxScales
	cu.merge(v.B.cudaScales)
	px.merge(v.B.ptxScales)
	v.A.applyHeat(cu, px)
	v.B.applyHeat(cu, px)

	alignCards(v.A, v.B)
	v.headlines(c)
	v.diagnoses(c)
	v.rows(c)
	return v
}

func (v *cmpView) headlines(c *report.Comparison) {
	type cand struct {
		h     headline
		score float64
	}
	var cands []cand
	v.Paired = newChart("chart-paired", "The figures that differ",
		"Each figure of A (upper bar) and B (lower bar), drawn against the larger of the two (hit rates against 100 %).", halfW, 24)
	v.Paired.legend(legendItem{Class: "s-a", Label: "A: " + v.A.Name}, legendItem{Class: "s-b", Label: "B: " + v.B.Name})
	for _, hm := range headlineMetrics {
		a, okA := hm.value(c.A.Metrics)
		b, okB := hm.value(c.B.Metrics)
		if !okA && !okB || a == 0 && b == 0 || math.Max(a, b) < hm.atLeast {
			continue
		}
		if hm.perInst {
			a, b = math.Round(100*a)/100, math.Round(100*b)/100
		}
		words := ratioWords(a, b, hm.fewer, hm.more)
		fa, fb := comma(a), comma(b)
		if hm.pct {
			fa, fb = trim(a, 3)+" %", trim(b, 3)+" %"
			words = fa + " → " + fb
		}
		if hm.perInst {
			words = fa + " → " + fb
		}
		if a == b {
			continue
		}
		v.Paired.heading(hm.label + ": " + words)
		max := math.Max(a, b)
		if hm.pct {
			max = 100
		}
		scale := v.Paired.linear(max)
		v.Paired.bar(chartRow{Tag: "A", TagCls: "t-a", Value: fa, Tip: hm.label + " in A"}, scale, []float64{a}, []string{"s-a"}, 0)
		v.Paired.bar(chartRow{Tag: "B", TagCls: "t-b", Value: fb, Tip: hm.label + " in B"}, scale, []float64{b}, []string{"s-b"}, 0)

		var h headline
		score := 0.0
		switch {
		case a == b:
			continue
		case hm.pct:
			h = headline{Big: fmt.Sprintf("%s → %s", trim(a, 3)+" %", trim(b, 3)+" %"), Rest: hm.label}
			score = math.Abs(a-b) / 25 // 100 points of hit rate weigh as 16×
		case hm.perInst:
			h = headline{Big: fa + " → " + fb, Rest: hm.label}
			score = math.Abs(a-b) / 2
		case a == 0:
			h = headline{Big: "B adds " + comma(b), Rest: hm.label + " (A has none)"}
			score = 2.5 // as 5.7×
		case b == 0:
			h = headline{Big: "B has no " + hm.label, Rest: "(A: " + fa + ")"}
			score = 2.5
		default:
			h = headline{Big: words, Rest: hm.label + " in B (" + fa + " → " + fb + ")"}
			score = math.Abs(math.Log2(b / a))
		}
		if hm.problem && (a == 0 || b == 0) {
			score = 4.5
		}
		if hm.lead {
			score = 100
		}
		if score >= 0.5 { // 1.4× or more
			cands = append(cands, cand{h, score})
		}
	}
	v.Paired.finish("")
	v.Paired.Ticks = nil
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	for _, c := range cands[:min(6, len(cands))] {
		v.Headlines = append(v.Headlines, c.h)
	}
}

func (v *cmpView) diagnoses(c *report.Comparison) {
	for _, d := range c.Diagnoses {
		dv := diagView{Access: d.Access}
		for _, x := range d.A {
			dv.A = append(dv.A, diagItem{Where: whereDiag(x), Href: "#" + v.A.ptxAnchor(x.PTXLine), PTX: x.PTX, Text: x.Diagnosis.Text})
		}
		for _, x := range d.B {
			dv.B = append(dv.B, diagItem{Where: whereDiag(x), Href: "#" + v.B.ptxAnchor(x.PTXLine), PTX: x.PTX, Text: x.Diagnosis.Text})
		}
		v.Diags = append(v.Diags, dv)
	}
}

func whereDiag(d report.Diagnosed) string {
	if d.CUDA != "" {
		return d.CUDA
	}
	return d.PTXLine
}

// rows lays every metric out with its ratio: a bar to the left for fewer
// in B, to the right for more, its length log2 of the ratio (full at 32×).
func (v *cmpView) rows(c *report.Comparison) {
	for _, r := range c.Rows {
		row := cmpRow{Name: r.Name, Help: r.Help, A: comma(r.A), B: comma(r.B)}
		switch {
		case r.Ratio == nil:
			row.Ratio = "new in B"
			row.More = 100
		case *r.Ratio == 0:
			row.Ratio = "none in B"
			row.Fewer = 100
		default:
			q := *r.Ratio
			row.Ratio = trim(q, 3) + "×"
			w := math.Min(100, 100*math.Abs(math.Log2(math.Abs(q)))/5)
			if math.Abs(q) < 1 {
				row.Fewer = math.Round(w)
			} else {
				row.More = math.Round(w)
			}
			if q == 1 {
				v.Same = append(v.Same, row)
				continue
			}
		}
		v.Rows = append(v.Rows, row)
	}
}
