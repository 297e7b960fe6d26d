package suite_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/suite"
)

// TestIssue24Mma2Vectors runs the tensor-core vectors recorded on the GPU
// for the other mma types and wmma (testdata/conformance/issue24/
// mma_vectors2, made by testdata/conformance/gen/forms_mma2.py: 83 forms,
// 32 warps each) through the VM, bit for bit with no tolerance, every form
// and every element (docs/semantics.md, "Tensor cores").
func TestIssue24Mma2Vectors(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/conformance/issue24/mma_vectors2/cases"
	results := runCorpus(t, root)
	require.Len(t, results, 83)
	per := map[string]int{}
	total := 0
	for _, r := range results {
		checkExact(t, []*suite.Result{r})
		require.Equal(t, suite.Pass, r.Status, r.Name)
		for _, c := range r.Outputs {
			require.Zero(t, c.Differ, r.Name)
			total += c.Elements
			name := r.Name[strings.LastIndex(r.Name, "/")+1:]
			per[name[:strings.LastIndex(name, "_")]] += c.Elements
		}
	}
	for _, c := range []struct {
		form  string
		elems int
	}{
		{"mma2_m16n8k8_f32_f16", 7 * 4096},
		{"mma2_m16n8k16_f16_f16", 7 * 2048}, // words of two f16
		{"mma2_m16n8k16_f32_bf16", 7 * 4096},
		{"mma2_m16n8k8_f32_bf16", 7 * 4096},
		{"mma2_m16n8k8_f32_tf32", 7 * 4096},
		{"mma2_m16n8k4_f32_tf32", 7 * 4096},
		{"mma2_m8n8k4_f64", 7 * 2048},
		{"mma2_m16n8k32_s32_s8", 3 * 4096},
		{"mma2_m16n8k32_s32_s8_satfinite", 3 * 4096},
		{"wmma_m16n16k16_f32_f16_row_col_row", 6*8192 + 24*1024}, // six arithmetic forms and the raw fragments
		{"wmma_m16n16k16_f32_f16_col_row_col", 6*8192 + 24*1024},
		{"wmma_m16n16k16_f32_f16_row_row_row", 6*8192 + 24*1024},
		{"wmma_m16n16k16_f32_f16_col_col_col", 6*8192 + 24*1024},
	} {
		require.Equal(t, c.elems, per[c.form], c.form)
	}
	t.Logf("%d elements bit-exact", total)
}
