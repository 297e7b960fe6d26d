package html

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ptxvm/ptxvm/scheduler/report"
)

// maxBars bounds the bars of a per-instruction chart (the busiest are
// kept, shown in PTX order).
const maxBars = 24

// chartScales are the x maxima of a run's charts, shared by two runs side
// by side.
type chartScales struct {
	sectors, wavefronts, traffic float64
	timing                       timingScales
}

func (v *runView) chartScales() chartScales {
	var s chartScales
	for i := range v.r.Insts {
		in := &v.r.Insts[i]
		if in.Sectors > 0 {
			s.sectors = math.Max(s.sectors, perRequest(in.Sectors, in.Requests))
		}
		if in.Space == "shared" && in.Wavefronts > 0 {
			s.wavefronts = math.Max(s.wavefronts, perRequest(in.Wavefronts, in.Requests))
		}
	}
	for _, t := range v.trafficLevels() {
		s.traffic = math.Max(s.traffic, t.bytes)
	}
	s.timing = v.timingScales()
	return s
}

func (s *chartScales) merge(o chartScales) {
	s.sectors = math.Max(s.sectors, o.sectors)
	s.wavefronts = math.Max(s.wavefronts, o.wavefronts)
	s.traffic = math.Max(s.traffic, o.traffic)
	s.timing.merge(o.timing)
}

// barGroup is the instructions one bar stands for: those of one CUDA line
// with the same opcode and the same figures per request (an unrolled
// loop's loads), in PTX order.
type barGroup struct {
	insts        []*report.Inst
	perReq, need float64
	weight       uint64
}

// groups returns the bars of a per-instruction chart: the instructions
// keep selects, grouped, at most maxBars of the busiest by weight, in PTX
// line order. perReq and need give an instruction's figure per request and
// the minimum.
func (v *runView) groups(keep func(*report.Inst) bool, weight func(*report.Inst) uint64, perReq, need func(*report.Inst) float64) []*barGroup {
	type key struct {
		cuda, op     string
		perReq, need float64
	}
	byKey := map[key]*barGroup{}
	var out []*barGroup
	for i := range v.r.Insts {
		in := &v.r.Insts[i]
		if !keep(in) {
			continue
		}
		k := key{in.CUDA, opcode(in.PTX), round1(perReq(in)), round1(need(in))}
		if in.CUDA == "" {
			k.cuda = in.PTXLine // no line information: one bar each
		}
		g := byKey[k]
		if g == nil {
			g = &barGroup{perReq: perReq(in), need: need(in)}
			byKey[k] = g
			out = append(out, g)
		}
		g.insts = append(g.insts, in)
		g.weight += weight(in)
	}
	if len(out) > maxBars {
		sort.SliceStable(out, func(i, j int) bool { return out[i].weight > out[j].weight })
		out = out[:maxBars]
	}
	sort.SliceStable(out, func(i, j int) bool { return lineOf(out[i].insts[0].PTXLine) < lineOf(out[j].insts[0].PTXLine) })
	return out
}

func lineOf(ptxLine string) int {
	if k, ok := parseCUDA(ptxLine); ok {
		return k.line
	}
	return 0
}

// opcode is an instruction's opcode with its modifiers ("ld.global.f32").
func opcode(ptx string) string {
	for i, c := range ptx {
		if c == ' ' || c == '\t' {
			return ptx[:i]
		}
	}
	return ptx
}

// label names a bar: the CUDA line (or PTX line), and the opcode with the
// number of instructions when more than one.
func (g *barGroup) label() string {
	in := g.insts[0]
	op := opcode(in.PTX)
	if len(g.insts) > 1 {
		op = fmt.Sprintf("%d × %s", len(g.insts), op)
	}
	if in.CUDA == "" {
		return fmt.Sprintf("PTX %d · %s", lineOf(in.PTXLine), op)
	}
	return in.CUDA + " · " + op
}

// tip says which PTX lines a bar stands for and the diagnosis of the first.
func (g *barGroup) tip() string {
	var lines []string
	for _, in := range g.insts {
		lines = append(lines, fmt.Sprint(lineOf(in.PTXLine)))
	}
	return "PTX lines " + strings.Join(lines, ", ") + ": " + g.insts[0].Diagnosis.Text
}

// buildCharts draws the run's charts on the given scales: in timing mode
// the stall reasons and the stall cycles per line first, then the memory
// charts; and the timeline.
func (v *runView) buildCharts(s chartScales) {
	v.Charts = nil
	if v.Timed {
		v.Charts = append(v.Charts, v.stallChart(s.timing.perIssue), v.lineStallChart(s.timing.lineCycles))
		v.Timeline = v.timeline(s.timing.cycles)
	}
	v.Charts = append(v.Charts, v.sectorsChart(s.sectors), v.wavefrontChart(s.wavefronts), v.hitChart(), v.trafficChart(s.traffic))
}

func (v *runView) sectorsChart(max float64) *chart {
	c := newChart(v.Prefix+"chart-sectors", "Sectors per request, per instruction",
		"Each global, local and texture instruction: the 32 B sectors a warp-wide request touched on average. The solid part is what the bytes the lanes asked for need; the hatched part is excess (strided or scattered lanes). The tick marks the minimum.", v.chartW, v.labelW)
	spr := func(in *report.Inst) float64 { return perRequest(in.Sectors, in.Requests) }
	ideal := func(in *report.Inst) float64 {
		if in.IdealSectors == 0 {
			return spr(in)
		}
		return math.Min(spr(in), perRequest(in.IdealSectors, in.Requests))
	}
	gs := v.groups(func(in *report.Inst) bool { return in.Sectors > 0 }, func(in *report.Inst) uint64 { return in.Sectors }, spr, ideal)
	if len(gs) == 0 {
		c.Empty = "No global, local or texture accesses."
		return c
	}
	max = math.Max(max, 4)
	c.fitLabels(gs, v.minLabelW[c.ID[len(v.Prefix):]])
	c.legend(legendItem{Class: "s-need", Label: "needed"}, legendItem{Class: "s-excess", Label: "excess"})
	scale := c.linear(max)
	for _, g := range gs {
		val := trim(g.perReq, 3)
		if g.perReq > g.need {
			val += " (needs " + trim(g.need, 3) + ")"
		}
		c.bar(chartRow{Label: g.label(), Href: "#" + v.ptxAnchor(g.insts[0].PTXLine), Value: val, Tip: g.tip()},
			scale, []float64{g.need, g.perReq - g.need}, []string{"s-need", "s-excess"}, g.need)
	}
	c.linearTicks(max, scale, func(x float64) string { return trim(x, 3) })
	c.finish("sectors per request")
	return c
}

func (v *runView) wavefrontChart(max float64) *chart {
	c := newChart(v.Prefix+"chart-banks", "Shared-memory wavefronts per request (bank-conflict ways)",
		"Each shared-memory instruction: the wavefronts a warp-wide request took on average. The solid part is the minimum for its width; the hatched part is bank conflicts, the lanes that had to wait for another pass (32 wavefronts: a 32-way conflict).", v.chartW, v.labelW)
	wpr := func(in *report.Inst) float64 { return perRequest(in.Wavefronts, in.Requests) }
	need := func(in *report.Inst) float64 { return perRequest(in.Wavefronts-in.Conflicts, in.Requests) }
	gs := v.groups(func(in *report.Inst) bool { return in.Space == "shared" && in.Wavefronts > 0 },
		func(in *report.Inst) uint64 { return in.Wavefronts }, wpr, need)
	if len(gs) == 0 {
		c.Empty = "No shared-memory accesses."
		return c
	}
	max = math.Max(max, 2)
	c.fitLabels(gs, v.minLabelW[c.ID[len(v.Prefix):]])
	c.legend(legendItem{Class: "s-need", Label: "minimum"}, legendItem{Class: "s-conflict", Label: "bank conflicts"})
	scale := c.linear(max)
	for _, g := range gs {
		val := trim(g.perReq, 3)
		if g.perReq > g.need && g.need > 0 {
			val += fmt.Sprintf(" (%s-way)", trim(g.perReq/g.need, 3))
		}
		c.bar(chartRow{Label: g.label(), Href: "#" + v.ptxAnchor(g.insts[0].PTXLine), Value: val, Tip: g.tip()},
			scale, []float64{g.need, g.perReq - g.need}, []string{"s-need", "s-conflict"}, g.need)
	}
	c.linearTicks(max, scale, func(x float64) string { return trim(x, 3) })
	c.finish("wavefronts per request")
	return c
}

func (v *runView) hitChart() *chart {
	c := newChart(v.Prefix+"chart-hits", "Cache hit rates",
		v.hitDesc(), v.chartW, v.labelW)
	m := v.r.Metrics
	type hr struct {
		label, name string
		denom       float64
	}
	rates := []hr{
		{"L1: global loads", mLdHit, m[mLdSect]},
		{"L1: all lookups", mL1Hit, m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] + m[mStSect] + m[mTexSect] +
			m["l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"] + m["l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"]},
		{"texture cache", mTexHit, m[mTexSect]},
		{"L2: reads", "lts__t_sector_op_read_hit_rate.pct", m[mL2Read]},
		{"L2: writes", "lts__t_sector_op_write_hit_rate.pct", m[mL2Write]},
		{"L2: all", mL2Hit, m[mL2Read] + m[mL2Write]},
	}
	scale := c.linear(100)
	n := 0
	for _, r := range rates {
		if r.denom == 0 {
			continue
		}
		n++
		p := m[r.name]
		c.bar(chartRow{Label: r.label, Value: trim(p, 3) + " %", Tip: r.name}, scale, []float64{p, 100 - p}, []string{"s-hit", "s-miss"}, 0)
	}
	if n == 0 {
		c.Empty = "No cached accesses."
		return c
	}
	c.legend(legendItem{Class: "s-hit", Label: "hit"}, legendItem{Class: "s-miss", Label: "miss"})
	c.linearTicks(100, scale, func(x float64) string { return trim(x, 3) + "%" })
	c.finish("sectors that hit, %")
	return c
}

type level struct {
	label, note string
	bytes       float64
}

// trafficLevels are the bytes moved at each level of the hierarchy.
func (v *runView) trafficLevels() []level {
	m := v.r.Metrics
	l1 := 32 * (m[mLdSect] + m[mStSect] + m[mTexSect] + m["l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"] + m["l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"] +
		m["l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"] + m["l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"])
	shared := 128 * (m[mShLdWave] + m[mShStWave] + m["ptxvm__shared_wavefronts_op_atom.sum"])
	return []level{
		{"global bytes lanes asked for", "global loads and stores: lanes × bytes", m[mLdBytes] + m[mStBytes]},
		{"L1TEX sectors × 32 B", "global, local and texture sectors × 32 B between the SMs and their L1", l1},
		{"shared wavefronts × 128 B", "shared-memory wavefronts × 128 B (32 banks × 4 B)", shared},
		{"L2 sectors × 32 B", "sectors × 32 B looked up in L2", 32 * (m[mL2Read] + m[mL2Write])},
		{"DRAM", "bytes read and written", m[mDRAMRead] + m[mDRAMWrite]},
	}
}

func (v *runView) trafficChart(max float64) *chart {
	c := newChart(v.Prefix+"chart-traffic", "Bytes at each level (log scale)",
		"What the lanes asked for, what moved between the SMs and L1, through shared memory, through L2 and to DRAM. Caches and shared memory serve reuse: the levels further out should move less.", v.chartW, v.labelW)
	levels := v.trafficLevels()
	any := false
	for _, l := range levels {
		any = any || l.bytes > 0
	}
	if !any {
		c.Empty = "No memory traffic."
		return c
	}
	scale := c.logScale(max)
	for _, l := range levels {
		c.bar(chartRow{Label: l.label, Value: bytesText(l.bytes), Tip: l.note}, scale, []float64{l.bytes}, []string{"s-bytes"}, 0)
	}
	c.logTicks(max, scale, bytesShort)
	c.finish("bytes")
	return c
}

func bytesShort(v float64) string {
	switch {
	case v >= 1e9:
		return trim(v/1e9, 3) + "G"
	case v >= 1e6:
		return trim(v/1e6, 3) + "M"
	case v >= 1e3:
		return trim(v/1e3, 3) + "k"
	}
	return trim(v, 3)
}

func (v *runView) hitDesc() string {
	if v.r.Mode == "timing" {
		return "Sector hit rates of the caches the run used, in the order the timing model interleaved the warps' accesses."
	}
	return "Sector hit rates of the caches the run used (functional mode: blocks run in a defined order, so rates are near but not equal to the GPU's)."
}
