package scheduler

import (
	"context"
	"time"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/occupancy"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// SpecRun is one launch spec, run.
type SpecRun struct {
	Spec     *spec.Spec
	Prepared *spec.Prepared
	Result   *Result
	Outputs  map[string][]byte
	Elapsed  time.Duration // wall time of the launch itself
}

// RunSpec prepares spec on a fresh device, runs it functionally on gpu and
// reads back its outputs. cache may be nil.
func RunSpec(ctx context.Context, sp *spec.Spec, gpu *Profile, opt Options, cache *spec.ModuleCache) (*SpecRun, error) {
	dev := vm.NewDevice()
	p, err := sp.Prepare(dev, cache)
	if err != nil {
		return nil, err
	}
	defer p.Launch.Release()
	if opt.Registers == 0 {
		opt.Registers = sp.Registers
	}
	start := time.Now()
	res, err := RunFunctional(ctx, p.Launch, gpu, opt)
	el := time.Since(start)
	if err != nil {
		return nil, err
	}
	out, err := p.Outputs()
	if err != nil {
		return nil, err
	}
	return &SpecRun{Spec: sp, Prepared: p, Result: res, Outputs: out, Elapsed: el}, nil
}

// Metrics returns the run's counters: under Nsight Compute's metric name
// where the figure means exactly what ncu means by it (the launch figures),
// and under a ptxvm__ name of our own where it is computed differently. In
// functional mode: the PTX instructions executed (ncu's smsp__inst_executed
// counts machine instructions, which PTX instructions are not) and the
// launch figures.
func (r *SpecRun) Metrics() map[string]float64 {
	l := r.Prepared.Launch
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
	if h := r.Result.Hier; h != nil {
		c := h.Counts()
		for _, v := range hier.Metrics(&c, hier.Extra{InstIssued: st.Inst}) {
			m[v.Name] = v.Value
		}
	}
	return m
}
