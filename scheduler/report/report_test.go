package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/report"
	"github.com/ptxvm/ptxvm/vm/spec"
)

var cache = spec.NewModuleCache()

func build(t *testing.T, corpus, name string, gpu *scheduler.Profile) *report.Report {
	t.Helper()
	sp, err := spec.Load(filepath.Join("..", "..", "testdata", corpus, "cases", name, "O3", "spec.json"))
	require.NoError(t, err)
	run, err := scheduler.RunSpec(context.Background(), sp, gpu, scheduler.Options{}, cache)
	require.NoError(t, err)
	r, err := report.New(run, gpu)
	require.NoError(t, err)
	return r
}

// busiest returns the instruction of the given space and op with the most
// requests.
func busiest(t *testing.T, r *report.Report, space, op string) *report.Inst {
	t.Helper()
	var best *report.Inst
	for i := range r.Insts {
		in := &r.Insts[i]
		if in.Space == space && in.Op == op && (best == nil || in.Requests > best.Requests) {
			best = in
		}
	}
	require.NotNil(t, best, "no %s %s in %s", space, op, r.Kernel)
	return best
}

// TestDiagnoses: the diagnosis of each access pattern the source texts
// teach, on kernels of the corpora.
func TestDiagnoses(t *testing.T) {
	tests := []struct {
		corpus, name, space, op string
		kind, text              string
	}{
		// The naive transpose writes a column: 1024 B between lanes.
		{"nvcc", "transpose_naive", "global", "store", report.KindStrided, "stride-256 access (1024 B between lanes): 32 sectors per request where 4 would do"},
		{"nvcc", "transpose_naive", "global", "load", report.KindCoalesced, "coalesced: 4 sectors per request"},
		{"nvcc", "transpose_shared", "shared", "load", report.KindBankConflict, "32-way bank conflict: 32 wavefronts per request where 1 would do"},
		{"nvcc", "transpose_padded", "shared", "load", report.KindConflictFree, "conflict-free: 1 wavefronts per request"},
		{"nvcc", "transpose_padded", "shared", "store", report.KindConflictFree, "conflict-free"},
		// 16x16 blocks: a warp's half-warps read one row of A each.
		{"nvcc", "matmul_naive", "global", "load", report.KindSharedAddrs, "lanes share addresses"},
		{"perf", "copy_u32_stride32", "global", "load", report.KindStrided, "stride-32 access (128 B between lanes): 32 sectors per request where 4 would do"},
		{"perf", "copy_u32_offset_i1_o0", "global", "load", report.KindMisaligned, "contiguous but misaligned (first lane at byte 4 of a sector): 5 sectors per request where 4 would do"},
		{"perf", "const_uniform", "const", "load", report.KindBroadcast, "uniform address: broadcast"},
		{"perf", "const_distinct32", "const", "load", report.KindDivergentConst, "32 constant-cache accesses per request"},
		{"perf", "smem_ld_b32_bcast", "shared", "load", report.KindBroadcast, "uniform address: broadcast"},
		{"perf", "smem_ld_b32_stride32", "shared", "load", report.KindBankConflict, "32-way bank conflict"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.space+"_"+tt.op, func(t *testing.T) {
			r := build(t, tt.corpus, tt.name, scheduler.H100)
			in := busiest(t, r, tt.space, tt.op)
			assert.Equal(t, tt.kind, in.Diagnosis.Kind, in.Diagnosis.Text)
			assert.Contains(t, in.Diagnosis.Text, tt.text)
			assert.NotEmpty(t, in.PTX)
			assert.Regexp(t, `^[\w.]+\.ptx:\d+$`, in.PTXLine)
			assert.Regexp(t, `^\w+\.cu:\d+$`, in.CUDA, "-O3 -lineinfo: every instruction has its CUDA line")
		})
	}
}

// TestTopLists: the naive transpose's strided stores head the lists of
// sectors and excess; the shared transpose's column read heads the bank
// conflicts; per-instruction counts add up to the totals.
func TestTopLists(t *testing.T) {
	r := build(t, "nvcc", "transpose_naive", scheduler.H100)
	require.NotEmpty(t, r.TopSectors)
	top := r.Inst(r.TopSectors[0])
	assert.Equal(t, "store", top.Op)
	assert.Equal(t, top.ID, r.TopExcess[0])
	assert.Empty(t, r.TopConflicts)
	var sectors float64
	for _, in := range r.Insts {
		if in.Space == "global" {
			sectors += float64(in.Sectors)
		}
	}
	assert.Equal(t, r.Metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]+r.Metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"], sectors)
	require.NotEmpty(t, r.Lines)
	assert.Equal(t, top.CUDA, r.Lines[0].CUDA, "the busiest CUDA line holds the busiest instruction")

	s := build(t, "nvcc", "transpose_shared", scheduler.H100)
	require.NotEmpty(t, s.TopConflicts)
	assert.Equal(t, "shared", s.Inst(s.TopConflicts[0]).Space)
	var conflicts uint64
	for _, in := range s.Insts {
		conflicts += in.Conflicts
	}
	assert.Equal(t, s.Metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]+s.Metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"], float64(conflicts))
}

// TestText: the text report has its sections and names its lines; the JSON
// round-trips.
func TestText(t *testing.T) {
	r := build(t, "nvcc", "transpose_shared", scheduler.H100)
	var b bytes.Buffer
	require.NoError(t, r.WriteText(&b))
	out := b.String()
	for _, want := range []string{"kernel", "occupancy", "Memory summary", "shared load wavefronts",
		"Top instructions by sectors", "Top instructions by excess sectors", "Top instructions by bank conflicts",
		"32-way bank conflict", "transpose.cu:", "CUDA lines by traffic", "estimated from the PTX"} {
		assert.Contains(t, out, want)
	}
	data, err := json.Marshal(r)
	require.NoError(t, err)
	var back report.Report
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, r.TopConflicts, back.TopConflicts)
	assert.Equal(t, r.Inst(r.TopConflicts[0]).Diagnosis, back.Inst(back.TopConflicts[0]).Diagnosis)
}

// TestCompare: naive against padded transpose, and shared against padded:
// the differences the source texts predict come first, and the diagnoses
// that differ are the strided store and the bank conflict.
func TestCompare(t *testing.T) {
	naive := build(t, "nvcc", "transpose_naive", scheduler.H100)
	shared := build(t, "nvcc", "transpose_shared", scheduler.H100)
	padded := build(t, "nvcc", "transpose_padded", scheduler.H100)

	c := report.Compare(shared, padded)
	require.NotEmpty(t, c.Rows)
	assert.Equal(t, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", firstOf(c, "l1tex__"), "the conflicts vanish")
	var sharedLoad *report.DiagnosisDiff
	for i := range c.Diagnoses {
		if c.Diagnoses[i].Access == "shared load" {
			sharedLoad = &c.Diagnoses[i]
		}
	}
	require.NotNil(t, sharedLoad)
	require.Len(t, sharedLoad.A, 1)
	assert.Equal(t, report.KindBankConflict, sharedLoad.A[0].Diagnosis.Kind)
	require.Len(t, sharedLoad.B, 1)
	assert.Equal(t, report.KindConflictFree, sharedLoad.B[0].Diagnosis.Kind)

	c = report.Compare(naive, padded)
	row := rowOf(c, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
	require.NotNil(t, row.Ratio)
	assert.InDelta(t, 0.125, *row.Ratio, 1e-9, "32 sectors per store request become 4")
	var b bytes.Buffer
	require.NoError(t, c.WriteText(&b, false))
	assert.Contains(t, b.String(), "global store")
	assert.Contains(t, b.String(), "stride-256 access")
	// Biggest differences first, as printed.
	for i := 1; i < len(c.Rows); i++ {
		a, b := c.Rows[i-1], c.Rows[i]
		assert.GreaterOrEqual(t, gap(a), gap(b)-1e-12, "%s before %s", a.Name, b.Name)
	}
}

// gap is how far apart a row's values print: B/A or A/B of the printed
// values, each offset by the printed resolution (0.01); 1 when they print
// the same.
func gap(r report.Row) float64 {
	a, b := printed(r.A), printed(r.B)
	if a == b {
		return 1
	}
	return dist((math.Abs(b) + 0.01) / (math.Abs(a) + 0.01))
}

func printed(v float64) float64 {
	p, _ := strconv.ParseFloat(report.FormatValue(v), 64)
	return p
}

func dist(r float64) float64 {
	if r < 1 {
		return 1 / r
	}
	return r
}

// TestCompareRanksWhatPrints: values that print the same (rounding noise:
// 0.004 against 0.0006, a ratio of 0.15) are not a difference, a value
// that prints 0 is none, a small value against none ranks below a large
// one, and the launch's duration prints with its unit.
func TestCompareRanksWhatPrints(t *testing.T) {
	a := &report.Report{Metrics: map[string]float64{
		"noise.ratio":            0.004,
		"zero_vs_tiny.ratio":     0,
		"small_vs_none.ratio":    0.06,
		"large_vs_none.ratio":    28.7,
		"doubled.sum":            100,
		"gpu__time_duration.sum": 7644.95,
	}}
	b := &report.Report{Metrics: map[string]float64{
		"noise.ratio":            0.0006,
		"zero_vs_tiny.ratio":     0.001,
		"small_vs_none.ratio":    0.00007,
		"large_vs_none.ratio":    0.00007,
		"doubled.sum":            200,
		"gpu__time_duration.sum": 4504.55,
	}}
	c := report.Compare(a, b)
	var order []string
	for _, r := range c.Rows {
		order = append(order, r.Name)
	}
	assert.Equal(t, []string{"large_vs_none.ratio", "small_vs_none.ratio", "doubled.sum", "gpu__time_duration.sum", "noise.ratio", "zero_vs_tiny.ratio"}, order)
	var out bytes.Buffer
	require.NoError(t, c.WriteText(&out, false))
	text := out.String()
	assert.NotContains(t, text, "noise.ratio")
	assert.NotContains(t, text, "zero_vs_tiny.ratio")
	assert.Contains(t, text, "(2 more metrics are equal in both")
	assert.Regexp(t, `gpu__time_duration.sum +7.64 us +4.5 us +0.589`, text)
	assert.Regexp(t, `large_vs_none.ratio +28.7 +0 +0\n`, text)
}

func firstOf(c *report.Comparison, prefix string) string {
	for _, r := range c.Rows {
		if strings.HasPrefix(r.Name, prefix) {
			return r.Name
		}
	}
	return ""
}

func rowOf(c *report.Comparison, name string) report.Row {
	for _, r := range c.Rows {
		if r.Name == name {
			return r
		}
	}
	return report.Row{}
}

// TestCatalogue: every metric a run reports is in the catalogue with a
// one-line meaning, and names are unique.
func TestCatalogue(t *testing.T) {
	cat := report.Catalogue()
	seen := map[string]bool{}
	for _, m := range cat {
		assert.False(t, seen[m.Name], "%s twice", m.Name)
		seen[m.Name] = true
		assert.NotEmpty(t, m.Help, m.Name)
		assert.NotContains(t, m.Help, "\n", m.Name)
	}
	for _, name := range []string{"transpose_shared", "tex2d_clamp_linear", "local_array"} {
		r := build(t, "nvcc", name, scheduler.H100)
		for m := range r.Metrics {
			assert.True(t, seen[m], "%s reports %s, which the catalogue lacks", name, m)
		}
	}
}
