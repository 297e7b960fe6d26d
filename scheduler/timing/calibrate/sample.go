package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/ptxvm/ptxvm/scheduler/cputime"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// cmdSample measures wave sampling against the full simulation: every
// corpus launch of at least -min-waves waves (ncu's
// launch__waves_per_multiprocessor) and at most -max-inst machine
// instructions runs in full and sampled, one after the other on one host
// goroutine each, and a Markdown table gives the cycles of both, the
// sampled estimate's error against the full run beside its error bound,
// and the host time of both (docs/sampling.md): wall time, and with -j 1
// the process's CPU time (which another process's load on the host's
// cores moves far less).
func cmdSample(args []string) error {
	fs := newFlags("sample")
	testdata := fs.String("testdata", "testdata", "corpus root")
	only := fs.String("only", "", "comma-separated launch-name substrings")
	minWaves := fs.Float64("min-waves", 8, "launches of at least this many waves")
	maxInst := fs.Float64("max-inst", 3e7, "launches of at most this many machine instructions (ncu's count)")
	profile := fs.String("gpu", "h100", "GPU profile (name or file)")
	mode := fs.String("mode", "skip", "sampling mode: skip, exact or auto (skip, decided before the launch from an estimate of its size against -auto-inst, as ptxrun's --sample auto)")
	autoInst := fs.Float64("auto-inst", timing.AutoSampleInst, "with -mode auto: the warp instructions past which a launch is sampled (the corpus's launches are all under ptxrun's 2e8)")
	tol := fs.Float64("tolerance", 0, "per-wave stability tolerance (0: timing.DefaultSampleTolerance)")
	measure := fs.Int("measure", 0, "measured waves that must agree (0: timing.DefaultMeasureWaves)")
	meanWaves := fs.Int("mean", 0, "fewest measured waves whose mean may be extrapolated when no two agree (0: timing.DefaultMeanWaves; -1: never)")
	slice := fs.Int("slice", 0, "simulate one SM in this many, with the matching share of the L2 and DRAM (0: timing.DefaultSliceFraction, or timing.FewWavesSliceFraction under timing.FewWaves waves; 1: the whole GPU, wave sampling only)")
	fullOnly := fs.Bool("list", false, "only list the launches selected")
	jobs := fs.Int("j", 1, "launches measured at once (each on one host goroutine)")
	repeat := fs.Int("repeat", 1, "run each launch this many times in full and sampled, in turn, and give the least host time of each")
	verbose := fs.Bool("v", false, "print each sampled run's per-wave times (stderr)")
	fullCache := fs.String("full-cache", "", "JSON file of the full runs' cycles and host times: a launch found there is not run in full again (its speedups are then against that earlier run's host time), a launch run in full is added (for sweeps over sampling rules; leave it out to measure speedups)")
	_ = fs.Parse(args)
	auto := *mode == "auto"
	if auto {
		*mode = "skip"
	}
	sm, err := timing.ParseSampleMode(*mode)
	if err != nil {
		return err
	}
	if sm == timing.SampleOff {
		return fmt.Errorf("-mode: skip or exact")
	}
	p, err := gpu.Load(*profile)
	if err != nil {
		return err
	}
	all, err := ncu.ReadWithPublic(*testdata)
	if err != nil {
		return err
	}
	var ls []*ncu.Launch
	seen := map[string]bool{}
	for _, l := range all {
		w, _ := l.Value("launch__waves_per_multiprocessor")
		n, _ := l.Value("smsp__inst_executed.sum")
		if w < *minWaves || n > *maxInst || l.Table == "repeat.O3" || !selected(l.Name(), *only) || seen[l.Name()] {
			continue
		}
		seen[l.Name()] = true
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].Name() < ls[j].Name() })
	if *fullOnly {
		for _, l := range ls {
			w, _ := l.Value("launch__waves_per_multiprocessor")
			n, _ := l.Value("smsp__inst_executed.sum")
			fmt.Printf("%-44s waves %7.2f inst %10.0f\n", l.Name(), w, n)
		}
		return nil
	}
	cfg := timing.Sample{Mode: sm, Tolerance: *tol, MeasureWaves: *measure, MeanWaves: *meanWaves, Slice: *slice}
	if auto {
		cfg.MinInst = int64(*autoInst)
	}
	fmt.Println("| launch | waves | full cycles | sampled cycles | error | bound | detailed blocks | full s | sampled s | speedup | cpu speedup |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var errs, speed, cpuSpeed []float64
	held, sampled, within5, tenfold, cpuTenfold := 0, 0, 0, 0, 0
	var fullT, sampT, fullC, sampC time.Duration
	type pair struct {
		full, smp *timing.Result
		ft, st    time.Duration
		fc, sc    time.Duration // CPU time (-j 1)
		err       error
	}
	res := make([]pair, len(ls))
	cache, err := readFullCache(*fullCache)
	if err != nil {
		return err
	}
	var cacheMu sync.Mutex
	sem := make(chan struct{}, max(1, *jobs))
	var wg sync.WaitGroup
	for i, l := range ls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := &res[i]
			// -repeat: the full and the sampled run in turn, each host
			// time the least of its runs (a run the host's other load
			// slowed least), the cycles the same every time.
			for k := range max(1, *repeat) {
				cacheMu.Lock()
				c, ok := cache[l.Name()]
				cacheMu.Unlock()
				var full *timing.Result
				var ft, fc time.Duration
				var err error
				if ok {
					full, ft, fc = &timing.Result{Cycles: c.Cycles}, time.Duration(c.WallNs), time.Duration(c.CPUNs)
				} else {
					full, ft, fc, err = runTimed(l, p, timing.Sample{})
					if err != nil {
						r.err = err
						return
					}
					if *fullCache != "" {
						cacheMu.Lock()
						cache[l.Name()] = fullRun{Cycles: full.Cycles, WallNs: int64(ft), CPUNs: int64(fc)}
						err = writeFullCache(*fullCache, cache)
						cacheMu.Unlock()
						if err != nil {
							r.err = err
							return
						}
					}
				}
				smp, st, sc, err := runTimed(l, p, cfg)
				if err != nil {
					r.err = err
					return
				}
				if k > 0 && (full.Cycles != r.full.Cycles || smp.Cycles != r.smp.Cycles) {
					r.err = fmt.Errorf("run %d: %d cycles in full and %d sampled, against %d and %d before", k+1, full.Cycles, smp.Cycles, r.full.Cycles, r.smp.Cycles)
					return
				}
				if k == 0 || ft < r.ft {
					r.full, r.ft = full, ft
				}
				if k == 0 || fc < r.fc {
					r.fc = fc
				}
				if k == 0 || st < r.st {
					r.smp, r.st = smp, st
				}
				if k == 0 || sc < r.sc {
					r.sc = sc
				}
			}
			if *verbose && r.err == nil && r.smp.Auto != nil {
				fmt.Fprintf(os.Stderr, "%s: %s\n", l.Name(), r.smp.Auto.Describe())
			}
			if *verbose && r.err == nil && r.smp.Sampling != nil {
				fmt.Fprintf(os.Stderr, "%s: waves %v; %s\n", l.Name(), r.smp.Sampling.WaveTimes, r.smp.Sampling.Describe())
			}
		}()
	}
	wg.Wait()
	for i, l := range ls {
		full, ft, smp, st, fc, sc := res[i].full, res[i].ft, res[i].smp, res[i].st, res[i].fc, res[i].sc
		if err := res[i].err; err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", l.Name(), err)
			continue
		}
		w, _ := l.Value("launch__waves_per_multiprocessor")
		s := smp.Sampling
		if s == nil {
			fmt.Printf("| %s | %.1f | %d | (not sampled) | | | | %.1f | %.1f | |\n", l.Name(), w, full.Cycles, ft.Seconds(), st.Seconds())
			continue
		}
		sampled++
		e := (float64(smp.Cycles) - float64(full.Cycles)) / float64(full.Cycles)
		errs = append(errs, math.Abs(e))
		if math.Abs(float64(smp.Cycles)-float64(full.Cycles)) <= float64(s.Error) {
			held++
		}
		sp := ft.Seconds() / st.Seconds()
		speed = append(speed, sp)
		if math.Abs(e) <= 0.05 {
			within5++
		}
		if sp >= 10 {
			tenfold++
		}
		fullT += ft
		sampT += st
		cs := ""
		if *jobs <= 1 && fc > 0 && sc > 0 {
			c := fc.Seconds() / sc.Seconds()
			cpuSpeed = append(cpuSpeed, c)
			if c >= 10 {
				cpuTenfold++
			}
			fullC += fc
			sampC += sc
			cs = fmt.Sprintf("%.1f×", c)
		}
		fmt.Printf("| %s | %.1f | %d | %d | %+.2f%% | ±%.2f%% | %d / %d | %.1f | %.1f | %.1f× | %s |\n", l.Name(), w, full.Cycles, smp.Cycles, 100*e, s.ErrorPct(),
			s.Detailed, s.Blocks, ft.Seconds(), st.Seconds(), sp, cs)
	}
	if sampled == 0 {
		return nil
	}
	sort.Float64s(errs)
	sort.Float64s(speed)
	fmt.Printf("\n%d launches sampled: mean |error| %.2f%%, median %.2f%%, max %.2f%%; within 5%%: %d of %d; |error| within the bound: %d of %d; speedup median %.1f×, min %.1f×, max %.1f×, at least 10×: %d of %d; total host time %.1fs full against %.1fs sampled (%.1f×)\n",
		sampled, 100*mean(errs), 100*errs[len(errs)/2], 100*errs[len(errs)-1], within5, sampled, held, sampled, speed[len(speed)/2], speed[0], speed[len(speed)-1], tenfold, sampled,
		fullT.Seconds(), sampT.Seconds(), fullT.Seconds()/sampT.Seconds())
	if len(cpuSpeed) > 0 {
		sort.Float64s(cpuSpeed)
		fmt.Printf("CPU time: speedup median %.1f×, min %.1f×, max %.1f×, at least 10×: %d of %d; %.1fs full against %.1fs sampled (%.1f×)\n",
			cpuSpeed[len(cpuSpeed)/2], cpuSpeed[0], cpuSpeed[len(cpuSpeed)-1], cpuTenfold, len(cpuSpeed), fullC.Seconds(), sampC.Seconds(), fullC.Seconds()/sampC.Seconds())
	}
	return nil
}

// fullRun is a full simulation's cycles and host times (-full-cache).
type fullRun struct {
	Cycles uint64 `json:"cycles"`
	WallNs int64  `json:"wall_ns"`
	CPUNs  int64  `json:"cpu_ns"`
}

// readFullCache reads the -full-cache file (name empty or absent: none).
func readFullCache(name string) (map[string]fullRun, error) {
	c := map[string]fullRun{}
	if name == "" {
		return c, nil
	}
	b, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

func writeFullCache(name string, c map[string]fullRun) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(name, b, 0o644)
}

// runTimed runs a corpus launch in timing mode on one host goroutine with
// the sampling cfg and returns its result, its host time and the
// process's CPU time over it (the launch's preparation excluded; the CPU
// time is the run's alone when nothing else runs in the process).
func runTimed(l *ncu.Launch, p *gpu.Profile, cfg timing.Sample) (*timing.Result, time.Duration, time.Duration, error) {
	pp, err := prepare(l, p)
	if err != nil {
		return nil, 0, 0, err
	}
	defer pp.p.Launch.Release()
	runtime.GC() // the garbage of the run before is not this one's
	c0, t0 := cputime.Process(), time.Now()
	res, err := timing.Run(context.Background(), pp.p.Launch, p, timing.Options{BlocksPerSM: pp.occ.BlocksPerSM, Registers: pp.regs, Workers: 1, Sample: cfg})
	return res, time.Since(t0), cputime.Process() - c0, err
}
