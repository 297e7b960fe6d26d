package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/program"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// Result is one line of a sweep's output.
type Result struct {
	// Line is the input line's number; Input the line, echoed.
	Line  int             `json:"line"`
	Input json.RawMessage `json:"input"`
	// Status is StatusOK or StatusError (Error says why: the spec could
	// not be read, the launch faulted or ran past its budget).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Kernel is the kernel's mangled name; GPU the profile's name; Mode
	// the mode it ran in.
	Kernel string `json:"kernel,omitempty"`
	GPU    string `json:"gpu,omitempty"`
	Mode   string `json:"mode,omitempty"`
	// Cycles, in timing mode, is sm__cycles_elapsed.max, or a sampled
	// run's estimate: then CyclesError is its error bound and Sampled says
	// how it was sampled (docs/sampling.md).
	Cycles      *uint64 `json:"cycles,omitempty"`
	CyclesError *uint64 `json:"cycles_error,omitempty"`
	Sampled     string  `json:"sampled,omitempty"`
	// Metrics are the counters the sweep keeps (Options.Metrics), under
	// the names ptxrun run --metrics uses (a program's: its last launch's).
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// TimeUS and Steps, for a program of several steps (package
	// program): its modelled time and each step's.
	TimeUS *float64   `json:"time_us,omitempty"`
	Steps  []StepTime `json:"steps,omitempty"`
}

// StepTime is one step of a program in a sweep's result.
type StepTime struct {
	Kind   string  `json:"kind"`
	What   string  `json:"what"`
	TimeUS float64 `json:"time_us"`
	Timed  bool    `json:"timed"`
}

// Result statuses.
const (
	StatusOK    = "ok"
	StatusError = "error"
)

// Options for running a sweep.
type Options struct {
	// Workers is how many lines run at once, each launch on one host core
	// (0: GOMAXPROCS).
	Workers int
	// Metrics chooses the counters a result keeps (the zero value: Key).
	Metrics Metrics
}

// Run runs entries, Options.Workers at a time, and calls done with each
// result as its launch finishes (one call at a time, in the order they
// finish). A launch stopped because ctx was cancelled has no result.
func Run(ctx context.Context, entries []Entry, opt Options, done func(*Result) error) error {
	cache := spec.NewModuleCache()
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	n := opt.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	g.SetLimit(max(1, n))
	for _, e := range entries {
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			r := RunEntry(gctx, e, opt.Metrics, cache)
			if gctx.Err() != nil {
				return gctx.Err()
			}
			mu.Lock()
			defer mu.Unlock()
			return done(r)
		})
	}
	return g.Wait()
}

// RunEntry runs one line's launch. cache may be nil.
func RunEntry(ctx context.Context, e Entry, keep Metrics, cache *spec.ModuleCache) *Result {
	r := &Result{Line: e.Line, Input: e.Input, GPU: e.GPU.Name, Mode: e.Mode}
	fail := func(err error) *Result {
		r.Status, r.Error = StatusError, err.Error()
		return r
	}
	sp, err := spec.Load(e.Spec)
	if err != nil {
		return fail(err)
	}
	smp, err := sampleOption(e.Sample, e.Mode)
	if err != nil {
		return fail(err)
	}
	opt := scheduler.Options{Workers: 1, MaxInst: e.MaxInst, Strict: e.Strict, AnyTarget: e.AnyTarget, Registers: e.Registers,
		NoCounters: !e.Counters && e.Mode != scheduler.ModeTiming, Mode: e.Mode, StreamOutputs: true, Sample: smp}
	if sp.IsProgram() {
		opt.NoCounters, opt.Sample = false, scheduler.Options{}.Sample
		run, err := program.Execute(ctx, sp, e.GPU, opt, cache)
		if err != nil {
			return fail(err)
		}
		defer run.Release()
		r.Status = StatusOK
		for _, st := range run.Steps {
			r.Steps = append(r.Steps, StepTime{Kind: st.Kind, What: st.What, TimeUS: st.TimeUS, Timed: st.Timed})
			if st.Metrics != nil {
				r.Metrics = keep.Filter(st.Metrics)
			}
		}
		if run.Timed {
			t := run.TimeUS
			r.TimeUS = &t
		}
		return r
	}
	run, err := scheduler.RunSpec(ctx, sp, e.GPU, opt, cache)
	if err != nil {
		if errors.Is(err, vm.ErrBudget) {
			err = fmt.Errorf("%w (budget: \"max_inst\": %d; 0: no limit)", err, e.MaxInst)
		}
		return fail(err)
	}
	defer run.Release()
	r.Status = StatusOK
	r.Kernel = run.Prepared.Kernel
	if t := run.Result.Timing; t != nil {
		c := t.Cycles
		r.Cycles = &c
		if s := t.Sampling; s != nil {
			bound := s.Error
			r.CyclesError = &bound
			r.Sampled = s.Describe()
		}
	}
	r.Metrics = keep.Filter(run.Metrics())
	return r
}

// Metrics chooses which counters a result keeps.
type Metrics struct {
	all   bool
	names map[string]bool // nil: Key
}

// AllMetrics keeps every counter (about 120 in timing mode).
var AllMetrics = Metrics{all: true}

// Key keeps the figures most sweeps compare (keyNames, keyPrefixes).
var Key = Metrics{}

// keyNames are the counters Key keeps: the instructions, the launch's
// shape and theoretical occupancy, global traffic, bank conflicts, hit
// rates and DRAM bytes; in timing mode the time and achieved occupancy.
var keyNames = []string{
	"ptxvm__ptx_inst_executed.sum",
	"ptxvm__ptx_thread_inst_executed.sum",
	"launch__grid_size",
	"launch__block_size",
	"launch__waves_per_multiprocessor",
	"sm__maximum_warps_per_active_cycle_pct",
	"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
	"l1tex__t_sector_hit_rate.pct",
	"lts__t_sector_hit_rate.pct",
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"sm__cycles_elapsed.max",
	"gpu__time_duration.sum",
	"sm__warps_active.avg.pct_of_peak_sustained_active",
	"ptxvm__issue_slot_utilization.pct",
}

// keyPrefixes: the stall reasons, and a sampled run's figures (which
// carry names of their own: timing.SampledMetrics).
var keyPrefixes = []string{"smsp__average_warps_issue_stalled_", "ptxvm__sampled_"}

// ParseMetrics reads key, all, or a comma-separated list of counter names
// (ptxrun metrics lists them).
func ParseMetrics(s string) (Metrics, error) {
	switch s {
	case "", "key":
		return Key, nil
	case "all":
		return AllMetrics, nil
	}
	m := Metrics{names: map[string]bool{}}
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n == "" {
			return Metrics{}, fmt.Errorf("metrics %q: an empty name (key, all, or names separated by commas)", s)
		}
		m.names[n] = true
	}
	return m, nil
}

// Filter returns the counters of m the choice keeps. JSON has no NaN or
// infinity: a counter that is not finite is left out.
func (k Metrics) Filter(m map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for name, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) || !k.keeps(name) {
			continue
		}
		out[name] = v
	}
	return out
}

func (k Metrics) keeps(name string) bool {
	switch {
	case k.all:
		return true
	case k.names != nil:
		return k.names[name]
	}
	if i := sort.SearchStrings(sortedKey, name); i < len(sortedKey) && sortedKey[i] == name {
		return true
	}
	for _, p := range keyPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

var sortedKey = func() []string {
	s := append([]string(nil), keyNames...)
	sort.Strings(s)
	return s
}()
