package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ptxvm/ptxvm/kernels"
	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm"
)

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("demo", `Usage: ptxrun demo [flags] [NAME...]

Runs the bundled kernels (nvcc-emitted PTX embedded in the binary: naive,
tiled and tensor-core (wmma) matrix multiply, naive, shared and padded
transpose) on inputs they generate, checks every output against a Go
reference, and prints what ran.`, stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	workers := fs.Int("workers", 0, workersUsage)
	seed := fs.Uint64("seed", 1, "input seed")
	gpuName := gpuFlag(fs)
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	if !nonNegative(stderr, "demo", "workers", int64(*workers)) {
		return exitUsage
	}
	gpu, err := scheduler.LookupProfile(*gpuName)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun demo:", err)
		return exitUsage
	}
	list := kernels.All()
	if len(pos) > 0 {
		list = nil
		for _, n := range pos {
			e, err := kernels.Lookup(n)
			if err != nil {
				fmt.Fprintln(stderr, "ptxrun demo:", err)
				return exitUsage
			}
			list = append(list, e)
		}
	}
	type row struct {
		Name       string  `json:"name"`
		Kernel     string  `json:"kernel"`
		Grid       string  `json:"grid"`
		Block      string  `json:"block"`
		Inst       uint64  `json:"warp_instructions"`
		ThreadInst uint64  `json:"thread_instructions"`
		Seconds    float64 `json:"seconds"`
		Match      bool    `json:"match"`
		Error      string  `json:"error,omitempty"`
	}
	var rows []row
	failed := false
	for _, e := range list {
		r := row{Name: e.Name, Kernel: e.Kernel, Grid: dim(e.Grid), Block: dim(e.Block)}
		s, err := e.Prepare(vm.NewDevice(), *seed)
		if err == nil {
			start := time.Now()
			var res *scheduler.Result
			res, err = scheduler.RunFunctional(ctx, s.Launch, gpu, scheduler.Options{Workers: *workers})
			r.Seconds = time.Since(start).Seconds()
			if err == nil {
				r.Inst, r.ThreadInst = res.Stats.Inst, res.Stats.ThreadInst
				err = s.Check()
				r.Match = err == nil
			}
		}
		if err != nil {
			r.Error = err.Error()
			failed = true
		}
		rows = append(rows, r)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rows)
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "kernel\tgrid x block\twarp inst\tthread inst\ttime\tthread-inst/s\tmatches Go reference")
		for _, r := range rows {
			ok := "yes"
			if !r.Match {
				ok = "NO: " + r.Error
			}
			d := time.Duration(r.Seconds * float64(time.Second))
			fmt.Fprintf(tw, "%s\t%s x %s\t%d\t%d\t%s\t%s\t%s\n", r.Name, r.Grid, r.Block, r.Inst, r.ThreadInst, d.Round(time.Millisecond), rate(r.ThreadInst, d), ok)
		}
		tw.Flush()
	}
	if failed {
		return exitFail
	}
	return exitOK
}

func dim(d [3]uint32) string { return fmt.Sprintf("(%d,%d,%d)", d[0], d[1], d[2]) }

// sized is bundled kernel e for an n×n problem (kernels.Example.WithSize),
// saying on stderr when the kernel needs another size (the tensor-core
// multiply has no bounds checks: a multiple of 64).
func sized(e *kernels.Example, n int, cmd string, stderr io.Writer) *kernels.Example {
	c := e.WithSize(n)
	if c.Size != n {
		fmt.Fprintf(stderr, "ptxrun %s: %s runs at %d×%d, not %d×%d: it needs a multiple of %d\n", cmd, e.Name, c.Size, c.Size, n, n, e.Tile)
	}
	return c
}
