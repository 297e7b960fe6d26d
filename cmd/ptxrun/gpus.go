package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
)

// gpuFlag adds the --gpu flag every command that runs kernels has.
func gpuFlag(fs *flag.FlagSet) *string {
	return fs.String("gpu", "h100", "GPU profile: a `NAME` (ptxrun gpus lists them) or a profile FILE (ptxrun gpus h100 --json writes one to start from)")
}

// regsFlag adds --regs, the register count the occupancy calculator uses.
func regsFlag(fs *flag.FlagSet) *int {
	return fs.Int("regs", 0, "registers per thread as ptxas allocates them (ptxas -v), for the occupancy figures (0: the spec's \"registers\", else an estimate from the PTX: a liveness pass, about 20% from ptxas's count on the corpus)")
}

func cmdGPUs(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("gpus", `Usage: ptxrun gpus [NAME|FILE...] [flags]

Lists the GPU profiles built into ptxrun with their figures; with names or
profile files, shows those in detail. A profile is a JSON file: write one
with "ptxrun gpus h100 --json > mine.json", change the L1 size, the line
size, the bank count..., and run with --gpu mine.json. A file may instead
name a built-in profile as its base and hold only what differs:
{"base": "h100", "name": "mine", "memory": {"l2": {"size_bytes": 26214400}}}
(objects merge key by key; the h200 profile is written so).`, stderr)
	asJSON := fs.Bool("json", false, "print the profiles as JSON (one profile: exactly the file format)")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	names := pos
	if len(names) == 0 {
		names = gpu.Names()
	}
	var ps []*gpu.Profile
	for _, n := range names {
		p, err := gpu.Load(n)
		if err != nil {
			fmt.Fprintln(stderr, "ptxrun gpus:", err)
			return exitUsage
		}
		ps = append(ps, p)
	}
	if *asJSON {
		var v any = ps
		if len(pos) == 1 {
			v = ps[0]
		}
		data, _ := json.MarshalIndent(v, "", "  ")
		stdout.Write(append(data, '\n'))
		return exitOK
	}
	if len(pos) == 0 {
		printGPUTable(stdout, ps)
		return exitOK
	}
	for i, p := range ps {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		printGPU(stdout, p)
	}
	return exitOK
}

func kib(b int) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

func printGPUTable(w io.Writer, ps []*gpu.Profile) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCC\tSMs\tMHz\tWARPS/SM\tBLOCKS/SM\tREGS/SM\tSHARED/SM\tL1+SHARED\tL2\tLINE\tBANKS\tCOALESCING\tDESCRIPTION")
	for _, p := range ps {
		m := &p.Memory
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%d B\t%d\t%s\t%s\n",
			strings.ToLower(p.Name), p.ComputeCap, p.SMs, p.ClockMHz, p.SM.MaxWarps, p.SM.MaxBlocks, p.SM.Registers,
			kib(p.SM.Shared), kib(m.L1.UnifiedBytes), kib(m.L2.SizeBytes), m.LineBytes, m.Shared.Banks, m.Coalescing, p.Description)
	}
	tw.Flush()
}

func printGPU(w io.Writer, p *gpu.Profile) {
	m := &p.Memory
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, a...)) }
	row("name", "%s (%s)", p.Name, p.Description)
	row("compute capability", "%s", p.ComputeCap)
	row("SMs", "%d at %d MHz, %d sub-partitions each", p.SMs, p.ClockMHz, p.SM.SubPartitions)
	row("device memory", "%.1f GiB", float64(p.DeviceMemory)/(1<<30))
	row("per SM", "%d warps, %d blocks, %d registers (in %d parts, allocated per warp in %ds, at most %d per thread)",
		p.SM.MaxWarps, p.SM.MaxBlocks, p.SM.Registers, p.SM.RegisterFileParts, p.SM.RegAllocUnit, p.SM.MaxRegsPerThread)
	barriers := "no limit"
	if p.SM.Barriers > 0 {
		barriers = fmt.Sprint(p.SM.Barriers)
	}
	row("", "%s shared memory (allocated in %d B units), barriers: %s", kib(p.SM.Shared), p.SM.SharedAllocUnit, barriers)
	row("per launch", "%d threads per block, block ≤ (%d,%d,%d), grid ≤ (%d,%d,%d), %s shared per block, %s constant",
		p.Launch.MaxThreadsPerBlock, p.Launch.MaxBlockDim[0], p.Launch.MaxBlockDim[1], p.Launch.MaxBlockDim[2],
		p.Launch.MaxGridDim[0], p.Launch.MaxGridDim[1], p.Launch.MaxGridDim[2], kib(p.Launch.MaxSharedPerBlock), kib(p.Launch.ConstBytes))
	carve := make([]string, len(m.L1.SharedCarveoutsKiB))
	for i, k := range m.L1.SharedCarveoutsKiB {
		carve[i] = fmt.Sprint(k)
	}
	row("L1 + shared", "%s per SM; shared carveouts %s KiB (default %d); %d B reserved per block", kib(m.L1.UnifiedBytes), strings.Join(carve, "/"), m.L1.DefaultCarveoutKiB, m.L1.ReservedSharedPerCTA)
	row("L1", "%d-way, %d B lines filled in %d B, %s, stores: %s", m.L1.Ways, m.LineBytes, m.L1.FillBytes, m.L1.Replacement, strings.ReplaceAll(m.L1.StorePolicy, "_", "-"))
	row("coalescing", "%s (%d B sectors)", m.Coalescing, m.SectorBytes)
	row("shared banks", "%d × %d B", m.Shared.Banks, m.Shared.BankBytes)
	row("constant cache", "%s, %d B lines, %d-way", kib(m.Const.CacheBytes), m.Const.LineBytes, m.Const.Ways)
	if m.Tex.Unified {
		row("texture cache", "the L1 (unified L1TEX)")
	} else {
		row("texture cache", "%s, %d-way", kib(m.Tex.CacheBytes), m.Tex.Ways)
	}
	row("L2", "%s in %d partition(s) of %d slices, %d-way, %s", kib(m.L2.SizeBytes), m.L2.Partitions, m.L2.Slices/m.L2.Partitions, m.L2.Ways, m.L2.Replacement)
	row("DRAM", "%d channels, %.0f B per SM cycle", m.DRAM.Channels, m.DRAM.BytesPerCycle)
	tw.Flush()
}
