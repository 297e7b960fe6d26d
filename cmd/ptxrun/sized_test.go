package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The tensor-core multiply has no bounds checks: a size that is not a
// multiple of its 64 is rounded up, and the command says so; other
// bundled kernels run at the size asked, silently.
func TestBundledSizeRounded(t *testing.T) {
	r := ptxrun(t, "run", "matmul_wmma", "--size", "100")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "ptxrun run: matmul_wmma runs at 128×128, not 100×100: it needs a multiple of 64")
	assert.Contains(t, r.stdout, "grid (2,2,1)")
	r = ptxrun(t, "run", "matmul_tiled", "--size", "100")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "runs at")
}
