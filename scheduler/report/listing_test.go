package report_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
)

// TestListing: the listing holds the kernel's PTX from its .entry to its
// closing brace, every instruction once, each memory instruction of the
// report on its line with the same CUDA line, and no .loc directives.
func TestListing(t *testing.T) {
	r := build(t, "nvcc", "matmul_tiled", scheduler.H100)
	require.NotEmpty(t, r.Listing)
	first, last := r.Listing[0], r.Listing[len(r.Listing)-1]
	assert.Contains(t, first.Text, "_Z12matmul_tiledPfPKfS1_j")
	assert.Equal(t, "_Z12matmul_tiledPfPKfS1_j", first.Func)
	assert.Equal(t, "}", last.Text)
	seen := map[int32]bool{}
	for i, ln := range r.Listing {
		if i > 0 {
			assert.Greater(t, ln.Line, r.Listing[i-1].Line)
		}
		assert.False(t, strings.HasPrefix(ln.Text, ".loc"), ln.Text)
		assert.NotEmpty(t, ln.Text)
		for _, id := range ln.Insts {
			assert.False(t, seen[id])
			seen[id] = true
			if in := r.Inst(id); in != nil {
				assert.Equal(t, in.CUDA, ln.CUDA)
				assert.Equal(t, in.PTX, ln.Text)
			}
		}
	}
	for _, in := range r.Insts {
		assert.True(t, seen[in.ID], "memory instruction %d (%s) is in the listing", in.ID, in.PTX)
	}
	require.Len(t, r.CUDAFiles, 1)
	assert.True(t, strings.HasSuffix(r.CUDAFiles[0], "matmul.cu"), r.CUDAFiles[0])
	assert.True(t, strings.HasSuffix(r.Module, "matmul.O3.ptx"), r.Module)
}
