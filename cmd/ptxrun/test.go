package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/suite"
)

func cmdTest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("test", `Usage: ptxrun test DIR... [flags]

Runs every case under each DIR: a folder holding spec.json (a launch spec) and
expected/<output>.bin (what a real GPU produced). Outputs are compared bit for
bit; a spec's optional "tolerance" and --ulp allow floating-point outputs a
number of units in the last place. Prints pass/fail per case and, for a
mismatch, the first differing elements. Exits 1 if any case fails.`, stderr)
	ulp := fs.Uint64("ulp", 0, "allow `N` ULP on floating-point outputs, on top of each spec's tolerance")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	workers := fs.Int("workers", 0, "cases run in parallel (0: all cores)")
	maxInst := fs.Int64("max-inst", 1<<32, "stop a case after `N` warp instructions (0: no limit)")
	verbose := fs.Bool("v", false, "print passing cases too")
	gpuName := gpuFlag(fs)
	strict := fs.Bool("strict", false, "make behaviour the PTX ISA leaves undefined a fault")
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
	start := time.Now()
	opt := suite.Options{GPU: gpu, Workers: *workers, ULP: *ulp, MaxInst: *maxInst, Strict: *strict}
	var report func(*suite.Result)
	if !*asJSON {
		report = func(r *suite.Result) { printResult(stdout, r, *verbose) }
	}
	results := suite.Run(ctx, cases, opt, report)
	sum := suite.Summarize(results)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Results []*suite.Result `json:"results"`
			Summary suite.Summary   `json:"summary"`
		}{results, sum})
	} else {
		fmt.Fprintf(stdout, "%d cases: %d passed, %d failed, %d errors (%s)\n", len(results), sum.Pass, sum.Fail, sum.Error, time.Since(start).Round(time.Millisecond))
	}
	if sum.Fail+sum.Error > 0 {
		return exitFail
	}
	return exitOK
}

func printResult(w io.Writer, r *suite.Result, verbose bool) {
	switch r.Status {
	case suite.Pass:
		if verbose {
			fmt.Fprintf(w, "PASS  %s (%s)\n", r.Name, r.Duration.Round(time.Millisecond))
		}
	case suite.Error:
		fmt.Fprintf(w, "ERROR %s: %s\n", r.Name, r.Error)
	default:
		fmt.Fprintf(w, "FAIL  %s\n", r.Name)
		for _, c := range r.Outputs {
			if c.OK() {
				continue
			}
			if c.SizeErr != "" {
				fmt.Fprintf(w, "      %s: %s\n", c.Name, c.SizeErr)
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
