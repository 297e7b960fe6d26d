package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateSanitize = flag.Bool("update-sanitize", false, "rewrite testdata/sanitize/golden/cli/*.txt from ptxrun sanitize's output")

const sanitizeDir = "../../testdata/sanitize"

// addrs hides device addresses, which depend on the allocator.
var addrs = regexp.MustCompile(`0x[0-9a-f]{5,}`)

// TestSanitizeText holds ptxrun sanitize's text report of one planted bug
// per tool to a golden file (-update-sanitize), and its exit status.
func TestSanitizeText(t *testing.T) {
	for _, tt := range []struct{ spec, tool string }{
		{"race_war.O3", "racecheck"},
		{"race_raw_nosync.O3", "racecheck"},
		{"race_reduce_nosync.G", "racecheck"},
		{"init_odd_half.O3", "initcheck"},
		{"sync_divergent_warp.O3", "synccheck"},
		{"sync_syncwarp_self.O3", "synccheck"},
		{"mem_global_read_past.O3", "memcheck"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			r := ptxrun(t, "sanitize", filepath.Join(sanitizeDir, "specs", tt.spec+".json"), "--tool", tt.tool)
			got := addrs.ReplaceAllString(r.stdout, "0xADDR")
			golden := filepath.Join(sanitizeDir, "golden", "cli", tt.spec+"."+tt.tool+".txt")
			if *updateSanitize {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test -update-sanitize writes it")
			assert.Equal(t, string(want), got)
			if regexp.MustCompile(`ERROR SUMMARY: 0 errors`).MatchString(got) {
				assert.Equal(t, exitOK, r.code, r.stderr)
			} else {
				assert.Equal(t, exitFail, r.code, r.stderr)
			}
		})
	}
}

// TestSanitizeJSONAndQuick: --json prints one object with tool, errors and
// findings; a quick launch of a PTX file works as a spec does (a buffer
// given no contents is unwritten), and a clean kernel exits 0.
func TestSanitizeJSONAndQuick(t *testing.T) {
	ptxFile := filepath.Join(sanitizeDir, "ptx", "init.O3.ptx")
	r := ptxrun(t, "sanitize", ptxFile, "--kernel", "init_read_input", "--grid", "1", "--block", "64",
		"--arg", "out=f32[64]", "--arg", "in=f32[64]", "--tool", "initcheck", "--json")
	require.Equal(t, exitFail, r.code, r.stderr)
	var rep struct {
		Tool     string `json:"tool"`
		Errors   int    `json:"errors"`
		Findings []struct {
			Tool     string   `json:"tool"`
			Kind     string   `json:"kind"`
			Severity string   `json:"severity"`
			Lines    []string `json:"lines"`
			Count    int      `json:"count"`
		} `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	assert.Equal(t, "initcheck", rep.Tool)
	assert.Equal(t, 1, rep.Errors)
	require.Len(t, rep.Findings, 1)
	assert.Equal(t, []string{"init.cu:10"}, rep.Findings[0].Lines)
	assert.Equal(t, 64, rep.Findings[0].Count)

	r = ptxrun(t, "sanitize", ptxFile, "--kernel", "init_read_input", "--grid", "1", "--block", "64",
		"--arg", "out=f32[64]", "--arg", "in=f32[64]:1", "--tool", "all")
	assert.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "ERROR SUMMARY: 0 errors")

	r = ptxrun(t, "sanitize", "matmul_tiled", "--size", "64", "--tool", "racecheck,synccheck")
	assert.Equal(t, exitOK, r.code, r.stdout+r.stderr)

	r = ptxrun(t, "sanitize", filepath.Join(sanitizeDir, "specs", "race_war.O3.json"), "--tool", "leakcheck")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `unknown tool "leakcheck"`)
}

// TestTestSanitize: ptxrun test --sanitize runs each case folder's spec
// under the tool and fails the cases that report errors.
func TestTestSanitize(t *testing.T) {
	r := ptxrun(t, "test", "--sanitize", "racecheck,synccheck,memcheck", filepath.Join(casesDir, "matmul_tiled"), filepath.Join(casesDir, "transpose_shared"))
	assert.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "4 cases under memcheck,racecheck,synccheck: 4 clean")

	// A case folder whose spec races: copy a planted spec into one.
	dir := t.TempDir()
	c := filepath.Join(dir, "race")
	require.NoError(t, os.MkdirAll(filepath.Join(c, "expected"), 0o755))
	data, err := os.ReadFile(filepath.Join(sanitizeDir, "specs", "race_raw_nosync.O3.json"))
	require.NoError(t, err)
	abs, err := filepath.Abs(filepath.Join(sanitizeDir, "ptx", "race.O3.ptx"))
	require.NoError(t, err)
	data = regexp.MustCompile(`"module": "[^"]*"`).ReplaceAll(data, []byte(`"module": "`+abs+`"`))
	require.NoError(t, os.WriteFile(filepath.Join(c, "spec.json"), data, 0o644))
	r = ptxrun(t, "test", "--sanitize", "racecheck", dir)
	assert.Equal(t, exitFail, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `FAIL  \S*race: 1 errors\n +racecheck error RAW x256 at race.cu:9, race.cu:12`, r.stdout)
}
