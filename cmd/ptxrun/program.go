package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/program"
	"github.com/ptxvm/ptxvm/scheduler/report/html"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// programFile is the --metrics and --json form of a program's run
// (docs/launch-spec.md, "Programs of several steps").
type programFile struct {
	Program string        `json:"program"`
	GPU     string        `json:"gpu"`
	Mode    string        `json:"mode"`
	TimeUS  float64       `json:"time_us"`
	Timed   bool          `json:"timed"`
	Steps   []programStep `json:"steps"`
	// Shares split the time by kind of step; Diagnosis says where it goes.
	Shares    []program.Share `json:"shares,omitempty"`
	Diagnosis []string        `json:"diagnosis,omitempty"`
}

type programStep struct {
	Index      int                `json:"index"`
	Kind       string             `json:"kind"`
	What       string             `json:"what"`
	Engine     string             `json:"engine"`
	Buffer     string             `json:"buffer,omitempty"`
	Bytes      uint64             `json:"bytes,omitempty"`
	HostMemory string             `json:"host_memory,omitempty"`
	To         string             `json:"to,omitempty"`
	StartUS    float64            `json:"start_us"`
	TimeUS     float64            `json:"time_us"`
	Timed      bool               `json:"timed"`
	Kernel     string             `json:"kernel,omitempty"`
	Faults     uint64             `json:"managed_faults,omitempty"`
	Migrated   uint64             `json:"managed_bytes_migrated,omitempty"`
	Metrics    map[string]float64 `json:"metrics,omitempty"`
}

func programJSON(run *program.Run, path string) *programFile {
	f := &programFile{Program: path, GPU: run.GPU.Name, Mode: run.Mode, TimeUS: run.TimeUS, Timed: run.Timed, Shares: run.Shares(), Diagnosis: run.Diagnose()}
	for _, s := range run.Steps {
		f.Steps = append(f.Steps, programStep{Index: s.Index, Kind: s.Kind, What: s.What, Engine: string(s.Engine), Buffer: s.Buffer, Bytes: s.Bytes,
			HostMemory: s.HostMemory, To: s.To, StartUS: s.StartUS, TimeUS: s.TimeUS, Timed: s.Timed, Kernel: s.Kernel,
			Faults: s.Faults, Migrated: s.Migrated, Metrics: s.Metrics})
	}
	return f
}

// runProgram runs a spec with steps for `ptxrun run` and prints its steps.
func runProgram(ctx context.Context, sp *spec.Spec, path string, gpu *scheduler.Profile, opt scheduler.Options, out, metrics string, asNpy, asJSON, report bool, stdout, stderr io.Writer) int {
	run, err := program.Execute(ctx, sp, gpu, opt, nil)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return exitInterrupted
		case errors.Is(err, vm.ErrBudget), vm.IsRuntime(err):
			fmt.Fprintln(stderr, "ptxrun run:", err)
			return exitFail
		}
		fmt.Fprint(stderr, "ptxrun run: ")
		printErrors(stderr, err)
		return exitUsage
	}
	defer run.Release()
	written := map[string]string{}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			fmt.Fprintln(stderr, "ptxrun run:", err)
			return exitFail
		}
		for _, name := range sp.Outputs {
			p, err := writeProgramOutput(run, out, name, asNpy)
			if err != nil {
				fmt.Fprintln(stderr, "ptxrun run:", err)
				return exitFail
			}
			written[name] = p
		}
	}
	f := programJSON(run, path)
	if metrics != "" {
		data, _ := json.MarshalIndent(f, "", "  ")
		if err := os.WriteFile(metrics, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "ptxrun run:", err)
			return exitFail
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(f)
		return exitOK
	}
	printProgram(stdout, run, path)
	for _, name := range sp.Outputs {
		if p, ok := written[name]; ok {
			fmt.Fprintf(stdout, "output %s  %s\n", name, p)
		}
	}
	if report {
		for _, s := range run.Steps {
			if s.Launch != nil && s.Launch.Timing != nil {
				fmt.Fprintf(stdout, "\nstep %d: launch %s\n", s.Index, kernelTitle(s.Kernel))
				printTiming(stdout, s.Launch.Timing, 5)
			}
		}
	}
	return exitOK
}

// printProgram prints a program's steps as a table, its time by kind of
// step and its diagnosis.
func printProgram(w io.Writer, run *program.Run, path string) {
	fmt.Fprintf(w, "program  %s: %d steps\n", path, len(run.Steps))
	fmt.Fprintf(w, "gpu      %s (%d SMs), %s mode\n\n", run.GPU.Name, run.GPU.SMs, run.Mode)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tstep\tengine\tbytes\tstart\ttime\tshare\trate\t")
	for _, s := range run.Steps {
		b, t, sh, st, rt := "", "-", "", "", ""
		if s.Bytes > 0 {
			b = byteSize(s.Bytes)
		}
		if s.Timed {
			t, st = program.US(s.TimeUS), program.US(s.StartUS)
			if run.TimeUS > 0 {
				sh = fmt.Sprintf("%.1f%%", 100*s.TimeUS/run.TimeUS)
			}
			if s.Bytes > 0 && s.TimeUS > 0 {
				rt = fmt.Sprintf("%.1f GB/s", float64(s.Bytes)/(s.TimeUS*1e3))
			}
		}
		what := s.What
		if s.Kind == spec.StepLaunch {
			what = "launch " + kernelShort(s.Kernel)
			if s.Migrated > 0 {
				what += fmt.Sprintf(" (managed faults: %d, %s migrated)", s.Faults, byteSize(s.Migrated))
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.Index, what, s.Engine, b, st, t, sh, rt)
	}
	tw.Flush()
	if !run.Timed {
		fmt.Fprintln(w, "\nkernels are timed in timing mode (--mode timing); copies, memsets and prefetches by the GPU profile's host section")
		return
	}
	fmt.Fprintf(w, "\ntotal  %s (steps one after another, as on one stream)\n", program.US(run.TimeUS))
	var parts []string
	for _, sh := range run.Shares() {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", sh.What, sh.Pct))
	}
	fmt.Fprintf(w, "by kind  %s\n", strings.Join(parts, ", "))
	for _, d := range run.Diagnose() {
		fmt.Fprintln(w, "\n"+wrapText(d, 78))
	}
}

// kernelShort is a kernel's demangled name without its parameters, or
// its mangled name.
func kernelShort(mangled string) string {
	if d := demangledOrEmpty(mangled); d != "" {
		if i := strings.IndexByte(d, '('); i > 0 {
			return d[:i]
		}
		return d
	}
	return mangled
}

// wrapText breaks s into lines of at most width characters.
func wrapText(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// writeProgramOutput writes output name of a program's run into dir, raw
// or as .npy.
func writeProgramOutput(run *program.Run, dir, name string, asNpy bool) (string, error) {
	return writeOutputFile(run.Spec, dir, name, asNpy, func(w io.Writer) error { return run.Prepared.WriteOutput(name, w) })
}

// programSpecs loads the targets that are program specs: all of them
// (true), none (false), or an error when only some are.
func programSpecs(targets []string) ([]*spec.Spec, bool, error) {
	var specs []*spec.Spec
	for _, t := range targets {
		if !fileExists(t) || strings.EqualFold(filepath.Ext(t), ".ptx") {
			continue
		}
		sp, err := spec.Load(t)
		if err != nil || !sp.IsProgram() {
			continue
		}
		specs = append(specs, sp)
	}
	switch len(specs) {
	case 0:
		return nil, false, nil
	case len(targets):
		return specs, true, nil
	}
	return nil, false, errors.New("a program (a spec with steps) can only be compared with another program")
}

// runPrograms runs program specs for compare and report; the runs are the
// caller's to release.
func runPrograms(ctx context.Context, specs []*spec.Spec, targets []string, gpu *scheduler.Profile, opt scheduler.Options, stderr io.Writer, cmd string) ([]*program.Run, int) {
	var runs []*program.Run
	cache := spec.NewModuleCache()
	for i, sp := range specs {
		run, err := program.Execute(ctx, sp, gpu, opt, cache)
		if err != nil {
			for _, r := range runs {
				r.Release()
			}
			fmt.Fprintf(stderr, "ptxrun %s: %s: %v\n", cmd, targets[i], err)
			if vm.IsRuntime(err) || errors.Is(err, vm.ErrBudget) || ctx.Err() != nil {
				return nil, exitFail
			}
			return nil, exitUsage
		}
		runs = append(runs, run)
	}
	return runs, exitOK
}

// compareProgramsText prints two programs' steps side by side: the time
// of each and B/A, then each one's time by kind of step and diagnosis.
func compareProgramsText(w io.Writer, a, b *program.Run, fromA, fromB string) {
	fmt.Fprintf(w, "A  %s: %d steps\nB  %s: %d steps\ngpu  %s, %s mode\n\n", fromA, len(a.Steps), fromB, len(b.Steps), a.GPU.Name, a.Mode)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tA step\tA time\tB step\tB time\tB/A")
	for i := 0; i < max(len(a.Steps), len(b.Steps)); i++ {
		cell := func(r *program.Run) (string, string, float64) {
			if i >= len(r.Steps) {
				return "", "", 0
			}
			s := r.Steps[i]
			what := s.What
			if s.Kind == spec.StepLaunch {
				what = "launch " + kernelShort(s.Kernel)
			}
			if !s.Timed {
				return what, "-", 0
			}
			return what, program.US(s.TimeUS), s.TimeUS
		}
		wa, ta, ua := cell(a)
		wb, tb, ub := cell(b)
		ratio := ""
		if ua > 0 && ub > 0 {
			ratio = fmt.Sprintf("%.2f", ub/ua)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", i, wa, ta, wb, tb, ratio)
	}
	if a.Timed && b.Timed {
		ratio := ""
		if a.TimeUS > 0 {
			ratio = fmt.Sprintf("%.2f", b.TimeUS/a.TimeUS)
		}
		fmt.Fprintf(tw, "total\t\t%s\t\t%s\t%s\n", program.US(a.TimeUS), program.US(b.TimeUS), ratio)
	}
	tw.Flush()
	for _, x := range []struct {
		tag string
		r   *program.Run
	}{{"A", a}, {"B", b}} {
		var parts []string
		for _, sh := range x.r.Shares() {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", sh.What, sh.Pct))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "\n%s by kind: %s\n", x.tag, strings.Join(parts, ", "))
		}
		for _, d := range x.r.Diagnose() {
			fmt.Fprintf(w, "%s: %s\n", x.tag, wrapText(d, 76))
		}
	}
	if !a.Timed || !b.Timed {
		fmt.Fprintln(w, "\nkernels are timed in timing mode (--mode timing)")
	}
}

// reportPrograms writes the HTML page of one program or of two compared.
func reportPrograms(ctx context.Context, specs []*spec.Spec, targets []string, gpu *scheduler.Profile, opt scheduler.Options, hopt html.Options, out string, stdout, stderr io.Writer) int {
	runs, code := runPrograms(ctx, specs, targets, gpu, opt, stderr, "report")
	if code != exitOK {
		return code
	}
	var buf bytes.Buffer
	var err error
	name := strings.TrimSuffix(filepath.Base(filepath.Dir(targets[0])), ".json")
	if len(runs) == 2 {
		err = html.WriteProgramCompare(&buf, runs[0], runs[1], targets[0], targets[1], hopt)
		name = fileName(filepath.Base(filepath.Dir(targets[0]))) + "-vs-" + fileName(filepath.Base(filepath.Dir(targets[1])))
	} else {
		err = html.WriteProgram(&buf, runs[0], targets[0], hopt)
	}
	for _, r := range runs {
		r.Release()
	}
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun report:", err)
		return exitFail
	}
	if out == "-" {
		_, _ = stdout.Write(buf.Bytes())
		return exitOK
	}
	if out == "" {
		out = fileName(name) + ".html"
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(stderr, "ptxrun report:", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "wrote %s (%s)\n", out, byteSize(uint64(buf.Len())))
	return exitOK
}
