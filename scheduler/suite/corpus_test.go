package suite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/suite"
)

var update = flag.Bool("update", false, "rewrite the golden ULP report of the conformance suite")

// runCorpus runs every case under root and fails the test for each case
// that does not match what the GPU recorded.
func runCorpus(t *testing.T, root string) []*suite.Result {
	t.Helper()
	cases, err := suite.Find(root)
	require.NoError(t, err)
	require.NotEmpty(t, cases, "no cases under %s", root)
	results := suite.Run(context.Background(), cases, suite.Options{MaxInst: 1 << 32}, nil)
	for _, r := range results {
		if r.Status == suite.Pass {
			continue
		}
		var b strings.Builder
		if r.Error != "" {
			b.WriteString(r.Error)
		}
		for _, c := range r.Outputs {
			if c.OK() {
				continue
			}
			fmt.Fprintf(&b, "\n  %s (%s): %d of %d elements differ%s", c.Name, c.Type, c.Differ, c.Elements, c.SizeErr)
			for _, d := range c.First {
				fmt.Fprintf(&b, "\n    [%d] got %s, want %s", d.Index, d.Got, d.Want)
			}
		}
		t.Errorf("%s: %s: %s", r.Name, r.Status, b.String())
	}
	s := suite.Summarize(results)
	t.Logf("%s: %d cases, %d pass, %d fail, %d errors", root, len(results), s.Pass, s.Fail, s.Error)
	return results
}

// TestNvccCorpus runs every kernel nvcc compiled (at -O3 and at -G) and
// compares its outputs with the GPU's, bit for bit unless the case's spec
// states a tolerance (cases through the special-function unit).
func TestNvccCorpus(t *testing.T) {
	runCorpus(t, "../../testdata/nvcc/cases")
}

// TestConformance runs every instruction form of the conformance suite
// against the GPU's results, and keeps a golden report of the largest ULP
// distance seen for each approximate form.
func TestConformance(t *testing.T) {
	results := runCorpus(t, "../../testdata/conformance/cases")
	var forms struct {
		Forms []struct {
			ID     string `json:"id"`
			Family string `json:"family"`
			Approx bool   `json:"approx"`
		} `json:"forms"`
	}
	data, err := os.ReadFile("../../testdata/conformance/forms.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &forms))
	approx := map[string]bool{}
	for _, f := range forms.Forms {
		if f.Approx {
			approx[f.Family+"/"+f.ID] = true
		}
	}
	var rows []string
	for _, r := range results {
		name := strings.TrimPrefix(r.Name, "cases/")
		if !approx[name] {
			continue
		}
		var worst uint64
		var worstAbs float64
		exact := true
		for _, c := range r.Outputs {
			worst = max(worst, c.MaxULP)
			worstAbs = max(worstAbs, c.MaxAbs)
			if c.MaxULP > 0 {
				exact = false
			}
		}
		tol := "-"
		if r.Tolerance != nil {
			if b, err := json.Marshal(r.Tolerance); err == nil {
				tol = string(b)
			}
		}
		state := "bit-exact"
		if !exact {
			state = "within tolerance"
		}
		if r.Status != suite.Pass {
			state = string(r.Status)
		}
		rows = append(rows, fmt.Sprintf("%s\t%d\t%.3g\t%s\t%s", name, worst, worstAbs, tol, state))
	}
	sort.Strings(rows)
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "# Largest ULP distance from the GPU per approximate form (go test ./scheduler/suite -run Conformance -update)")
	fmt.Fprintln(tw, "form\tmax ulp\tmax abs\ttolerance\tresult")
	for _, r := range rows {
		fmt.Fprintln(tw, r)
	}
	tw.Flush()
	golden := filepath.Join("..", "..", "testdata", "conformance", "approx_ulp.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with -update to create the golden report")
	require.Equal(t, string(want), buf.String(), "approximate-instruction errors changed; inspect, then run with -update")
}
