package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/report"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("compare", `Usage: ptxrun compare SPEC_A.json SPEC_B.json [flags]

Runs two launch specs on the same emulated GPU and prints their counters side
by side with the ratio B/A, the biggest differences first, then the
diagnoses that differ (a strided load in A that B does not have, a bank
conflict that B removed, ...).`, stderr)
	gpuName := gpuFlag(fs)
	workers := fs.Int("workers", 0, "host goroutines running SMs (0: all cores)")
	maxInst := fs.Int64("max-inst", 1<<32, "stop a run after `N` warp instructions (0: no limit)")
	regsA := fs.Int("regs-a", 0, "registers per thread of A for the occupancy figures (0: the spec's, else declared)")
	regsB := fs.Int("regs-b", 0, "registers per thread of B (0: the spec's, else declared)")
	asJSON := fs.Bool("json", false, "print the comparison as JSON (both reports, the rows, the diagnoses)")
	all := fs.Bool("all", false, "print the metrics that are equal in both too")
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
	}{{"workers", int64(*workers)}, {"max-inst", *maxInst}, {"regs-a", int64(*regsA)}, {"regs-b", int64(*regsB)}} {
		if !nonNegative(stderr, "compare", f.name, f.v) {
			return exitUsage
		}
	}
	gpu, err := scheduler.LookupProfile(*gpuName)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun compare:", err)
		return exitUsage
	}
	var reps [2]*report.Report
	cache := spec.NewModuleCache()
	for i, path := range pos {
		sp, err := spec.Load(path)
		if err != nil {
			fmt.Fprintln(stderr, "ptxrun compare:", err)
			return exitUsage
		}
		regs := []int{*regsA, *regsB}[i]
		run, err := scheduler.RunSpec(ctx, sp, gpu, scheduler.Options{Workers: *workers, MaxInst: *maxInst, Registers: regs}, cache)
		if err != nil {
			fmt.Fprintf(stderr, "ptxrun compare: %s: %v\n", path, err)
			if vm.IsRuntime(err) || errors.Is(err, vm.ErrBudget) || ctx.Err() != nil {
				return exitFail
			}
			return exitUsage
		}
		reps[i], err = report.New(run, gpu)
		if err != nil {
			fmt.Fprintln(stderr, "ptxrun compare:", err)
			return exitFail
		}
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
