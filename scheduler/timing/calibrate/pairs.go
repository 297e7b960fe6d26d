package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
)

// pair is a ratio a user reads to choose between two kernels: the cycles
// of one launch over another's, launches named as ncu.Launch.Name gives
// them.
type pair struct {
	name, num, den string
}

// pairs reads the ratio pairs of the perf corpus (manifest.json "pairs":
// name → [numerator case, denominator case], launches of table calib.O3).
func pairs(testdata string) ([]pair, error) {
	return manifestPairs(testdata, "perf", "calib.O3", "")
}

// allPairs is pairs and, when testdata/public is there, the public
// corpus's pairs (table O3; names prefixed "public:").
func allPairs(testdata string) ([]pair, error) {
	ps, err := pairs(testdata)
	if err != nil {
		return nil, err
	}
	if pub, err := manifestPairs(testdata, publicCorpus, "O3", "public:"); err == nil {
		ps = append(ps, pub...)
	}
	return ps, nil
}

func manifestPairs(testdata, corpus, table, prefix string) ([]pair, error) {
	b, err := os.ReadFile(filepath.Join(testdata, corpus, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m struct {
		Pairs map[string][2]string `json:"pairs"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	var out []pair
	for k, v := range m.Pairs {
		out = append(out, pair{prefix + k, corpus + "/" + table + "/" + v[0], corpus + "/" + table + "/" + v[1]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// pairLaunches returns the launches the pairs name.
func pairLaunches(testdata string, ps []pair) ([]*ncu.Launch, error) {
	all, err := ncu.ReadWithPublic(testdata)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, p := range ps {
		want[p.num], want[p.den] = true, true
	}
	var out []*ncu.Launch
	for _, l := range all {
		if want[l.Name()] {
			out = append(out, l)
		}
	}
	return out, nil
}

// missingPairLaunches returns the launches the pairs name that outs has
// not run.
// Like the set, they are limited to launches -only names and of at most
// maxInst machine instructions.
func missingPairLaunches(testdata string, ps []pair, outs []*outcome, only string, maxInst float64) ([]*ncu.Launch, error) {
	ls, err := pairLaunches(testdata, ps)
	if err != nil {
		return nil, err
	}
	ran := map[string]bool{}
	for _, o := range outs {
		ran[o.name] = true
	}
	var out []*ncu.Launch
	for _, l := range ls {
		n, _ := l.Value("smsp__inst_executed.sum")
		if !ran[l.Name()] && l.Repeat == 0 && selected(l.Name(), only) && (maxInst <= 0 || n <= maxInst) {
			out = append(out, l)
		}
	}
	return out, nil
}

// printPairs prints, for each pair, the GPU's cycle ratio and the model's.
func printPairs(w io.Writer, ps []pair, outs []*outcome) (within int, n int) {
	by := map[string]*outcome{}
	for _, o := range outs {
		if o.err == nil {
			by[o.name] = o
		}
	}
	fmt.Fprintln(w, "| pair | GPU cycles | model cycles | GPU ratio | model ratio | error |")
	fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: | ---: |")
	for _, p := range ps {
		a, b := by[p.num], by[p.den]
		if a == nil || b == nil {
			fmt.Fprintf(w, "| %s | (not run) | | | | |\n", p.name)
			continue
		}
		gr, mr := a.real/b.real, a.model/b.model
		e := (mr - gr) / gr
		n++
		if math.Abs(e) <= 0.15 {
			within++
		}
		fmt.Fprintf(w, "| %s | %.0f / %.0f | %.0f / %.0f | %.2f | %.2f | %+.0f%% |\n", p.name, a.real, b.real, a.model, b.model, gr, mr, 100*e)
	}
	return within, n
}

func cmdPairs(args []string) error {
	fs := newFlags("pairs")
	testdata := fs.String("testdata", "testdata", "corpus root")
	profile := fs.String("gpu", "h100", "GPU profile (name or file)")
	jobs := fs.Int("j", 2, "launches run at once")
	fs.BoolVar(&progress, "progress", false, "print each launch as it finishes (stderr)")
	_ = fs.Parse(args)
	ps, err := allPairs(*testdata)
	if err != nil {
		return err
	}
	ls, err := pairLaunches(*testdata, ps)
	if err != nil {
		return err
	}
	p, err := gpu.Load(*profile)
	if err != nil {
		return err
	}
	outs := runSet(ls, p, *jobs, nil)
	within, n := printPairs(os.Stdout, ps, outs)
	fmt.Printf("%d of %d pair ratios within 15%% of the GPU's\n", within, n)
	return nil
}
