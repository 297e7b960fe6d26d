package suite_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/suite"
)

// TestIssue24Mma3Vectors runs the tensor-core vectors recorded on the GPU
// for the remaining mma.sync, mma.sp and wmma forms (testdata/conformance/
// issue24/mma_vectors3, made by testdata/conformance/gen/forms_mma3.py and
// trimmed by trim_cases.py: 768 forms in 17 families, two device calls)
// through the VM, bit
// for bit with no tolerance, every form and every element
// (docs/semantics.md, "The other mma types and wmma").
func TestIssue24Mma3Vectors(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/conformance/issue24/mma_vectors3/cases"
	results := runCorpus(t, root)
	require.Len(t, results, 768)
	forms := map[string]int{}
	elems := map[string]int{}
	total := 0
	for _, r := range results {
		checkExact(t, []*suite.Result{r})
		require.Equal(t, suite.Pass, r.Status, r.Name)
		fam := strings.Split(r.Name, "/")[1] // cases/<family>/<form>
		forms[fam]++
		for _, c := range r.Outputs {
			require.Zero(t, c.Differ, r.Name)
			elems[fam] += c.Elements
			total += c.Elements
		}
	}
	want := map[string]int{
		"mma3_int8": 55, "mma3_int4": 60, "mma3_b1": 18, "mma3_fp8": 32, "mma3_fp8h": 56, "mma3_f16": 8,
		"mma3_m884": 30, "mma3_sp": 128, "mma3_spi": 64, "mma3_spf8": 14, "mma3_wmma_f16": 72,
		"mma3_wmma_bf16": 30, "mma3_wmma_tf32": 10, "mma3_wmma_f64": 23, "mma3_wmma_int8": 60, "mma3_wmma_sub": 22, "mma3_wmma_x": 86,
	}
	require.Equal(t, want, forms)
	fams := make([]string, 0, len(elems))
	for f := range elems {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	for _, f := range fams {
		t.Logf("%-16s %3d forms, %6d elements bit-exact", f, forms[f], elems[f])
	}
	t.Logf("%d elements bit-exact", total)
}
