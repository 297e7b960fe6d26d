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
	"text/tabwriter"
	"time"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm/compare"
)

// outcome is one launch run by the timing model beside ncu's figures.
type outcome struct {
	name    string
	kernel  string
	family  string
	split   split
	ws      float64 // bytes of the launch's buffers
	waves   float64 // blocks over what the SMs hold at once
	real    float64 // sm__cycles_elapsed.max
	model   float64
	roof    float64 // roofline estimate
	issued  float64
	ncuInst float64
	stalls  timing.Stalls
	real_   map[string]float64
	wall    time.Duration
	err     error
	// sampled, if not nil: the launch was above -max-inst and ran sampled
	// (-sample): model is the estimate.
	sampled *timing.Sampling
}

// calibration set: the launches of at least minCycles real cycles.
func calibrationSet(testdata string, minCycles float64, only string, maxInst float64) ([]*ncu.Launch, error) {
	return launchSet(testdata, minCycles, only, maxInst, nil, nil)
}

// launchSet is calibrationSet restricted to the launches whose split is in
// want (nil: every split).
func launchSet(testdata string, minCycles float64, only string, maxInst float64, fs *families, want map[split]bool) ([]*ncu.Launch, error) {
	all, err := ncu.ReadWithPublic(testdata)
	if err != nil {
		return nil, err
	}
	var out []*ncu.Launch
	for _, l := range all {
		c, ok := l.Value("sm__cycles_elapsed.max")
		if !ok || c < minCycles || !selected(l.Name(), only) {
			continue
		}
		if n, _ := l.Value("smsp__inst_executed.sum"); maxInst > 0 && n > maxInst && sampleAbove == timing.SampleOff {
			continue
		}
		if l.Table == "repeat.O3" {
			continue // the same launches as calib.O3, measured again
		}
		if fs != nil && want != nil {
			if _, s := fs.of(l); !want[s] {
				continue
			}
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

// sampleAbove is how launches above sampleMaxInst machine instructions
// run (cycles -sample): timing.SampleOff leaves them out.
var (
	sampleAbove   timing.SampleMode
	sampleMaxInst float64
)

// runSet runs every launch with profile p, jobs at a time.
func runSet(ls []*ncu.Launch, p *gpu.Profile, jobs int, fs *families) []*outcome {
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
			out[i] = runOne(ls[i], p, fs)
			if progress {
				fmt.Fprintf(os.Stderr, "  %s: %.1fs\n", ls[i].Name(), out[i].wall.Seconds())
			}
		}()
	}
	wg.Wait()
	return out
}

func runOne(l *ncu.Launch, p *gpu.Profile, fs *families) *outcome {
	o := &outcome{name: l.Name(), real_: map[string]float64{}, split: splitNone}
	if fs != nil {
		o.family, o.split = fs.of(l)
	}
	o.real, _ = l.Value("sm__cycles_elapsed.max")
	o.ncuInst, _ = l.Value("smsp__inst_executed.sum")
	pp, err := prepare(l, p)
	if err != nil {
		o.err = err
		return o
	}
	defer pp.p.Launch.Release()
	o.kernel = l.Corpus + ":" + pp.p.Launch.Kernel.Name
	o.ws = workingSet(pp)
	if held := float64(p.SMs * max(pp.occ.BlocksPerSM, 1)); held > 0 {
		o.waves = float64(pp.p.Launch.NumCTAs()) / held
	}
	opt := timing.Options{BlocksPerSM: pp.occ.BlocksPerSM, Registers: pp.regs, Workers: 1, MaxInst: 1 << 33}
	if sampleAbove != timing.SampleOff && sampleMaxInst > 0 && o.ncuInst > sampleMaxInst {
		opt.Sample = timing.Sample{Mode: sampleAbove}
		opt.MaxInst = 0
	}
	t0 := time.Now()
	res, err := timing.Run(context.Background(), pp.p.Launch, p, opt)
	o.wall = time.Since(t0)
	if err != nil {
		o.err = err
		return o
	}
	o.sampled = res.Sampling
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
	splitFlag := fs.String("split", "", "comma-separated splits to run: train, held_out, public, unassigned (default: all)")
	profile := fs.String("gpu", "h100", "GPU profile (name or file)")
	set := fs.String("set", "", "profile settings to try: path=value,... (memory.latency.l1_hit=38,...)")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "launches run at once")
	verbose := fs.Bool("v", false, "print every launch")
	maxInst := fs.Float64("max-inst", 0, "leave out launches of more than this many machine instructions (ncu's count; 0: none)")
	fs.BoolVar(&progress, "progress", false, "print each launch as it finishes (stderr)")
	sample := fs.String("sample", "off", "launches above -max-inst: off (left out), skip or exact (run sampled: the first waves in detail, the rest extrapolated; reported per launch as sampled, with the estimate's error bound)")
	fs.IntVar(&stallsShown, "stalls", 4, "with -v: the stall reasons shown per launch (the largest of model and GPU first)")
	_ = fs.Parse(args)
	var err error
	if sampleAbove, err = timing.ParseSampleMode(*sample); err != nil {
		return err
	}
	sampleMaxInst = *maxInst
	fams, err := loadFamilies(*testdata)
	if err != nil {
		return err
	}
	want, err := parseSplits(*splitFlag)
	if err != nil {
		return err
	}
	ls, err := launchSet(*testdata, *minCycles, *only, *maxInst, fams, want)
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
	outs := runSet(ls, p, *jobs, fams)
	printOutcomes(os.Stdout, outs, *verbose, fams.consulted)
	printGroups(os.Stdout, outs)
	printSizeClasses(os.Stdout, outs, p)
	if *verbose {
		printFamilies(os.Stdout, outs)
	}
	if ps, err := allPairs(*testdata); err == nil {
		// Pair launches outside the set (under -min cycles) run too, for
		// their ratios only.
		extra, err := missingPairLaunches(*testdata, ps, outs, *only, *maxInst)
		if err != nil {
			return err
		}
		within, n := printPairs(os.Stdout, ps, append(outs, runSet(extra, p, *jobs, fams)...))
		fmt.Printf("%d of %d pair ratios within 15%% of the GPU's\n", within, n)
	}
	fmt.Printf("(%d launches in %.0f s)\n", len(outs), time.Since(t0).Seconds())
	return nil
}

// workingSet is the bytes of a launch's buffers and symbols (what it
// allocates; the launches of the corpora touch all of it).
func workingSet(pp *prepared) float64 {
	var b float64
	for _, x := range pp.p.Spec.Buffers {
		b += float64(x.Count) * float64(compare.ElemSize(x.Type))
	}
	for _, x := range pp.p.Spec.Symbols {
		b += float64(x.Count) * float64(compare.ElemSize(x.Type))
	}
	return b
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

// printOutcomes prints the launches (verbose), the MAPE over all of them
// and per split; consulted (may be nil) names the public families whose
// errors guided a change, left out of the public corpus's second line.
func printOutcomes(w *os.File, outs []*outcome, verbose bool, consulted map[string]bool) {
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
			if s := o.sampled; s != nil {
				fmt.Fprintf(w, "  %-36s   sampled: model cycles an estimate ±%.0f (±%.2f%%); %s; roofline, inst and stalls from the detailed blocks\n", "", float64(s.Error), s.ErrorPct(), s.Describe())
			}
		}
	}
	var model, roof, reals []float64
	for _, o := range ok {
		model = append(model, relErr(o.model, o.real))
		roof = append(roof, relErr(o.roof, o.real))
		reals = append(reals, o.real)
	}
	c := bestConstant(reals)
	for _, o := range ok {
		if s := o.sampled; s != nil {
			fmt.Fprintf(w, "sampled: %s: model %.0f ±%.0f cycles (±%.2f%%), %d of %d blocks in detail, %.1fs\n", o.name, o.model, float64(s.Error), s.ErrorPct(), s.Detailed, s.Blocks, o.wall.Seconds())
		}
	}
	fmt.Fprintf(w, "cycle MAPE over %d launches: model %.1f%% (median %.1f%%, within 15%%: %.0f%%), constant guess %.0f cycles %.1f%%, roofline %.1f%%\n",
		len(ok), 100*mean(model), 100*median(model), 100*within(model, 0.15), c, 100*mean(constErrs(reals)), 100*mean(roof))
	for _, sp := range splits {
		var m, r, rs []float64
		for _, o := range ok {
			if o.split == sp {
				m = append(m, relErr(o.model, o.real))
				r = append(r, relErr(o.roof, o.real))
				rs = append(rs, o.real)
			}
		}
		if len(m) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %-10s %3d launches, %2d families: model MAPE %5.1f%% (median %.1f%%, within 15%%: %.0f%%), constant guess %.1f%%, roofline %.1f%%\n",
			sp, len(m), countFamilies(ok, sp), 100*mean(m), 100*median(m), 100*within(m, 0.15), 100*mean(constErrs(rs)), 100*mean(r))
		if sp == splitPublic && consulted != nil {
			var mc, rc []float64
			fams := map[string]bool{}
			for _, o := range ok {
				if o.split == sp && !consulted[o.family] {
					mc = append(mc, relErr(o.model, o.real))
					rc = append(rc, o.real)
					fams[o.family] = true
				}
			}
			if len(mc) > 0 && len(mc) < len(m) {
				fmt.Fprintf(w, "    never consulted %3d launches, %2d families: model MAPE %5.1f%% (median %.1f%%, within 15%%: %.0f%%), constant guess %.1f%%\n",
					len(mc), len(fams), 100*mean(mc), 100*median(mc), 100*within(mc, 0.15), 100*mean(constErrs(rc)))
			}
		}
	}
}

// constErrs is the relative error of the best constant guess for reals on
// each (the constant is chosen on the same launches: the baseline's best
// case).
func constErrs(reals []float64) []float64 {
	c := bestConstant(reals)
	var out []float64
	for _, r := range reals {
		out = append(out, relErr(c, r))
	}
	return out
}

func countFamilies(outs []*outcome, sp split) int {
	seen := map[string]bool{}
	for _, o := range outs {
		if o.err == nil && o.split == sp {
			seen[o.family] = true
		}
	}
	return len(seen)
}

// printSizeClasses prints the model's MAPE per split and size class:
// whether the launch's buffers fit in the L2, and whether its blocks fit
// on the SMs at once (one wave) or not.
func printSizeClasses(w *os.File, outs []*outcome, p *gpu.Profile) {
	l2 := float64(p.Memory.L2.SizeBytes)
	type key struct {
		sp    split
		fits  bool
		waves bool
	}
	errs := map[key][]float64{}
	for _, o := range outs {
		if o.err != nil {
			continue
		}
		k := key{o.split, o.ws <= l2, o.waves > 1}
		errs[k] = append(errs[k], relErr(o.model, o.real))
	}
	fmt.Fprintln(w, "by size class (working set = the launch's buffers; L2 holds", fmt.Sprintf("%.0f MiB):", l2/(1<<20)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "split\tfits in L2, one wave\tfits in L2, many waves\tbeyond L2, one wave\tbeyond L2, many waves\t")
	for _, sp := range splits {
		row := string(sp) + "\t"
		any := false
		for _, fits := range []bool{true, false} {
			for _, many := range []bool{false, true} {
				e := errs[key{sp, fits, many}]
				if len(e) == 0 {
					row += "-\t"
					continue
				}
				any = true
				row += fmt.Sprintf("%.1f%% (%d)\t", 100*mean(e), len(e))
			}
		}
		if any {
			fmt.Fprintln(tw, row)
		}
	}
	_ = tw.Flush()
}

// printFamilies prints the model's MAPE per family, worst first.
func printFamilies(w *os.File, outs []*outcome) {
	type fam struct {
		name string
		sp   split
		errs []float64
	}
	by := map[string]*fam{}
	for _, o := range outs {
		if o.err != nil {
			continue
		}
		k := string(o.split) + "/" + o.family
		if by[k] == nil {
			by[k] = &fam{name: o.family, sp: o.split}
		}
		by[k].errs = append(by[k].errs, relErr(o.model, o.real))
	}
	var fs []*fam
	for _, f := range by {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].sp != fs[j].sp {
			return fs[i].sp < fs[j].sp
		}
		return mean(fs[i].errs) > mean(fs[j].errs)
	})
	fmt.Fprintln(w, "by family:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range fs {
		fmt.Fprintf(tw, "  %s\t%s\t%d launches\tMAPE %.1f%%\n", f.sp, f.name, len(f.errs), 100*mean(f.errs))
	}
	_ = tw.Flush()
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
