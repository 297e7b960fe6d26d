// Package suite runs regression cases: folders holding a launch spec
// (spec.json) and the outputs a real GPU produced (expected/<output>.bin),
// comparing what the emulator produces with them. `ptxrun test` and the Go
// tests over the committed corpora both use it.
package suite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm/compare"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// Case is one folder with spec.json and expected/.
type Case struct {
	Name string // path relative to the root it was found under
	Dir  string
}

// Find walks roots for cases, in lexical order. A root may itself be a case.
func Find(roots ...string) ([]Case, error) {
	var out []Case
	for _, root := range roots {
		st, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s is not a folder", root)
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() || d.Name() == "expected" {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if isCase(p) {
				rel, _ := filepath.Rel(root, p)
				name := filepath.ToSlash(filepath.Join(filepath.Base(root), rel))
				if rel == "." {
					name = filepath.Base(p)
				}
				out = append(out, Case{Name: name, Dir: p})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func isCase(dir string) bool {
	if st, err := os.Stat(filepath.Join(dir, "spec.json")); err != nil || st.IsDir() {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, "expected"))
	return err == nil && st.IsDir()
}

// Status of a case.
type Status string

// Case outcomes.
const (
	Pass  Status = "pass"
	Fail  Status = "fail"  // ran, outputs differ
	Error Status = "error" // could not run (bad spec, fault, missing expected output)
)

// Result is the outcome of one case.
type Result struct {
	Name      string                `json:"name"`
	Status    Status                `json:"status"`
	Error     string                `json:"error,omitempty"`
	Outputs   []*compare.Comparison `json:"outputs,omitempty"`
	Tolerance *compare.Tolerance    `json:"tolerance,omitempty"`
	Inst      uint64                `json:"warp_instructions"`
	Duration  time.Duration         `json:"duration_ns"`
}

// Options for a suite run.
type Options struct {
	GPU     *scheduler.Profile
	Workers int    // cases run in parallel (0: GOMAXPROCS)
	ULP     uint64 // extra tolerance for every float output, on top of each spec's own
	MaxInst int64  // instruction budget per case (0: none)
	Strict  bool   // undefined behaviour is a fault
}

// Run runs every case; results come back in the order of cases. report, if
// not nil, is called as each case finishes (from several goroutines, one at
// a time).
func Run(ctx context.Context, cases []Case, opt Options, report func(*Result)) []*Result {
	if opt.GPU == nil {
		opt.GPU = scheduler.H100
	}
	cache := spec.NewModuleCache()
	out := make([]*Result, len(cases))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	if opt.Workers > 0 {
		g.SetLimit(opt.Workers)
	} else {
		g.SetLimit(max(1, defaultWorkers()))
	}
	for i, c := range cases {
		g.Go(func() error {
			r := RunCase(gctx, c, opt, cache)
			out[i] = r
			if report != nil {
				mu.Lock()
				report(r)
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	return out
}

// RunCase runs one case and compares its outputs.
func RunCase(ctx context.Context, c Case, opt Options, cache *spec.ModuleCache) *Result {
	if opt.GPU == nil {
		opt.GPU = scheduler.H100
	}
	start := time.Now()
	r := &Result{Name: c.Name}
	defer func() { r.Duration = time.Since(start) }()
	sp, err := spec.Load(filepath.Join(c.Dir, "spec.json"))
	if err != nil {
		r.Status, r.Error = Error, err.Error()
		return r
	}
	r.Tolerance = sp.Tolerance
	want := map[string][]byte{}
	for _, o := range sp.Outputs {
		b, err := os.ReadFile(filepath.Join(c.Dir, "expected", o+".bin"))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				r.Status, r.Error = Error, fmt.Sprintf("expected/%s.bin is missing", o)
			} else {
				r.Status, r.Error = Error, err.Error()
			}
			return r
		}
		want[o] = b
	}
	run, err := scheduler.RunSpec(ctx, sp, opt.GPU, scheduler.Options{Workers: 1, MaxInst: opt.MaxInst, Strict: opt.Strict}, cache)
	if err != nil {
		r.Status, r.Error = Error, err.Error()
		return r
	}
	r.Inst = run.Result.Stats.Inst
	r.Status = Pass
	for _, o := range sp.Outputs {
		tol := sp.Tolerance.For(o)
		tol.ULP += opt.ULP
		cmp := compare.CompareBuffer(o, sp.BufferType(o), run.Outputs[o], want[o], tol)
		r.Outputs = append(r.Outputs, cmp)
		if !cmp.OK() {
			r.Status = Fail
		}
	}
	return r
}

// Summary counts results by status.
type Summary struct {
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Error int `json:"error"`
}

// Summarize counts results.
func Summarize(rs []*Result) Summary {
	var s Summary
	for _, r := range rs {
		switch r.Status {
		case Pass:
			s.Pass++
		case Fail:
			s.Fail++
		default:
			s.Error++
		}
	}
	return s
}

func defaultWorkers() int { return runtime.GOMAXPROCS(0) }
