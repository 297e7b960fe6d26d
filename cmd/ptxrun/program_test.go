package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	progPageable = "../../kernels/programs/copy_pageable.json"
	progPinned   = "../../kernels/programs/copy_pinned.json"
	progManaged  = "../../testdata/host/cases/managed_1M/spec.json"
)

// smallPageable writes progPageable at 1 MiB (its kernel over 1,024
// blocks, not 16,384) into dir and returns its path: a tenth of the CPU
// time in timing mode (0.3 against 2.6 s); TestCompareAndReportPrograms
// runs the bundled program itself where it compares it with the pinned one.
func smallPageable(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(progPageable)
	require.NoError(t, err)
	mod, err := filepath.Abs(filepath.Join(filepath.Dir(progPageable), "hostmem.ptx"))
	require.NoError(t, err)
	js, err := json.Marshal(mod)
	require.NoError(t, err)
	s := string(data)
	for _, r := range [][2]string{{"4194304", "262144"}, {"16384", "1024"}, {`"hostmem.ptx"`, string(js)}} {
		require.Contains(t, s, r[0])
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	path := filepath.Join(dir, "copy_pageable_1M.json")
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	return path
}

// ptxrun run of a program prints its steps and where the time goes, and
// --metrics holds each step with its time.
func TestRunProgram(t *testing.T) {
	m := filepath.Join(t.TempDir(), "m.json")
	out := filepath.Join(t.TempDir(), "out")
	r := ptxrun(t, "run", smallPageable(t, t.TempDir()), "--mode", "timing", "--metrics", m, "--out", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, s := range []string{"3 steps", "copy x to device (pageable)", "launch scale", "copy x to host (pageable)", "total", "by kind  pageable copies 96%",
		"from pinned memory (cudaMallocHost) they would take"} {
		assert.Contains(t, r.stdout, s)
	}
	assert.FileExists(t, filepath.Join(out, "x.bin"))
	data, err := os.ReadFile(m)
	require.NoError(t, err)
	var f programFile
	require.NoError(t, json.Unmarshal(data, &f))
	require.Len(t, f.Steps, 3)
	assert.True(t, f.Timed)
	assert.Equal(t, "copy", f.Steps[0].Kind)
	assert.Equal(t, "launch", f.Steps[1].Kind)
	assert.Equal(t, "sms", f.Steps[1].Engine)
	assert.NotEmpty(t, f.Steps[1].Metrics["gpu__time_duration.sum"])
	assert.InDelta(t, f.TimeUS, f.Steps[0].TimeUS+f.Steps[1].TimeUS+f.Steps[2].TimeUS, 1e-6)
	assert.NotEmpty(t, f.Diagnosis)

	// Managed memory: the faults and the migrated bytes are in the table;
	// functional mode times the copies only and says so.
	r = ptxrun(t, "run", progManaged, "--mode", "timing")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "managed faults: 1, 1.0 MiB migrated")
	assert.Contains(t, r.stdout, "host reads m (managed)")
	r = ptxrun(t, "run", progManaged)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "kernels are timed in timing mode")

	// A single launch's flags are refused for a program.
	r = ptxrun(t, "run", progPageable, "--sample", "skip", "--mode", "timing")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "-sample is for a single launch")
}

// compare sets two programs side by side; a program and a launch cannot be
// compared; report draws a program's timeline.
func TestCompareAndReportPrograms(t *testing.T) {
	r := ptxrun(t, "compare", progPageable, progPinned, "--mode", "timing")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(r.stdout, "\n")
	var total string
	for _, l := range lines {
		if strings.HasPrefix(l, "total") {
			total = l
		}
	}
	assert.Contains(t, total, "0.18", "pinned takes 0.18 of pageable's time (the pageable copy in after a copy out runs cold)")
	assert.Contains(t, r.stdout, "copy x to device (pinned)")
	// The JSON of a program beside a launch: the program at 1 MiB (0.15
	// against 0.95 s of CPU at 16 MiB, run functionally).
	r = ptxrun(t, "compare", smallPageable(t, t.TempDir()), "../../testdata/host/cases/read_mapped_coalesced_1M/spec.json", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var both struct{ A, B programFile }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &both))
	assert.Len(t, both.B.Steps, 1)
	r = ptxrun(t, "compare", progPageable, "../../kernels/ptx/matmul.ptx")
	assert.Equal(t, exitUsage, r.code)
	html := filepath.Join(t.TempDir(), "p.html")
	r = ptxrun(t, "report", progManaged, "--mode", "timing", "-o", html)
	require.Equal(t, exitOK, r.code, r.stderr)
	b, err := os.ReadFile(html)
	require.NoError(t, err)
	for _, s := range []string{`<svg class="timeline"`, "copy engines", "prefetch m to device", "host reads m (managed)", "migrates it during the kernel"} {
		assert.True(t, strings.Contains(string(b), s), "the page has %q", s)
	}
	assert.NotContains(t, string(b), "http://", "no network")
}
