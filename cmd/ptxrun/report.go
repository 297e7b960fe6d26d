package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/report"
)

// writeReport prints the report of a run (run --report).
func writeReport(stdout, stderr io.Writer, run *scheduler.SpecRun, gpu *scheduler.Profile, asJSON bool) int {
	r, err := report.New(run, gpu)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun run:", err)
		return exitFail
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(r)
		return exitOK
	}
	_ = r.WriteText(stdout)
	return exitOK
}

// cmdMetrics lists every metric a run can report (ptxrun metrics, ptxrun
// help metrics).
func cmdMetrics(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("metrics", `Usage: ptxrun metrics [flags]

Lists every figure "ptxrun run --metrics FILE" can write, with its one-line
meaning: the launch, the occupancy, the timing model's cycles, occupancy
and stall reasons (--mode timing), the memory hierarchy's counters (Nsight
Compute's names where the figure means what ncu means by it, ptxvm__ names
otherwise) and the values derived from them, with their formulas.`, stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args, stdout); err != nil {
		return usageErr(err)
	}
	cat := report.Catalogue()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(cat)
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	group := ""
	for _, m := range cat {
		if m.Group != group {
			if group != "" {
				fmt.Fprintln(tw)
			}
			group = m.Group
			fmt.Fprintf(tw, "%s\t\t\n", map[string]string{"launch": "LAUNCH", "occupancy": "OCCUPANCY", "timing": "TIMING (--mode timing)", "memory": "MEMORY COUNTERS", "derived": "DERIVED"}[group])
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", m.Name, m.Unit, m.Help)
	}
	tw.Flush()
	return exitOK
}
