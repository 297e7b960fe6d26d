package html

import (
	"math"
)

// A chart is a horizontal bar chart drawn as inline SVG: a row per bar
// (or a heading), a label on the left, segments, an optional marker, the
// value on the right. Geometry is computed here; the template only draws.
type chart struct {
	ID    string
	Title string
	// Desc says what the chart shows (the SVG's description, and a caption).
	Desc string
	// Empty, when set, replaces the chart ("no shared-memory accesses").
	Empty string
	// W and H are the viewBox; LabelW the width of the label column; PlotX
	// and PlotW the bars' area.
	W, H, LabelW, PlotX, PlotW float64
	Rows                       []chartRow
	Ticks                      []tick
	Legend                     []legendItem
	// AxisLabel names the x axis.
	AxisLabel string
	AxisY     float64
	// GridY is where the grid lines start (below the legend).
	GridY float64
}

type chartRow struct {
	Y       float64 // the row's centre line
	Heading string  // a group heading instead of a bar
	Label   string
	Href    string // the label links to the source line
	Tag     string // a short tag before the bar ("A", "B")
	TagCls  string
	Segs    []seg
	// Marker, when positive, is the x of a tick across the bar (the
	// ideal).
	Marker float64
	Value  string
	ValueX float64
	Tip    string
}

type seg struct {
	X, W  float64
	Class string
}

type tick struct {
	X     float64
	Label string
}

type legendItem struct {
	X, Y  float64
	Class string
	Label string
}

const (
	rowH     = 22.0
	headingH = 24.0
	chartW   = 960.0 // a chart across the page
	halfW    = 640.0 // a chart beside another
	valueW   = 150.0
	topPad   = 28.0 // the legend
	axisH    = 34.0
)

// newChart starts a chart with a label column of labelW.
func newChart(id, title, desc string, width, labelW float64) *chart {
	c := &chart{ID: id, Title: title, Desc: desc, W: width, LabelW: labelW, PlotX: labelW + 8, GridY: 26}
	c.PlotW = c.W - c.PlotX - valueW
	c.H = topPad
	return c
}

// fitLabels widens the label column to the longest label (within reason).
func (c *chart) fitLabels(gs []*barGroup, atLeast float64) {
	w := atLeast
	for _, g := range gs {
		w = math.Max(w, 7.0*float64(len([]rune(g.label())))+8)
	}
	w = math.Min(math.Max(w, c.LabelW), c.W*0.45)
	c.LabelW, c.PlotX = w, w+8
	c.PlotW = c.W - c.PlotX - valueW
}

func (c *chart) legend(items ...legendItem) {
	x := c.PlotX
	for _, it := range items {
		it.X, it.Y = x, 6
		c.Legend = append(c.Legend, it)
		x += 30 + 7.2*float64(len(it.Label))
	}
}

func (c *chart) heading(text string) {
	c.Rows = append(c.Rows, chartRow{Y: c.H + headingH/2 + 4, Heading: text})
	c.H += headingH
}

// bar adds a row; segs are in value units from 0, converted by scale.
func (c *chart) bar(r chartRow, scale func(float64) float64, vals []float64, classes []string, marker float64) {
	r.Y = c.H + rowH/2
	x := 0.0
	for i, v := range vals {
		x0, x1 := round1(scale(x)), round1(scale(x+v))
		if x1 > x0 {
			r.Segs = append(r.Segs, seg{X: round1(c.PlotX + x0), W: round1(x1 - x0), Class: classes[i]})
		}
		x += v
	}
	if marker > 0 {
		r.Marker = round1(c.PlotX + scale(marker))
	}
	r.ValueX = round1(c.PlotX + scale(x) + 6)
	if len(r.Segs) == 0 {
		r.ValueX = c.PlotX + 6
	}
	c.Rows = append(c.Rows, r)
	c.H += rowH
}

// linear returns a scale from [0, max] to the plot's width.
func (c *chart) linear(max float64) func(float64) float64 {
	if max <= 0 {
		max = 1
	}
	return func(v float64) float64 { return c.PlotW * math.Min(v, max) / max }
}

// linearTicks adds ticks at round steps of [0, max].
func (c *chart) linearTicks(max float64, scale func(float64) float64, format func(float64) string) {
	step := niceStep(max / 4)
	for v := 0.0; v <= max*1.0001; v += step {
		c.Ticks = append(c.Ticks, tick{X: round1(c.PlotX + scale(v)), Label: format(v)})
	}
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// logScale maps [1, max] logarithmically (values below 1 to 0).
func (c *chart) logScale(max float64) func(float64) float64 {
	top := math.Log10(math.Max(max, 10))
	return func(v float64) float64 {
		if v <= 1 {
			return 0
		}
		return c.PlotW * math.Min(math.Log10(v), top) / top
	}
}

func (c *chart) logTicks(max float64, scale func(float64) float64, format func(float64) string) {
	top := math.Ceil(math.Log10(math.Max(max, 10)))
	step := math.Max(1, math.Ceil(top/6))
	for e := 0.0; e <= top && math.Pow(10, e) <= max*1.0001; e += step {
		v := math.Pow(10, e)
		c.Ticks = append(c.Ticks, tick{X: round1(c.PlotX + scale(v)), Label: format(v)})
	}
}

// finish adds room for the axis.
func (c *chart) finish(axisLabel string) {
	c.AxisLabel = axisLabel
	c.AxisY = c.H + 4
	c.H += axisH
}

// niceStep rounds a step up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}
