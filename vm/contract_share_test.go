package vm_test

import (
	"context"
	"flag"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/suite"
	"github.com/ptxvm/ptxvm/vm"
)

var contractionShare = flag.Bool("contraction.share", false, "measure which corpus outputs depend on ptxas's contraction (slow: runs the corpora without it)")

// TestContractionShare measures how much of each corpus depends on the
// contraction rule: the output elements that come out different from the
// GPU's when lowering does not fuse (go test ./vm -run ContractionShare
// -contraction.share -v). The README's Limitations quote it.
func TestContractionShare(t *testing.T) {
	if !*contractionShare {
		t.Skip("run with -contraction.share")
	}
	defer vm.WithoutContraction()()
	for _, root := range []string{"../testdata/apps/cases", "../testdata/nvcc/cases", "../testdata/conformance/issue7/cases"} {
		cases, err := suite.Find(root)
		require.NoError(t, err)
		results := suite.Run(context.Background(), cases, suite.Options{MaxInst: 1 << 32}, nil)
		type tally struct{ launches, affected, elements, differ, digests, digestsDiffer int }
		by := map[string]*tally{}
		var failed []string
		for _, r := range results {
			build := filepath.Base(r.Name)
			if strings.HasPrefix(root, "../testdata/conformance") {
				build = strings.Split(strings.TrimPrefix(r.Name, "cases/"), "/")[0]
			}
			tl := by[build]
			if tl == nil {
				tl = &tally{}
				by[build] = tl
			}
			tl.launches++
			if r.Status != suite.Pass {
				tl.affected++
				failed = append(failed, r.Name)
			}
			for _, c := range r.Outputs {
				if c.Digest != nil { // recorded as a SHA-256: no element count
					tl.digests++
					if !c.OK() {
						tl.digestsDiffer++
					}
					continue
				}
				tl.elements += c.Elements
				tl.differ += c.Differ
			}
		}
		var keys []string
		for k := range by {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			tl := by[k]
			t.Logf("%s %s: %d of %d launches change; %d of %d elements (%.3f%%); %d of %d hashed outputs",
				root, k, tl.affected, tl.launches, tl.differ, tl.elements, 100*float64(tl.differ)/float64(max(tl.elements, 1)), tl.digestsDiffer, tl.digests)
		}
		t.Logf("%s: launches that depend on contraction: %v", root, failed)
	}
}
