package scheduler

import (
	"context"
	"time"

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

// Metrics returns the run's counters under Nsight Compute's metric names
// (DESIGN.md): in functional mode, instruction counts and launch figures.
func (r *SpecRun) Metrics() map[string]float64 {
	l := r.Prepared.Launch
	st := r.Result.Stats
	return map[string]float64{
		"smsp__inst_executed.sum":              float64(st.Inst),
		"smsp__thread_inst_executed.sum":       float64(st.ThreadInst),
		"launch__grid_size":                    float64(l.NumCTAs()),
		"launch__block_size":                   float64(l.ThreadsPerCTA()),
		"launch__shared_mem_per_block_dynamic": float64(l.DynSmem),
		"launch__shared_mem_per_block_static":  float64(l.Kernel.SharedStatic),
	}
}
