package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/ptxvm/ptxvm/kernels"
	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx/demangle"
	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/program"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
	"github.com/ptxvm/ptxvm/vm/spec/npy"
)

const runUsage = `Usage: ptxrun run SPEC.json [flags]
       ptxrun run KERNEL.ptx --kernel K --grid X,Y,Z --block X,Y,Z --arg ... [flags]
       ptxrun run NAME [--size N] [flags]      a bundled kernel (see ptxrun demo)

Runs a launch on the emulated GPU: the one a launch spec describes (see
"ptxrun help spec" and docs/launch-spec.md), one given on the command
line (a quick launch), or a bundled kernel on inputs it generates (its
output is checked against its Go reference). Writes each output buffer
of a spec or quick launch to DIR/<name>.bin (raw little-endian) or, with
--npy, DIR/<name>.npy.

With --mode timing the cycle-level model runs the launch: the summary
adds the cycles, achieved occupancy, issue-slot use, the stall reasons
per issued instruction under Nsight Compute's names and where the stall
cycles went in words; --report adds the same, per CUDA line and per PTX
instruction, to the memory report; --trace writes the timeline.

A timed launch of 4 waves or more is sampled when its size, estimated
before it starts from 16 of its blocks run ahead (and undone), passes
2e8 warp instructions (--sample auto, the default; the estimate and the
decision are said on stderr and in --metrics/--json): it runs on a slice
of the GPU (one SM in 8, or in 13 for a launch of under 32 waves, with
the matching share of the L2 and DRAM, the grid's first blocks in the
same number of waves), whose first waves are simulated in detail until
the time a wave takes is stable, the rest of its cycles extrapolated,
with an error bound. The blocks left out run
functionally when outputs are asked for (--out, a bundled kernel's
check: outputs exact) and not at all otherwise (outputs incomplete).
--sample off simulates every block; exact or skip samples any launch of
4 waves or more, whatever its size. Every figure but the cycles then
counts the detailed blocks only, under ptxvm__detailed__ names in
--metrics and --json (docs/sampling.md).

The memory hierarchy's counters are computed only when something shows
them (--metrics, --report, --json, timing mode): a plain run is faster,
and where a kernel's blocks cannot synchronise it runs an SM's blocks one
after another (and its warps in longer turns): the same bytes for a kernel
without races, perhaps others for one whose blocks or warps race
(docs/counters.md, "The functional mode's order").

A spec with "steps" is a program (copies, memsets, prefetches, several
launches over the same buffers; docs/launch-spec.md): run prints each
step's engine, bytes, start and time and where the program's time goes;
launches are timed in timing mode. --trace and --sample are for a single
launch.

A quick launch takes one --arg per kernel parameter, in order:
  NAME=TYPE[COUNT]                 a buffer of COUNT zeros (TYPE: u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64)
  NAME=TYPE[COUNT]:rand            random: floats in [0,1), integers over the type's range
  NAME=TYPE[COUNT]:rand(LO,HI[,SEED])
  NAME=TYPE[COUNT]:iota(START,STEP)
  NAME=TYPE[COUNT]:VALUE           every element VALUE
  NAME=TYPE[COUNT]:FILE            from a raw .bin or .npy file (TYPE[] takes the count from it)
  NAME=FILE.npy                    type and count from the .npy file
  [NAME=]TYPE:VALUE                a scalar (u8 ... u64, s8 ... s64, f32, f64; 0x... bits, nan, inf)
The outputs are the buffers given no contents, unless --outputs names them.
--save-spec FILE writes the launch as a spec file too.

Examples:
  ptxrun run matmul_tiled --mode timing --report
  ptxrun run matmul.ptx --kernel matmul_tiled --grid 16,16 --block 16,16 \
      --arg C=f32[65536] --arg A=f32[65536]:rand --arg B=f32[65536]:rand --arg n=u32:256 --out out/
  ptxrun run spec.json --out out/ --npy`

// workersUsage is the --workers flag of the commands that run launches.
const workersUsage = "host goroutines running SMs (0: all cores; one for a kernel with atomics in global memory, whose results would otherwise depend on thread timing: more than one then makes a float atomicAdd's sum or the values atomics return vary from run to run, as on the GPU)"

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", runUsage, stderr)
	out := fs.String("out", "", "write each output buffer to `DIR`/<name>.bin (or .npy)")
	asNpy := fs.Bool("npy", false, "write outputs as NumPy .npy files instead of raw .bin")
	metrics := fs.String("metrics", "", "write the launch's counters as JSON to `FILE` (Nsight Compute names where they mean what ncu means, ptxvm__ names otherwise)")
	gpuName := gpuFlag(fs)
	regs := regsFlag(fs)
	report := fs.Bool("report", false, "print a report: the launch; in timing mode the cycles, occupancy, stall reasons and the lines and instructions where warps stall; the memory summary, the top instructions by sectors, excess sectors and bank conflicts with their PTX and CUDA lines and a diagnosis (with --json: the report as JSON)")
	size := fs.Int("size", 0, "bundled kernels: the problem size `N` (matrix side; 0: the kernel's own)")
	anyTarget := fs.Bool("any-target", false, "run PTX whose .target the GPU cannot run (newer than it), with the GPU's limits")
	workers := fs.Int("workers", 0, workersUsage)
	maxInst := fs.Int64("max-inst", 1<<32, "stop after `N` warp instructions, so that a kernel that never ends is reported (0: no limit)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	strict := fs.Bool("strict", false, "make behaviour the PTX ISA leaves undefined a fault (warp-synchronous member masks naming exited lanes, shuffles reading inactive lanes)")
	mode := modeFlag(fs)
	trace := traceFlag(fs)
	sampleMode := sampleFlag(fs)
	kernel := fs.String("kernel", "", "quick launch: the kernel (`NAME`: mangled, C++ name or signature, or a unique part of one)")
	grid := fs.String("grid", "", "quick launch: grid size, `X,Y,Z`")
	block := fs.String("block", "", "quick launch: block size, `X,Y,Z`")
	dyn := fs.Uint64("dynamic-shared", 0, "quick launch: dynamic shared memory per block, in `BYTES`")
	stack := fs.Uint64("stack-bytes", 0, "per-thread stack of a recursive kernel (cudaLimitStackSize), in `BYTES`; default the spec's stack_bytes, else 1024")
	var qargs quickArgs
	fs.Var(&qargs, "arg", "quick launch: the next kernel argument (see above); repeat for each parameter")
	outputs := fs.String("outputs", "", "quick launch: the buffers to write back, `NAME,...`")
	saveSpecTo := fs.String("save-spec", "", "quick launch: also write it as a spec `FILE`")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ptxrun run: give exactly one spec file or PTX file")
		fs.Usage()
		return exitUsage
	}
	if !nonNegative(stderr, "run", "workers", int64(*workers)) || !nonNegative(stderr, "run", "max-inst", *maxInst) || !nonNegative(stderr, "run", "regs", int64(*regs)) ||
		!nonNegative(stderr, "run", "size", int64(*size)) {
		return exitUsage
	}
	if !checkMode(stderr, "run", *mode) {
		return exitUsage
	}
	var tr *timing.Trace
	if *trace != "" {
		if *mode != scheduler.ModeTiming {
			fmt.Fprintln(stderr, "ptxrun run: --trace needs --mode timing")
			return exitUsage
		}
		tr = &timing.Trace{}
	}
	gpu, err := scheduler.LookupProfile(*gpuName)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun run:", err)
		return exitUsage
	}
	quick := strings.EqualFold(filepath.Ext(pos[0]), ".ptx") || *kernel != ""
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var sp *spec.Spec
	var bundled *kernels.Example
	if !quick && !fileExists(pos[0]) {
		if e, lerr := kernels.Lookup(pos[0]); lerr == nil {
			bundled = e
			if *size > 0 {
				bundled = sized(e, *size, "run", stderr)
			}
		}
	}
	if set["size"] && bundled == nil {
		fmt.Fprintf(stderr, "ptxrun run: -size is for a bundled kernel; %s is not one\n", pos[0])
		return exitUsage
	}
	if bundled != nil {
		for _, f := range []string{"grid", "block", "arg", "outputs", "save-spec", "dynamic-shared", "out", "npy", "stack-bytes"} {
			if set[f] {
				fmt.Fprintf(stderr, "ptxrun run: -%s is not for a bundled kernel (%s makes its own inputs and checks its output against its Go reference; write a spec to choose them)\n", f, pos[0])
				return exitUsage
			}
		}
		sp = &spec.Spec{Kernel: bundled.Kernel, Grid: bundled.Grid[:]}
	} else if quick {
		sp, err = buildQuickSpec(pos[0], *kernel, *grid, *block, *dyn, qargs, *outputs)
		if err == nil && *saveSpecTo != "" {
			err = saveSpec(sp, *saveSpecTo)
		}
	} else {
		for _, f := range []string{"grid", "block", "arg", "outputs", "save-spec", "dynamic-shared"} {
			if set[f] {
				fmt.Fprintf(stderr, "ptxrun run: -%s is for a quick launch of a PTX file; %s is a spec\n", f, pos[0])
				return exitUsage
			}
		}
		sp, err = spec.Load(pos[0])
	}
	if err == nil && *stack != 0 {
		if *stack > memspace.DefaultLocalSize {
			err = fmt.Errorf("stack_bytes %d is more than this emulator gives a thread (%d)", *stack, memspace.DefaultLocalSize)
		}
		sp.StackBytes = *stack
	}
	if err != nil {
		fmt.Fprint(stderr, "ptxrun run: ")
		printErrors(stderr, err)
		return exitUsage
	}
	smp, err := sampleOption(*sampleMode, *mode, set["sample"], *out != "" || bundled != nil)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun run:", err)
		return exitUsage
	}
	if sp.IsProgram() {
		for _, f := range []string{"trace", "sample", "kernel", "size"} {
			if set[f] {
				fmt.Fprintf(stderr, "ptxrun run: -%s is for a single launch; %s is a program of %d steps\n", f, pos[0], len(sp.Steps))
				return exitUsage
			}
		}
		opt := scheduler.Options{Workers: *workers, MaxInst: *maxInst, Strict: *strict, Registers: *regs, AnyTarget: *anyTarget, StreamOutputs: true, Mode: *mode}
		return runProgram(ctx, sp, pos[0], gpu, opt, *out, *metrics, *asNpy, *asJSON, *report, stdout, stderr)
	}
	var done atomic.Uint64
	// The hierarchy's counters cost 1.5-1.9x a bare functional run (docs/performance.md):
	// they are computed only when something shows them.
	counters := *metrics != "" || *report || *asJSON || *mode == scheduler.ModeTiming
	opt := scheduler.Options{Workers: *workers, MaxInst: *maxInst, Strict: *strict, Registers: *regs, AnyTarget: *anyTarget, Done: &done, StreamOutputs: true, Mode: *mode, Trace: tr,
		Sample: smp, NoCounters: !counters}
	prog := startProgress(stderr, "blocks", totalBlocks(sp), &done)
	var run *scheduler.SpecRun
	if bundled != nil {
		run, err = runBundled(ctx, bundled, gpu, opt)
	} else {
		run, err = scheduler.RunSpec(ctx, sp, gpu, opt, nil)
	}
	prog.Stop()
	if err != nil {
		var te *scheduler.TargetError
		switch {
		case ctx.Err() != nil:
			return exitInterrupted // doMain says so
		case errors.Is(err, vm.ErrBudget):
			fmt.Fprintf(stderr, "ptxrun run: %v (budget: -max-inst %d)\n%s\n", err, *maxInst, budgetAdvice(totalBlocks(sp), done.Load(), *maxInst))
			return exitFail
		case vm.IsRuntime(err):
			fmt.Fprintln(stderr, "ptxrun run:", err)
			return exitFail
		case errors.As(err, &te):
			fmt.Fprintf(stderr, "ptxrun run: %v\n(choose a GPU that can with --gpu, or run it with the %s's limits anyway with --any-target)\n", err, te.GPU.Name)
			return exitUsage
		}
		fmt.Fprint(stderr, "ptxrun run: ")
		printErrors(stderr, err)
		return exitUsage
	}
	defer run.Release()
	if t := run.Result.Timing; t != nil && t.Sampling != nil {
		noteSampled(stderr, "run", t.Sampling, *sampleMode)
	} else if t != nil && t.NotSampled != "" {
		fmt.Fprintf(stderr, "ptxrun run: %s; every block was simulated in detail\n", t.NotSampled)
	} else if t != nil && *sampleMode == "auto" {
		noteAuto(stderr, "run", t.Auto)
	}
	written := map[string]string{}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fmt.Fprintln(stderr, "ptxrun run:", err)
			return exitFail
		}
		for _, name := range sp.Outputs {
			p, err := writeOutput(run, *out, name, *asNpy)
			if err != nil {
				fmt.Fprintln(stderr, "ptxrun run:", err)
				return exitFail
			}
			written[name] = p
		}
	}
	if tr != nil {
		if err := writeTrace(tr, *trace); err != nil {
			fmt.Fprintln(stderr, "ptxrun run:", err)
			return exitFail
		}
	}
	m := launchMetrics(run, gpu)
	if *metrics != "" {
		data, _ := json.MarshalIndent(m, "", "  ")
		if err := os.WriteFile(*metrics, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "ptxrun run:", err)
			return exitFail
		}
	}
	if *report {
		return writeReport(stdout, stderr, run, gpu, *asJSON)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			*metricsFile
			Demangled    string            `json:"demangled,omitempty"`
			Outputs      map[string]string `json:"outputs,omitempty"`
			Seconds      float64           `json:"seconds"`
			SetupSeconds float64           `json:"setup_seconds"`
			Timing       *timingJSON       `json:"timing,omitempty"`
		}{m, demangledOrEmpty(run.Prepared.Kernel), written, run.Elapsed.Seconds(), run.Setup.Seconds(), timingSummary(run.Result.Timing)})
		return exitOK
	}
	l := run.Prepared.Launch
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "kernel\t%s\n", kernelTitle(run.Prepared.Kernel))
	fmt.Fprintf(tw, "launch\tgrid (%d,%d,%d) x block (%d,%d,%d), %d B dynamic shared\n", l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2], l.DynSmem)
	fmt.Fprintf(tw, "gpu\t%s (%d SMs), %s mode\n", gpu.Name, gpu.SMs, m.Mode)
	fmt.Fprintf(tw, "PTX warp instructions\t%d\n", run.Result.Stats.Inst)
	fmt.Fprintf(tw, "PTX thread instructions\t%d\n", run.Result.Stats.ThreadInst)
	fmt.Fprintf(tw, "time\t%s (%s thread-inst/s)\n", run.Elapsed.Round(time.Microsecond), rate(run.Result.Stats.ThreadInst, run.Elapsed))
	fmt.Fprintf(tw, "setup\t%s (module, buffers, arguments; device memory held: %s)\n", run.Setup.Round(time.Microsecond), byteSize(run.Prepared.Device.Mem.HostBytes()))
	for _, name := range sp.Outputs {
		if p, ok := written[name]; ok {
			fmt.Fprintf(tw, "output %s\t%s\n", name, p)
		}
	}
	tw.Flush()
	if t := run.Result.Timing; t != nil {
		printTiming(stdout, t, 8)
	}
	return exitOK
}

// totalBlocks is the number of blocks of a spec's grid.
func totalBlocks(sp *spec.Spec) uint64 {
	n := uint64(1)
	for _, d := range sp.Grid {
		n *= uint64(d)
	}
	return n
}

// budgetAdvice tells a grid that is simply large from a block that runs
// too long, from how many of its blocks finished within the budget.
func budgetAdvice(total, done uint64, budget int64) string {
	if done == 0 {
		return fmt.Sprintf("No block of the %d finished within the budget: a block runs more than %d warp instructions (a loop that does not end?). Raise -max-inst (0: no limit) if it should.", total, budget)
	}
	per := float64(budget) / float64(done)
	need := per * float64(total)
	if done < total && need > 1.5*float64(budget) {
		return fmt.Sprintf("The grid is large: %d of its %d blocks finished, about %.0f warp instructions each, so the launch needs about %.3g. Raise -max-inst to at least %.0f (0: no limit), or shrink the grid.",
			done, total, per, need, need*1.1)
	}
	return fmt.Sprintf("%d of the %d blocks finished; the rest ran past the budget: one of them loops longer than the others (a loop that does not end?). Raise -max-inst (0: no limit) if it should not stop.", done, total)
}

// writeOutput streams output name of run into dir, raw or as .npy.
func writeOutput(run *scheduler.SpecRun, dir, name string, asNpy bool) (string, error) {
	return writeOutputFile(run.Spec, dir, name, asNpy, func(w io.Writer) error { return run.WriteOutput(name, w) })
}

// writeOutputFile writes output buffer name of spec sp, which write
// streams, into dir as name.bin, or name.npy with a header.
func writeOutputFile(sp *spec.Spec, dir, name string, asNpy bool, write func(io.Writer) error) (string, error) {
	ext := ".bin"
	if asNpy {
		ext = ".npy"
	}
	p := filepath.Join(dir, name+ext)
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if asNpy {
		b, _ := sp.BufferSpec(name)
		h, err := npy.Encode(b.Type, b.Count)
		if err != nil {
			f.Close()
			return "", err
		}
		w.Write(h)
	}
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return p, err
}

// kernelTitle is a kernel's demangled signature and mangled name.
func kernelTitle(mangled string) string {
	if d := demangledOrEmpty(mangled); d != "" {
		return d + "  (" + mangled + ")"
	}
	return mangled
}

func demangledOrEmpty(mangled string) string {
	if d, err := demangle.Demangle(mangled); err == nil {
		return d
	}
	return ""
}

func byteSize(n uint64) string { return program.BytesText(n) }

func rate(n uint64, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	r := float64(n) / d.Seconds()
	switch {
	case r >= 1e9:
		return fmt.Sprintf("%.2f G", r/1e9)
	case r >= 1e6:
		return fmt.Sprintf("%.1f M", r/1e6)
	}
	return fmt.Sprintf("%.0f", r)
}

// metricsFile is the --metrics JSON (docs/launch-spec.md).
type metricsFile struct {
	Kernel  string             `json:"kernel"`
	GPU     string             `json:"gpu"`
	Mode    string             `json:"mode"`
	Metrics map[string]float64 `json:"metrics"`
	// Sampling, in a sampled timed run: how the cycles were estimated,
	// and their error bound (every other figure counts the detailed
	// blocks only, under ptxvm__detailed__ names).
	Sampling *timing.Sampling `json:"sampling,omitempty"`
	// AutoSample, in a timed run with --sample auto of a launch large
	// enough to run on a slice: the estimate of its size taken before it
	// started and the decision (sampled or not).
	AutoSample *timing.AutoSampling `json:"auto_sample,omitempty"`
}

func launchMetrics(run *scheduler.SpecRun, gpu *scheduler.Profile) *metricsFile {
	mode := scheduler.ModeFunctional
	if run.Result.Timing != nil {
		mode = scheduler.ModeTiming
	}
	mf := &metricsFile{Kernel: run.Prepared.Kernel, GPU: gpu.Name, Mode: mode, Metrics: run.Metrics()}
	if t := run.Result.Timing; t != nil {
		mf.Sampling, mf.AutoSample = t.Sampling, t.Auto
	}
	return mf
}
