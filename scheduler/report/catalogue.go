package report

import (
	"sort"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/occupancy"
	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// MetricInfo is one metric a run can report, with its one-line meaning
// (derived values give their formula).
type MetricInfo struct {
	Name string `json:"name"`
	Unit string `json:"unit,omitempty"`
	Help string `json:"help"`
	// Group is where it comes from: launch, occupancy, timing (the
	// cycle-level model, --mode timing), memory (the hierarchy's counters)
	// or derived (computed from them).
	Group string `json:"group"`
}

var launchMetrics = []MetricInfo{
	{"launch__grid_size", "block", "blocks in the grid", "launch"},
	{"launch__block_size", "thread", "threads in a block", "launch"},
	{"launch__shared_mem_per_block_static", "byte", "static shared memory of a block (the kernel's .shared variables)", "launch"},
	{"launch__shared_mem_per_block_dynamic", "byte", "dynamic shared memory of a block (the spec's dynamic_shared_bytes)", "launch"},
	{"launch__barrier_count", "", "hardware barriers a block uses (one more than the highest bar.sync number; 16 when a number is a register)", "launch"},
	{"launch__registers_per_thread", "register", "registers per thread as given (spec \"registers\" or --regs); reported only when given", "launch"},
	{"ptxvm__registers_per_thread_estimated", "register", "registers per thread estimated from the PTX (a liveness pass fitted on ptxas -v reports, package scheduler/regs): the occupancy's assumption when none were given", "launch"},
	{"ptxvm__ptx_inst_executed.sum", "inst", "warp-level PTX instructions executed (ncu's smsp__inst_executed counts machine instructions)", "launch"},
	{"ptxvm__ptx_thread_inst_executed.sum", "inst", "thread-level PTX instructions executed (active lanes summed)", "launch"},
}

// timingMetrics are the figures of the timing model (--mode timing) besides
// the stall reasons.
var timingMetrics = []MetricInfo{
	{timing.MetricCycles, "cycle", "elapsed SM cycles of the launch, from its start to the end of its last block and its memory traffic (the timing model's)", "timing"},
	{timing.MetricDuration, "ns", "the launch's duration: its cycles at the GPU profile's clock", "timing"},
	{timing.MetricInst, "inst", "warp-level machine instructions issued, estimated from the PTX through the SASS cost table", "timing"},
	{timing.MetricThreadInst, "inst", "thread-level machine instructions issued (active lanes summed), estimated as above", "timing"},
	{timing.MetricOccupancy, "%", "achieved occupancy: warps resident per cycle while an SM had a block, against the SM's maximum", "timing"},
	{timing.MetricIssueUtil, "%", "issue slots used: machine instructions issued over the busy SMs' scheduler cycles (one issue per sub-partition per cycle)", "timing"},
	{timing.MetricIPC, "inst/cycle", "machine instructions issued per cycle of a busy SM", "timing"},
}

// sampledMetrics are a sampled timed run's (--sample, docs/sampling.md),
// in place of every figure but launch__*.
var sampledMetrics = []MetricInfo{
	{"ptxvm__sampled_cycles_estimate", "cycle", "sampled run: the launch's cycles estimated from its first waves in detail and the rest extrapolated (in place of sm__cycles_elapsed.max)", "sampling"},
	{"ptxvm__sampled_cycles_error", "cycle", "sampled run: the estimate's error bound (docs/sampling.md)", "sampling"},
	{"ptxvm__sampled_duration_ns_estimate", "ns", "sampled run: the estimated cycles at the GPU profile's clock", "sampling"},
	{"ptxvm__sampled_blocks", "block", "sampled run: blocks in the grid", "sampling"},
	{"ptxvm__sampled_detailed_blocks", "block", "sampled run: blocks simulated in detail (the first ones)", "sampling"},
	{"ptxvm__sampled_slice_sms", "SM", "sampled run: the SMs of the slice of the GPU the detailed blocks ran on (the GPU's SMs when not sliced)", "sampling"},
	{timing.MetricAutoEstimate, "inst", "--sample auto, a launch large enough to run on a slice: its PTX warp instructions estimated before it started, from 16 blocks spread over the grid run ahead and undone", "sampling"},
	{timing.MetricAutoThreshold, "inst", "--sample auto: the estimate past which the launch is sampled (2e8)", "sampling"},
	{timing.MetricAutoSampled, "", "--sample auto: 1 if the launch ran sampled on a slice of the GPU, 0 if every block was simulated in detail", "sampling"},
	{"ptxvm__sampled_outputs_complete", "", "sampled run: 1 if every block ran (in detail or functionally), 0 if some were skipped and the outputs are incomplete", "sampling"},
	{"ptxvm__detailed__<metric>", "", "sampled run: any other metric, over the blocks simulated in detail only", "sampling"},
}

// Catalogue lists every metric a run can report: launch figures,
// occupancy, the timing model's figures and stall reasons, the hierarchy's
// counters and the derived values, each with its one-line meaning.
func Catalogue() []MetricInfo {
	out := append([]MetricInfo(nil), launchMetrics...)
	out = append(out, timingMetrics...)
	out = append(out, sampledMetrics...)
	for s := timing.Stall(0); s < timing.NumStalls; s++ {
		out = append(out, MetricInfo{Name: s.Metric(), Unit: "cycle/inst", Help: "warp-cycles per issued instruction in which " + stallMeaning(s), Group: "timing"})
	}
	var r occupancy.Result
	r.Waves = 1 // so that the waves metric is listed
	for _, m := range r.Metrics() {
		out = append(out, MetricInfo{Name: m.Name, Help: m.Help, Group: "occupancy"})
	}
	var c hier.Counts
	raw := map[string]bool{}
	for i := hier.Counter(0); i < hier.NumCounters; i++ {
		raw[i.String()] = true
	}
	for _, m := range hier.Metrics(&c, hier.Extra{InstIssued: 1}) {
		g := "derived"
		if raw[m.Name] {
			g = "memory"
		}
		out = append(out, MetricInfo{Name: m.Name, Unit: m.Unit, Help: m.Help, Group: g})
	}
	sort.SliceStable(out, func(i, j int) bool { return groupRank[out[i].Group] < groupRank[out[j].Group] })
	return out
}

var groupRank = map[string]int{"launch": 0, "occupancy": 1, "timing": 2, "sampling": 3, "memory": 4, "derived": 5}
