package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
)

// pairs reads the ratio pairs of the perf corpus (manifest.json "pairs":
// name → [numerator case, denominator case]).
func pairs(testdata string) (map[string][2]string, error) {
	b, err := os.ReadFile(filepath.Join(testdata, "perf", "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m struct {
		Pairs map[string][2]string `json:"pairs"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m.Pairs, nil
}

// pairLaunches returns the calibration launches (perf calib.O3) the pairs
// name.
func pairLaunches(testdata string, ps map[string][2]string) ([]*ncu.Launch, error) {
	all, err := ncu.ReadAll(testdata)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, p := range ps {
		want[p[0]], want[p[1]] = true, true
	}
	var out []*ncu.Launch
	for _, l := range all {
		if l.Corpus == "perf" && l.Table == "calib.O3" && want[l.Case] && l.Repeat == 0 {
			out = append(out, l)
		}
	}
	return out, nil
}

// printPairs prints, for each pair, the GPU's cycle ratio and the model's.
func printPairs(w io.Writer, ps map[string][2]string, outs []*outcome) (within int, n int) {
	by := map[string]*outcome{}
	for _, o := range outs {
		if o.err == nil {
			by[strings.TrimPrefix(o.name, "perf/calib.O3/")] = o
		}
	}
	var names []string
	for k := range ps {
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "| pair | GPU cycles | model cycles | GPU ratio | model ratio | error |")
	fmt.Fprintln(w, "| --- | --- | --- | ---: | ---: | ---: |")
	for _, k := range names {
		a, b := by[ps[k][0]], by[ps[k][1]]
		if a == nil || b == nil {
			fmt.Fprintf(w, "| %s | (not run) | | | | |\n", k)
			continue
		}
		gr, mr := a.real/b.real, a.model/b.model
		e := (mr - gr) / gr
		n++
		if math.Abs(e) <= 0.15 {
			within++
		}
		fmt.Fprintf(w, "| %s | %.0f / %.0f | %.0f / %.0f | %.2f | %.2f | %+.0f%% |\n", k, a.real, b.real, a.model, b.model, gr, mr, 100*e)
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
	ps, err := pairs(*testdata)
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
	outs := runSet(ls, p, *jobs)
	within, n := printPairs(os.Stdout, ps, outs)
	fmt.Printf("%d of %d pair ratios within 15%% of the GPU's\n", within, n)
	return nil
}
