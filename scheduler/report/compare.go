package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"text/tabwriter"
)

// Comparison is two runs side by side.
type Comparison struct {
	A *Report `json:"a"`
	B *Report `json:"b"`
	// Rows holds every metric either run has (both zero left out), the
	// biggest differences first: by |log(B/A)|, a figure one run has and
	// the other has not before all.
	Rows []Row `json:"rows"`
	// Diagnoses lists, per kind of access (global load, shared store, ...),
	// the diagnoses one run has and the other has not.
	Diagnoses []DiagnosisDiff `json:"diagnoses"`
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
	score := func(r *Row) float64 {
		if r.Ratio == nil || *r.Ratio == 0 {
			return math.Inf(1)
		}
		return math.Abs(math.Log(math.Abs(*r.Ratio)))
	}
	sort.Slice(c.Rows, func(i, j int) bool {
		si, sj := score(&c.Rows[i]), score(&c.Rows[j])
		if si != sj {
			return si > sj
		}
		return c.Rows[i].Name < c.Rows[j].Name
	})
	c.Diagnoses = diffDiagnoses(a, b)
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

// WriteText prints the comparison: the launches, every metric with both
// values and their ratio (biggest differences first; rows whose values are
// equal are counted, not printed, unless all is set), then the diagnoses
// that differ.
func (c *Comparison) WriteText(w io.Writer, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "A\t%s\tgrid %s x block %s\n", c.A.Kernel, dims(c.A.Launch.Grid), dims(c.A.Launch.Block))
	fmt.Fprintf(tw, "B\t%s\tgrid %s x block %s\n", c.B.Kernel, dims(c.B.Launch.Grid), dims(c.B.Launch.Block))
	fmt.Fprintf(tw, "gpu\t%s\n", c.A.GPU)
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "METRIC\tA\tB\tB/A\t\n")
	same := 0
	for _, r := range c.Rows {
		ratio := "-"
		if r.Ratio != nil {
			if *r.Ratio == 1 && !all {
				same++
				continue
			}
			ratio = fmt.Sprintf("%.3g", *r.Ratio+0) // +0: no "-0"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.Name, FormatValue(r.A), FormatValue(r.B), ratio)
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
