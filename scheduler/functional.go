package scheduler

import (
	"context"
	"runtime"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/ptxvm/ptxvm/vm"
)

// Options control a functional run.
type Options struct {
	// Workers is the number of host goroutines running SMs (0: GOMAXPROCS).
	Workers int
	// MaxInst stops the launch after this many warp instructions (0: no limit).
	MaxInst int64
	// Strict makes behaviour the PTX ISA leaves undefined a fault (see
	// vm.Launch.Strict).
	Strict bool
}

// Result is what a functional run reports.
type Result struct {
	Stats vm.Stats
	// CTAsPerSM is how many blocks each emulated SM ran.
	CTAsPerSM []int
}

// Placement returns the SM each block runs on: blocks are dealt to SMs in
// order, round robin, as the hardware's block scheduler does when every SM
// has room.
func Placement(numCTAs, numSMs int) []int {
	p := make([]int, numCTAs)
	for i := range p {
		p[i] = i % numSMs
	}
	return p
}

// RunFunctional runs every block of l to completion with no timing model.
// Blocks are placed on the SMs of gpu; SMs run in parallel on host cores.
// Results do not depend on the number of workers for kernels whose blocks
// do not race with one another.
func RunFunctional(ctx context.Context, l *vm.Launch, gpu *Profile, opt Options) (*Result, error) {
	nsm := gpu.SMs
	l.NumSMs = nsm
	l.MaxInst = opt.MaxInst
	l.Strict = opt.Strict
	n := l.NumCTAs()
	place := Placement(n, nsm)
	perSM := make([][]int, nsm)
	for i, sm := range place {
		perSM[sm] = append(perSM[sm], i)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	active := 0
	for _, c := range perSM {
		if len(c) > 0 {
			active++
		}
	}
	workers = max(1, min(workers, active))
	res := &Result{CTAsPerSM: make([]int, nsm)}
	for sm, c := range perSM {
		res.CTAsPerSM[sm] = len(c)
	}
	var mu sync.Mutex
	type ctaErr struct {
		cta int
		err error
	}
	var errs []ctaErr
	g, gctx := errgroup.WithContext(ctx)
	for wk := 0; wk < workers; wk++ {
		g.Go(func() error {
			r := l.NewRunner()
			defer func() {
				mu.Lock()
				res.Stats.Add(r.Stats)
				mu.Unlock()
			}()
			for sm := wk; sm < nsm; sm += workers {
				for _, i := range perSM[sm] {
					if gctx.Err() != nil {
						return nil
					}
					if err := r.RunCTA(l.CTAID(i), sm); err != nil {
						if vm.IsStopped(err) {
							return nil
						}
						l.Stop()
						mu.Lock()
						errs = append(errs, ctaErr{i, err})
						mu.Unlock()
						return nil
					}
				}
			}
			return nil
		})
	}
	_ = g.Wait()
	if len(errs) > 0 {
		// Report the fault of the lowest-numbered block among those seen,
		// so that a single faulting block is reported the same way on any
		// number of cores.
		sort.Slice(errs, func(i, j int) bool { return errs[i].cta < errs[j].cta })
		return res, errs[0].err
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, nil
}
