package main

import (
	"fmt"
	"math"
	"os"
	"sort"
	"time"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// cmdEstimate measures the automatic sampling's estimate of a launch's
// size (timing.EstimateInst: -k blocks spread over the grid, run ahead and
// undone) against the PTX warp instructions a functional run of every
// block executes, on every corpus launch of at least -min-waves waves and
// at most -max-inst machine instructions (ncu's counts), and prints a
// Markdown table of the ratios (docs/sampling.md).
func cmdEstimate(args []string) error {
	fs := newFlags("estimate")
	testdata := fs.String("testdata", "testdata", "corpus root")
	only := fs.String("only", "", "comma-separated launch-name substrings")
	minWaves := fs.Float64("min-waves", float64(timing.MinSampleWaves), "launches of at least this many waves (the automatic sampling probes those that can run on a slice: at least 4)")
	maxInst := fs.Float64("max-inst", 3e7, "launches of at most this many machine instructions (ncu's count)")
	profile := fs.String("gpu", "h100", "GPU profile (name or file)")
	k := fs.Int("k", timing.ProbeBlocks, "blocks probed")
	all := fs.Bool("all", false, "print every launch, not only those off by more than 1%")
	_ = fs.Parse(args)
	p, err := gpu.Load(*profile)
	if err != nil {
		return err
	}
	ls, err := ncu.ReadWithPublic(*testdata)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var sel []*ncu.Launch
	for _, l := range ls {
		w, _ := l.Value("launch__waves_per_multiprocessor")
		n, _ := l.Value("smsp__inst_executed.sum")
		if w < *minWaves || n > *maxInst || l.Table == "repeat.O3" || !selected(l.Name(), *only) || seen[l.Name()] {
			continue
		}
		seen[l.Name()] = true
		sel = append(sel, l)
	}
	sort.Slice(sel, func(i, j int) bool { return sel[i].Name() < sel[j].Name() })
	fmt.Println("| launch | waves | blocks | warp instructions | estimate | ratio | probe s | functional s |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var ratios []float64
	var within1, within5 int
	for _, l := range sel {
		pp, err := prepare(l, p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", l.Name(), err)
			continue
		}
		lk := pp.p.Launch
		t0 := time.Now()
		est, _, _, err := timing.EstimateInst(lk, *k, 0)
		pt := time.Since(t0)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: estimate: %v\n", l.Name(), err)
			lk.Release()
			continue
		}
		t0 = time.Now()
		sm := lk.NewSM(0)
		for b := range lk.NumCTAs() {
			if err = sm.RunCTA(b); err != nil {
				break
			}
		}
		ft := time.Since(t0)
		lk.Release()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", l.Name(), err)
			continue
		}
		got := float64(sm.Stats.Inst)
		r := est / got
		ratios = append(ratios, r)
		if math.Abs(r-1) <= 0.01 {
			within1++
		}
		if math.Abs(r-1) <= 0.05 {
			within5++
		}
		if *all || math.Abs(r-1) > 0.01 {
			w, _ := l.Value("launch__waves_per_multiprocessor")
			fmt.Printf("| %s | %.1f | %d | %.0f | %.0f | %.4f | %.3f | %.2f |\n", l.Name(), w, lk.NumCTAs(), got, est, r, pt.Seconds(), ft.Seconds())
		}
	}
	if len(ratios) == 0 {
		return nil
	}
	sort.Float64s(ratios)
	fmt.Printf("\n%d launches: ratio estimate/true median %.4f, min %.4f, max %.4f; within 1%%: %d, within 5%%: %d\n",
		len(ratios), ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1], within1, within5)
	return nil
}
