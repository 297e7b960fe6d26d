package sanitize_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/sanitize"
	"github.com/ptxvm/ptxvm/vm/spec"
)

var update = flag.Bool("update", false, "rewrite testdata/sanitize/golden/ from what the sanitizer reports")

const corpus = "../../testdata/sanitize"

// plantedCase is one entry of testdata/sanitize/cases.json.
type plantedCase struct {
	Case   string `json:"case"`
	File   string `json:"file"`
	Tool   string `json:"tool"`
	Plants string `json:"plants"`
}

func loadCases(t *testing.T) ([]plantedCase, []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus, "cases.json"))
	require.NoError(t, err)
	var idx struct {
		Cases    []plantedCase `json:"cases"`
		Controls []string      `json:"controls"`
	}
	require.NoError(t, json.Unmarshal(data, &idx))
	return idx.Cases, idx.Controls
}

// sanitizeSpec prepares the spec at path and runs it under tools.
func sanitizeSpec(t *testing.T, path string, tools sanitize.Tool, shared bool) *sanitize.Report {
	t.Helper()
	sp, err := spec.Load(path)
	require.NoError(t, err)
	dev := vm.NewDevice()
	defer dev.Mem.FreeAll()
	p, err := sp.Prepare(dev, nil)
	require.NoError(t, err)
	var uninit []*memspace.Allocation
	for _, b := range sp.Buffers {
		if b.File == "" && b.Fill == nil {
			uninit = append(uninit, dev.Mem.Find(p.Buffers[b.Name], 1))
		}
	}
	rep, err := sanitize.Run(context.Background(), p.Launch, sanitize.Options{Tools: tools, Mem: dev.Mem, Uninit: uninit, Shared: shared})
	require.NoError(t, err)
	return rep
}

// summary is what the golden files hold of a finding: what a reader of
// compute-sanitizer's report compares.
type summary struct {
	Tool     string   `json:"tool"`
	Kind     string   `json:"kind"`
	Severity string   `json:"severity"`
	Lines    []string `json:"lines"`
	Count    int      `json:"count"`
}

func summarize(rep *sanitize.Report) []summary {
	out := []summary{}
	for _, f := range rep.Findings {
		out = append(out, summary{f.Tool, f.Kind, f.Severity, f.Lines, f.Count})
	}
	return out
}

// TestPlantedBugs runs every planted bug under its tool, in both builds:
// the findings are those of the golden file (testdata/sanitize/golden/,
// -update), all of the tool's own (TestAgainstComputeSanitizer holds them
// to compute-sanitizer's). Clean kernels must report nothing under every
// tool.
func TestPlantedBugs(t *testing.T) {
	cases, _ := loadCases(t)
	for _, c := range cases {
		for _, v := range []string{"O3", "G"} {
			name := c.Case + "." + v
			t.Run(name, func(t *testing.T) {
				tools := sanitize.All
				if c.Tool != "" {
					var err error
					tools, err = sanitize.ParseTool(c.Tool)
					require.NoError(t, err)
				}
				rep := sanitizeSpec(t, filepath.Join(corpus, "specs", name+".json"), tools, false)
				if c.Tool == "" {
					assert.Zero(t, rep.Errors+rep.Warnings, "clean kernel %s (%s): %+v", name, c.Plants, summarize(rep))
					return
				}
				for _, f := range rep.Findings {
					assert.Equal(t, c.Tool, f.Tool, "%s: every finding is the tool's own", name)
				}
				got := summarize(rep)
				golden := filepath.Join(corpus, "golden", name+".json")
				if *update {
					data, _ := json.MarshalIndent(got, "", " ")
					require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
					require.NoError(t, os.WriteFile(golden, append(data, '\n'), 0o644))
					return
				}
				data, err := os.ReadFile(golden)
				require.NoError(t, err, "run go test -update to write the golden files")
				var want []summary
				require.NoError(t, json.Unmarshal(data, &want))
				assert.Equal(t, want, got)
			})
		}
	}
}

// TestPlantedLines checks, independently of the golden files, that each
// planted bug is reported at the CUDA lines its kernel marks: the -O3
// build, the first finding's lines must all lie in the kernel's source.
func TestPlantedLines(t *testing.T) {
	cases, _ := loadCases(t)
	for _, c := range cases {
		if c.Tool == "" {
			continue
		}
		t.Run(c.Case, func(t *testing.T) {
			tools, err := sanitize.ParseTool(c.Tool)
			require.NoError(t, err)
			rep := sanitizeSpec(t, filepath.Join(corpus, "specs", c.Case+".O3.json"), tools, false)
			if len(rep.Findings) == 0 {
				t.Skip("nothing reported (nor by compute-sanitizer: TestAgainstComputeSanitizer)")
			}
			lo, hi := kernelLines(t, filepath.Join(corpus, "kernels", c.File), c.Case)
			for _, l := range rep.Findings[0].Lines {
				file, line, ok := strings.Cut(l, ":")
				require.True(t, ok, l)
				assert.Equal(t, c.File, file, "finding at %s", l)
				var n int
				fmt.Sscan(line, &n)
				assert.True(t, n >= lo && n <= hi, "%s: line %d outside the kernel (%d-%d)", c.Case, n, lo, hi)
			}
		})
	}
}

// kernelLines returns the first and last line of kernel name in a .cu.
func kernelLines(t *testing.T, path, name string) (int, int) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	lo := -1
	for i, l := range lines {
		if lo < 0 && strings.Contains(l, " "+name+"(") {
			lo = i + 1
		}
		if lo > 0 && l == "}" {
			return lo, i + 1
		}
	}
	t.Fatalf("kernel %s not found in %s", name, path)
	return 0, 0
}

// TestSharedInitcheck: reads of shared memory before any write are
// reported with Options.Shared only, labelled as beyond compute-sanitizer.
func TestSharedInitcheck(t *testing.T) {
	path := filepath.Join(corpus, "specs", "init_shared_uninit.O3.json")
	assert.Zero(t, sanitizeSpec(t, path, sanitize.Initcheck, false).Errors)
	rep := sanitizeSpec(t, path, sanitize.Initcheck, true)
	require.Len(t, rep.Findings, 1)
	f := rep.Findings[0]
	assert.Equal(t, "__shared__", f.Space)
	assert.Equal(t, []string{"init.cu:60"}, f.Lines)
	assert.Equal(t, 32, f.Count, "threads 0-31 read s[63..32], never written")
	assert.Contains(t, f.Detail, "ptxvm only")
}

// TestCorpusKernelsClean: corpus kernels that use shared memory, barriers
// and warp syncs correctly (tiled matmul, transposes, reductions, scans,
// sorts...) report nothing under racecheck, synccheck and memcheck.
func TestCorpusKernelsClean(t *testing.T) {
	_, controls := loadCases(t)
	require.NotEmpty(t, controls)
	for _, c := range controls {
		t.Run(c, func(t *testing.T) {
			rep := sanitizeSpec(t, filepath.Join("../../testdata/nvcc/cases", c, "O3", "spec.json"), sanitize.Racecheck|sanitize.Synccheck|sanitize.Memcheck, false)
			assert.Zero(t, rep.Errors+rep.Warnings, "%+v", summarize(rep))
			assert.Empty(t, rep.Failure)
		})
	}
}

// TestReportFormats: the text report is compute-sanitizer's layout with
// a summary line; the JSON report carries tool, errors and findings.
func TestReportFormats(t *testing.T) {
	rep := sanitizeSpec(t, filepath.Join(corpus, "specs", "race_war.O3.json"), sanitize.Racecheck, false)
	var b bytes.Buffer
	rep.WriteText(&b, "race.O3.ptx")
	text := b.String()
	assert.Contains(t, text, "========= Error: Potential WAR hazard detected at __shared__ ")
	assert.Contains(t, text, "Read Thread (")
	assert.Contains(t, text, "in race.cu:21")
	assert.Contains(t, text, "in race.cu:23")
	assert.True(t, strings.HasSuffix(text, "========= ERROR SUMMARY: 1 error\n"), text)
	b.Reset()
	require.NoError(t, rep.JSON(&b))
	var j struct {
		Tool     string `json:"tool"`
		Errors   int    `json:"errors"`
		Findings []struct {
			Tool, Kind, Severity string
			Lines                []string
			Count                int
		} `json:"findings"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &j))
	assert.Equal(t, "racecheck", j.Tool)
	assert.Equal(t, 1, j.Errors)
	require.Len(t, j.Findings, 1)
	assert.Equal(t, []string{"race.cu:21", "race.cu:23"}, j.Findings[0].Lines)
	assert.Equal(t, "WAR", j.Findings[0].Kind)
}

func TestParseTool(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want sanitize.Tool
		err  bool
	}{
		{"memcheck", sanitize.Memcheck, false},
		{"racecheck,synccheck", sanitize.Racecheck | sanitize.Synccheck, false},
		{"ALL", sanitize.All, false},
		{"leakcheck", 0, true},
		{"", 0, true},
	} {
		got, err := sanitize.ParseTool(tt.in)
		if tt.err {
			assert.Error(t, err, tt.in)
			continue
		}
		assert.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

// TestGlobalRaces: with Options.Global, racecheck reports plain accesses
// of one global byte from two blocks (beyond compute-sanitizer); without
// it, and on corpus kernels whose blocks write their own parts, nothing.
func TestGlobalRaces(t *testing.T) {
	run := func(path string, global bool) *sanitize.Report {
		sp, err := spec.Load(path)
		require.NoError(t, err)
		dev := vm.NewDevice()
		defer dev.Mem.FreeAll()
		p, err := sp.Prepare(dev, nil)
		require.NoError(t, err)
		rep, err := sanitize.Run(context.Background(), p.Launch, sanitize.Options{Tools: sanitize.Racecheck, Mem: dev.Mem, Global: global})
		require.NoError(t, err)
		return rep
	}
	path := filepath.Join(corpus, "specs", "race_global_blocks.O3.json")
	assert.Zero(t, run(path, false).Errors)
	got := summarize(run(path, true))
	assert.Equal(t, []summary{
		{"racecheck", "global WAR", "error", []string{"global.cu:12", "global.cu:10"}, 1}, // block 0 read out[1] before block 1 wrote it
		{"racecheck", "global WAW", "error", []string{"global.cu:11", "global.cu:11"}, 1},
		{"racecheck", "global RAW", "error", []string{"global.cu:10", "global.cu:12"}, 1},
	}, got)
	for _, c := range []string{"matmul_tiled", "transpose_shared", "reduce_sum_f32", "stencil_1d"} {
		assert.Zero(t, run(filepath.Join("../../testdata/nvcc/cases", c, "O3", "spec.json"), true).Errors, c)
	}
}
