package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Timing mode gives the same bytes whatever the number of host workers:
// outputs, every counter and the cycles (--metrics), and the timeline
// (--trace). The cases have no blocks that race with each other.
func TestTimingWorkersIdentical(t *testing.T) {
	for _, c := range []string{"matmul_tiled/O3", "transpose_shared/G", "hist_shared_atomic/O3", "warp_reduce_shfl/O3", "tex2d_clamp_linear/O3", "scan_blelloch/O3"} {
		t.Run(c, func(t *testing.T) {
			sp := filepath.Join(casesDir, filepath.FromSlash(c), "spec.json")
			dir := t.TempDir()
			files := func(w string) []string {
				return []string{filepath.Join(dir, "m"+w+".json"), filepath.Join(dir, "t"+w+".json"), filepath.Join(dir, "out"+w)}
			}
			for _, w := range []string{"1", "2"} {
				f := files(w)
				r := ptxrun(t, "run", sp, "--mode", "timing", "--workers", w, "--metrics", f[0], "--trace", f[1], "--out", f[2])
				require.Equal(t, exitOK, r.code, r.stderr)
				assert.Contains(t, r.stdout, "timing mode")
				assert.Contains(t, r.stdout, "where the stall cycles went")
			}
			one, two := files("1"), files("2")
			for i := 0; i < 2; i++ {
				a, err := os.ReadFile(one[i])
				require.NoError(t, err)
				b, err := os.ReadFile(two[i])
				require.NoError(t, err)
				assert.Equal(t, string(a), string(b), "%s differs between --workers 1 and 2", filepath.Base(one[i]))
				if i == 0 {
					assert.Contains(t, string(a), `"sm__cycles_elapsed.max"`)
					assert.Contains(t, string(a), `"mode": "timing"`)
				}
			}
			outs, err := filepath.Glob(filepath.Join(one[2], "*"))
			require.NoError(t, err)
			require.NotEmpty(t, outs)
			for _, o := range outs {
				a, _ := os.ReadFile(o)
				b, _ := os.ReadFile(filepath.Join(two[2], filepath.Base(o)))
				assert.Equal(t, a, b, "output %s", filepath.Base(o))
			}
		})
	}
}

// --mode timing on the tiled and naive matmul names the stall reasons the
// GPU shows for them: the naive one waits on global loads, the tiled one
// on global loads, shared-memory loads and barriers.
func TestTimingReportMatmul(t *testing.T) {
	naive := ptxrun(t, "run", filepath.Join(casesDir, "matmul_naive", "O3", "spec.json"), "--mode", "timing")
	require.Equal(t, exitOK, naive.code, naive.stderr)
	lines := strings.Split(naive.stdout, "\n")
	first := ""
	for i, l := range lines {
		if strings.HasPrefix(l, "where the stall cycles went") && i+1 < len(lines) {
			first = lines[i+1]
		}
	}
	assert.Contains(t, first, "warps wait on global loads at matmul.cu:", "the naive multiply's largest stall")
	tiled := ptxrun(t, "run", filepath.Join(casesDir, "matmul_tiled", "O3", "spec.json"), "--mode", "timing")
	require.Equal(t, exitOK, tiled.code, tiled.stderr)
	for _, want := range []string{"warps wait on global loads at matmul.cu:", "warps wait on shared-memory loads at matmul.cu:", "warps wait at the barrier at matmul.cu:"} {
		assert.Contains(t, tiled.stdout, want)
	}
}

func TestTimingFlags(t *testing.T) {
	sp := filepath.Join(casesDir, "matmul_tiled", "O3", "spec.json")
	r := ptxrun(t, "run", sp, "--mode", "cycles")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `unknown mode "cycles"`)
	r = ptxrun(t, "run", sp, "--trace", filepath.Join(t.TempDir(), "t.json"))
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "--trace needs --mode timing")
	r = ptxrun(t, "test", filepath.Join(casesDir, "matmul_tiled"), "--mode", "timing")
	assert.Equal(t, exitOK, r.code, r.stdout+r.stderr)
}
