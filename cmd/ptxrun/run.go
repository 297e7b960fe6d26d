package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", `Usage: ptxrun run SPEC.json [flags]

Runs the launch a spec describes (launch spec v1: module, kernel, grid, block,
buffers, symbols, args, outputs) on the emulated GPU and writes each output
buffer to DIR/<name>.bin as raw little-endian data.`, stderr)
	out := fs.String("out", "", "write each output buffer to `DIR`/<name>.bin")
	metrics := fs.String("metrics", "", "write the launch's counters as JSON to `FILE` (Nsight Compute names where they mean what ncu means, ptxvm__ names otherwise)")
	gpuName := gpuFlag(fs)
	regs := regsFlag(fs)
	report := fs.Bool("report", false, "print a report of the memory traffic: the launch, the memory summary, the top instructions by sectors, excess sectors and bank conflicts with their PTX and CUDA lines and a diagnosis (with --json: the report as JSON)")
	workers := fs.Int("workers", 0, "host goroutines running SMs (0: all cores)")
	maxInst := fs.Int64("max-inst", 1<<32, "stop after `N` warp instructions, so that a kernel that never ends is reported (0: no limit)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	strict := fs.Bool("strict", false, "make behaviour the PTX ISA leaves undefined a fault (warp-synchronous member masks naming exited lanes, shuffles reading inactive lanes)")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ptxrun run: give exactly one spec file")
		fs.Usage()
		return exitUsage
	}
	if !nonNegative(stderr, "run", "workers", int64(*workers)) || !nonNegative(stderr, "run", "max-inst", *maxInst) || !nonNegative(stderr, "run", "regs", int64(*regs)) {
		return exitUsage
	}
	gpu, err := scheduler.LookupProfile(*gpuName)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun run:", err)
		return exitUsage
	}
	sp, err := spec.Load(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun run:", err)
		return exitUsage
	}
	run, err := scheduler.RunSpec(ctx, sp, gpu, scheduler.Options{Workers: *workers, MaxInst: *maxInst, Strict: *strict, Registers: *regs}, nil)
	if err != nil {
		switch {
		case errors.Is(err, vm.ErrBudget):
			fmt.Fprintf(stderr, "ptxrun run: %v (budget: -max-inst %d)\n", err, *maxInst)
			return exitFail
		case vm.IsRuntime(err):
			fmt.Fprintln(stderr, "ptxrun run:", err)
			return exitFail
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			fmt.Fprintln(stderr, "ptxrun run: interrupted:", err)
			return exitFail
		}
		fmt.Fprintln(stderr, "ptxrun run:", err)
		return exitUsage
	}
	written := map[string]string{}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fmt.Fprintln(stderr, "ptxrun run:", err)
			return exitFail
		}
		for _, name := range sp.Outputs {
			p := filepath.Join(*out, name+".bin")
			if err := os.WriteFile(p, run.Outputs[name], 0o644); err != nil {
				fmt.Fprintln(stderr, "ptxrun run:", err)
				return exitFail
			}
			written[name] = p
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
			Outputs map[string]string `json:"outputs,omitempty"`
			Seconds float64           `json:"seconds"`
		}{m, written, run.Elapsed.Seconds()})
		return exitOK
	}
	l := run.Prepared.Launch
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "kernel\t%s\n", sp.Kernel)
	fmt.Fprintf(tw, "launch\tgrid (%d,%d,%d) x block (%d,%d,%d), %d B dynamic shared\n", l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2], l.DynSmem)
	fmt.Fprintf(tw, "gpu\t%s (%d SMs), functional mode\n", gpu.Name, gpu.SMs)
	fmt.Fprintf(tw, "PTX warp instructions\t%d\n", run.Result.Stats.Inst)
	fmt.Fprintf(tw, "PTX thread instructions\t%d\n", run.Result.Stats.ThreadInst)
	fmt.Fprintf(tw, "time\t%s (%s thread-inst/s)\n", run.Elapsed.Round(time.Microsecond), rate(run.Result.Stats.ThreadInst, run.Elapsed))
	for _, name := range sp.Outputs {
		if p, ok := written[name]; ok {
			fmt.Fprintf(tw, "output %s\t%s\n", name, p)
		}
	}
	tw.Flush()
	return exitOK
}

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

// metricsFile is the --metrics JSON (DESIGN.md).
type metricsFile struct {
	Kernel  string             `json:"kernel"`
	GPU     string             `json:"gpu"`
	Mode    string             `json:"mode"`
	Metrics map[string]float64 `json:"metrics"`
}

func launchMetrics(run *scheduler.SpecRun, gpu *scheduler.Profile) *metricsFile {
	return &metricsFile{Kernel: run.Spec.Kernel, GPU: gpu.Name, Mode: "functional", Metrics: run.Metrics()}
}
