package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"text/tabwriter"

	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// Comparison is two runs side by side.
type Comparison struct {
	A *Report `json:"a"`
	B *Report `json:"b"`
	// Rows holds every metric either run has (both zero left out), the
	// biggest differences first as printed (Row.score: |log(B/A)| of the
	// values rounded as printed; values that print the same last).
	Rows []Row `json:"rows"`
	// Diagnoses lists, per kind of access (global load, shared store, ...),
	// the diagnoses one run has and the other has not.
	Diagnoses []DiagnosisDiff `json:"diagnoses"`
	// Timing, when both runs were timed, sets their cycles, occupancy,
	// IPC and stall reasons side by side.
	Timing *TimingComparison `json:"timing,omitempty"`
}

// TimingComparison is two timed runs side by side.
type TimingComparison struct {
	// Figures are the cycles, time, achieved occupancy, issue-slot use,
	// IPC and machine instructions; Stalls each stall reason either run
	// has (per issued instruction), the larger of the two first.
	Figures []TimingRow `json:"figures"`
	Stalls  []TimingRow `json:"stall_reasons"`
	// TopA and TopB are where each run's stall cycles went most (nil when
	// its warps never waited).
	TopA *StallSource `json:"top_source_a,omitempty"`
	TopB *StallSource `json:"top_source_b,omitempty"`
}

// TimingRow is one figure of two timed runs.
type TimingRow struct {
	Label  string  `json:"label"`
	Metric string  `json:"metric"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	// Ratio is B / A; nil when A is 0.
	Ratio *float64 `json:"ratio"`
}

func timingRow(label, metric string, a, b float64) TimingRow {
	r := TimingRow{Label: label, Metric: metric, A: a, B: b}
	if a != 0 {
		q := b / a
		r.Ratio = &q
	}
	return r
}

// compareTiming sets two timing sections side by side.
func compareTiming(a, b *Timing) *TimingComparison {
	tc := &TimingComparison{Figures: []TimingRow{
		timingRow("cycles", timing.MetricCycles, float64(a.Cycles), float64(b.Cycles)),
		timingRow("time (ns)", timing.MetricDuration, a.DurationNs, b.DurationNs),
		timingRow("achieved occupancy %", timing.MetricOccupancy, a.Occupancy, b.Occupancy),
		timingRow("issue slots used %", timing.MetricIssueUtil, a.IssueUtil, b.IssueUtil),
		timingRow("IPC", timing.MetricIPC, a.IPC, b.IPC),
		timingRow("machine instructions", timing.MetricInst, float64(a.MachineInsts), float64(b.MachineInsts)),
	}}
	seen := map[string]bool{}
	for _, t := range []*Timing{a, b} {
		for _, s := range t.Stalls {
			if seen[s.Reason] || s.Reason == "selected" {
				continue
			}
			seen[s.Reason] = true
			x, y := a.Reason(s.Reason).PerIssue, b.Reason(s.Reason).PerIssue
			if x < 0.005 && y < 0.005 {
				continue // under a hundredth of a cycle per instruction in both
			}
			tc.Stalls = append(tc.Stalls, timingRow(s.Reason, s.Metric, x, y))
		}
	}
	sort.SliceStable(tc.Stalls, func(i, j int) bool {
		return math.Max(tc.Stalls[i].A, tc.Stalls[i].B) > math.Max(tc.Stalls[j].A, tc.Stalls[j].B)
	})
	if len(a.Sources) > 0 {
		tc.TopA = &a.Sources[0]
	}
	if len(b.Sources) > 0 {
		tc.TopB = &b.Sources[0]
	}
	return tc
}

// Row is one metric of both runs.
type Row struct {
	Name string  `json:"name"`
	A    float64 `json:"a"`
	B    float64 `json:"b"`
	// Ratio is B / A; nil when A is 0.
	Ratio *float64 `json:"ratio"`
	Help  string   `json:"help,omitempty"`
}

// printResolution is the smallest difference the comparison prints
// (FormatValue's two decimals).
const printResolution = 0.01

// printedEqual reports whether the row's values print the same: rounding
// noise (0.004 against 0.0006), not a difference.
func (r *Row) printedEqual() bool { return FormatValue(r.A) == FormatValue(r.B) }

// score is how different the row's values are as printed: 0 when they
// print the same, else the size of the log of their ratio, each value
// rounded to the printed two decimals and offset by that resolution so
// that 0.06 against 0 ranks far below 28.7 against 0 or 1015808 against 0.
func (r *Row) score() float64 {
	if r.printedEqual() {
		return 0
	}
	a, b := math.Abs(printed(r.A)), math.Abs(printed(r.B))
	return math.Abs(math.Log((b + printResolution) / (a + printResolution)))
}

// printed is v rounded as FormatValue prints it.
func printed(v float64) float64 {
	p, err := strconv.ParseFloat(FormatValue(v), 64)
	if err != nil {
		return v
	}
	return p
}

// DiagnosisDiff is one kind of access whose diagnoses differ.
type DiagnosisDiff struct {
	Access string      `json:"access"` // "global load", "shared store", ...
	A      []Diagnosed `json:"a"`
	B      []Diagnosed `json:"b"`
}

// Diagnosed is one instruction's diagnosis, where it is.
type Diagnosed struct {
	PTXLine   string    `json:"ptx_line"`
	CUDA      string    `json:"cuda_line,omitempty"`
	PTX       string    `json:"ptx"`
	Diagnosis Diagnosis `json:"diagnosis"`
}

// Compare lays two reports side by side.
func Compare(a, b *Report) *Comparison {
	c := &Comparison{A: a, B: b}
	help := map[string]string{}
	for _, m := range Catalogue() {
		help[m.Name] = m.Help
	}
	names := map[string]bool{}
	for n := range a.Metrics {
		names[n] = true
	}
	for n := range b.Metrics {
		names[n] = true
	}
	for n := range names {
		va, vb := a.Metrics[n], b.Metrics[n]
		if va == 0 && vb == 0 {
			continue
		}
		row := Row{Name: n, A: va, B: vb, Help: help[n]}
		if va != 0 {
			r := vb / va
			row.Ratio = &r
		}
		c.Rows = append(c.Rows, row)
	}
	sort.Slice(c.Rows, func(i, j int) bool {
		si, sj := c.Rows[i].score(), c.Rows[j].score()
		if si != sj {
			return si > sj
		}
		return c.Rows[i].Name < c.Rows[j].Name
	})
	c.Diagnoses = diffDiagnoses(a, b)
	if a.Timing != nil && b.Timing != nil {
		c.Timing = compareTiming(a.Timing, b.Timing)
	}
	return c
}

// diffDiagnoses groups each run's instructions by access (space and op)
// and, where the kinds of diagnosis differ, keeps each side's instructions
// of the kinds the other side lacks (the busiest of each kind).
func diffDiagnoses(a, b *Report) []DiagnosisDiff {
	type byKind map[string][]*Inst
	group := func(r *Report) map[string]byKind {
		g := map[string]byKind{}
		for i := range r.Insts {
			in := &r.Insts[i]
			if in.Diagnosis.Kind == "" {
				continue
			}
			acc := in.Space + " " + in.Op
			if g[acc] == nil {
				g[acc] = byKind{}
			}
			g[acc][in.Diagnosis.Kind] = append(g[acc][in.Diagnosis.Kind], in)
		}
		return g
	}
	ga, gb := group(a), group(b)
	accs := map[string]bool{}
	for k := range ga {
		accs[k] = true
	}
	for k := range gb {
		accs[k] = true
	}
	var keys []string
	for k := range accs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	traffic := func(in *Inst) uint64 { return in.Sectors + in.Wavefronts + in.Requests }
	only := func(x, y byKind) []Diagnosed {
		var kinds []string
		for k := range x {
			if _, ok := y[k]; !ok {
				kinds = append(kinds, k)
			}
		}
		sort.Strings(kinds)
		var out []Diagnosed
		for _, k := range kinds {
			best := x[k][0]
			for _, in := range x[k][1:] {
				if traffic(in) > traffic(best) {
					best = in
				}
			}
			out = append(out, Diagnosed{PTXLine: best.PTXLine, CUDA: best.CUDA, PTX: best.PTX, Diagnosis: best.Diagnosis})
		}
		return out
	}
	var out []DiagnosisDiff
	for _, k := range keys {
		da, db := only(ga[k], gb[k]), only(gb[k], ga[k])
		if len(da) == 0 && len(db) == 0 {
			continue
		}
		out = append(out, DiagnosisDiff{Access: k, A: da, B: db})
	}
	return out
}

// WriteText prints the comparison: the launches; when both runs were
// timed, their cycles, time, occupancy, IPC and stall reasons side by side
// and the top stall source of each; every metric with both values and
// their ratio (biggest differences first as printed, Row.score; rows whose
// values print the same are counted, not printed, unless all is set; the
// launch's duration with its unit), then the diagnoses that differ.
func (c *Comparison) WriteText(w io.Writer, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, side := range []struct {
		name string
		r    *Report
	}{{"A", c.A}, {"B", c.B}} {
		fmt.Fprintf(tw, "%s\t%s\tgrid %s x block %s\n", side.name, sideTitle(side.r), dims(side.r.Launch.Grid), dims(side.r.Launch.Block))
	}
	fmt.Fprintf(tw, "gpu\t%s, %s mode\n", c.A.GPU, c.A.Mode)
	tw.Flush()
	if c.Timing != nil {
		c.Timing.writeText(w)
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "METRIC\tA\tB\tB/A\t\n")
	same := 0
	for _, r := range c.Rows {
		if r.printedEqual() && !all {
			same++
			continue
		}
		ratio := "-"
		switch { // as printed: a value that prints as 0 is none
		case r.Ratio == nil || printed(r.A) == 0:
		case printed(r.B) == 0:
			ratio = "0"
		default:
			ratio = fmt.Sprintf("%.3g", *r.Ratio+0) // +0: no "-0"
		}
		a, b := FormatValue(r.A), FormatValue(r.B)
		if r.Name == timing.MetricDuration {
			a, b = duration(r.A), duration(r.B)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.Name, a, b, ratio)
	}
	tw.Flush()
	if same > 0 {
		fmt.Fprintf(w, "(%d more metrics are equal in both; --all prints them)\n", same)
	}
	fmt.Fprintln(w, "\nDiagnoses that differ")
	if len(c.Diagnoses) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, d := range c.Diagnoses {
		fmt.Fprintf(w, "  %s\n", d.Access)
		for _, side := range []struct {
			name string
			ds   []Diagnosed
		}{{"A", d.A}, {"B", d.B}} {
			for _, x := range side.ds {
				where := x.PTXLine
				if x.CUDA != "" {
					where = x.CUDA + " (" + x.PTXLine + ")"
				}
				fmt.Fprintf(w, "    %s %s: %s\n", side.name, where, x.Diagnosis.Text)
			}
		}
	}
	return nil
}

// writeText prints the timing comparison.
func (tc *TimingComparison) writeText(w io.Writer) {
	ratio := func(r *TimingRow) string {
		if r.Ratio == nil {
			return "-"
		}
		return fmt.Sprintf("%.3g", *r.Ratio+0)
	}
	fmt.Fprintln(w, "\nTiming")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\tA\tB\tB/A\t\n")
	for i := range tc.Figures {
		r := &tc.Figures[i]
		label, a, b := r.Label, r.A, r.B
		if r.Metric == timing.MetricDuration {
			label, a, b = "time (us)", a/1000, b/1000
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", label, FormatValue(a), FormatValue(b), ratio(r))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nStall reasons (warp-cycles per issued instruction, smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "REASON\tA\tB\tB/A\t\n")
	for i := range tc.Stalls {
		r := &tc.Stalls[i]
		q := ratio(r)
		switch { // as printed: 0.00 is none
		case r.A < 0.005:
			q = "-"
		case r.B < 0.005:
			q = "0"
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%s\t\n", r.Label, r.A, r.B, q)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nWhere each run's stall cycles went most")
	for _, x := range []struct {
		tag string
		s   *StallSource
	}{{"A", tc.TopA}, {"B", tc.TopB}} {
		if x.s == nil {
			fmt.Fprintf(w, "  %s: the warps never waited\n", x.tag)
			continue
		}
		fmt.Fprintf(w, "  %s: %s\n", x.tag, x.s.Sentence)
	}
}
