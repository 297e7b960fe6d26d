package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyCase copies case (e.g. "sgemv/O3") of the nvcc corpus, with the
// module and input files its spec names, into root under the same relative
// paths as in testdata/nvcc, and returns the case folder.
func copyCase(t *testing.T, root, name string) string {
	t.Helper()
	src := filepath.Join(casesDir, filepath.FromSlash(name))
	data, err := os.ReadFile(filepath.Join(src, "spec.json"))
	require.NoError(t, err)
	var s struct {
		Module  string `json:"module"`
		Buffers []struct {
			File string `json:"file"`
		} `json:"buffers"`
		Symbols []struct {
			File string `json:"file"`
		} `json:"symbols"`
	}
	require.NoError(t, json.Unmarshal(data, &s))
	files := []string{filepath.Join(src, "spec.json"), filepath.Join(src, s.Module)}
	for _, b := range s.Buffers {
		if b.File != "" {
			files = append(files, filepath.Join(src, b.File))
		}
	}
	for _, b := range s.Symbols {
		if b.File != "" {
			files = append(files, filepath.Join(src, b.File))
		}
	}
	expected, err := filepath.Glob(filepath.Join(src, "expected", "*"))
	require.NoError(t, err)
	files = append(files, expected...)
	for _, f := range files {
		rel, err := filepath.Rel(nvccDir, f)
		require.NoError(t, err)
		require.False(t, strings.HasPrefix(rel, ".."), "%s is outside testdata/nvcc", f)
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		dst := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
	return filepath.Join(root, "cases", filepath.FromSlash(name))
}

// alter rewrites element i of a little-endian 4-byte buffer file.
func alter(t *testing.T, path string, i int, f func(uint32) uint32) (old, new uint32) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Greater(t, len(b), 4*i+3)
	old = binary.LittleEndian.Uint32(b[4*i:])
	new = f(old)
	binary.LittleEndian.PutUint32(b[4*i:], new)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return old, new
}

func TestTestPasses(t *testing.T) {
	root := t.TempDir()
	copyCase(t, root, "collatz/O3")
	copyCase(t, root, "sgemv/O3")
	cases := filepath.Join(root, "cases")

	r := ptxrun(t, "test", cases)
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "2 cases: 2 passed, 0 failed, 0 errors")
	assert.NotContains(t, r.stdout, "PASS", "passing cases are listed only with -v")
	assert.Empty(t, r.stderr)

	r = ptxrun(t, "test", "-v", cases, "--workers", "1")
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "PASS  cases/collatz/O3")
	assert.Contains(t, r.stdout, "PASS  cases/sgemv/O3")

	// A case folder itself, and several roots.
	r = ptxrun(t, "test", filepath.Join(cases, "sgemv", "O3"), filepath.Join(cases, "collatz"))
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "2 cases: 2 passed")
}

func TestTestIntegerMismatch(t *testing.T) {
	dir := copyCase(t, t.TempDir(), "collatz/O3")
	old, _ := alter(t, filepath.Join(dir, "expected", "steps.bin"), 7, func(v uint32) uint32 { return v + 3 })

	r := ptxrun(t, "test", dir)
	require.Equal(t, exitFail, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "FAIL  O3")
	assert.Contains(t, r.stdout, "steps (u32): 1 of 1024 elements differ")
	assert.Contains(t, r.stdout, fmt.Sprintf("[7] got %d, want %d\n", old, old+3), "index, got, want")
	assert.NotContains(t, r.stdout, "ulp", "integers have no ULP distance")
	assert.NotContains(t, r.stdout, "peak", "the output that matches is not listed")
	assert.Contains(t, r.stdout, "1 cases: 0 passed, 1 failed, 0 errors")

	// --ulp is for floats only.
	r = ptxrun(t, "test", dir, "--ulp", "1000")
	assert.Equal(t, exitFail, r.code)
}

func TestTestFloatMismatch(t *testing.T) {
	dir := copyCase(t, t.TempDir(), "sgemv/O3")
	file := filepath.Join(dir, "expected", "y.bin")
	old, new := alter(t, file, 5, func(v uint32) uint32 { return v + 1 }) // 1 ulp

	r := ptxrun(t, "test", dir)
	require.Equal(t, exitFail, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "y (f32): 1 of 256 elements differ")
	f := func(v uint32) string { return fmt.Sprintf("(0x%08x)", v) }
	assert.Regexp(t, `\[5\] got \S+ `+regexp.QuoteMeta(f(old))+`, want \S+ `+regexp.QuoteMeta(f(new))+` \(1 ulp\)`, r.stdout)
	assert.Contains(t, r.stdout, fmt.Sprint(math.Float32frombits(old))[:6], "the values are printed as numbers too")

	for _, tc := range []struct {
		ulp  string
		code int
	}{{"0", exitFail}, {"1", exitOK}, {"2", exitOK}} {
		r := ptxrun(t, "test", dir, "--ulp", tc.ulp)
		assert.Equal(t, tc.code, r.code, "--ulp %s: %s", tc.ulp, r.stdout)
	}

	// Two ulp off is outside --ulp 1.
	alter(t, file, 5, func(v uint32) uint32 { return v + 1 })
	r = ptxrun(t, "test", dir, "--ulp", "1")
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stdout, "(2 ulp)")
}

// testReport is the JSON of `ptxrun test --json`.
type testReport struct {
	Results []struct {
		Name    string `json:"name"`
		Status  string `json:"status"`
		Error   string `json:"error"`
		Outputs []struct {
			Name     string
			Type     string
			Elements int
			Differ   int
			First    []struct {
				Index     int
				Got, Want string
				ULP       uint64
			}
		} `json:"outputs"`
		Inst uint64 `json:"warp_instructions"`
	} `json:"results"`
	Summary struct{ Pass, Fail, Error int } `json:"summary"`
}

func TestTestJSON(t *testing.T) {
	root := t.TempDir()
	copyCase(t, root, "collatz/O3")
	bad := copyCase(t, root, "sgemv/O3")
	alter(t, filepath.Join(bad, "expected", "y.bin"), 200, func(v uint32) uint32 { return v ^ 0x80000000 })

	r := ptxrun(t, "test", filepath.Join(root, "cases"), "--json")
	require.Equal(t, exitFail, r.code, r.stderr)
	var rep testReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	assert.Equal(t, 1, rep.Summary.Pass)
	assert.Equal(t, 1, rep.Summary.Fail)
	require.Len(t, rep.Results, 2)
	assert.Equal(t, "cases/collatz/O3", rep.Results[0].Name)
	assert.Equal(t, "pass", rep.Results[0].Status)
	assert.Positive(t, rep.Results[0].Inst)
	f := rep.Results[1]
	assert.Equal(t, "cases/sgemv/O3", f.Name)
	assert.Equal(t, "fail", f.Status)
	require.Len(t, f.Outputs, 1)
	assert.Equal(t, 1, f.Outputs[0].Differ)
	require.Len(t, f.Outputs[0].First, 1)
	assert.Equal(t, 200, f.Outputs[0].First[0].Index)

	// All passing: exit 0, valid JSON.
	require.NoError(t, os.RemoveAll(filepath.Join(root, "cases", "sgemv")))
	r = ptxrun(t, "test", filepath.Join(root, "cases"), "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	assert.Equal(t, 1, rep.Summary.Pass)
}

func TestTestCaseErrors(t *testing.T) {
	root := t.TempDir()

	// An expected file of the wrong size.
	short := copyCase(t, root, "sgemv/O3")
	require.NoError(t, os.Truncate(filepath.Join(short, "expected", "y.bin"), 100))
	// A missing expected file.
	missing := copyCase(t, root, "collatz/O3")
	require.NoError(t, os.Remove(filepath.Join(missing, "expected", "peak.bin")))
	// A spec that does not load.
	broken := filepath.Join(root, "cases", "broken")
	require.NoError(t, os.MkdirAll(filepath.Join(broken, "expected"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(broken, "spec.json"), []byte("{"), 0o644))
	// A kernel that faults.
	fault := filepath.Join(root, "cases", "fault")
	require.NoError(t, os.MkdirAll(filepath.Join(fault, "expected"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(fault, "k.ptx"), []byte(fixturePTX), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(fault, "spec.json"), []byte(storeSpec(10, 64)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(fault, "expected", "out.bin"), make([]byte, 256), 0o644))
	// A kernel that never ends.
	spin := filepath.Join(root, "cases", "spin")
	require.NoError(t, os.MkdirAll(filepath.Join(spin, "expected"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(spin, "k.ptx"), []byte(fixturePTX), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(spin, "spec.json"), []byte(sp(map[string]any{"kernel": "spin", "args": []any{map[string]any{"buffer": "out"}}})), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(spin, "expected", "out.bin"), make([]byte, 256), 0o644))

	r := ptxrun(t, "test", filepath.Join(root, "cases"), "--max-inst", "100000")
	require.Equal(t, exitFail, r.code, r.stderr)
	out := r.stdout
	assert.Contains(t, out, "y: got 1024 bytes, want 100")
	assert.Contains(t, out, "ERROR cases/collatz/O3: expected/peak.bin is missing")
	assert.Contains(t, out, "ERROR cases/broken: ")
	assert.Contains(t, out, "ERROR cases/fault: ")
	assert.Contains(t, out, "thread (54,0,0)")
	assert.Contains(t, out, "ERROR cases/spin: kernel spin: instruction budget exhausted")
	assert.Contains(t, out, "5 cases: 0 passed, 1 failed, 4 errors")
}

func TestTestInterrupted(t *testing.T) {
	dir := copyCase(t, t.TempDir(), "collatz/O3")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := ptxrunCtx(t, ctx, "test", dir)
	assert.Equal(t, exitInterrupted, r.code, "an interrupted run has not passed")
	assert.Contains(t, r.stderr, "ptxrun: interrupted")
	assert.Contains(t, r.stdout, "ERROR O3: ")
	assert.Contains(t, r.stdout, "canceled")
}
