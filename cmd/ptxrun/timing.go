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
	if s := r.Sampling; s != nil {
		fmt.Fprintf(tw, "cycles\t%d ± %d (±%.2f%%), a sampled estimate, not sm__cycles_elapsed.max: %.1f us at %.0f MHz\n", r.Cycles, s.Error, s.ErrorPct(), r.Nanoseconds()/1000, r.ClockMHz)
		fmt.Fprintf(tw, "sampled\t%s\n", s.Describe())
		if !s.OutputsComplete() {
			fmt.Fprintf(tw, "outputs\tINCOMPLETE: %d blocks were not run (--sample exact runs them functionally)\n", s.Skipped)
		}
		fmt.Fprintf(tw, "below\tthe %d blocks simulated in detail only\n", s.Detailed)
	} else {
		fmt.Fprintf(tw, "cycles\t%d (sm__cycles_elapsed.max), %.1f us at %.0f MHz\n", r.Cycles, r.Nanoseconds()/1000, r.ClockMHz)
	}
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

// sampleFlag adds --sample.
func sampleFlag(fs *flag.FlagSet) *string {
	return fs.String("sample", "auto", "in timing mode, `MODE`: auto (sample a launch estimated, before it starts, past 2e8 warp instructions, as exact when outputs are used and as skip otherwise), off (simulate every block in detail), exact (sample; the blocks left out run functionally: outputs exact), skip (sample; the blocks left out do not run: a timing estimate, outputs incomplete). Sampling runs the launch on a slice of the GPU, one SM in 8 (13 under 32 waves) with its share of the L2 and DRAM, simulates its first waves in detail and extrapolates the rest (docs/sampling.md)")
}

// sampleOption turns --sample into the timing model's option. outputs says
// whether the run's outputs are used (written or checked): then auto runs
// the blocks left out functionally, and skip is refused.
func sampleOption(mode, runMode string, given, outputs bool) (timing.Sample, error) {
	if mode == "auto" {
		if runMode != scheduler.ModeTiming {
			return timing.Sample{}, nil
		}
		return timing.AutoSample(outputs), nil
	}
	m, err := timing.ParseSampleMode(mode)
	if err != nil {
		return timing.Sample{}, fmt.Errorf("--sample: %v (or auto)", err)
	}
	if given && m != timing.SampleOff && runMode != scheduler.ModeTiming {
		return timing.Sample{}, fmt.Errorf("--sample %s needs --mode timing", mode)
	}
	if m == timing.SampleSkip && outputs {
		return timing.Sample{}, fmt.Errorf("--sample skip does not run every block, so the outputs would be incomplete: use --sample exact (the blocks left out run functionally) to write or check outputs")
	}
	return timing.Sample{Mode: m}, nil
}

// noteAuto says on stderr what the automatic sampling decided for a launch
// it estimated and did not sample.
func noteAuto(w io.Writer, cmd string, a *timing.AutoSampling) {
	if a == nil || a.Sampled {
		return
	}
	fmt.Fprintf(w, "ptxrun %s: not sampled (%s): every block simulated in detail\n", cmd, a.Describe())
}

// noteSampled says on stderr that a timed run was sampled.
func noteSampled(w io.Writer, cmd string, s *timing.Sampling, mode string) {
	why := "--sample " + mode
	if mode == "auto" {
		why = fmt.Sprintf("automatic: about %.2g warp instructions projected from the first waves, more than %.2g; --sample off simulates every block", s.ProjectedInst, float64(timing.AutoSampleInst))
		if s.Auto != nil && s.Auto.Why == "" {
			why = s.Auto.Describe() + "; --sample off simulates every block"
		}
	}
	fmt.Fprintf(w, "ptxrun %s: sampled (%s): cycles %d ± %d (±%.2f%%) estimated; %s\n", cmd, why, s.Cycles, s.Error, s.ErrorPct(), s.Describe())
	if !s.OutputsComplete() {
		fmt.Fprintf(w, "ptxrun %s: warning: %d of the %d blocks did not run: the launch's outputs are incomplete\n", cmd, s.Skipped, s.Blocks)
	}
}
