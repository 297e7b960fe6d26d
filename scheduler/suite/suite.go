package suite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/compare"
	"github.com/ptxvm/ptxvm/vm/spec"
	"github.com/ptxvm/ptxvm/vm/spec/npy"
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
	Name   string `json:"name"`
	Status Status `json:"status"`
	Error  string `json:"error,omitempty"`
	// ExpectedError is the GPU's error for a case recorded as failing
	// (expected/ERROR, first line); such a case passes when the emulator
	// stops the launch with a fault or at its budget (Error says how).
	ExpectedError string                `json:"expected_error,omitempty"`
	Outputs       []*compare.Comparison `json:"outputs,omitempty"`
	Tolerance     *compare.Tolerance    `json:"tolerance,omitempty"`
	Inst          uint64                `json:"warp_instructions"`
	ThreadInst    uint64                `json:"thread_instructions"`
	Duration      time.Duration         `json:"duration_ns"`
}

// Options for a suite run.
type Options struct {
	GPU     *scheduler.Profile
	Workers int    // cases run in parallel (0: GOMAXPROCS)
	ULP     uint64 // extra tolerance for every float output, on top of each spec's own
	MaxInst int64  // instruction budget per case (0: none)
	Strict  bool   // undefined behaviour is a fault
	Mode    string // scheduler.ModeFunctional ("" too) or scheduler.ModeTiming
	// AnyTarget runs modules whose .target the GPU cannot run.
	AnyTarget bool
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
	if msg, err := os.ReadFile(filepath.Join(c.Dir, "expected", "ERROR")); err == nil {
		return runFailing(ctx, c, sp, opt, cache, r, string(msg))
	}
	// What the GPU produced: the bytes (raw or .npy), or their digest.
	want := map[string]expected{}
	for _, o := range sp.Outputs {
		e, err := readExpected(c.Dir, o, sp.BufferType(o), sp)
		if err != nil {
			r.Status, r.Error = Error, err.Error()
			return r
		}
		want[o] = e
	}
	run, err := scheduler.RunSpec(ctx, sp, opt.GPU, runOptions(opt), cache)
	if err != nil {
		r.Status, r.Error = Error, err.Error()
		return r
	}
	defer run.Release()
	r.Inst, r.ThreadInst = run.Result.Stats.Inst, run.Result.Stats.ThreadInst
	r.Status = Pass
	for _, o := range sp.Outputs {
		tol := sp.Tolerance.For(o)
		tol.ULP += opt.ULP
		var cmp *compare.Comparison
		if w := want[o]; w.data == nil {
			h := sha256.New()
			cw := &countWriter{w: h}
			if err := run.WriteOutput(o, cw); err != nil {
				r.Status, r.Error = Error, err.Error()
				return r
			}
			cmp = compare.CompareDigest(o, sp.BufferType(o), hex.EncodeToString(h.Sum(nil)), cw.n, w.digest)
		} else {
			var got bytes.Buffer
			if err := run.WriteOutput(o, &got); err != nil {
				r.Status, r.Error = Error, err.Error()
				return r
			}
			cmp = compare.CompareBuffer(o, sp.BufferType(o), got.Bytes(), w.data, tol)
		}
		r.Outputs = append(r.Outputs, cmp)
		if !cmp.OK() {
			r.Status = Fail
		}
	}
	return r
}

// expected is what the GPU produced for one output: its bytes, or the text
// of its .sha256 file.
type expected struct {
	data   []byte
	digest string
}

// runOptions are a case's run options. A regression case compares outputs
// only, so it runs without the memory hierarchy's counters (a third to a
// half faster).
func runOptions(opt Options) scheduler.Options {
	return scheduler.Options{Workers: 1, MaxInst: opt.MaxInst, Strict: opt.Strict, AnyTarget: opt.AnyTarget, StreamOutputs: true, NoCounters: opt.Mode != "timing", Mode: opt.Mode}
}

// readExpected reads expected/<name>.bin, .npy or .sha256.
func readExpected(dir, name, typ string, sp *spec.Spec) (expected, error) {
	base := filepath.Join(dir, "expected", name)
	if b, err := os.ReadFile(base + ".sha256"); err == nil {
		return expected{digest: string(b)}, nil
	}
	if b, err := os.ReadFile(base + ".npy"); err == nil {
		h, err := npy.Parse(b)
		if err != nil {
			return expected{}, fmt.Errorf("expected/%s.npy: %w", name, err)
		}
		if t := npy.TypeOf(h.Descr); t != typ && !(typ == "bf16" && h.Descr == "<u2") {
			return expected{}, fmt.Errorf("expected/%s.npy holds %s; output %s is %s", name, npy.Describe(h.Descr), name, typ)
		}
		return expected{data: b[h.DataOffset:]}, nil
	}
	b, err := os.ReadFile(base + ".bin")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return expected{}, fmt.Errorf("expected/%s.bin is missing (nor .npy or .sha256)", name)
		}
		return expected{}, err
	}
	return expected{data: b}, nil
}

type countWriter struct {
	w io.Writer
	n uint64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}

// runFailing runs a case whose launch failed on the GPU (expected/ERROR:
// the CUDA error's name, then a message). It passes when the emulator stops
// the launch too: with a fault, or at its instruction budget for a GPU
// launch that hung.
func runFailing(ctx context.Context, c Case, sp *spec.Spec, opt Options, cache *spec.ModuleCache, r *Result, recorded string) *Result {
	name, _, _ := strings.Cut(strings.TrimSpace(recorded), "\n")
	r.ExpectedError = strings.TrimSpace(name)
	run, err := scheduler.RunSpec(ctx, sp, opt.GPU, runOptions(opt), cache)
	switch {
	case err == nil:
		run.Release()
		r.Inst, r.ThreadInst = run.Result.Stats.Inst, run.Result.Stats.ThreadInst
		r.Status, r.Error = Fail, fmt.Sprintf("the GPU failed (%s); the emulator ran the launch to completion", r.ExpectedError)
	case errors.Is(err, vm.ErrBudget) && r.ExpectedError != "hang":
		r.Status, r.Error = Fail, fmt.Sprintf("the GPU failed (%s); the emulator ran out of its instruction budget: %v", r.ExpectedError, err)
	case vm.IsRuntime(err) || errors.Is(err, vm.ErrBudget):
		r.Status, r.Error = Pass, err.Error()
	case loadRefused(r.ExpectedError) && vm.IsLoad(err):
		// The driver refused the module or the kernel; the emulator
		// refuses its PTX at load too.
		r.Status, r.Error = Pass, err.Error()
	default:
		r.Status, r.Error = Error, err.Error()
	}
	return r
}

// loadRefused reports a CUDA error by which the driver refuses a module
// (cudaErrorNotSupported at every launch) or one kernel of it
// (cudaErrorSymbolNotFound at its launch).
func loadRefused(name string) bool {
	return name == "cudaErrorNotSupported" || name == "cudaErrorSymbolNotFound"
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
