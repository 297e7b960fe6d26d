package report

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm"
)

// Report is what a run of one launch says about its memory traffic.
type Report struct {
	Kernel string `json:"kernel"`
	// From is what was run: the launch spec's path or the bundled
	// kernel's name ("" when not known); comparisons label sides by it.
	From   string `json:"from,omitempty"`
	GPU    string `json:"gpu"`
	Mode   string `json:"mode"`
	Launch Launch `json:"launch"`
	// Summary is the memory summary: the counters and derived values of
	// the run that are not zero, in the hierarchy's order, with their
	// meaning.
	Summary []Figure `json:"summary"`
	// Metrics is every figure of the run (what --metrics writes).
	Metrics map[string]float64 `json:"metrics"`
	// Insts is every instruction that accessed memory, by id.
	Insts []Inst `json:"instructions"`
	// Lines is the traffic per CUDA source line (from .loc), most sectors
	// first; empty for PTX without line information.
	Lines []Line `json:"cuda_lines,omitempty"`
	// The top instructions (ids into Insts, at most Top of each): by
	// sectors moved, by sectors beyond what the bytes need, by bank
	// conflicts.
	TopSectors   []int32 `json:"top_sectors"`
	TopExcess    []int32 `json:"top_excess"`
	TopConflicts []int32 `json:"top_conflicts"`
	// Module is the PTX file's path as the run loaded it.
	Module string `json:"module,omitempty"`
	// Listing is the kernel's PTX line by line (ListingLine), for a
	// source view; CUDAFiles the CUDA source files its .loc directives
	// name, as nvcc recorded them.
	Listing   []ListingLine `json:"listing,omitempty"`
	CUDAFiles []string      `json:"cuda_files,omitempty"`
	// Timing is what the cycle-level model measured (timing mode only).
	Timing *Timing `json:"timing,omitempty"`

	byID map[int32]int
}

// Launch describes the launch and its occupancy.
type Launch struct {
	Grid          [3]uint32 `json:"grid"`
	Block         [3]uint32 `json:"block"`
	StaticShared  uint64    `json:"static_shared_bytes"`
	DynamicShared uint64    `json:"dynamic_shared_bytes"`
	Registers     int       `json:"registers"`
	// RegisterSource is "given" (spec or --regs) or "estimated" (from the
	// PTX's liveness, package scheduler/regs).
	RegisterSource string   `json:"register_source"`
	Occupancy      float64  `json:"occupancy_pct"`
	BlocksPerSM    int      `json:"blocks_per_sm"`
	Limiters       []string `json:"limited_by"`
	Carveout       int      `json:"shared_carveout_bytes"`
	L1             int      `json:"l1_bytes"`
	SMs            int      `json:"sms"`
	WarpInsts      uint64   `json:"ptx_warp_instructions"`
	ThreadInsts    uint64   `json:"ptx_thread_instructions"`
}

// Figure is one metric with its meaning.
type Figure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
	Help  string  `json:"help"`
}

// Inst is one instruction's traffic and its diagnosis.
type Inst struct {
	ID int32 `json:"id"`
	// PTX is the instruction's source text and PTXLine its position
	// (file:line); CUDA the CUDA source line from .loc ("" when none).
	PTX     string `json:"ptx"`
	PTXLine string `json:"ptx_line"`
	CUDA    string `json:"cuda_line,omitempty"`
	// Space and Op say what it accessed: global, local, shared, const,
	// param, texture; load, store, atomic.
	Space string `json:"space"`
	Op    string `json:"op"`
	// Requests are warp-level requests (shared and constant: instructions
	// executed); Sectors the 32 B sectors they touched (global, local,
	// texture); IdealSectors what the bytes the lanes asked for need when
	// contiguous and aligned; Excess = Sectors − IdealSectors.
	Requests     uint64 `json:"requests"`
	Sectors      uint64 `json:"sectors,omitempty"`
	IdealSectors uint64 `json:"ideal_sectors,omitempty"`
	Excess       uint64 `json:"excess_sectors,omitempty"`
	// Wavefronts and Conflicts of shared accesses (Conflicts: wavefronts
	// beyond the minimum), or the constant cache's accesses (Wavefronts).
	Wavefronts uint64 `json:"wavefronts,omitempty"`
	Conflicts  uint64 `json:"bank_conflicts,omitempty"`
	// L1HitPct is the L1 (or texture cache) sector hit rate of its loads;
	// -1 when it made no cached load.
	L1HitPct float64 `json:"l1_hit_pct"`
	// Counters are its nonzero raw counters by metric name.
	Counters map[string]uint64 `json:"counters"`
	// Pattern is the shape of its widest access (hier.Pattern).
	Pattern   *hier.Pattern `json:"pattern,omitempty"`
	Diagnosis Diagnosis     `json:"diagnosis"`
}

// Line is the traffic of one CUDA source line.
type Line struct {
	CUDA      string  `json:"cuda_line"`
	Insts     []int32 `json:"instructions"`
	Requests  uint64  `json:"requests"`
	Sectors   uint64  `json:"sectors"`
	Excess    uint64  `json:"excess_sectors"`
	Conflicts uint64  `json:"bank_conflicts"`
}

// Top is how many instructions each top list holds.
const Top = 10

// New builds the report of a run: the launch, the memory summary, every
// memory instruction with its diagnosis, the CUDA lines and the top lists.
// The run must have counted (scheduler.Options.NoCounters unset).
func New(run *scheduler.SpecRun, gpu *scheduler.Profile) (*Report, error) {
	h := run.Result.Hier
	if h == nil {
		return nil, fmt.Errorf("the run has no memory counters (it ran without the hierarchy)")
	}
	l := run.Prepared.Launch
	k := l.Kernel
	r := &Report{Kernel: k.Name, GPU: gpu.Name, Mode: scheduler.ModeFunctional, Metrics: run.Metrics(), byID: map[int32]int{}}
	if run.Result.Timing != nil {
		r.Mode = scheduler.ModeTiming
	}
	st := run.Result.Stats
	r.Launch = Launch{Grid: l.Grid, Block: l.Block, StaticShared: k.SharedStatic, DynamicShared: l.DynSmem,
		SMs: gpu.SMs, WarpInsts: st.Inst, ThreadInsts: st.ThreadInst}
	if o := run.Result.Occupancy; o != nil {
		r.Launch.Registers, r.Launch.RegisterSource = o.Registers, string(o.RegisterSource)
		r.Launch.Occupancy, r.Launch.BlocksPerSM, r.Launch.Limiters = o.Pct, o.BlocksPerSM, o.Limiters()
	}
	r.Launch.Carveout, r.Launch.L1 = h.Carveout()

	c := h.Counts()
	for _, m := range hier.Metrics(&c, hier.Extra{InstIssued: st.Inst}) {
		if m.Value != 0 {
			r.Summary = append(r.Summary, Figure{Name: m.Name, Value: m.Value, Unit: m.Unit, Help: m.Help})
		}
	}

	tally := h.Tally()
	ids := tally.Insts()
	var lines []int
	for _, id := range ids {
		if id >= 0 && int(id) < len(k.Insts) {
			lines = append(lines, int(k.Insts[id].Line))
		}
	}
	if run.Result.Timing != nil { // every instruction's text
		for _, info := range k.Insts {
			lines = append(lines, int(info.Line))
		}
	}
	var text map[int]string
	if l.Module != nil && l.Module.AST != nil {
		text = l.Module.AST.SourceLines(lines...)
	}
	ptxFile := "?"
	if l.Module != nil {
		ptxFile = filepath.Base(l.Module.Filename)
		r.Module = l.Module.Filename
	}
	if l.Module != nil && l.Module.AST != nil {
		decl := map[string]int{}
		for _, f := range l.Module.AST.Funcs {
			if f.HasBody {
				decl[f.Name] = f.Pos.Line
			}
		}
		r.Listing, r.CUDAFiles = listing(k, l.Module.AST.SourceLines, decl)
	}
	byLine := map[string]*Line{}
	for _, id := range ids {
		if id < 0 || int(id) >= len(k.Insts) {
			continue // accesses with no instruction id (none today)
		}
		info := k.Insts[id]
		counts := tally.Inst(id)
		in := newInst(id, info, &counts, tally.Pattern(id))
		in.PTX = text[int(info.Line)]
		in.PTXLine = fmt.Sprintf("%s:%d", ptxFile, info.Line)
		if src, ok := info.Source(); ok {
			in.CUDA = fmt.Sprintf("%s:%d", filepath.Base(src.File), src.Line)
			ln := byLine[in.CUDA]
			if ln == nil {
				ln = &Line{CUDA: in.CUDA}
				byLine[in.CUDA] = ln
			}
			ln.Insts = append(ln.Insts, id)
			ln.Requests += in.Requests
			ln.Sectors += in.Sectors
			ln.Excess += in.Excess
			ln.Conflicts += in.Conflicts
		}
		r.byID[id] = len(r.Insts)
		r.Insts = append(r.Insts, in)
	}
	for _, ln := range byLine {
		r.Lines = append(r.Lines, *ln)
	}
	sort.Slice(r.Lines, func(i, j int) bool {
		a, b := &r.Lines[i], &r.Lines[j]
		if a.Sectors+a.Conflicts != b.Sectors+b.Conflicts {
			return a.Sectors+a.Conflicts > b.Sectors+b.Conflicts
		}
		return a.CUDA < b.CUDA
	})
	if tr := run.Result.Timing; tr != nil {
		r.Timing = newTiming(tr, k, text, ptxFile)
	}
	r.TopSectors = r.top(func(in *Inst) uint64 { return in.Sectors })
	r.TopExcess = r.top(func(in *Inst) uint64 { return in.Excess })
	r.TopConflicts = r.top(func(in *Inst) uint64 { return in.Conflicts })
	return r, nil
}

// Inst returns the instruction of id (nil when it made no access).
func (r *Report) Inst(id int32) *Inst {
	if i, ok := r.byID[id]; ok {
		return &r.Insts[i]
	}
	for i := range r.Insts { // a report read back from JSON
		if r.Insts[i].ID == id {
			return &r.Insts[i]
		}
	}
	return nil
}

// top returns the ids of the Top instructions with the largest nonzero key,
// largest first (ties: lower id first).
func (r *Report) top(key func(*Inst) uint64) []int32 {
	var idx []int
	for i := range r.Insts {
		if key(&r.Insts[i]) > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return key(&r.Insts[idx[a]]) > key(&r.Insts[idx[b]]) })
	out := []int32{}
	for _, i := range idx[:min(Top, len(idx))] {
		out = append(out, r.Insts[i].ID)
	}
	return out
}

// newInst summarises one instruction's counters.
func newInst(id int32, info *vm.InstInfo, c *hier.Counts, p hier.Pattern) Inst {
	in := Inst{ID: id, L1HitPct: -1, Counters: map[string]uint64{}}
	for i := hier.Counter(0); i < hier.NumCounters; i++ {
		if c[i] != 0 {
			in.Counters[i.String()] = c[i]
		}
	}
	if p.Lanes > 0 {
		pp := p
		in.Pattern = &pp
	}
	hitPct := func(hit, miss uint64) float64 {
		if hit+miss == 0 {
			return -1
		}
		return 100 * float64(hit) / float64(hit+miss)
	}
	ideal := func(bytes, reqs uint64) uint64 {
		if reqs == 0 {
			return 0
		}
		per := (bytes/reqs + 31) / 32
		return per * reqs
	}
	switch {
	case c[hier.GlobalLdRequests] > 0:
		in.Space, in.Op = "global", "load"
		in.Requests, in.Sectors = c[hier.GlobalLdRequests], c[hier.GlobalLdSectors]
		in.IdealSectors = ideal(c[hier.GlobalLdBytes], in.Requests)
		in.L1HitPct = hitPct(c[hier.GlobalLdHit], c[hier.GlobalLdMiss])
	case c[hier.GlobalStRequests] > 0:
		in.Space, in.Op = "global", "store"
		in.Requests, in.Sectors = c[hier.GlobalStRequests], c[hier.GlobalStSectors]
		in.IdealSectors = ideal(c[hier.GlobalStBytes], in.Requests)
	case c[hier.GlobalAtomRequests] > 0 || c[hier.GlobalRedRequests] > 0:
		in.Space, in.Op = "global", "atomic"
		in.Requests = c[hier.GlobalAtomRequests] + c[hier.GlobalRedRequests]
		in.Sectors = c[hier.GlobalAtomSectors] + c[hier.GlobalRedSectors]
		if p.Lanes > 0 {
			in.IdealSectors = ideal(uint64(p.Lanes*p.Size)*in.Requests, in.Requests)
		}
	case c[hier.LocalLdRequests] > 0:
		in.Space, in.Op = "local", "load"
		in.Requests, in.Sectors = c[hier.LocalLdRequests], c[hier.LocalLdSectors]
		in.L1HitPct = hitPct(c[hier.LocalLdHit], c[hier.LocalLdMiss])
		if p.Lanes > 0 {
			in.IdealSectors = ideal(uint64(p.Lanes*p.Size)*in.Requests, in.Requests)
		}
	case c[hier.LocalStRequests] > 0:
		in.Space, in.Op = "local", "store"
		in.Requests, in.Sectors = c[hier.LocalStRequests], c[hier.LocalStSectors]
		if p.Lanes > 0 {
			in.IdealSectors = ideal(uint64(p.Lanes*p.Size)*in.Requests, in.Requests)
		}
	case c[hier.SharedLdRequests] > 0:
		in.Space, in.Op = "shared", "load"
		in.Requests, in.Wavefronts, in.Conflicts = c[hier.SharedLdRequests], c[hier.SharedLdWavefronts], c[hier.SharedLdConflicts]
	case c[hier.SharedStRequests] > 0:
		in.Space, in.Op = "shared", "store"
		in.Requests, in.Wavefronts, in.Conflicts = c[hier.SharedStRequests], c[hier.SharedStWavefronts], c[hier.SharedStConflicts]
	case c[hier.SharedAtomRequests] > 0:
		in.Space, in.Op = "shared", "atomic"
		in.Requests, in.Wavefronts, in.Conflicts = c[hier.SharedAtomRequests], c[hier.SharedAtomWavefronts], c[hier.SharedAtomConflicts]
	case c[hier.TexInstructions] > 0:
		in.Space, in.Op = "texture", "load"
		in.Requests, in.Sectors = c[hier.TexRequests], c[hier.TexSectors]
		in.L1HitPct = hitPct(c[hier.TexHit], c[hier.TexMiss])
	case c[hier.ConstRequests] > 0:
		in.Space, in.Op = "const", "load"
		if info != nil && info.Space.String() == "param" {
			in.Space = "param"
		}
		in.Requests, in.Wavefronts = c[hier.ConstRequests], c[hier.ConstWavefronts]
	}
	if in.Sectors > in.IdealSectors && in.IdealSectors > 0 {
		in.Excess = in.Sectors - in.IdealSectors
	}
	in.Diagnosis = diagnose(&in)
	return in
}

// perReq formats a per-request average: an integer when it is one.
func perReq(n, reqs uint64) string {
	if reqs == 0 {
		return "0"
	}
	v := float64(n) / float64(reqs)
	if v == math.Trunc(v) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.1f", v)
}
