package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ptxvm/ptxvm/kernels"
	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/report"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("compare", `Usage: ptxrun compare A B [flags]

Runs two launches on the same emulated GPU (A and B are launch specs or
bundled kernels, see ptxrun demo) and prints their counters side by side
with the ratio B/A, the biggest differences first, then the diagnoses that
differ (a strided load in A that B does not have, a bank conflict that B
removed, ...).

With --mode timing both run through the cycle-level model, and the
comparison leads with their cycles, time, achieved occupancy, issue-slot
use and IPC, each stall reason per issued instruction (A, B, B/A) and
where each run's stall cycles went most, in words.

Examples:
  ptxrun compare naive.json tiled.json
  ptxrun compare matmul_naive matmul_tiled --mode timing`, stderr)
	gpuName := gpuFlag(fs)
	workers := fs.Int("workers", 0, workersUsage)
	maxInst := fs.Int64("max-inst", 1<<32, "stop a run after `N` warp instructions (0: no limit)")
	regsA := fs.Int("regs-a", 0, "registers per thread of A for the occupancy figures (0: the spec's, else declared)")
	regsB := fs.Int("regs-b", 0, "registers per thread of B (0: the spec's, else declared)")
	asJSON := fs.Bool("json", false, "print the comparison as JSON (both reports, the rows, the diagnoses)")
	all := fs.Bool("all", false, "print the metrics that are equal in both too")
	mode := modeFlag(fs)
	size := fs.Int("size", 0, "bundled kernels: the problem size `N` (matrix side; 0: the kernel's own)")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 2 {
		fmt.Fprintln(stderr, "ptxrun compare: give two spec files")
		fs.Usage()
		return exitUsage
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"workers", int64(*workers)}, {"max-inst", *maxInst}, {"regs-a", int64(*regsA)}, {"regs-b", int64(*regsB)}, {"size", int64(*size)}} {
		if !nonNegative(stderr, "compare", f.name, f.v) {
			return exitUsage
		}
	}
	if !checkMode(stderr, "compare", *mode) {
		return exitUsage
	}
	gpu, err := scheduler.LookupProfile(*gpuName)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun compare:", err)
		return exitUsage
	}
	if specs, ok, err := programSpecs(pos); err != nil {
		fmt.Fprintln(stderr, "ptxrun compare:", err)
		return exitUsage
	} else if ok {
		runs, code := runPrograms(ctx, specs, pos, gpu, scheduler.Options{Workers: *workers, MaxInst: *maxInst, Mode: *mode, StreamOutputs: true}, stderr, "compare")
		if code != exitOK {
			return code
		}
		defer runs[0].Release()
		defer runs[1].Release()
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(struct {
				A *programFile `json:"a"`
				B *programFile `json:"b"`
			}{programJSON(runs[0], pos[0]), programJSON(runs[1], pos[1])})
			return exitOK
		}
		compareProgramsText(stdout, runs[0], runs[1], pos[0], pos[1])
		return exitOK
	}
	var reps [2]*report.Report
	cache := spec.NewModuleCache()
	for i, path := range pos {
		opt := scheduler.Options{Workers: *workers, MaxInst: *maxInst, Registers: []int{*regsA, *regsB}[i], Mode: *mode}
		var run *scheduler.SpecRun
		if e, lerr := kernels.Lookup(path); lerr == nil && !fileExists(path) {
			if *size > 0 {
				e = sized(e, *size, "compare", stderr)
			}
			run, err = runBundled(ctx, e, gpu, opt)
		} else {
			sp, err := spec.Load(path)
			if err != nil {
				fmt.Fprintln(stderr, "ptxrun compare:", err)
				return exitUsage
			}
			run, err = scheduler.RunSpec(ctx, sp, gpu, opt, cache)
		}
		if err != nil {
			fmt.Fprintf(stderr, "ptxrun compare: %s: %v\n", path, err)
			if vm.IsRuntime(err) || errors.Is(err, vm.ErrBudget) || ctx.Err() != nil {
				return exitFail
			}
			return exitUsage
		}
		reps[i], err = report.New(run, gpu)
		run.Release()
		if err != nil {
			fmt.Fprintln(stderr, "ptxrun compare:", err)
			return exitFail
		}
		reps[i].From = path
	}
	c := report.Compare(reps[0], reps[1])
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(c)
		return exitOK
	}
	_ = c.WriteText(stdout, *all)
	return exitOK
}
