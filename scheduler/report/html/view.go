package html

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ptxvm/ptxvm/ptx/demangle"
	"github.com/ptxvm/ptxvm/scheduler/report"
)

// runView is what the templates draw of one run.
type runView struct {
	// Prefix starts every anchor of the run ("" alone, "a-" and "b-" side
	// by side); Tag is "A" or "B" side by side.
	Prefix string
	Tag    string
	// Name is the kernel's C++ name, Signature its demangled signature,
	// Mangled the PTX name.
	Name, Signature, Mangled string
	// From is what was run: the launch spec's path or the bundled
	// kernel's name ("" if the report does not say).
	From        string
	GPU, Mode   string
	Module      string
	Launch      []kv
	Cards       []card
	Findings    []finding
	Charts      []*chart
	Cols        []column
	CUDA        []cudaRow
	CUDANote    string
	CUDAFile    string // the one CUDA file of the rows, if one
	HasCUDAText bool
	PTX         []ptxRow
	Tops        []topList
	Counters    []counterGroup
	Zeros       []counterRow
	// Timed: the run has a timing section, drawn (side by side: only when
	// both runs have one). TimeFindings are where its stall cycles went;
	// Timeline its SM and warp timeline.
	Timed        bool
	TimeFindings []finding
	Timeline     *svgFig

	r                     *report.Report
	minLabelW             map[string]float64 // label columns at least this wide, by chart id
	cudaScales, ptxScales scales
	chartW, labelW        float64 // the charts' width and label column
	// colIdx are the heat columns shown (side by side: fewer); Span is the
	// number of columns of the CUDA table.
	colIdx []int
	Span   int
	// cudaIDs are the anchors of the CUDA rows by label ("matmul.cu:14").
	cudaIDs map[string]string
	// cycles is the longest run's cycles, for timelines side by side.
	cycles uint64
}

type kv struct{ K, V, Note string }

// card is one figure at a glance. Warn marks a figure worth a look (drawn
// with a border and the word, never by colour alone).
type card struct {
	Label, Value, Note string
	Warn               bool
	// Words marks a value in words, drawn smaller than a figure.
	Words bool
}

// finding is one access in plain words, with where it is.
type finding struct {
	Where, Href, PTX, Text, Share string
	Warn                          bool
}

// column is a heat column of the source views.
type column struct{ Name, Title string }

// cell is one heat cell: its text, the exact value, its heat level (0 to
// 8; -1 for an empty cell).
type cell struct {
	Text, Title string
	Level       int
}

// Heat columns, in order.
const (
	colRequests = iota
	colSectors
	colPerReq
	colExcess
	colWavefronts
	colConflicts
	colStall
	colWaited
	numCols
)

var columns = [numCols]column{
	{"Requests", "warp-level requests (shared and constant: instructions executed)"},
	{"Sectors", "32 B sectors global, local and texture accesses touched"},
	{"Sect/req", "sectors per request (4 for 32 lanes reading 4 contiguous bytes each; 32 at worst)"},
	{"Excess", "sectors beyond what the bytes the lanes asked for need"},
	{"Wavefr.", "shared-memory wavefronts (constant: cache accesses); 1 per conflict-free 32-bit request"},
	{"Conflicts", "shared-memory bank conflicts: wavefronts beyond the minimum"},
	{"Stall cycles", "warp-cycles warps waited to issue the line's instructions, as Nsight Compute's source view counts them (timing mode)"},
	{"Waited on", "warp-cycles warps waited for the results of the line's instructions: a load's latency shows here, on the load (timing mode)"},
}

// shortCols are the columns' names side by side.
var shortCols = [numCols]string{"Req.", "Sect.", "S/req", "Excess", "Wavefr.", "Confl.", "Stalls", "Waited"}

// heat holds the raw values of a row's heat cells.
type heat struct {
	v        [numCols]float64
	has      [numCols]bool
	sectReqs float64 // requests of the accesses with sectors
	// stalls and waited are the stall cycles by reason (colStall,
	// colWaited), for the cells' titles.
	stalls, waited map[string]uint64
}

// addTiming adds an instruction's stall cycles.
func (h *heat) addTiming(it *report.InstTiming) {
	h.has[colStall], h.has[colWaited] = true, true
	h.v[colStall] += float64(it.StallCycles)
	h.v[colWaited] += float64(it.WaitedOnCycles)
	h.stalls = addCounts(h.stalls, it.Stalls)
	h.waited = addCounts(h.waited, it.WaitedOn)
}

func addCounts(dst, src map[string]uint64) map[string]uint64 {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]uint64{}
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

func (h *heat) add(in *report.Inst) {
	h.v[colRequests] += float64(in.Requests)
	h.has[colRequests] = h.has[colRequests] || in.Requests > 0
	if in.Sectors > 0 {
		h.v[colSectors] += float64(in.Sectors)
		h.has[colSectors], h.has[colPerReq], h.has[colExcess] = true, true, true
		h.v[colExcess] += float64(in.Excess)
		h.sectReqs += float64(in.Requests)
	}
	if in.Wavefronts > 0 && in.Space != "param" {
		h.v[colWavefronts] += float64(in.Wavefronts)
		h.v[colConflicts] += float64(in.Conflicts)
		h.has[colWavefronts], h.has[colConflicts] = true, in.Space == "shared" || h.has[colConflicts]
	}
	if h.sectReqs > 0 {
		h.v[colPerReq] = h.v[colSectors] / h.sectReqs
	}
}

// scales are the heat maxima of each column.
type scales [numCols]float64

func (s *scales) see(h *heat) {
	for i := range h.v {
		if h.has[i] {
			s[i] = math.Max(s[i], h.v[i])
		}
	}
}

func (s *scales) merge(o scales) {
	for i := range s {
		s[i] = math.Max(s[i], o[i])
	}
}

// cells turns raw values into cells; sectors per request heat against 32
// (the worst a 4-byte access can do), the others against the column's
// maximum.
func (s *scales) cells(h *heat) []cell {
	out := make([]cell, numCols)
	for i := range out {
		if !h.has[i] {
			out[i] = cell{Level: -1}
			continue
		}
		v := h.v[i]
		max := s[i]
		if i == colPerReq {
			max = math.Max(32, max)
		}
		lvl := 0
		if max > 0 && v > 0 {
			lvl = 1 + int(math.Round(7*v/max))
			if i == colPerReq && v <= 4 {
				lvl = 0 // four sectors a request or fewer is no problem
			}
		}
		text := compact(v)
		if i == colPerReq {
			text = trim(v, 3)
		}
		title := columns[i].Name + ": " + comma(v)
		switch i {
		case colStall:
			title += reasonsText(h.stalls, v)
		case colWaited:
			title += reasonsText(h.waited, v)
		}
		out[i] = cell{Text: text, Title: title, Level: lvl}
	}
	return out
}

// reasonsText lists the largest reasons of a by-reason map with their
// shares of total: " (long_scoreboard 81 %, barrier 12 %)".
func reasonsText(m map[string]uint64, total float64) string {
	if len(m) == 0 || total <= 0 {
		return ""
	}
	type kv struct {
		k string
		v uint64
	}
	var xs []kv
	for k, v := range m {
		xs = append(xs, kv{k, v})
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i].v > xs[j].v || xs[i].v == xs[j].v && xs[i].k < xs[j].k })
	var parts []string
	for _, x := range xs[:min(3, len(xs))] {
		if float64(x.v) < 0.05*total {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s %%", x.k, trim(100*float64(x.v)/total, 2)))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// cudaRow is one CUDA source line.
type cudaRow struct {
	ID, Label, Text string
	// Gap marks an elision between lines; Dim a line without instructions.
	Gap, Dim bool
	Cells    []cell
	PTX      []link
	Diags    []string
	heat     heat
	hasHeat  bool
}

type link struct{ Text, Href string }

// ptxRow is one PTX line.
type ptxRow struct {
	ID, Line, Text, CUDA, CUDAHref, Diag string
	Func, Label, Dim                     bool
	Cells                                []cell
	heat                                 heat
	hasHeat                              bool
}

type topList struct {
	Title, Col string
	Rows       []topRow
}

type topRow struct {
	Value, Requests, Where, Href, PTX, Diag string
}

type counterGroup struct {
	Name string
	Rows []counterRow
}

type counterRow struct {
	Name, Value, Unit, Help string
}

// short returns the kernel's C++ name without parameters.
func short(mangled string) string {
	return demangle.Filter(mangled, demangle.NoParams)
}

// newRunView builds the view of r. sources holds CUDA source texts by file
// base name.
// timed says whether to draw the run's timing section (side by side, only
// when both runs have one).
func newRunView(r *report.Report, prefix, tag string, sources map[string]string, timed bool) *runView {
	v := &runView{Prefix: prefix, Tag: tag, Mangled: r.Kernel, Name: short(r.Kernel), Signature: demangle.Filter(r.Kernel), From: r.From,
		GPU: r.GPU, Mode: r.Mode, Module: filepath.Base(r.Module), r: r, chartW: chartW, labelW: 230, cudaIDs: map[string]string{},
		Timed: timed && r.Timing != nil}
	if tag != "" {
		v.chartW, v.labelW = halfW, 190
	}
	if v.Signature == v.Mangled {
		v.Signature = ""
	}
	v.colIdx = []int{colRequests, colSectors, colPerReq, colExcess, colWavefronts, colConflicts}
	if tag != "" {
		v.colIdx = []int{colRequests, colSectors, colExcess, colWavefronts, colConflicts}
	}
	if v.Timed {
		v.colIdx = append(v.colIdx, colStall, colWaited)
		if tag != "" {
			v.colIdx = v.colIdx[:len(v.colIdx)-1]
		}
	}
	for _, i := range v.colIdx {
		c := columns[i]
		if tag != "" {
			c.Name = shortCols[i]
		}
		v.Cols = append(v.Cols, c)
	}
	v.Span = 2 + len(v.Cols)
	if tag == "" {
		v.Span++
	}
	v.launch()
	v.cards()
	v.findings()
	v.source(sources)
	v.timeFindings()
	v.tops()
	v.counters()
	return v
}

func dims(d [3]uint32) string { return fmt.Sprintf("%d × %d × %d", d[0], d[1], d[2]) }

func (v *runView) launch() {
	l := &v.r.Launch
	threads := uint64(l.Block[0]) * uint64(l.Block[1]) * uint64(l.Block[2])
	blocks := uint64(l.Grid[0]) * uint64(l.Grid[1]) * uint64(l.Grid[2])
	v.Launch = []kv{
		{"grid", dims(l.Grid), comma(float64(blocks)) + " blocks"},
		{"block", dims(l.Block), comma(float64(threads)) + " threads, " + comma(float64((threads+31)/32)) + " warps"},
		{"shared memory", bytesText(float64(l.StaticShared)) + " static + " + bytesText(float64(l.DynamicShared)) + " dynamic", "per block"},
	}
	regs := strconv.Itoa(l.Registers) + " per thread"
	note := "given (spec or --regs)"
	switch l.RegisterSource {
	case "declared":
		note = "declared in the PTX, an upper bound: give ptxas's count with --regs"
	case "estimated":
		note = "estimated from the PTX, typically within 20 % of ptxas's: give ptxas's count with --regs"
	}
	v.Launch = append(v.Launch,
		kv{"registers", regs, note},
		kv{"occupancy", trim(l.Occupancy, 4) + " %", fmt.Sprintf("%d blocks per SM, limited by %s", l.BlocksPerSM, strings.Join(l.Limiters, ", "))},
		kv{"L1 / shared", bytesText(float64(l.L1)) + " L1", bytesText(float64(l.Carveout)) + " shared-memory carveout per SM"},
		kv{"GPU", v.GPU, fmt.Sprintf("%d SMs, %s mode", l.SMs, v.Mode)},
		kv{"PTX instructions", comma(float64(l.WarpInsts)) + " warp", comma(float64(l.ThreadInsts)) + " thread"},
	)
}

// metric returns a figure of the run and whether the run has it.
func (v *runView) metric(name string) (float64, bool) {
	x, ok := v.r.Metrics[name]
	return x, ok
}

const (
	mLdReq      = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
	mLdSect     = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
	mLdPerReq   = "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"
	mStReq      = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
	mStSect     = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
	mStPerReq   = "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio"
	mLdHit      = "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"
	mL1Hit      = "l1tex__t_sector_hit_rate.pct"
	mL2Hit      = "lts__t_sector_hit_rate.pct"
	mTexHit     = "ptxvm__tex_hit_rate.pct"
	mTexSect    = "l1tex__t_sectors_pipe_tex_mem_texture.sum"
	mShLdWave   = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
	mShStWave   = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
	mShLdConf   = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
	mShStConf   = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
	mL2Read     = "lts__t_sectors_op_read.sum"
	mL2Write    = "lts__t_sectors_op_write.sum"
	mDRAMRead   = "dram__bytes_read.sum"
	mDRAMWrite  = "dram__bytes_write.sum"
	mLdEff      = "ptxvm__global_ld_requested_per_fetched.ratio"
	mStEff      = "ptxvm__global_st_requested_per_written.ratio"
	mLdBytes    = "ptxvm__global_ld_bytes_requested.sum"
	mStBytes    = "ptxvm__global_st_bytes_requested.sum"
	mLocalBytes = "ptxvm__local_bytes.sum"
	mOcc        = "sm__maximum_warps_per_active_cycle_pct"
	mWarpInsts  = "ptxvm__ptx_inst_executed.sum"
)

func (v *runView) cards() {
	if v.Timed {
		v.Cards = append(v.Cards, v.timingCards()...)
	}
	m := v.r.Metrics
	if m[mLdReq] > 0 {
		spr := m[mLdPerReq]
		v.Cards = append(v.Cards, card{"global load sectors / request", trim(spr, 3),
			fmt.Sprintf("%s requests, %s sectors", compact(m[mLdReq]), compact(m[mLdSect])), v.excessIn("global", "load"), false})
	}
	if m[mStReq] > 0 {
		v.Cards = append(v.Cards, card{"global store sectors / request", trim(m[mStPerReq], 3),
			fmt.Sprintf("%s requests, %s sectors", compact(m[mStReq]), compact(m[mStSect])), v.excessIn("global", "store"), false})
	}
	if w := m[mShLdWave] + m[mShStWave]; w > 0 {
		conf := m[mShLdConf] + m[mShStConf]
		v.Cards = append(v.Cards, card{"shared bank conflicts", compact(conf),
			fmt.Sprintf("of %s wavefronts (%s %%)", compact(w), trim(100*conf/w, 3)), conf > 0, false})
	}
	if m[mLdReq] > 0 {
		v.Cards = append(v.Cards, card{"L1 hit rate, global loads", trim(m[mLdHit], 3) + " %", "of their sectors", false, false})
	}
	if m[mTexSect] > 0 {
		v.Cards = append(v.Cards, card{"texture hit rate", trim(m[mTexHit], 3) + " %", "of texture sectors", false, false})
	}
	if m[mL2Read]+m[mL2Write] > 0 {
		v.Cards = append(v.Cards, card{"L2 hit rate", trim(m[mL2Hit], 3) + " %", compact(m[mL2Read]+m[mL2Write]) + " sectors looked up", false, false})
	}
	if m[mDRAMRead]+m[mDRAMWrite] > 0 {
		v.Cards = append(v.Cards, card{"DRAM traffic", bytesText(m[mDRAMRead] + m[mDRAMWrite]),
			bytesText(m[mDRAMRead]) + " read, " + bytesText(m[mDRAMWrite]) + " written", false, false})
	}
	if b := m[mLocalBytes]; b > 0 {
		v.Cards = append(v.Cards, card{"local memory", bytesText(b), "spills or local arrays", true, false})
	}
	occ := strings.Join(v.r.Launch.Limiters, ", ") + " limit it"
	switch v.r.Launch.RegisterSource {
	case "estimated":
		occ += " (with registers estimated from the PTX)"
	case "declared":
		occ += " (with the PTX's declared registers, an upper bound)"
	}
	v.Cards = append(v.Cards, card{"occupancy", trim(v.r.Launch.Occupancy, 3) + " %", occ, false, false})
}

// cardOrder is the order cards() adds its cards in.
var cardOrder = []string{"global load sectors / request", "global store sectors / request", "shared bank conflicts",
	"L1 hit rate, global loads", "texture hit rate", "L2 hit rate", "DRAM traffic", "local memory", "occupancy"}

// alignCards gives two runs the same cards in the same order, a card one
// run lacks shown empty in it, so that side by side they line up.
func alignCards(a, b *runView) {
	byLabel := func(cs []card) map[string]card {
		m := map[string]card{}
		for _, c := range cs {
			m[c.Label] = c
		}
		return m
	}
	ma, mb := byLabel(a.Cards), byLabel(b.Cards)
	a.Cards, b.Cards = nil, nil
	for _, l := range append(append([]string(nil), timingCardOrder...), cardOrder...) {
		ca, okA := ma[l]
		cb, okB := mb[l]
		if !okA && !okB {
			continue
		}
		if !okA {
			ca = card{Label: l, Value: "—", Note: "none in this run"}
		}
		if !okB {
			cb = card{Label: l, Value: "—", Note: "none in this run"}
		}
		a.Cards, b.Cards = append(a.Cards, ca), append(b.Cards, cb)
	}
}

// excessIn reports whether an access of space and op moved excess sectors.
func (v *runView) excessIn(space, op string) bool {
	for i := range v.r.Insts {
		in := &v.r.Insts[i]
		if in.Space == space && in.Op == op && in.Excess > 0 {
			return true
		}
	}
	return false
}

// anchor returns the anchor of a PTX line of the run.
func (v *runView) ptxAnchor(line string) string {
	if i := strings.LastIndexByte(line, ':'); i >= 0 {
		line = line[i+1:]
	}
	return v.Prefix + "ptx-" + line
}

func where(in *report.Inst) string {
	if in.CUDA != "" {
		return in.CUDA
	}
	return in.PTXLine
}

// findings lists the accesses worth a look (excess sectors, bank
// conflicts, divergent constants), then the busiest ones, each with its
// share of the traffic, one finding per CUDA line and diagnosis (an
// unrolled loop's instructions together); and says so when nothing moves
// excess sectors or conflicts.
func (v *runView) findings() {
	var sectors, wavefronts float64
	for i := range v.r.Insts {
		sectors += float64(v.r.Insts[i].Sectors)
		if v.r.Insts[i].Space == "shared" {
			wavefronts += float64(v.r.Insts[i].Wavefronts)
		}
	}
	type group struct {
		f                   finding
		n                   int
		sectors, wavefronts float64
	}
	var groups []*group
	byKey := map[string]*group{}
	seen := map[int32]bool{}
	add := func(id int32, warn bool) {
		in := v.r.Inst(id)
		if in == nil || seen[id] {
			return
		}
		seen[id] = true
		text, _, _ := strings.Cut(in.Diagnosis.Text, "; L1 hits")
		key := where(in) + "\x00" + text
		if in.CUDA == "" {
			key = in.PTXLine
		}
		g := byKey[key]
		if g == nil {
			if len(groups) == maxFindings {
				return
			}
			g = &group{f: finding{Where: where(in), Href: "#" + v.ptxAnchor(in.PTXLine), PTX: in.PTX, Text: text, Warn: warn}}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.n++
		g.sectors += float64(in.Sectors)
		if in.Space == "shared" {
			g.wavefronts += float64(in.Wavefronts)
		}
	}
	for _, id := range v.r.TopExcess {
		add(id, true)
	}
	for _, id := range v.r.TopConflicts {
		add(id, true)
	}
	for i := range v.r.Insts {
		if in := &v.r.Insts[i]; in.Diagnosis.Kind == report.KindDivergentConst {
			add(in.ID, true)
		}
	}
	// The busiest accesses, whatever their diagnosis: where the traffic is.
	warned := len(groups)
	for _, id := range v.r.TopSectors {
		if len(groups) >= warned+2 {
			break
		}
		add(id, false)
	}
	for _, g := range groups {
		f := g.f
		if g.n > 1 {
			f.PTX += fmt.Sprintf(" and %d more like it", g.n-1)
		}
		switch {
		case g.wavefronts > 0 && strings.Contains(f.Text, "conflict") && wavefronts > 0:
			f.Share = trim(100*g.wavefronts/wavefronts, 3) + " % of shared wavefronts"
		case g.sectors > 0 && sectors > 0:
			f.Share = trim(100*g.sectors/sectors, 3) + " % of sectors"
		}
		v.Findings = append(v.Findings, f)
	}
	if len(v.r.TopExcess) == 0 && len(v.r.TopConflicts) == 0 && len(v.r.Insts) > 0 {
		v.Findings = append([]finding{{Text: "No access moves more sectors than its bytes need and no shared access has a bank conflict."}}, v.Findings...)
	}
}

// maxFindings bounds the findings listed.
const maxFindings = 6

// cudaKey orders CUDA lines: file, then line.
type cudaKey struct {
	file string
	line int
}

func parseCUDA(s string) (cudaKey, bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return cudaKey{}, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return cudaKey{}, false
	}
	return cudaKey{s[:i], n}, true
}

// source builds the CUDA and PTX views.
func (v *runView) source(sources map[string]string) {
	r := v.r
	byCUDA := map[cudaKey]*cudaRow{}
	fileIdx := map[string]int{}
	cudaID := func(k cudaKey) string {
		if _, ok := fileIdx[k.file]; !ok {
			fileIdx[k.file] = len(fileIdx)
		}
		return fmt.Sprintf("%scu-%d-%d", v.Prefix, fileIdx[k.file], k.line)
	}
	lastCUDA := ""
	for _, ll := range r.Listing {
		row := ptxRow{ID: v.Prefix + "ptx-" + strconv.Itoa(ll.Line), Line: strconv.Itoa(ll.Line), Text: ll.Text}
		row.Func = ll.Func != ""
		row.Label = strings.HasSuffix(ll.Text, ":") && !strings.Contains(ll.Text, " ")
		row.Dim = len(ll.Insts) == 0 && !row.Func
		var diags []string
		for _, id := range ll.Insts {
			if in := r.Inst(id); in != nil {
				row.heat.add(in)
				row.hasHeat = true
				if in.Diagnosis.Text != "" {
					diags = append(diags, in.Diagnosis.Text)
				}
			}
			if it := v.instTiming(id); it != nil {
				row.heat.addTiming(it)
				row.hasHeat = true
			}
		}
		row.Diag = strings.Join(diags, "; ")
		if ll.CUDA != "" {
			k, ok := parseCUDA(ll.CUDA)
			if ok {
				cr := byCUDA[k]
				if cr == nil {
					cr = &cudaRow{ID: cudaID(k), Label: ll.CUDA}
					byCUDA[k] = cr
					v.cudaIDs[ll.CUDA] = cr.ID
				}
				cr.PTX = append(cr.PTX, link{Text: strconv.Itoa(ll.Line), Href: "#" + row.ID})
				if row.hasHeat {
					for _, id := range ll.Insts {
						if in := r.Inst(id); in != nil {
							cr.heat.add(in)
							cr.hasHeat = true
							// Per line, the diagnoses without each instruction's L1 hits.
							d, _, _ := strings.Cut(in.Diagnosis.Text, "; L1 hits")
							if d != "" && !contains(cr.Diags, d) {
								cr.Diags = append(cr.Diags, d)
							}
						}
						if it := v.instTiming(id); it != nil {
							cr.heat.addTiming(it)
							cr.hasHeat = true
						}
					}
				}
				if ll.CUDA != lastCUDA && !row.Func {
					row.CUDA, row.CUDAHref = ll.CUDA, "#"+cr.ID
				}
			}
			lastCUDA = ll.CUDA
		}
		v.PTX = append(v.PTX, row)
	}
	// CUDA rows in file and line order, with the text of the lines and a
	// little context where the file is known.
	var keys []cudaKey
	for k := range byCUDA {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].file != keys[j].file {
			return keys[i].file < keys[j].file
		}
		return keys[i].line < keys[j].line
	})
	texts := map[string][]string{}
	var found, missing []string
	for _, k := range keys {
		if _, ok := texts[k.file]; ok {
			continue
		}
		if src, ok := sources[k.file]; ok {
			texts[k.file] = strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
			found = append(found, k.file)
		} else {
			texts[k.file] = nil
			missing = append(missing, k.file)
		}
	}
	const context = 6 // lines between two used lines shown rather than elided
	for i, k := range keys {
		lines := texts[k.file]
		if i > 0 && keys[i-1].file == k.file && lines != nil {
			prev := keys[i-1].line
			if k.line-prev-1 <= context {
				for l := prev + 1; l < k.line; l++ {
					v.CUDA = append(v.CUDA, cudaRow{ID: cudaID(cudaKey{k.file, l}), Label: fmt.Sprintf("%s:%d", k.file, l), Text: lineText(lines, l), Dim: true})
				}
			} else {
				v.CUDA = append(v.CUDA, cudaRow{Gap: true})
			}
		} else if i > 0 {
			v.CUDA = append(v.CUDA, cudaRow{Gap: true})
		}
		cr := byCUDA[k]
		if lines != nil {
			cr.Text = lineText(lines, k.line)
		}
		v.CUDA = append(v.CUDA, *cr)
	}
	for i := range v.CUDA {
		v.CUDA[i].PTX = shorten(v.CUDA[i].PTX)
	}
	// One file: the rows say the line number, the header the file.
	if len(texts) == 1 {
		for f := range texts {
			v.CUDAFile = f
		}
		for i := range v.CUDA {
			if k, ok := parseCUDA(v.CUDA[i].Label); ok {
				v.CUDA[i].Label = strconv.Itoa(k.line)
			}
		}
	}
	v.HasCUDAText = len(found) > 0
	switch {
	case len(keys) == 0:
		v.CUDANote = "The PTX has no .loc line information (compile with nvcc -lineinfo to see CUDA lines)."
	case len(missing) > 0:
		v.CUDANote = "The text of " + strings.Join(missing, ", ") + " was not found: only the line labels .loc gives are shown (give the file with --source FILE or DIR)."
	}
	var sc scales
	for i := range v.CUDA {
		if v.CUDA[i].hasHeat {
			sc.see(&v.CUDA[i].heat)
		}
	}
	v.cudaScales = sc
	var sp scales
	for i := range v.PTX {
		if v.PTX[i].hasHeat {
			sp.see(&v.PTX[i].heat)
		}
	}
	v.ptxScales = sp
}

// applyHeat fills the cells from the scales (shared by two runs side by
// side).
func (v *runView) applyHeat(cuda, ptx scales) {
	pick := func(all []cell) []cell {
		out := make([]cell, len(v.colIdx))
		for i, c := range v.colIdx {
			out[i] = all[c]
		}
		return out
	}
	for i := range v.CUDA {
		if v.CUDA[i].hasHeat {
			v.CUDA[i].Cells = pick(cuda.cells(&v.CUDA[i].heat))
		} else if !v.CUDA[i].Gap {
			v.CUDA[i].Cells = v.emptyCells()
		}
	}
	for i := range v.PTX {
		if v.PTX[i].hasHeat {
			v.PTX[i].Cells = pick(ptx.cells(&v.PTX[i].heat))
		} else {
			v.PTX[i].Cells = v.emptyCells()
		}
	}
}

func (v *runView) emptyCells() []cell {
	c := make([]cell, len(v.colIdx))
	for i := range c {
		c[i].Level = -1
	}
	return c
}

// shorten keeps the first PTX links of a CUDA line and says how many
// more there are.
func shorten(ls []link) []link {
	const keep = 3
	if len(ls) <= keep+1 {
		return ls
	}
	return append(ls[:keep:keep], link{Text: fmt.Sprintf("+%d more", len(ls)-keep)})
}

func lineText(lines []string, n int) string {
	if n < 1 || n > len(lines) {
		return ""
	}
	return strings.TrimRight(lines[n-1], " \t")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (v *runView) tops() {
	lists := []struct {
		title, col string
		ids        []int32
		val        func(*report.Inst) uint64
	}{
		{"By sectors", "Sectors", v.r.TopSectors, func(in *report.Inst) uint64 { return in.Sectors }},
		{"By excess sectors (beyond what their bytes need)", "Excess", v.r.TopExcess, func(in *report.Inst) uint64 { return in.Excess }},
		{"By bank conflicts", "Conflicts", v.r.TopConflicts, func(in *report.Inst) uint64 { return in.Conflicts }},
	}
	for _, l := range lists {
		t := topList{Title: l.title, Col: l.col}
		for _, id := range l.ids {
			in := v.r.Inst(id)
			if in == nil {
				continue
			}
			t.Rows = append(t.Rows, topRow{Value: comma(float64(l.val(in))), Requests: comma(float64(in.Requests)), Where: where(in),
				Href: "#" + v.ptxAnchor(in.PTXLine), PTX: in.PTX, Diag: in.Diagnosis.Text})
		}
		v.Tops = append(v.Tops, t)
	}
}

var groupNames = map[string]string{"launch": "Launch", "occupancy": "Occupancy", "timing": "Timing (the cycle-level model)", "memory": "Memory counters", "derived": "Derived values", "": "Other"}

func (v *runView) counters() {
	cat := report.Catalogue()
	known := map[string]bool{}
	var groups []counterGroup
	gi := map[string]int{}
	for _, m := range cat {
		known[m.Name] = true
		val, ok := v.r.Metrics[m.Name]
		if !ok {
			continue
		}
		row := counterRow{Name: m.Name, Value: comma(val), Unit: m.Unit, Help: m.Help}
		if val == 0 {
			v.Zeros = append(v.Zeros, row)
			continue
		}
		if _, ok := gi[m.Group]; !ok {
			gi[m.Group] = len(groups)
			groups = append(groups, counterGroup{Name: groupNames[m.Group]})
		}
		groups[gi[m.Group]].Rows = append(groups[gi[m.Group]].Rows, row)
	}
	var other []string
	for name := range v.r.Metrics {
		if !known[name] {
			other = append(other, name)
		}
	}
	sort.Strings(other)
	if len(other) > 0 {
		g := counterGroup{Name: groupNames[""]}
		for _, name := range other {
			g.Rows = append(g.Rows, counterRow{Name: name, Value: comma(v.r.Metrics[name])})
		}
		groups = append(groups, g)
	}
	v.Counters = groups
}

// NumCounters is how many figures the counter table lists.
func (v *runView) NumCounters() int {
	n := len(v.Zeros)
	for _, g := range v.Counters {
		n += len(g.Rows)
	}
	return n
}
