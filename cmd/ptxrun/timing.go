package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/report"
	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// modeFlag adds --mode.
func modeFlag(fs *flag.FlagSet) *string {
	return fs.String("mode", scheduler.ModeFunctional, "`functional` (fast, no notion of time) or timing (the cycle-level model: cycles, stall reasons, occupancy; the same outputs)")
}

// checkMode validates --mode for command cmd.
func checkMode(stderr io.Writer, cmd, mode string) bool {
	if err := scheduler.CheckMode(mode); err != nil {
		fmt.Fprintf(stderr, "ptxrun %s: --mode: %v\n", cmd, err)
		return false
	}
	return true
}

// traceFlag adds --trace.
func traceFlag(fs *flag.FlagSet) *string {
	return fs.String("trace", "", "in timing mode, write the timeline to `FILE` as Chrome Trace Event JSON (open it in ui.perfetto.dev or chrome://tracing): blocks per SM, and for the first SMs each warp with its stall spans")
}

// writeTrace writes a recorded trace to file.
func writeTrace(tr *timing.Trace, file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := tr.WriteJSON(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printTiming prints the timing model's summary: cycles and time, machine
// instructions, occupancy, the stall reasons per issued instruction, and
// where the stall cycles went in words.
func printTiming(w io.Writer, r *timing.Result, top int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	m := r.Metrics()
	fmt.Fprintf(tw, "cycles\t%d (sm__cycles_elapsed.max), %.1f us at %.0f MHz\n", r.Cycles, r.Nanoseconds()/1000, r.ClockMHz)
	fmt.Fprintf(tw, "machine instructions\t%d warp, %d thread (estimated from the SASS cost table)\n", r.Issued, r.ThreadIssued)
	fmt.Fprintf(tw, "achieved occupancy\t%.1f%% of %d warps per SM (%d blocks per SM)\n", m[timing.MetricOccupancy], r.WarpsPerSM, r.BlocksPerSM)
	fmt.Fprintf(tw, "issue slots used\t%.1f%%, IPC %.2f per busy SM cycle\n", m[timing.MetricIssueUtil], m[timing.MetricIPC])
	tw.Flush()
	fmt.Fprintln(w, "stall reasons (warp-cycles per issued instruction, as Nsight Compute's smsp__average_warps_issue_stalled_*_per_issue_active):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for s := timing.Stall(0); s < timing.NumStalls; s++ {
		if r.Stalls[s] == 0 {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%.2f\t\n", s, m[s.Metric()])
	}
	tw.Flush()
	src := report.Sources(r)
	if len(src) == 0 {
		return
	}
	fmt.Fprintln(w, "where the stall cycles went:")
	for i := range src[:min(top, len(src))] {
		fmt.Fprintf(w, "  %s\n", src[i].Sentence)
	}
}

// timingJSON is the timing model's part of run --json: where the stall
// cycles went (in words and figures) and the figures per source line.
type timingJSON struct {
	StallSources []stallSourceJSON  `json:"stall_sources"`
	Lines        []timing.LineStats `json:"lines"`
}

type stallSourceJSON struct {
	Sentence string  `json:"sentence"`
	Reason   string  `json:"reason"`
	Where    string  `json:"where"`
	Cycles   uint64  `json:"cycles"`
	Share    float64 `json:"share"`
}

func timingSummary(r *timing.Result) *timingJSON {
	if r == nil {
		return nil
	}
	out := &timingJSON{Lines: r.Lines()}
	for _, s := range report.Sources(r) {
		out.StallSources = append(out.StallSources, stallSourceJSON{s.Sentence, s.Reason, s.Where, s.Cycles, s.Share})
	}
	return out
}
