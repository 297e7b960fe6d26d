package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/shard"
	"github.com/ptxvm/ptxvm/scheduler/suite"
)

func cmdTest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("test", `Usage: ptxrun test DIR... [flags]

Runs every case under each DIR: a folder holding spec.json (a launch spec) and
what a real GPU produced: expected/<output>.bin (or .npy), or
expected/<output>.sha256 (the digest of a large output), or expected/ERROR
(the launch failed on the GPU: the case passes if it stops here too).
Outputs are compared bit for bit; a spec's optional "tolerance" and --ulp
allow floating-point outputs some difference. Prints each failure with the
first differing elements, and each case that passed only through its
tolerance with how many elements differ and why they were allowed (-v: every
case). Exits 1 if any case fails.

--shard I/N runs only part of the cases: those whose position in the sorted
list is I modulo N, so that N machines (a Kubernetes Indexed Job, a Slurm
array: --shard env/N) each run one part (docs/scale-out.md).`, stderr)
	ulp := fs.Uint64("ulp", 0, "allow `N` ULP on floating-point outputs, on top of each spec's tolerance")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	workers := fs.Int("workers", 0, "cases run in parallel (0: all cores)")
	maxInst := fs.Int64("max-inst", 1<<32, "stop a case after `N` warp instructions (0: no limit)")
	verbose := fs.Bool("v", false, "print passing cases too")
	gpuName := gpuFlag(fs)
	anyTarget := fs.Bool("any-target", false, "run modules whose .target the GPU cannot run, with the GPU's limits")
	strict := fs.Bool("strict", false, "make behaviour the PTX ISA leaves undefined a fault")
	mode := modeFlag(fs)
	shardText := shardFlag(fs)
	sanitizeTool := fs.String("sanitize", "", "instead of comparing outputs, run each case under compute-sanitizer's `TOOL` (memcheck, racecheck, synccheck, initcheck, all; see ptxrun sanitize) and fail the cases that report errors")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "ptxrun test: give at least one folder")
		fs.Usage()
		return exitUsage
	}
	if !nonNegative(stderr, "test", "workers", int64(*workers)) || !nonNegative(stderr, "test", "max-inst", *maxInst) {
		return exitUsage
	}
	if !checkMode(stderr, "test", *mode) {
		return exitUsage
	}
	sh, ok := parseShard(stderr, "test", *shardText)
	if !ok {
		return exitUsage
	}
	gpu, err := scheduler.LookupProfile(*gpuName)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun test:", err)
		return exitUsage
	}
	cases, err := suite.Find(pos...)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun test:", err)
		return exitUsage
	}
	if len(cases) == 0 {
		fmt.Fprintln(stderr, "ptxrun test: no cases (folders with spec.json and expected/) under", pos)
		return exitUsage
	}
	total := len(cases)
	cases = shard.Select(sh, cases)
	if len(cases) == 0 {
		// More shards than cases: this one has nothing to do, which is
		// not a failure of the job it is part of.
		fmt.Fprintf(stdout, "shard %s: no cases (there are %d, dealt round robin)\n", sh, total)
		return exitOK
	}
	if *sanitizeTool != "" {
		return testSanitize(ctx, cases, *sanitizeTool, gpu, *maxInst, *asJSON, stdout, stderr)
	}
	start := time.Now()
	opt := suite.Options{GPU: gpu, Workers: *workers, ULP: *ulp, MaxInst: *maxInst, Strict: *strict, AnyTarget: *anyTarget, Mode: *mode}
	var done atomic.Uint64
	prog := startProgress(stderr, "cases", uint64(len(cases)), &done)
	report := func(r *suite.Result) {
		done.Add(1)
		if !*asJSON {
			prog.Pause()
			printResult(stdout, r, *verbose, *ulp)
			prog.Resume()
		}
	}
	results := suite.Run(ctx, cases, opt, report)
	prog.Stop()
	sum := suite.Summarize(results)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		out := struct {
			Results []*suite.Result `json:"results"`
			Summary suite.Summary   `json:"summary"`
			Shard   string          `json:"shard,omitempty"`
			// Total is the cases of every shard.
			Total int `json:"cases_all_shards,omitempty"`
		}{Results: results, Summary: sum}
		if sh.Sharded() {
			out.Shard, out.Total = sh.String(), total
		}
		_ = enc.Encode(out)
	} else {
		tolerated := 0
		for _, r := range results {
			if r.Status == suite.Pass && toleratedOutputs(r) > 0 {
				tolerated++
			}
		}
		passed := fmt.Sprintf("%d passed", sum.Pass)
		if tolerated > 0 {
			passed = fmt.Sprintf("%d passed (%d through their tolerance)", sum.Pass, tolerated)
		}
		of := ""
		if sh.Sharded() {
			of = fmt.Sprintf(" (shard %s of %d)", sh, total)
		}
		fmt.Fprintf(stdout, "%d cases%s: %s, %d failed, %d errors (%s)\n", len(results), of, passed, sum.Fail, sum.Error, time.Since(start).Round(time.Millisecond))
	}
	if sum.Fail+sum.Error > 0 {
		return exitFail
	}
	return exitOK
}

// toleratedOutputs counts the outputs of r that differ bit for bit but
// passed through the tolerance.
func toleratedOutputs(r *suite.Result) int {
	n := 0
	for _, c := range r.Outputs {
		if c.Tolerated > 0 {
			n++
		}
	}
	return n
}

func printResult(w io.Writer, r *suite.Result, verbose bool, ulp uint64) {
	switch r.Status {
	case suite.Pass:
		switch {
		case r.ExpectedError != "":
			if verbose {
				fmt.Fprintf(w, "PASS  %s: failed as on the GPU (%s): %s\n", r.Name, r.ExpectedError, r.Error)
			}
		case toleratedOutputs(r) > 0:
			// Not bit-exact: say what the tolerance hid, always.
			fmt.Fprintf(w, "PASS  %s, through its tolerance:\n", r.Name)
			for _, c := range r.Outputs {
				if c.Tolerated > 0 {
					tol := r.Tolerance.For(c.Name)
					tol.ULP += ulp
					fmt.Fprintf(w, "      %s (%s): %s\n", c.Name, c.Type, c.Explain(tol))
				}
			}
		case verbose:
			fmt.Fprintf(w, "PASS  %s (%s)\n", r.Name, r.Duration.Round(time.Millisecond))
		}
	case suite.Error:
		fmt.Fprintf(w, "ERROR %s: %s\n", r.Name, r.Error)
	default:
		if r.Error != "" {
			fmt.Fprintf(w, "FAIL  %s: %s\n", r.Name, r.Error)
			return
		}
		fmt.Fprintf(w, "FAIL  %s\n", r.Name)
		for _, c := range r.Outputs {
			if c.OK() {
				continue
			}
			if c.SizeErr != "" {
				fmt.Fprintf(w, "      %s: %s\n", c.Name, c.SizeErr)
				continue
			}
			if c.Digest != nil {
				fmt.Fprintf(w, "      %s (%s): SHA-256 %s, the GPU's %s (its output was recorded as a digest: no element can be shown)\n",
					c.Name, c.Type, c.Digest.Got, c.Digest.Want)
				continue
			}
			fmt.Fprintf(w, "      %s (%s): %d of %d elements differ\n", c.Name, c.Type, c.Differ, c.Elements)
			for _, d := range c.First {
				if d.ULP > 0 && d.ULP != ^uint64(0) {
					fmt.Fprintf(w, "        [%d] got %s, want %s (%d ulp)\n", d.Index, d.Got, d.Want, d.ULP)
				} else {
					fmt.Fprintf(w, "        [%d] got %s, want %s\n", d.Index, d.Got, d.Want)
				}
			}
		}
	}
}
