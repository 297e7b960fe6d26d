package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// outcome is one launch run by the timing model beside ncu's figures.
type outcome struct {
	name    string
	kernel  string
	real    float64 // sm__cycles_elapsed.max
	model   float64
	roof    float64 // roofline estimate
	issued  float64
	ncuInst float64
	stalls  timing.Stalls
	real_   map[string]float64
	wall    time.Duration
	err     error
}

// calibration set: the launches of at least minCycles real cycles.
func calibrationSet(testdata string, minCycles float64, only string, maxInst float64) ([]*ncu.Launch, error) {
	all, err := ncu.ReadAll(testdata)
	if err != nil {
		return nil, err
	}
	var out []*ncu.Launch
	for _, l := range all {
		c, ok := l.Value("sm__cycles_elapsed.max")
		if !ok || c < minCycles || !selected(l.Name(), only) {
			continue
		}
		if n, _ := l.Value("smsp__inst_executed.sum"); maxInst > 0 && n > maxInst {
			continue
		}
		if l.Table == "repeat.O3" {
			continue // the same launches as calib.O3, measured again
		}
		out = append(out, l)
	}
	return out, nil
}

// withParams returns a copy of profile p with the settings applied: each
// "path=value", path a dotted JSON path into the profile
// (memory.latency.l1_hit, timing.pipes.alu.latency, ...).
func withParams(p *gpu.Profile, set map[string]float64) (*gpu.Profile, error) {
	if len(set) == 0 {
		return p, nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for path, v := range set {
		parts := strings.Split(path, ".")
		cur := m
		for _, k := range parts[:len(parts)-1] {
			next, ok := cur[k].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("no profile field %s", path)
			}
			cur = next
		}
		cur[parts[len(parts)-1]] = v
	}
	b, err = json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return gpu.Parse(b)
}

func parseSet(s string) (map[string]float64, error) {
	out := map[string]float64{}
	if s == "" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("-set %q: want path=value", kv)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("-set %q: %w", kv, err)
		}
		out[k] = f
	}
	return out, nil
}

// progress prints each launch as it finishes, on stderr.
var progress bool

// runSet runs every launch with profile p, jobs at a time.
func runSet(ls []*ncu.Launch, p *gpu.Profile, jobs int) []*outcome {
	out := make([]*outcome, len(ls))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	// Longest first, so that the big launches do not end up last.
	order := make([]int, len(ls))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		x, _ := ls[order[a]].Value("smsp__inst_executed.sum")
		y, _ := ls[order[b]].Value("smsp__inst_executed.sum")
		return x > y
	})
	for _, i := range order {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = runOne(ls[i], p)
			if progress {
				fmt.Fprintf(os.Stderr, "  %s: %.1fs\n", ls[i].Name(), out[i].wall.Seconds())
			}
		}()
	}
	wg.Wait()
	return out
}

func runOne(l *ncu.Launch, p *gpu.Profile) *outcome {
	o := &outcome{name: l.Name(), real_: map[string]float64{}}
	o.real, _ = l.Value("sm__cycles_elapsed.max")
	o.ncuInst, _ = l.Value("smsp__inst_executed.sum")
	pp, err := prepare(l, p)
	if err != nil {
		o.err = err
		return o
	}
	defer pp.p.Launch.Release()
	o.kernel = l.Corpus + ":" + pp.p.Launch.Kernel.Name
	t0 := time.Now()
	res, err := timing.Run(context.Background(), pp.p.Launch, p, timing.Options{BlocksPerSM: pp.occ.BlocksPerSM, Registers: pp.regs, Workers: 1, MaxInst: 1 << 33})
	o.wall = time.Since(t0)
	if err != nil {
		o.err = err
		return o
	}
	o.model = float64(res.Cycles)
	o.issued = float64(res.Issued)
	o.stalls = res.Stalls
	o.roof = roofline(p, res, pp)
	for s := timing.Stall(0); s < timing.NumStalls; s++ {
		if v, ok := l.Value(s.Metric()); ok {
			o.real_[s.String()] = v
		}
	}
	return o
}

// roofline is the bandwidth/compute bound: the launch overhead plus the
// larger of the issue time (every machine instruction the cost table
// estimates, at one per sub-partition per cycle, over the SMs the grid
// occupies) and the DRAM time (the bytes the hierarchy moved at the
// profile's peak bandwidth).
func roofline(p *gpu.Profile, res *timing.Result, pp *prepared) float64 {
	c := res.Hier.Counts()
	bytes := float64(c[hier.DRAMReadSectors]+c[hier.DRAMWriteSectors]) * float64(p.Memory.SectorBytes)
	sms := math.Min(float64(p.SMs), float64(pp.p.Launch.NumCTAs()))
	issue := float64(res.Issued) / (sms * float64(p.SM.SubPartitions))
	mem := bytes / p.Memory.DRAM.BytesPerCycle
	t, _ := timing.Resolve(p)
	return float64(t.LaunchCycles) + math.Max(issue, mem)
}

func cmdCycles(args []string) error {
	fs := newFlags("cycles")
	testdata := fs.String("testdata", "testdata", "corpus root")
	minCycles := fs.Float64("min", 30000, "calibration launches: at least this many real cycles")
	only := fs.String("only", "", "comma-separated launch-name substrings")
	profile := fs.String("gpu", "h100", "GPU profile (name or file)")
	set := fs.String("set", "", "profile settings to try: path=value,... (memory.latency.l1_hit=38,...)")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "launches run at once")
	verbose := fs.Bool("v", false, "print every launch")
	maxInst := fs.Float64("max-inst", 0, "leave out launches of more than this many machine instructions (ncu's count; 0: none)")
	fs.BoolVar(&progress, "progress", false, "print each launch as it finishes (stderr)")
	fs.IntVar(&stallsShown, "stalls", 4, "with -v: the stall reasons shown per launch (the largest of model and GPU first)")
	_ = fs.Parse(args)
	ls, err := calibrationSet(*testdata, *minCycles, *only, *maxInst)
	if err != nil {
		return err
	}
	p, err := gpu.Load(*profile)
	if err != nil {
		return err
	}
	sets, err := parseSet(*set)
	if err != nil {
		return err
	}
	if p, err = withParams(p, sets); err != nil {
		return err
	}
	t0 := time.Now()
	outs := runSet(ls, p, *jobs)
	printOutcomes(os.Stdout, outs, *verbose)
	printGroups(os.Stdout, outs)
	if ps, err := pairs(*testdata); err == nil {
		within, n := printPairs(os.Stdout, ps, outs)
		fmt.Printf("%d of %d pair ratios within 15%% of the GPU's\n", within, n)
	}
	fmt.Printf("(%d launches in %.0f s)\n", len(outs), time.Since(t0).Seconds())
	return nil
}

// score is the cycle MAPE over the launches that ran.
func score(outs []*outcome, held func(string) bool) (float64, int) {
	var e []float64
	for _, o := range outs {
		if o.err != nil || (held != nil && !held(o.kernel)) {
			continue
		}
		e = append(e, relErr(o.model, o.real))
	}
	return mean(e), len(e)
}

func printOutcomes(w *os.File, outs []*outcome, verbose bool) {
	var ok []*outcome
	for _, o := range outs {
		if o.err != nil {
			fmt.Fprintf(w, "  %-36s not run: %v\n", o.name, o.err)
			continue
		}
		ok = append(ok, o)
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i].name < ok[j].name })
	if verbose {
		for _, o := range ok {
			fmt.Fprintf(w, "  %-36s real %10.0f model %10.0f %+6.1f%%  roofline %10.0f  inst %9.0f/%9.0f  %5.1fs  %s\n", o.name, o.real, o.model,
				100*(o.model-o.real)/o.real, o.roof, o.issued, o.ncuInst, o.wall.Seconds(), stallLine(o))
		}
	}
	var model, roof, train, held []float64
	var reals []float64
	for _, o := range ok {
		model = append(model, relErr(o.model, o.real))
		roof = append(roof, relErr(o.roof, o.real))
		reals = append(reals, o.real)
		if heldOut(o.kernel) {
			held = append(held, relErr(o.model, o.real))
		} else {
			train = append(train, relErr(o.model, o.real))
		}
	}
	c := bestConstant(reals)
	var cons []float64
	for _, r := range reals {
		cons = append(cons, relErr(c, r))
	}
	fmt.Fprintf(w, "cycle MAPE over %d launches: model %.1f%% (fitted %d: %.1f%%, held out %d: %.1f%%; median %.1f%%, within 15%%: %.0f%%), constant guess %.0f cycles %.1f%%, roofline %.1f%%\n",
		len(ok), 100*mean(model), len(train), 100*mean(train), len(held), 100*mean(held), 100*median(model), 100*within(model, 0.15), c, 100*mean(cons), 100*mean(roof))
}

// printGroups prints the cycle MAPE per build: optimised code (-O3, fast
// math, no FMA contraction) and debug code (-G).
func printGroups(w *os.File, outs []*outcome) {
	groups := map[string][]float64{}
	for _, o := range outs {
		if o.err != nil {
			continue
		}
		g := "optimised"
		if parts := strings.Split(o.name, "/"); len(parts) > 1 && (parts[1] == "G" || strings.HasSuffix(parts[1], ".G")) {
			g = "debug (-G)"
		}
		groups[g] = append(groups[g], relErr(o.model, o.real))
	}
	for _, g := range []string{"optimised", "debug (-G)"} {
		if e := groups[g]; len(e) > 0 {
			fmt.Fprintf(w, "  %s: %d launches, MAPE %.1f%%, median %.1f%%, within 15%%: %.0f%%\n", g, len(e), 100*mean(e), 100*median(e), 100*within(e, 0.15))
		}
	}
}

// stallsShown is how many stall reasons stallLine shows.
var stallsShown = 4

// stallLine shows the top stall reasons, model/GPU per issue ("-" for a
// reason the launch's ncu table did not record: imc_miss outside
// calib.O3).
func stallLine(o *outcome) string {
	type kv struct {
		s timing.Stall
		v float64
	}
	var kvs []kv
	for s := timing.Stall(0); s < timing.NumStalls; s++ {
		kvs = append(kvs, kv{s, math.Max(float64(o.stalls[s])/o.issued, o.real_[s.String()])})
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].v > kvs[j].v })
	var b strings.Builder
	for _, x := range kvs[:min(max(stallsShown, 0), len(kvs))] {
		if x.v == 0 {
			break
		}
		gpu := "-"
		if v, ok := o.real_[x.s.String()]; ok {
			gpu = fmt.Sprintf("%.1f", v)
		}
		fmt.Fprintf(&b, "%s %.1f/%s ", x.s, float64(o.stalls[x.s])/o.issued, gpu)
	}
	return b.String()
}

// bestConstant is the single guess with the least MAPE over reals (a
// weighted median: weights 1/real).
func bestConstant(reals []float64) float64 {
	if len(reals) == 0 {
		return 0
	}
	best, bestE := reals[0], math.Inf(1)
	for _, c := range reals {
		e := 0.0
		for _, r := range reals {
			e += relErr(c, r)
		}
		if e < bestE {
			best, bestE = c, e
		}
	}
	return best
}

func marshalMap(p *gpu.Profile) (map[string]any, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}
