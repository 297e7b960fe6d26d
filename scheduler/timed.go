package scheduler

import (
	"context"
	"fmt"

	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
)

// Modes a launch runs in.
const (
	// ModeFunctional runs blocks to completion on all host cores with no
	// notion of time (the default).
	ModeFunctional = "functional"
	// ModeTiming runs the cycle-level timing model (package
	// scheduler/timing): warps scheduled per SM sub-partition, stall
	// reasons, cycles. Outputs are the same as in functional mode.
	ModeTiming = "timing"
)

// CheckMode reports whether mode names a mode ("" is functional).
func CheckMode(mode string) error {
	switch mode {
	case "", ModeFunctional, ModeTiming:
		return nil
	}
	return fmt.Errorf("unknown mode %q (functional or timing)", mode)
}

// Run runs launch l in the mode opt.Mode names: RunFunctional ("" or
// ModeFunctional) or RunTimed (ModeTiming).
func Run(ctx context.Context, l *vm.Launch, gpu *Profile, opt Options) (*Result, error) {
	switch opt.Mode {
	case "", ModeFunctional:
		return RunFunctional(ctx, l, gpu, opt)
	case ModeTiming:
		return RunTimed(ctx, l, gpu, opt)
	}
	return nil, CheckMode(opt.Mode)
}

// RunTimed runs every block of l with the cycle-level timing model on gpu,
// with the occupancy the launch has there; the result's Timing holds the
// cycles, stalls and per-instruction figures.
func RunTimed(ctx context.Context, l *vm.Launch, gpu *Profile, opt Options) (*Result, error) {
	occ, err := checkLaunch(gpu, l, opt)
	if err != nil {
		return nil, err
	}
	tr, err := timing.Run(ctx, l, gpu, timing.Options{
		BlocksPerSM: occ.BlocksPerSM,
		Registers:   occ.Registers,
		Workers:     opt.Workers,
		MaxInst:     opt.MaxInst,
		Strict:      opt.Strict,
		Trace:       opt.Trace,
		Done:        opt.Done,
		Sample:      opt.Sample,
		Apertures:   opt.Apertures,
		DirtyL2:     opt.DirtyL2,
		DirtyBase:   opt.DirtyBase,
		L2Before:    opt.L2Before,
	})
	if err != nil {
		return nil, err
	}
	return &Result{Stats: tr.Stats, CTAsPerSM: tr.CTAsPerSM, Occupancy: occ, Timing: tr, Hier: tr.Hier}, nil
}
