package scheduler

import (
	"fmt"

	"github.com/ptxvm/ptxvm/scheduler/occupancy"
	estimate "github.com/ptxvm/ptxvm/scheduler/regs"
	"github.com/ptxvm/ptxvm/vm"
)

// Occupancy is a launch's theoretical occupancy on a GPU, with the register
// count it assumed.
type Occupancy struct {
	occupancy.Result
	// Registers per thread, and where the count came from (given by the
	// user, or estimated from the PTX by package regs).
	Registers      int
	RegisterSource occupancy.RegisterSource
}

// LaunchOccupancy computes the occupancy of l on p with regs registers per
// thread; regs 0 takes the estimate of package regs (a liveness pass over
// the PTX), capped at what lets one block fit (the launch ran on the GPU,
// so ptxas made it fit).
func LaunchOccupancy(p *Profile, l *vm.Launch, regs int) (*Occupancy, error) {
	o := &Occupancy{Registers: regs, RegisterSource: occupancy.RegistersGiven}
	threads := l.ThreadsPerCTA()
	if regs == 0 {
		o.RegisterSource = occupancy.RegistersEstimated
		o.Registers = min(estimate.Estimate(l.Kernel), p.SM.MaxRegsPerThread)
		// The most registers per thread with which one block fits.
		warps := (threads + 31) / 32
		if u := p.SM.RegAllocUnit; u > 0 && warps > 0 {
			perWarp := p.SM.Registers / warps / u * u
			o.Registers = min(o.Registers, perWarp/32)
		}
	}
	r, err := occupancy.Compute(p, occupancy.Input{
		Threads:   threads,
		Registers: o.Registers,
		Shared:    int(l.Kernel.SharedStatic + l.DynSmem),
		Barriers:  occupancy.Barriers(l.Kernel),
		Blocks:    l.NumCTAs(),
	})
	if err != nil {
		return nil, fmt.Errorf("kernel %s: %w", l.Kernel.Name, err)
	}
	o.Result = r
	return o, nil
}

// Metrics returns the occupancy figures under Nsight Compute's names, and
// the register count: launch__registers_per_thread when it was given,
// ptxvm__registers_per_thread_estimated when it is the estimate from the
// PTX.
func (o *Occupancy) Metrics() map[string]float64 {
	m := map[string]float64{}
	for _, v := range o.Result.Metrics() {
		m[v.Name] = v.Value
	}
	if o.RegisterSource == occupancy.RegistersGiven {
		m["launch__registers_per_thread"] = float64(o.Registers)
	} else {
		m["ptxvm__registers_per_thread_estimated"] = float64(o.Registers)
	}
	return m
}
