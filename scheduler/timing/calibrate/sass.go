package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/ptxvm/ptxvm/scheduler/sasscost"
)

func readForms(path string) (*formData, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d formData
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &d, nil
}

// fittable says whether the SASS fit may use a kernel's launches: not a
// held-out family's, not the public corpus's. Kernels of no family (the
// small instruction-form kernels of the corpora) are fitted.
func fittable(fams *families, kernel string) bool {
	s := fams.ofFormKernel(kernel)
	return s != splitHeld && s != splitPublic
}

func cmdSASS(args []string) error {
	fs := newFlags("sass")
	in := fs.String("data", "scheduler/sasscost/data/launches.json", "form counts (calibrate forms)")
	priors := fs.String("priors", "scheduler/sasscost/priors.json", "prior costs")
	out := fs.String("out", "scheduler/sasscost/tables/h100.json", "fitted table")
	lambda := fs.Float64("lambda", 0.01, "weight of the priors")
	static := fs.Float64("static", 0, "weight of a kernel's static SASS size against a launch's dynamic count (0: not used; static code holds slow paths that rarely run, and held-out errors grow with it)")
	worst := fs.Int("worst", 0, "print the launches with the largest errors")
	testdata := fs.String("testdata", "testdata", "corpus root (for testdata/families.json)")
	_ = fs.Parse(args)
	fams, err := loadFamilies(*testdata)
	if err != nil {
		return err
	}
	d, err := readForms(*in)
	if err != nil {
		return err
	}
	pt, err := sasscost.Load(*priors)
	if err != nil {
		return err
	}
	fit := func(train func(kernel string) bool) (*sasscost.Table, []string) {
		p := problem(d, pt, *lambda, *static, train)
		s := p.Solve(500)
		t := &sasscost.Table{Name: pt.Name, Note: tableNote, Forms: map[string]sasscost.Cost{}, Classes: pt.Classes}
		for j, f := range p.Forms {
			if base, ok := strings.CutSuffix(f, roundSuffix); ok {
				c := t.Forms[base]
				c.PerRound = math.Round(s[j]*1000) / 1000
				t.Forms[base] = c
				continue
			}
			c := priorCost(pt, d, f)
			c.Slots = math.Round(s[j]*1000) / 1000
			c.PerRound = t.Forms[f].PerRound
			t.Forms[f] = c
		}
		// Forms of the priors no launch executed keep their prior.
		for f, c := range pt.Forms {
			if _, ok := t.Forms[f]; !ok {
				t.Forms[f] = c
			}
		}
		return t, p.Forms
	}
	// The table is fitted on the training families (and the kernels of no
	// family) only; the held-out families and the public corpus check it.
	tr, _ := fit(func(k string) bool { return fittable(fams, k) })
	fmt.Println("machine instructions per launch (smsp__inst_executed.sum, smsp__thread_inst_executed.sum), error of the estimate:")
	report(d, tr, fams)
	if *worst > 0 {
		printWorst(d, tr, *worst, fams)
	}
	b, err := tr.Marshal()
	if err != nil {
		return err
	}
	fmt.Printf("table fitted on the training launches (%d launches and %d kernels in the data) → %s\n", len(d.Launches), len(d.Kernels), *out)
	return os.WriteFile(*out, b, 0o644)
}

// roundSuffix names the column of a form's cost per further round.
const roundSuffix = "#round"

const tableNote = "Machine instructions (SASS) per PTX form on the H100, fitted by `go run ./scheduler/timing/calibrate sass` to ncu's smsp__inst_executed.sum of the launches of the training families (testdata/families.json; held-out families and the public corpus never), forms marked fixed in the priors kept as they are, drawn toward the priors of scheduler/sasscost/priors.json (written from reading the corpus's SASS). Forms prefixed g: are those of PTX compiled with -G."

// priorCost is the prior of form f: the priors' entry, the optimised
// form's for a debug form, or its class's.
func priorCost(pt *sasscost.Table, d *formData, f string) sasscost.Cost {
	if c, ok := pt.Forms[f]; ok {
		return c
	}
	base := f
	if len(f) > len(sasscost.DebugPrefix) && f[:len(sasscost.DebugPrefix)] == sasscost.DebugPrefix {
		base = f[len(sasscost.DebugPrefix):]
		if c, ok := pt.Forms[base]; ok {
			if c.Slots < 1 && c.Pipe != sasscost.PipeNone {
				c.Slots = 1 // ptxas folds little without optimisation
			}
			c.Fixed = false // read off optimised code
			return c
		}
	}
	return pt.Classes[d.Classes[base]]
}

func problem(d *formData, pt *sasscost.Table, lambda, static float64, train func(string) bool) *sasscost.Problem {
	idx := map[string]int{}
	p := &sasscost.Problem{Lambda: lambda}
	col := func(f string) int {
		if j, ok := idx[f]; ok {
			return j
		}
		j := len(p.Forms)
		idx[f] = j
		p.Forms = append(p.Forms, f)
		if base, ok := strings.CutSuffix(f, roundSuffix); ok {
			c := priorCost(pt, d, base)
			p.Prior = append(p.Prior, c.PerRound)
			p.Scale = append(p.Scale, max(0.5, c.PerRound))
			p.Fixed = append(p.Fixed, false)
			return j
		}
		c := priorCost(pt, d, f)
		p.Prior = append(p.Prior, c.Slots)
		p.Scale = append(p.Scale, max(0.5, c.Slots))
		p.Fixed = append(p.Fixed, c.Fixed)
		return j
	}
	var forms []string
	for _, l := range d.Launches {
		for f, c := range l.Forms {
			forms = append(forms, f)
			if c[2] > 0 {
				forms = append(forms, f+roundSuffix)
			}
		}
	}
	for _, k := range d.Kernels {
		for f := range k.Forms {
			forms = append(forms, f)
		}
	}
	sort.Strings(forms)
	for _, f := range forms {
		col(f)
	}
	for _, l := range d.Launches {
		if !train(l.Kernel) || l.Inst <= 0 {
			continue
		}
		r := sasscost.Row{Y: l.Inst, W: 1}
		for _, f := range sortedKeys(l.Forms) {
			r.Col = append(r.Col, col(f))
			r.X = append(r.X, float64(l.Forms[f][0]))
			if n := l.Forms[f][2]; n > 0 {
				r.Col = append(r.Col, col(f+roundSuffix))
				r.X = append(r.X, float64(n))
			}
		}
		p.Rows = append(p.Rows, r)
	}
	for _, k := range d.Kernels {
		if !train(k.Kernel) || k.SASS <= 0 {
			continue
		}
		r := sasscost.Row{Y: float64(k.SASS), W: static}
		for _, f := range sortedKeys(k.Forms) {
			r.Col = append(r.Col, col(f))
			r.X = append(r.X, float64(k.Forms[f]))
		}
		p.Rows = append(p.Rows, r)
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// report prints the error of the machine-instruction estimates of table t
// (and of the PTX counts themselves) on each split's launches.
func report(d *formData, t *sasscost.Table, fams *families) {
	type acc struct{ n, ptx, inst, thread []float64 }
	by := map[split]*acc{}
	for _, l := range d.Launches {
		if l.Inst <= 0 {
			continue
		}
		var ptx, inst, thr float64
		for f, c := range l.Forms {
			s := t.Forms[f].Slots
			ptx += float64(c[0])
			inst += s*float64(c[0]) + t.Forms[f].PerRound*float64(c[2])
			thr += s * float64(c[1])
		}
		sp := fams.ofFormKernel(l.Kernel)
		if by[sp] == nil {
			by[sp] = &acc{}
		}
		a := by[sp]
		a.ptx = append(a.ptx, relErr(ptx, l.Inst))
		a.inst = append(a.inst, relErr(inst, l.Inst))
		if l.ThreadInst > 0 {
			a.thread = append(a.thread, relErr(thr, l.ThreadInst))
		}
	}
	for _, sp := range splits {
		a := by[sp]
		if a == nil {
			continue
		}
		x := struct {
			name string
			a    *acc
		}{string(sp), a}
		fmt.Printf("  %-10s %3d launches: inst MAPE %5.1f%% (median %4.1f%%, within 10%%: %3.0f%%); thread inst MAPE %5.1f%%; PTX counts as they are: %5.1f%%\n",
			x.name, len(x.a.inst), 100*mean(x.a.inst), 100*median(x.a.inst), 100*within(x.a.inst, 0.1), 100*mean(x.a.thread), 100*mean(x.a.ptx))
	}
}

func relErr(x, y float64) float64 { return math.Abs(x-y) / y }

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	w := append([]float64(nil), v...)
	sort.Float64s(w)
	return w[len(w)/2]
}

func within(v []float64, tol float64) float64 {
	if len(v) == 0 {
		return 0
	}
	n := 0
	for _, x := range v {
		if x <= tol {
			n++
		}
	}
	return float64(n) / float64(len(v))
}

func printWorst(d *formData, t *sasscost.Table, n int, fams *families) {
	type e struct {
		name string
		est  float64
		real float64
		held bool
	}
	var es []e
	for _, l := range d.Launches {
		var inst float64
		for f, c := range l.Forms {
			inst += t.Forms[f].Slots*float64(c[0]) + t.Forms[f].PerRound*float64(c[2])
		}
		es = append(es, e{l.Name, inst, l.Inst, !fittable(fams, l.Kernel)})
	}
	sort.Slice(es, func(i, j int) bool { return relErr(es[i].est, es[i].real) > relErr(es[j].est, es[j].real) })
	for _, x := range es[:min(n, len(es))] {
		fmt.Printf("  %-40s est %10.0f ncu %10.0f  %+6.1f%% held=%v\n", x.name, x.est, x.real, 100*(x.est-x.real)/x.real, x.held)
	}
}
