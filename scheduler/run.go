package scheduler

import (
	"context"
	"io"
	"time"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/occupancy"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// SpecRun is one launch spec, run.
type SpecRun struct {
	Spec     *spec.Spec
	Prepared *spec.Prepared
	Result   *Result
	// Outputs holds the output buffers, unless the run was asked to
	// stream them (RunSpecOptions.StreamOutputs): then WriteOutput reads
	// them from the device.
	Outputs map[string][]byte
	Setup   time.Duration // loading the module, allocating and filling the buffers
	Elapsed time.Duration // wall time of the launch itself
}

// WriteOutput writes output name to w from the device, a page at a time.
func (r *SpecRun) WriteOutput(name string, w io.Writer) error {
	return r.Prepared.WriteOutput(name, w)
}

// Release frees the run's device memory (the outputs read back stay).
func (r *SpecRun) Release() { r.Prepared.Device.Mem.FreeAll() }

// RunSpec prepares spec on a fresh device whose memory is the GPU's, runs
// it on gpu (functionally, or with the timing model: opt.Mode) and reads
// back its outputs (unless opt.StreamOutputs). cache may be nil.
func RunSpec(ctx context.Context, sp *spec.Spec, gpu *Profile, opt Options, cache *spec.ModuleCache) (*SpecRun, error) {
	dev := vm.NewDevice()
	if gpu.DeviceMemory > 0 {
		dev.Mem.Limit = uint64(gpu.DeviceMemory)
	}
	setup := time.Now()
	p, err := sp.Prepare(dev, cache)
	if err != nil {
		dev.Mem.FreeAll()
		return nil, err
	}
	defer p.Launch.Release()
	if opt.Registers == 0 {
		opt.Registers = sp.Registers
	}
	if err := CheckMode(opt.Mode); err != nil {
		dev.Mem.FreeAll()
		return nil, err
	}
	if opt.Apertures == nil {
		opt.Apertures = Apertures(p, &gpu.Memory)
	}
	start := time.Now()
	res, err := Run(ctx, p.Launch, gpu, opt)
	el := time.Since(start)
	if err != nil {
		dev.Mem.FreeAll()
		return nil, err
	}
	run := &SpecRun{Spec: sp, Prepared: p, Result: res, Setup: start.Sub(setup), Elapsed: el}
	if !opt.StreamOutputs {
		if run.Outputs, err = p.Outputs(); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// Metrics returns the run's counters: under Nsight Compute's metric name
// where the figure means exactly what ncu means by it (the launch figures),
// and under a ptxvm__ name of our own where it is computed differently. In
// functional mode: the PTX instructions executed (ncu's smsp__inst_executed
// counts machine instructions, which PTX instructions are not) and the
// launch figures.
func (r *SpecRun) Metrics() map[string]float64 { return LaunchMetrics(r.Prepared.Launch, r.Result) }

// LaunchMetrics returns the metrics of launch l's run res (SpecRun.Metrics).
func LaunchMetrics(l *vm.Launch, res *Result) map[string]float64 {
	r := struct{ Result *Result }{res}
	st := r.Result.Stats
	m := map[string]float64{
		"ptxvm__ptx_inst_executed.sum":         float64(st.Inst),
		"ptxvm__ptx_thread_inst_executed.sum":  float64(st.ThreadInst),
		"launch__grid_size":                    float64(l.NumCTAs()),
		"launch__block_size":                   float64(l.ThreadsPerCTA()),
		"launch__shared_mem_per_block_dynamic": float64(l.DynSmem),
		"launch__shared_mem_per_block_static":  float64(l.Kernel.SharedStatic),
		"launch__barrier_count":                float64(occupancy.Barriers(l.Kernel)),
	}
	if o := r.Result.Occupancy; o != nil {
		for k, v := range o.Metrics() {
			m[k] = v
		}
	}
	if t := r.Result.Timing; t != nil {
		for k, v := range t.Metrics() {
			m[k] = v
		}
	}
	if h := r.Result.Hier; h != nil {
		c := h.Counts()
		for _, v := range hier.Metrics(&c, hier.Extra{InstIssued: st.Inst}) {
			m[v.Name] = v.Value
		}
	}
	if t := r.Result.Timing; t != nil && t.Sampling != nil {
		// A sampled run's figures are the detailed part's, its cycles an
		// estimate: none goes under an ncu name.
		timing.SampledMetrics(m, t)
	}
	return m
}
