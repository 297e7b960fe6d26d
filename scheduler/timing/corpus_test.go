package timing_test

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/suite"
)

var corpusAll = flag.Bool("timing.corpus.all", false, "run every corpus case in timing mode, the long ones too")

// maxCorpusInst is the size (ncu's smsp__inst_executed.sum) above which
// TestCorpusTimingMatchesGPU leaves a case out unless -timing.corpus.all.
const maxCorpusInst = 400000

// Timing mode computes what functional mode computes: every corpus case
// run through the cycle loop matches the GPU's outputs as the functional
// run does (the same comparison, the same tolerances). By default the
// cases of more than maxCorpusInst machine instructions are left out to
// keep the suite fast; -timing.corpus.all runs them all.
func TestCorpusTimingMatchesGPU(t *testing.T) {
	sizes := map[string]float64{}
	ls, err := ncu.ReadAll("../../testdata")
	require.NoError(t, err)
	for _, l := range ls {
		if v, ok := l.Value("smsp__inst_executed.sum"); ok {
			sizes[l.Corpus+"/cases/"+l.Case+"/"+l.Variant] = v
		}
	}
	for _, corpus := range []string{"nvcc", "conformance"} {
		t.Run(corpus, func(t *testing.T) {
			root := filepath.Join("../../testdata", corpus, "cases")
			cases, err := suite.Find(root)
			require.NoError(t, err)
			var run []suite.Case
			skipped := 0
			for _, c := range cases {
				rel, _ := filepath.Rel("../../testdata", c.Dir)
				if n := sizes[filepath.ToSlash(rel)]; n > maxCorpusInst && !*corpusAll {
					skipped++
					continue
				}
				run = append(run, c)
			}
			results := suite.Run(context.Background(), run, suite.Options{MaxInst: 1 << 32, Mode: scheduler.ModeTiming}, nil)
			pass := 0
			for _, r := range results {
				if r.Status == suite.Pass {
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
