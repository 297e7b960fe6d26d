package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCases are small cases of the nvcc corpus run in place; the spec's
// outputs must come out as the GPU's expected/ files.
var runCases = []string{
	"collatz/O3",           // two outputs, 8 blocks
	"nested_divergence/G",  // divergence at -G
	"sgemv/O3",             // f32
	"device_globals/O3",    // module symbols
	"tex2d_clamp_point/O3", // a texture object
	"recursion/O3",         // calls, local frames
}

func TestRunOutputs(t *testing.T) {
	for _, c := range runCases {
		t.Run(c, func(t *testing.T) {
			caseDir := filepath.Join(casesDir, filepath.FromSlash(c))
			sp := filepath.Join(caseDir, "spec.json")
			out := filepath.Join(t.TempDir(), "out") // created by ptxrun
			r := ptxrun(t, "run", sp, "--out", out)
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Empty(t, r.stderr)
			assert.Regexp(t, `kernel\s+\w+\(.*\)  \(_Z\w+\)\n`, r.stdout, "the signature and the mangled name")
			assert.Regexp(t, `setup\s+\d`, r.stdout)
			assert.Regexp(t, `warp instructions\s+[1-9]\d*`, r.stdout)
			expected, err := filepath.Glob(filepath.Join(caseDir, "expected", "*.bin"))
			require.NoError(t, err)
			require.NotEmpty(t, expected)
			written, err := filepath.Glob(filepath.Join(out, "*"))
			require.NoError(t, err)
			assert.Len(t, written, len(expected), "one file per output, nothing else")
			for _, e := range expected {
				name := filepath.Base(e)
				want, err := os.ReadFile(e)
				require.NoError(t, err)
				got, err := os.ReadFile(filepath.Join(out, name))
				require.NoError(t, err, "output %s", name)
				assert.True(t, bytes.Equal(got, want), "%s differs from the GPU's output", name)
				assert.Regexp(t, `output `+strings.TrimSuffix(name, ".bin")+`\s+`+regexp.QuoteMeta(filepath.Join(out, name)), r.stdout)
			}
		})
	}
}

func TestRunWorkersSameBytes(t *testing.T) {
	sp := filepath.Join(casesDir, "collatz", "O3", "spec.json")
	var outs [][]byte
	for _, w := range []string{"1", "4"} {
		dir := t.TempDir()
		r := ptxrun(t, "run", sp, "--workers", w, "--out", dir)
		require.Equal(t, exitOK, r.code, r.stderr)
		var all []byte
		for _, o := range []string{"steps", "peak"} {
			b, err := os.ReadFile(filepath.Join(dir, o+".bin"))
			require.NoError(t, err)
			all = append(all, b...)
		}
		outs = append(outs, all)
	}
	assert.True(t, bytes.Equal(outs[0], outs[1]), "--workers 1 and --workers 4 write different bytes")
}

type runSummary struct {
	Kernel  string             `json:"kernel"`
	GPU     string             `json:"gpu"`
	Mode    string             `json:"mode"`
	Metrics map[string]float64 `json:"metrics"`
	Outputs map[string]string  `json:"outputs"`
	Seconds float64            `json:"seconds"`
}

func TestRunJSONAndMetrics(t *testing.T) {
	sp := filepath.Join(casesDir, "collatz", "O3", "spec.json")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	metrics := filepath.Join(dir, "m.json")
	r := ptxrun(t, "run", sp, "--json", "--out", out, "--metrics", metrics)
	require.Equal(t, exitOK, r.code, r.stderr)

	var s runSummary
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), r.stdout)
	assert.Equal(t, "_Z7collatzPjS_PKjj", s.Kernel)
	assert.Equal(t, "H100", s.GPU)
	assert.Equal(t, "functional", s.Mode)
	assert.Equal(t, map[string]string{"steps": filepath.Join(out, "steps.bin"), "peak": filepath.Join(out, "peak.bin")}, s.Outputs)
	assert.GreaterOrEqual(t, s.Seconds, 0.0)
	checkMetrics := func(m map[string]float64) {
		assert.EqualValues(t, 8, m["launch__grid_size"])
		assert.EqualValues(t, 128, m["launch__block_size"])
		assert.EqualValues(t, 0, m["launch__shared_mem_per_block_dynamic"])
		assert.Positive(t, m["ptxvm__ptx_inst_executed.sum"])
		assert.GreaterOrEqual(t, m["ptxvm__ptx_thread_inst_executed.sum"], m["ptxvm__ptx_inst_executed.sum"])
		assert.LessOrEqual(t, m["ptxvm__ptx_thread_inst_executed.sum"], 32*m["ptxvm__ptx_inst_executed.sum"])
	}
	checkMetrics(s.Metrics)

	// --metrics FILE: the shape docs/launch-spec.md gives.
	data, err := os.ReadFile(metrics)
	require.NoError(t, err)
	var mf map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &mf))
	assert.ElementsMatch(t, []string{"kernel", "gpu", "mode", "metrics"}, keys(mf))
	var m runSummary
	require.NoError(t, json.Unmarshal(data, &m))
	assert.Equal(t, s.Kernel, m.Kernel)
	assert.Equal(t, s.Metrics, m.Metrics, "the file and the summary report the same counters")
	checkMetrics(m.Metrics)

	// The counters do not depend on the host.
	r2 := ptxrun(t, "run", sp, "--json", "--workers", "1")
	require.Equal(t, exitOK, r2.code, r2.stderr)
	var s2 runSummary
	require.NoError(t, json.Unmarshal([]byte(r2.stdout), &s2))
	assert.Equal(t, s.Metrics, s2.Metrics)
	assert.Empty(t, s2.Outputs, "no --out, nothing written")

	// The gf100 profile cannot run sm_90 PTX; asked to, it runs the same
	// kernel to the same counters.
	r3 := ptxrun(t, "run", sp, "--json", "--gpu", "gf100")
	require.Equal(t, exitUsage, r3.code)
	assert.Contains(t, r3.stderr, "the module targets sm_90; the GF100 (compute capability 2.0) cannot run it: sm_90 code needs compute capability 9.0 or later")
	assert.Contains(t, r3.stderr, "--any-target")
	r3 = ptxrun(t, "run", sp, "--json", "--gpu", "gf100", "--any-target")
	require.Equal(t, exitOK, r3.code, r3.stderr)
	var s3 runSummary
	require.NoError(t, json.Unmarshal([]byte(r3.stdout), &s3))
	assert.NotEqual(t, s.GPU, s3.GPU)
	assert.Equal(t, s.Metrics["ptxvm__ptx_inst_executed.sum"], s3.Metrics["ptxvm__ptx_inst_executed.sum"])
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestRunSpecRelativeToSpec: paths in a spec are relative to the spec file,
// not to the working folder.
func TestRunSpecRelativeToSpec(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"sub/k.ptx":     fixturePTX,
		"sub/spec.json": storeSpec(0, 64),
	})
	out := filepath.Join(dir, "out")
	r := ptxrun(t, "run", filepath.Join(dir, "sub", "spec.json"), "--out", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	got, err := os.ReadFile(filepath.Join(out, "out.bin"))
	require.NoError(t, err)
	require.Len(t, got, 64*4)
	for i := 0; i < 64; i++ {
		assert.Equal(t, []byte{byte(i), 0, 0, 0}, got[4*i:4*i+4], "element %d: each thread stores its index", i)
	}
}

func TestRunInterrupted(t *testing.T) {
	sp := filepath.Join(casesDir, "collatz", "O3", "spec.json")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := ptxrunCtx(t, ctx, "run", sp)
	assert.Equal(t, exitInterrupted, r.code, "Ctrl-C exits 130")
	assert.Equal(t, "ptxrun: interrupted\n", r.stderr)
	assert.Empty(t, r.stdout)
}
