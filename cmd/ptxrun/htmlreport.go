package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptxvm/ptxvm/kernels"
	"github.com/ptxvm/ptxvm/ptx/demangle"
	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/report"
	"github.com/ptxvm/ptxvm/scheduler/report/html"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

const reportUsage = `Usage: ptxrun report SPEC.json [flags]
       ptxrun report KERNEL.ptx --kernel K --grid X,Y,Z --block X,Y,Z --arg ... [flags]
       ptxrun report NAME [flags]             a bundled kernel (see ptxrun demo)
       ptxrun report --compare A B [flags]    two runs side by side; A and B are specs or bundled kernels

Runs a launch and writes its report as one self-contained HTML file (no
network, no external scripts, fonts or styles; open it in any browser,
print it, mail it): the launch and its occupancy; the figures at a glance and
the worst accesses in plain words; charts of sectors per request and of
shared-memory wavefronts per request (bank-conflict ways) per instruction,
cache hit rates and the bytes at each level; the CUDA lines (.loc) and the
PTX with heat for requests, sectors, excess sectors, wavefronts and bank
conflicts; the top instructions; every counter with its one-line meaning.
With --compare, two runs side by side: what changed, biggest first, the
diagnoses that differ, both runs' charts and lines on the same scales, and
every metric with its ratio.

With --mode timing the runs go through the cycle-level model and the page
adds: the cycles, achieved occupancy, IPC and top stall reason at a glance;
where the time goes in words ("warps wait on global loads at
matmul.cu:16: 89% of stalls"); a chart of the stall reasons under Nsight
Compute's names and one of the stall cycles per source line by reason;
stall-cycle heat in the CUDA and PTX views; and a timeline drawn from the
model: the blocks resident on every SM over the cycles, the first SMs'
warps coloured by what they wait on, and the first block's life in detail
(aggregated into columns, so that a large launch stays a small page).

The CUDA source text is shown when the file is found: where --source points,
at the path nvcc recorded in the PTX, or beside the PTX file. Otherwise the
CUDA lines show their file:line labels only.

Examples:
  ptxrun report matmul_tiled                              writes matmul_tiled.html
  ptxrun report matmul_tiled --mode timing --size 1024    ... with stalls and the timeline
  ptxrun report --compare matmul_naive matmul_tiled       writes matmul_naive-vs-matmul_tiled.html
  ptxrun report spec.json --source kernels/ -o report.html`

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("report", reportUsage, stderr)
	out := fs.String("o", "", "write the HTML to `FILE` (default: the kernel's name, or A-vs-B, .html in the current folder; - for stdout)")
	cmp := fs.Bool("compare", false, "compare two runs: give two specs or bundled kernels")
	var sources multiFlag
	fs.Var(&sources, "source", "a CUDA source `FILE` or a folder holding them, for the CUDA source view (repeatable)")
	gpuName := gpuFlag(fs)
	regs := regsFlag(fs)
	regsA := fs.Int("regs-a", 0, "with --compare: registers per thread of A (0: --regs, the spec's, else declared)")
	regsB := fs.Int("regs-b", 0, "with --compare: registers per thread of B (0: --regs, the spec's, else declared)")
	workers := fs.Int("workers", 0, workersUsage)
	maxInst := fs.Int64("max-inst", 1<<32, "stop a run after `N` warp instructions (0: no limit)")
	anyTarget := fs.Bool("any-target", false, "run PTX whose .target the GPU cannot run (newer than it), with the GPU's limits")
	size := fs.Int("size", 0, "bundled kernels: the problem size `N` (matrix side; 0: the kernel's own)")
	mode := modeFlag(fs)
	var q quickFlags
	q.register(fs)
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	want := 1
	if *cmp {
		want = 2
	}
	if len(pos) != want {
		if *cmp {
			fmt.Fprintln(stderr, "ptxrun report: --compare takes two specs or bundled kernels")
		} else {
			fmt.Fprintln(stderr, "ptxrun report: give one spec, PTX file (a quick launch) or bundled kernel")
		}
		fs.Usage()
		return exitUsage
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"workers", int64(*workers)}, {"max-inst", *maxInst}, {"regs", int64(*regs)}, {"regs-a", int64(*regsA)}, {"regs-b", int64(*regsB)}, {"size", int64(*size)}} {
		if !nonNegative(stderr, "report", f.name, f.v) {
			return exitUsage
		}
	}
	if !checkMode(stderr, "report", *mode) {
		return exitUsage
	}
	if *cmp && q.given(fs) {
		fmt.Fprintln(stderr, "ptxrun report: a quick launch cannot be compared: write each as a spec first (ptxrun run ... --save-spec FILE)")
		return exitUsage
	}
	gpu, err := scheduler.LookupProfile(*gpuName)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun report:", err)
		return exitUsage
	}
	opt := html.Options{Command: "ptxrun " + strings.Join(args, " "), Version: version, Sources: map[string]string{}}
	if specs, ok, err := programSpecs(pos); err != nil {
		fmt.Fprintln(stderr, "ptxrun report:", err)
		return exitUsage
	} else if ok {
		return reportPrograms(ctx, specs, pos, gpu, scheduler.Options{Workers: *workers, MaxInst: *maxInst, Mode: *mode, StreamOutputs: true}, opt, *out, stdout, stderr)
	}
	cache := spec.NewModuleCache()
	var reps []*report.Report
	for i, target := range pos {
		r := *regs
		if *cmp && []int{*regsA, *regsB}[i] != 0 {
			r = []int{*regsA, *regsB}[i]
		}
		o := scheduler.Options{Workers: *workers, MaxInst: *maxInst, Registers: r, AnyTarget: *anyTarget, Mode: *mode}
		if *mode == scheduler.ModeTiming {
			o.Trace = reportTrace()
		}
		rep, src, code := reportRun(ctx, stderr, fs, target, &q, gpu, o, *size, cache)
		if code != exitOK {
			return code
		}
		for k, v := range src {
			if _, ok := opt.Sources[k]; !ok {
				opt.Sources[k] = v
			}
		}
		look := sources
		if fileExists(target) {
			look = append(append([]string(nil), sources...), filepath.Dir(target)) // a spec's folder: its sources' recorded paths below it
		}
		for k, v := range html.FindSources(rep, look...) {
			if _, ok := opt.Sources[k]; !ok {
				opt.Sources[k] = v
			}
		}
		rep.From = target
		reps = append(reps, rep)
	}
	var buf bytes.Buffer
	name := short(reps[0].Kernel)
	if *cmp {
		err = html.WriteCompare(&buf, report.Compare(reps[0], reps[1]), opt)
		name = compareName(pos[0], pos[1], reps[0].Kernel, reps[1].Kernel)
	} else {
		err = html.Write(&buf, reps[0], opt)
	}
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun report:", err)
		return exitFail
	}
	path := *out
	if path == "-" {
		_, _ = stdout.Write(buf.Bytes())
		return exitOK
	}
	if path == "" {
		path = fileName(name) + ".html"
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(stderr, "ptxrun report:", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "wrote %s (%s)\n", path, byteSize(uint64(buf.Len())))
	return exitOK
}

// reportRun runs one target of ptxrun report: a quick launch, a spec or a
// bundled kernel; it returns the report and the CUDA sources it has (a
// bundled kernel's).
func reportRun(ctx context.Context, stderr io.Writer, fs *flag.FlagSet, target string, q *quickFlags, gpu *scheduler.Profile,
	opt scheduler.Options, size int, cache *spec.ModuleCache) (*report.Report, map[string]string, int) {
	var run *scheduler.SpecRun
	var sources map[string]string
	var err error
	quick := strings.EqualFold(filepath.Ext(target), ".ptx") || q.kernel != ""
	switch {
	case quick:
		var sp *spec.Spec
		sp, err = buildQuickSpec(target, q.kernel, q.grid, q.block, q.dyn, q.args, "")
		if err != nil {
			fmt.Fprint(stderr, "ptxrun report: ")
			printErrors(stderr, err)
			return nil, nil, exitUsage
		}
		run, err = scheduler.RunSpec(ctx, sp, gpu, opt, cache)
	case q.given(fs):
		fmt.Fprintf(stderr, "ptxrun report: -grid, -block, -arg and -dynamic-shared are for a quick launch of a PTX file (with --kernel); %s is not one\n", target)
		return nil, nil, exitUsage
	case fileExists(target):
		var sp *spec.Spec
		if sp, err = spec.Load(target); err != nil {
			fmt.Fprint(stderr, "ptxrun report: ")
			printErrors(stderr, err)
			return nil, nil, exitUsage
		}
		run, err = scheduler.RunSpec(ctx, sp, gpu, opt, cache)
	default:
		e, lerr := kernels.Lookup(target)
		if lerr != nil {
			fmt.Fprintf(stderr, "ptxrun report: %s is not a file, and %v\n", target, lerr)
			return nil, nil, exitUsage
		}
		if size > 0 {
			e = sized(e, size, "report", stderr)
		}
		run, err = runBundled(ctx, e, gpu, opt)
		sources = e.CUDASources()
	}
	if err != nil {
		var te *scheduler.TargetError
		switch {
		case ctx.Err() != nil:
			return nil, nil, exitInterrupted
		case errors.Is(err, vm.ErrBudget):
			fmt.Fprintf(stderr, "ptxrun report: %s: %v (budget: -max-inst %d)\n", target, err, opt.MaxInst)
			return nil, nil, exitFail
		case vm.IsRuntime(err):
			fmt.Fprintf(stderr, "ptxrun report: %s: %v\n", target, err)
			return nil, nil, exitFail
		case errors.As(err, &te):
			fmt.Fprintf(stderr, "ptxrun report: %v\n(choose a GPU that can with --gpu, or run it with the %s's limits anyway with --any-target)\n", err, te.GPU.Name)
			return nil, nil, exitUsage
		}
		fmt.Fprintf(stderr, "ptxrun report: %s: ", target)
		printErrors(stderr, err)
		return nil, nil, exitUsage
	}
	defer run.Release()
	rep, err := report.New(run, gpu)
	if err == nil && opt.Trace != nil {
		err = rep.AddTimeline(opt.Trace)
	}
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun report:", err)
		return nil, nil, exitFail
	}
	return rep, sources, exitOK
}

// reportTrace is the trace a timed report's timeline is drawn from: the
// warps of the first two SMs, every stall of 2 cycles or more (shorter
// ones are a few percent of the stall cycles and a fifth of the events),
// up to 3 million events (about 200 MB; a larger launch's later stalls
// are left out, and the timeline says where).
func reportTrace() *timing.Trace {
	return &timing.Trace{SampleSMs: 2, MinStall: 2, MaxEvents: 3000000}
}

// runBundled runs a bundled kernel on inputs it generates (seed 1, as
// ptxrun demo), functionally or with the timing model (opt.Mode), and
// checks its outputs against the Go reference.
func runBundled(ctx context.Context, e *kernels.Example, gpu *scheduler.Profile, opt scheduler.Options) (*scheduler.SpecRun, error) {
	if err := scheduler.CheckMode(opt.Mode); err != nil {
		return nil, err
	}
	dev := vm.NewDevice()
	setup := time.Now()
	s, err := e.Prepare(dev, 1)
	if err != nil {
		dev.Mem.FreeAll()
		return nil, err
	}
	start := time.Now()
	res, err := scheduler.Run(ctx, s.Launch, gpu, opt)
	elapsed := time.Since(start)
	if err != nil {
		dev.Mem.FreeAll()
		return nil, err
	}
	if err := s.Check(); err != nil {
		dev.Mem.FreeAll()
		return nil, fmt.Errorf("%s: the output does not match the Go reference: %w", e.Name, err)
	}
	return &scheduler.SpecRun{Prepared: &spec.Prepared{Device: dev, Module: s.Launch.Module, Kernel: e.Kernel, Launch: s.Launch}, Result: res,
		Setup: start.Sub(setup), Elapsed: elapsed}, nil
}

// short is a kernel's C++ name without parameters.
func short(mangled string) string { return demangle.Filter(mangled, demangle.NoParams) }

// compareName names a comparison's HTML file: A-vs-B by kernel, and where
// both are one kernel, by what tells the two launches apart (the parts of
// their paths that differ: matmul-O3-vs-G), so that a second comparison of
// the kernel does not overwrite the first.
func compareName(targetA, targetB, kernelA, kernelB string) string {
	a, b := short(kernelA), short(kernelB)
	if a != b {
		return a + "-vs-" + b
	}
	split := func(p string) []string {
		p = filepath.ToSlash(filepath.Clean(p))
		return strings.Split(strings.TrimSuffix(p, filepath.Ext(p)), "/")
	}
	pa, pb := split(targetA), split(targetB)
	for len(pa) > 1 && len(pb) > 1 && pa[0] == pb[0] {
		pa, pb = pa[1:], pb[1:]
	}
	for len(pa) > 1 && len(pb) > 1 && pa[len(pa)-1] == pb[len(pb)-1] {
		pa, pb = pa[:len(pa)-1], pb[:len(pb)-1]
	}
	da, db := strings.Join(pa, "_"), strings.Join(pb, "_")
	if da == db {
		return a + "-vs-" + b
	}
	return a + "-" + da + "-vs-" + db
}

// fileName keeps the letters, digits, '_', '-' and '.' of a name.
func fileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "report"
	}
	return b.String()
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// quickFlags are the flags of a quick launch (as ptxrun run takes them).
type quickFlags struct {
	kernel, grid, block string
	dyn                 uint64
	args                quickArgs
}

func (q *quickFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&q.kernel, "kernel", "", "quick launch: the kernel (`NAME`: mangled, C++ name or signature, or a unique part of one)")
	fs.StringVar(&q.grid, "grid", "", "quick launch: grid size, `X,Y,Z`")
	fs.StringVar(&q.block, "block", "", "quick launch: block size, `X,Y,Z`")
	fs.Uint64Var(&q.dyn, "dynamic-shared", 0, "quick launch: dynamic shared memory per block, in `BYTES`")
	fs.Var(&q.args, "arg", "quick launch: the next kernel argument (as ptxrun run takes it); repeat for each parameter")
}

// given reports whether any quick-launch flag was set.
func (q *quickFlags) given(fs *flag.FlagSet) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "kernel", "grid", "block", "dynamic-shared", "arg":
			set = true
		}
	})
	return set
}
