package suite_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/suite"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

var corpusAll = flag.Bool("timing.corpus.all", false, "run every corpus case in timing mode, the long ones too")

// maxCorpusInst is the size (ncu's smsp__inst_executed.sum) above which
// TestCorpusTimingMatchesGPU leaves a case out unless -timing.corpus.all.
const maxCorpusInst = 200000

// interleavingDependent are the corpus launches whose PTX instruction
// count depends on how warps interleave, so that the two modes count
// differently and neither is wrong: a compare-and-swap loop retries while
// another warp's swap lands between its read and its swap (functional
// mode runs warps in turns of scheduler.Quantum instructions, timing mode
// cycle by cycle, as the GPU does).
var interleavingDependent = map[string]string{
	"atomic_shared_ops/O3": "atomicCAS loop on one shared word (atomics.cu:162)",
	"atomic_shared_ops/G":  "atomicCAS loop on one shared word (atomics.cu:162)",
	"atomic_contended/O3":  "atomicCAS loops on one global word (atomics.cu:56, 68)",
	"atomic_contended/G":   "atomicCAS loops on one global word (atomics.cu:56, 68)",
	// Which lane's atomicCAS claims a node first decides which lanes take
	// the branch that sets changed (graph.cu:52): the same lanes in all,
	// grouped differently.
	"bfs_block/O3": "atomicCAS claims of neighbours (graph.cu:52)",
	"bfs_block/G":  "atomicCAS claims of neighbours (graph.cu:52)",
}

// pollsMbarrier reports whether case c's kernel waits on an mbarrier in a
// loop (mbarrier.test_wait/try_wait): how often it polls depends on when
// the copies and arrivals it waits for land, so the two modes count its
// instructions differently and neither is wrong.
func pollsMbarrier(t *testing.T, c suite.Case) bool {
	sp, err := spec.Load(filepath.Join(c.Dir, "spec.json"))
	require.NoError(t, err)
	p, err := sp.Prepare(vm.NewDevice(), nil)
	require.NoError(t, err)
	for _, f := range p.Launch.Kernel.Funcs {
		for i := range f.Code {
			if in := &f.Code[i]; in.Op == vm.OpMbarrier {
				if op, _ := in.Mbar(); op == vm.MbarTestWait {
					return true
				}
			}
		}
	}
	return false
}

// sameDifferences reports whether two runs of a case differ from the GPU's
// outputs in the same number of elements of each output.
func sameDifferences(a, b *suite.Result) bool {
	if len(a.Outputs) != len(b.Outputs) || a.Error != b.Error {
		return false
	}
	for i := range a.Outputs {
		if a.Outputs[i].Differ != b.Outputs[i].Differ {
			return false
		}
	}
	return true
}

// Timing mode computes what functional mode computes: every corpus case
// run through the cycle loop matches the GPU's outputs as the functional
// run does (the same comparison, the same tolerances), and executes the
// same PTX instructions: the warp and thread instruction counts
// (ptxvm__ptx_inst_executed.sum, ptxvm__ptx_thread_inst_executed.sum)
// equal the functional run's, although the timed run executes the kernel
// list-scheduled and if-converted as ptxas compiles it. By default the
// cases of more than maxCorpusInst machine instructions are left out to
// keep the suite fast; -timing.corpus.all (or PTXVM_TIMING_CORPUS_ALL=1)
// runs them all. (The public corpus's PTX is not in the repository.) The
// functional runs are those the corpus tests of this package hold to the
// GPU (runOnce: a case runs once in each mode per process), and the
// clusters' and TMA corpora's timed runs those TestClusterCorpus and
// TestTMACorpus hold to it; this test was in scheduler/timing, where it ran
// every case functionally a second time, until 2026-11-29.
func TestCorpusTimingMatchesGPU(t *testing.T) {
	t.Parallel()
	sizes := map[string]float64{}
	ls, err := ncu.ReadAll("../../testdata")
	require.NoError(t, err)
	for _, l := range ls {
		if v, ok := l.Value("smsp__inst_executed.sum"); ok {
			sizes[l.Corpus+"/cases/"+l.Case+"/"+l.Variant] = v
		}
	}
	all := *corpusAll || os.Getenv("PTXVM_TIMING_CORPUS_ALL") == "1"
	for _, corpus := range []string{"nvcc", "apps", "perf", "conformance", "tensor", "tensor2", "tma", "clusters", "surfaces"} {
		t.Run(corpus, func(t *testing.T) {
			root := filepath.Join("../../testdata", corpus, "cases")
			cases, err := suite.Find(root)
			require.NoError(t, err)
			var run []suite.Case
			skipped := 0
			for _, c := range cases {
				rel, _ := filepath.Rel("../../testdata", c.Dir)
				if n := sizes[filepath.ToSlash(rel)]; n > maxCorpusInst && !all {
					skipped++
					continue
				}
				run = append(run, c)
			}
			functional := runOnce(run, "")
			results := runOnce(run, scheduler.ModeTiming)
			pass := 0
			for i, r := range results {
				f := functional[i]
				if (r.Inst != f.Inst || r.ThreadInst != f.ThreadInst) && interleavingDependent[strings.TrimPrefix(r.Name, "cases/")] == "" && !pollsMbarrier(t, run[i]) {
					t.Errorf("%s: PTX instructions executed in timing mode %d warp, %d thread; in functional mode %d warp, %d thread",
						r.Name, r.Inst, r.ThreadInst, f.Inst, f.ThreadInst)
				}
				if r.Status == suite.Pass {
					pass++
					continue
				}
				if r.Status == f.Status && sameDifferences(r, f) {
					// A known difference from the GPU (the texture
					// corpus's tex.grad ratchet): timing mode computes
					// what functional mode does.
					pass++
					continue
				}
				var b strings.Builder
				b.WriteString(r.Error)
				for _, o := range r.Outputs {
					if !o.OK() {
						fmt.Fprintf(&b, " %s: %d of %d elements differ", o.Name, o.Differ, o.Elements)
					}
				}
				t.Errorf("%s in timing mode: %s: %s", r.Name, r.Status, b.String())
			}
			t.Logf("%s: %d cases in timing mode, %d pass; %d longer ones left out (-timing.corpus.all runs them)", corpus, len(results), pass, skipped)
		})
	}
}
