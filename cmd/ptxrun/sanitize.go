package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ptxvm/ptxvm/kernels"
	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/suite"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/sanitize"
	"github.com/ptxvm/ptxvm/vm/spec"
)

const sanitizeUsage = `Usage: ptxrun sanitize SPEC.json [--tool TOOL] [flags]
       ptxrun sanitize KERNEL.ptx --kernel K --grid X,Y,Z --block X,Y,Z --arg ... [flags]
       ptxrun sanitize NAME [--size N] [flags]      a bundled kernel

Runs a launch with compute-sanitizer's checks, on the emulated GPU,
deterministically (docs/sanitize.md):
  memcheck    out-of-bounds and misaligned global/shared/local accesses (the
              distance to the nearest allocation), illegal instructions, traps
  racecheck   shared-memory hazards (RAW, WAR, WAW) between threads of a block
              with no barrier between them, per byte; lanes of a warp are not
              implicitly synchronised (sm_70+: warnings), __syncwarp orders its
              members, atomics do not race, a write of the value already there
              is no hazard; --global: global bytes shared by two blocks too
  synccheck   barriers completed by threads at different __syncthreads (in a
              warp or a block), __syncwarp masks that leave out the calling
              lane, differ, or name lanes that never come
  initcheck   reads of global memory nobody stored to (a spec buffer with
              neither "file" nor "fill" is unwritten); --shared: shared too
  all         the four together

Prints one record per hazard group (kind, instruction or instruction pair,
count) in compute-sanitizer's style and "ERROR SUMMARY: N errors"; --json
prints {"tool", "errors", "findings": [{"tool", "kind", "severity", "lines",
"count", ...}]}. Exits 1 when it found errors.`

func cmdSanitize(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("sanitize", sanitizeUsage, stderr)
	toolName := fs.String("tool", "memcheck", "the checks: `TOOL` memcheck, racecheck, synccheck, initcheck or all (or several, comma-separated)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	shared := fs.Bool("shared", false, "initcheck: report shared-memory reads before any write too (compute-sanitizer does not)")
	global := fs.Bool("global", false, "racecheck: report global bytes that two blocks access with no ordering too (compute-sanitizer does not)")
	size := fs.Int("size", 0, "bundled kernels: the problem size `N` (matrix side; 0: the kernel's own)")
	maxInst := fs.Int64("max-inst", 1<<32, "stop after `N` warp instructions (0: no limit)")
	gpuName := gpuFlag(fs)
	kernel := fs.String("kernel", "", "quick launch: the kernel (`NAME`: mangled, C++ name or signature, or a unique part of one)")
	grid := fs.String("grid", "", "quick launch: grid size, `X,Y,Z`")
	block := fs.String("block", "", "quick launch: block size, `X,Y,Z`")
	dyn := fs.Uint64("dynamic-shared", 0, "quick launch: dynamic shared memory per block, in `BYTES`")
	var qargs quickArgs
	fs.Var(&qargs, "arg", "quick launch: the next kernel argument (as for ptxrun run); a buffer given no contents is unwritten")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ptxrun sanitize: give exactly one spec file, PTX file or bundled kernel")
		fs.Usage()
		return exitUsage
	}
	if !nonNegative(stderr, "sanitize", "max-inst", *maxInst) || !nonNegative(stderr, "sanitize", "size", int64(*size)) {
		return exitUsage
	}
	tool, err := sanitize.ParseTool(*toolName)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun sanitize:", err)
		return exitUsage
	}
	gpu, err := scheduler.LookupProfile(*gpuName)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun sanitize:", err)
		return exitUsage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	opt := sanitize.Options{Tools: tool, SMs: gpu.SMs, MaxInst: *maxInst, Shared: *shared, Global: *global}
	dev := vm.NewDevice()
	defer dev.Mem.FreeAll()
	var l *vm.Launch
	quick := strings.EqualFold(filepath.Ext(pos[0]), ".ptx") || *kernel != ""
	switch {
	case quick:
		sp, err := buildQuickSpec(pos[0], *kernel, *grid, *block, *dyn, qargs, "")
		if err == nil {
			l, err = prepareForSanitize(sp, dev, &opt)
		}
		if err != nil {
			fmt.Fprint(stderr, "ptxrun sanitize: ")
			printErrors(stderr, err)
			return exitUsage
		}
	case !fileExists(pos[0]):
		e, lerr := kernels.Lookup(pos[0])
		if lerr != nil {
			fmt.Fprintln(stderr, "ptxrun sanitize:", lerr)
			return exitUsage
		}
		if *size > 0 {
			e = sized(e, *size, "sanitize", stderr)
		}
		s, perr := e.Prepare(dev, 1)
		if perr != nil {
			fmt.Fprintln(stderr, "ptxrun sanitize:", perr)
			return exitUsage
		}
		l = s.Launch
		opt.Mem = dev.Mem
	default:
		for _, f := range []string{"grid", "block", "arg", "dynamic-shared", "size"} {
			if set[f] {
				fmt.Fprintf(stderr, "ptxrun sanitize: -%s is for a quick launch of a PTX file; %s is a spec\n", f, pos[0])
				return exitUsage
			}
		}
		sp, err := spec.Load(pos[0])
		if err == nil {
			l, err = prepareForSanitize(sp, dev, &opt)
		}
		if err != nil {
			fmt.Fprint(stderr, "ptxrun sanitize: ")
			printErrors(stderr, err)
			return exitUsage
		}
	}
	if err := scheduler.CheckLaunch(gpu, l); err != nil {
		fmt.Fprintln(stderr, "ptxrun sanitize:", err)
		return exitUsage
	}
	rep, err := sanitize.Run(ctx, l, opt)
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		fmt.Fprintln(stderr, "ptxrun sanitize:", err)
		return exitFail
	}
	if *asJSON {
		if err := rep.JSON(stdout); err != nil {
			fmt.Fprintln(stderr, "ptxrun sanitize:", err)
			return exitFail
		}
	} else {
		rep.WriteText(stdout, filepath.Base(l.Module.Filename))
	}
	if rep.Errors > 0 {
		return exitFail
	}
	return exitOK
}

// prepareForSanitize prepares sp on dev and tells opt which buffers the
// host never wrote (neither file nor fill) and where global memory is.
func prepareForSanitize(sp *spec.Spec, dev *vm.Device, opt *sanitize.Options) (*vm.Launch, error) {
	p, err := sp.Prepare(dev, nil)
	if err != nil {
		return nil, err
	}
	opt.Mem = dev.Mem
	opt.Uninit = uninitBuffers(sp, p, dev.Mem)
	return p.Launch, nil
}

// uninitBuffers lists the allocations of the spec's buffers that have
// neither contents from a file nor a fill.
func uninitBuffers(sp *spec.Spec, p *spec.Prepared, mem *memspace.GlobalMemory) []*memspace.Allocation {
	var out []*memspace.Allocation
	for _, b := range sp.Buffers {
		if b.File != "" || b.Fill != nil {
			continue
		}
		if addr, ok := p.Buffers[b.Name]; ok {
			if a := mem.Find(addr, 1); a != nil {
				out = append(out, a)
			}
		}
	}
	return out
}

// testSanitize is ptxrun test --sanitize: every case's spec under the
// tool, one line per case, and the findings of those that report any.
func testSanitize(ctx context.Context, cases []suite.Case, toolName string, gpu *scheduler.Profile, maxInst int64, asJSON bool, stdout, stderr io.Writer) int {
	tool, err := sanitize.ParseTool(toolName)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun test:", err)
		return exitUsage
	}
	type result struct {
		Case   string           `json:"case"`
		Error  string           `json:"error,omitempty"`
		Report *sanitize.Report `json:"report,omitempty"`
	}
	var results []result
	bad := 0
	for _, c := range cases {
		r := result{Case: c.Name}
		rep, err := sanitizeSpecFile(ctx, filepath.Join(c.Dir, "spec.json"), tool, gpu, maxInst)
		if ctx.Err() != nil {
			return exitInterrupted
		}
		switch {
		case err != nil:
			r.Error = err.Error()
			bad++
			if !asJSON {
				fmt.Fprintf(stdout, "ERROR %s: %v\n", c.Name, err)
			}
		case rep.Errors > 0:
			bad++
			if !asJSON {
				fmt.Fprintf(stdout, "FAIL  %s: %d errors\n", c.Name, rep.Errors)
				for _, f := range rep.Findings {
					fmt.Fprintf(stdout, "      %s %s %s x%d at %s\n", f.Tool, f.Severity, f.Kind, f.Count, strings.Join(f.Lines, ", "))
				}
			}
		}
		r.Report = rep
		results = append(results, r)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Tool    string   `json:"tool"`
			Results []result `json:"results"`
		}{tool.String(), results})
	} else {
		fmt.Fprintf(stdout, "%d cases under %s: %d clean, %d with errors or failing to run\n", len(cases), tool, len(cases)-bad, bad)
	}
	if bad > 0 {
		return exitFail
	}
	return exitOK
}

// sanitizeSpecFile loads, prepares and sanitizes one spec.
func sanitizeSpecFile(ctx context.Context, path string, tool sanitize.Tool, gpu *scheduler.Profile, maxInst int64) (*sanitize.Report, error) {
	sp, err := spec.Load(path)
	if err != nil {
		return nil, err
	}
	dev := vm.NewDevice()
	defer dev.Mem.FreeAll()
	opt := sanitize.Options{Tools: tool, SMs: gpu.SMs, MaxInst: maxInst}
	l, err := prepareForSanitize(sp, dev, &opt)
	if err != nil {
		return nil, err
	}
	return sanitize.Run(ctx, l, opt)
}
