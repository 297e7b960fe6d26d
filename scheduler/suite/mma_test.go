package suite_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/suite"
)

// TestIssue24MmaVectors runs the tensor-core vectors recorded on the GPU for
// issue 24 (testdata/conformance/issue24/mma_vectors: seven forms of
// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, 64 warps each, made
// by testdata/conformance/gen/forms_issue24.py) through the VM, bit for
// bit with no tolerance: 57,344 elements, every one matched by the learned
// arithmetic (fpu.DotF16F32; docs/semantics.md, "Tensor cores").
func TestIssue24MmaVectors(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/conformance/issue24/mma_vectors/cases"
	results := runCorpus(t, root)
	require.Len(t, results, 7)
	checkExact(t, results)
	elems := 0
	for _, r := range results {
		require.Equal(t, suite.Pass, r.Status, r.Name)
		for _, c := range r.Outputs {
			require.Zero(t, c.Differ, r.Name)
			elems += c.Elements
		}
	}
	require.Equal(t, 7*8192, elems)
	t.Logf("%d of %d mma elements bit-exact", elems, elems)
}
