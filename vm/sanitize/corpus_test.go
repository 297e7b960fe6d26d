package sanitize_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm/sanitize"
)

// corpusSpecs lists the spec.json files under root, sorted.
func corpusSpecs(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "spec.json" {
			out = append(out, p)
		}
		return nil
	}))
	sort.Strings(out)
	return out
}

// TestCorpusZeroErrors: every case of the nvcc, apps and issue-24
// conformance corpora runs clean under racecheck, synccheck and memcheck
// (no error, no warning, no failure). By default every issue-24 case
// (cp.async, mbarrier, ldmatrix...: 108, a fraction of a second) and every
// eighth spec (the last of each eight) of the nvcc and apps corpora run
// (166 in all, a few seconds); PTXVM_SANITIZE_CORPUS_ALL=1
// runs all 578 (about half a minute on one core).
func TestCorpusZeroErrors(t *testing.T) {
	all := os.Getenv("PTXVM_SANITIZE_CORPUS_ALL") != ""
	tools := sanitize.Racecheck | sanitize.Synccheck | sanitize.Memcheck
	for _, c := range []struct {
		root  string
		every int // run every every-th spec by default
	}{
		{"../../testdata/conformance/issue24/cases", 1},
		{"../../testdata/nvcc/cases", 8},
		{"../../testdata/apps/cases", 8},
	} {
		specs := corpusSpecs(t, c.root)
		require.NotEmpty(t, specs, c.root)
		for i, p := range specs {
			if !all && i%c.every != c.every-1 {
				continue
			}
			name, _ := filepath.Rel("../../testdata", filepath.Dir(p))
			t.Run(name, func(t *testing.T) {
				rep := sanitizeSpec(t, p, tools, false)
				assert.Empty(t, rep.Failure)
				assert.Zero(t, rep.Errors+rep.Warnings, "%+v", summarize(rep))
			})
		}
	}
}
