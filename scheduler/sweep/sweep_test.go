package sweep_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/shard"
	"github.com/ptxvm/ptxvm/scheduler/sweep"
)

// appsCases is the application corpus (committed, small launches).
var appsCases, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "apps", "cases"))

// sweepFile writes lines (with "@" standing for the application corpus's
// folder) as a sweep file and returns its path.
func sweepFile(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sweep.jsonl")
	text := strings.ReplaceAll(strings.Join(lines, "\n")+"\n", "@", appsCases)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestParse(t *testing.T) {
	good := sweepFile(t,
		`{"spec": "@/adam_small/O3", "gpu": "gf100", "mode": "timing", "sample": "off", "size": [1, 2]}`,
		``,
		`  {"spec": "@/scan_block/O3/spec.json", "max_inst": 0, "registers": 32, "strict": true, "any_target": true, "counters": false}`)
	es, err := sweep.ReadFile(good)
	require.NoError(t, err)
	require.Len(t, es, 2)
	assert.Equal(t, 1, es[0].Line)
	assert.Equal(t, 0, es[0].Index)
	assert.Equal(t, filepath.Join(appsCases, "adam_small", "O3", "spec.json"), es[0].Spec, "a case folder stands for its spec.json")
	assert.Equal(t, "GF100", es[0].GPU.Name)
	assert.Equal(t, "timing", es[0].Mode)
	assert.Equal(t, "off", es[0].Sample)
	assert.Equal(t, int64(sweep.DefaultMaxInst), es[0].MaxInst)
	assert.True(t, es[0].Counters, "counters by default")
	assert.Equal(t, `{"spec":"`+appsCases+`/adam_small/O3","gpu":"gf100","mode":"timing","sample":"off","size":[1,2]}`, string(es[0].Input),
		"the input is kept compacted, the user's own fields with it")
	assert.Equal(t, 3, es[1].Line, "blank lines count as lines")
	assert.Equal(t, 1, es[1].Index, "but not as entries")
	assert.Equal(t, "H100", es[1].GPU.Name, "h100 by default")
	assert.Equal(t, "functional", es[1].Mode, "functional by default")
	assert.Equal(t, int64(0), es[1].MaxInst)
	assert.Equal(t, 32, es[1].Registers)
	assert.True(t, es[1].Strict)
	assert.True(t, es[1].AnyTarget)
	assert.False(t, es[1].Counters)

	tests := []struct {
		name, line, err string
	}{
		{"not an object", `["spec"]`, "not a JSON object"},
		{"not JSON", `{"spec": }`, "not valid JSON"},
		{"no spec", `{"gpu": "h100"}`, `no "spec"`},
		{"unknown GPU", `{"spec": "x", "gpu": "a100"}`, `"gpu": unknown GPU "a100" (known: gf100, h100`},
		{"missing profile file", `{"spec": "x", "gpu": "mine.json"}`, `"gpu": GPU profile`},
		{"unknown mode", `{"spec": "x", "mode": "fast"}`, `"mode": unknown mode "fast" (functional or timing)`},
		{"empty mode", `{"spec": "x", "mode": ""}`, `"mode": unknown mode ""`},
		{"sampling without timing", `{"spec": "x", "sample": "skip"}`, `"sample": sampling skip needs "mode": "timing"`},
		{"unknown sampling", `{"spec": "x", "mode": "timing", "sample": "some"}`, `"sample": unknown sampling mode "some"`},
		{"negative budget", `{"spec": "x", "max_inst": -1}`, `"max_inst" must not be negative`},
		{"a field of the wrong type", `{"spec": "x", "strict": "yes"}`, `field "strict": a string where a bool belongs`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sweep.ReadFile(sweepFile(t, `{"spec": "x"}`, tc.line))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "sweep.jsonl:2: "+tc.err)
		})
	}

	// Every malformed line is reported, not the first only.
	_, err = sweep.ReadFile(sweepFile(t, `{}`, `{"spec": "x"}`, `[]`, `{"spec": "x", "mode": "m"}`))
	var list sweep.ErrorList
	require.ErrorAs(t, err, &list)
	require.Len(t, list, 3)
	assert.Equal(t, []int{1, 3, 4}, []int{list[0].Line, list[1].Line, list[2].Line})
}

func TestRunEntry(t *testing.T) {
	es, err := sweep.ReadFile(sweepFile(t,
		`{"spec": "@/scan_block/O3"}`,
		`{"spec": "@/scan_block/O3", "mode": "timing", "sample": "off"}`,
		`{"spec": "@/nosuch/O3"}`,
		`{"spec": "@/scan_block/O3", "max_inst": 3}`,
		`{"spec": "@/scan_block/O3", "counters": false}`,
		`{"spec": "@/scan_block/O3", "gpu": "gf100"}`))
	require.NoError(t, err)
	ctx := context.Background()

	fn := sweep.RunEntry(ctx, es[0], sweep.Key, nil)
	require.Equal(t, sweep.StatusOK, fn.Status, fn.Error)
	assert.Equal(t, "_Z10scan_blockPjS_PKjj", fn.Kernel)
	assert.Equal(t, "functional", fn.Mode)
	assert.Nil(t, fn.Cycles, "no cycles without the timing model")
	assert.Positive(t, fn.Metrics["ptxvm__ptx_thread_inst_executed.sum"])
	assert.Contains(t, fn.Metrics, "dram__bytes_read.sum", "counters by default")
	assert.NotContains(t, fn.Metrics, "lts__t_sectors_op_read.sum", "key counters only")

	tm := sweep.RunEntry(ctx, es[1], sweep.Key, nil)
	require.Equal(t, sweep.StatusOK, tm.Status, tm.Error)
	require.NotNil(t, tm.Cycles)
	assert.Equal(t, float64(*tm.Cycles), tm.Metrics["sm__cycles_elapsed.max"])
	assert.Nil(t, tm.CyclesError, "not sampled")
	assert.Contains(t, tm.Metrics, "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", "stall reasons are key counters")
	assert.Equal(t, fn.Metrics["ptxvm__ptx_thread_inst_executed.sum"], tm.Metrics["ptxvm__ptx_thread_inst_executed.sum"], "one launch, either mode")

	missing := sweep.RunEntry(ctx, es[2], sweep.Key, nil)
	assert.Equal(t, sweep.StatusError, missing.Status)
	assert.Contains(t, missing.Error, "no such file")
	assert.Empty(t, missing.Metrics)

	budget := sweep.RunEntry(ctx, es[3], sweep.Key, nil)
	assert.Equal(t, sweep.StatusError, budget.Status)
	assert.Contains(t, budget.Error, `(budget: "max_inst": 3; 0: no limit)`)

	bare := sweep.RunEntry(ctx, es[4], sweep.Key, nil)
	require.Equal(t, sweep.StatusOK, bare.Status, bare.Error)
	assert.NotContains(t, bare.Metrics, "dram__bytes_read.sum", `"counters": false runs the bare interpreter`)

	fermi := sweep.RunEntry(ctx, es[5], sweep.Key, nil)
	assert.Equal(t, sweep.StatusError, fermi.Status, "sm_90 PTX on the GF100 without any_target")
	assert.Contains(t, fermi.Error, "GF100")

	all, err := sweep.ParseMetrics("all")
	require.NoError(t, err)
	assert.Greater(t, len(sweep.RunEntry(ctx, es[1], all, nil).Metrics), 2*len(tm.Metrics))
	two, err := sweep.ParseMetrics("dram__bytes_read.sum, sm__cycles_elapsed.max")
	require.NoError(t, err)
	assert.Equal(t, []string{"dram__bytes_read.sum", "sm__cycles_elapsed.max"}, slices.Sorted(maps.Keys(sweep.RunEntry(ctx, es[1], two, nil).Metrics)))
	_, err = sweep.ParseMetrics("a,,b")
	assert.ErrorContains(t, err, "an empty name")
}

// runAll runs the entries of sh into the output out, as ptxrun sweep does.
func runAll(t *testing.T, out string, all []sweep.Entry, sh shard.Shard) {
	t.Helper()
	mine := shard.Select(sh, all)
	o, err := sweep.OpenOutput(out, all, mine, false)
	require.NoError(t, err)
	var todo []sweep.Entry
	for _, e := range mine {
		if !o.Done(e.Line) {
			todo = append(todo, e)
		}
	}
	require.NoError(t, sweep.Run(context.Background(), todo, sweep.Options{Workers: 2}, o.Append))
	require.NoError(t, o.Finish())
}

var fiveLines = []string{
	`{"spec": "@/scan_block/O3", "n": 1}`,
	`{"spec": "@/adam_small/O3", "mode": "timing", "n": 2}`,
	`{"spec": "@/nosuch/O3", "n": 3}`,
	`{"spec": "@/gemm/O3", "mode": "timing", "n": "<4>"}`,
	`{"spec": "@/scan_block/O3", "gpu": "gf100", "any_target": true, "n": 5}`,
}

// A run that was stopped, then run again, writes what one run writes; so
// do shards merged.
func TestResumeAndMerge(t *testing.T) {
	es, err := sweep.ReadFile(sweepFile(t, fiveLines...))
	require.NoError(t, err)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.jsonl")
	runAll(t, whole, es, shard.All)
	want, err := os.ReadFile(whole)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	require.Len(t, lines, 5, "one result per line")
	for i, l := range lines {
		var r sweep.Result
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		assert.Equal(t, i+1, r.Line, "in input order")
		assert.JSONEq(t, string(es[i].Input), string(r.Input), "the input echoed")
	}
	assert.Contains(t, lines[3], `"n":"<4>"`, "echoed as given, not HTML-escaped")
	assert.Contains(t, lines[2], `"status":"error"`)

	// Stopped after two results (in the order they finished: 4 and 2),
	// the third cut short.
	stopped := filepath.Join(dir, "stopped.jsonl")
	require.NoError(t, os.WriteFile(stopped, []byte(lines[3]+"\n"+lines[1]+"\n"+lines[0][:40]), 0o644))
	recs, complete, err := sweep.ReadOutput(stopped)
	require.NoError(t, err)
	assert.Len(t, recs, 2, "the line cut short is no result")
	assert.Equal(t, int64(len(lines[3])+len(lines[1])+2), complete)
	o, err := sweep.OpenOutput(stopped, es, es, false)
	require.NoError(t, err)
	assert.Equal(t, 2, o.Kept)
	assert.True(t, o.Done(4))
	assert.False(t, o.Done(1))
	require.NoError(t, o.Close())
	runAll(t, stopped, es, shard.All)
	got, err := os.ReadFile(stopped)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "resumed")

	// Three shards, merged.
	var parts []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, "shard"+string(rune('0'+i))+".jsonl")
		runAll(t, p, es, shard.Shard{Index: i, Count: 3})
		parts = append(parts, p)
	}
	merged, err := sweep.Merge(parts)
	require.NoError(t, err)
	require.NoError(t, sweep.Check(merged, es))
	m := filepath.Join(dir, "merged.jsonl")
	require.NoError(t, sweep.WriteRecords(m, merged))
	got, err = os.ReadFile(m)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "merged shards")

	// A shard's output is not another shard's.
	_, err = sweep.OpenOutput(parts[0], es, shard.Select(shard.Shard{Index: 1, Count: 3}, es), false)
	assert.ErrorContains(t, err, "not in this run's shard: was it written with another --shard?")
	// Nor the output of an input since changed.
	changed, err := sweep.ReadFile(sweepFile(t, append([]string{`{"spec": "@/scan_block/O3", "n": 0}`}, fiveLines[1:]...)...))
	require.NoError(t, err)
	_, err = sweep.OpenOutput(whole, changed, changed, false)
	assert.ErrorContains(t, err, "the input changed since")
	assert.ErrorContains(t, sweep.Check(merged, changed), "the input changed since the shards ran")

	// --retry-errors: the error's line runs again, the others are kept.
	o, err = sweep.OpenOutput(whole, es, es, true)
	require.NoError(t, err)
	assert.Equal(t, 4, o.Kept)
	assert.False(t, o.Done(3))
	require.NoError(t, o.Close())
	got, err = os.ReadFile(whole)
	require.NoError(t, err)
	assert.NotContains(t, string(got), `"line":3,`, "the error is gone from the file until it runs again")
}

func TestMergeRefuses(t *testing.T) {
	es, err := sweep.ReadFile(sweepFile(t, fiveLines...))
	require.NoError(t, err)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	runAll(t, a, es, shard.Shard{Index: 0, Count: 2})
	runAll(t, b, es, shard.Shard{Index: 1, Count: 2})

	recs, err := sweep.Merge([]string{a, b, a})
	require.NoError(t, err, "the same result twice is one result")
	assert.Len(t, recs, 5)

	partial, err := sweep.Merge([]string{a})
	require.NoError(t, err)
	assert.ErrorContains(t, sweep.Check(partial, es), "2 of 5 lines have no result (input lines 2, 4)")

	data, err := os.ReadFile(a)
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.jsonl")
	require.NoError(t, os.WriteFile(cut, data[:len(data)-5], 0o644))
	_, err = sweep.Merge([]string{cut, b})
	assert.ErrorContains(t, err, "its last line is cut short")

	other := filepath.Join(dir, "other.jsonl")
	require.NoError(t, os.WriteFile(other, []byte(strings.Replace(string(data), `"status":"ok"`, `"status":"ok","x":1`, 1)), 0o644))
	_, err = sweep.Merge([]string{a, other})
	assert.ErrorContains(t, err, "input line 1 has two different results")

	notSweep := filepath.Join(dir, "not.jsonl")
	require.NoError(t, os.WriteFile(notSweep, []byte("{\"a\": 1}\n"), 0o644))
	_, err = sweep.Merge([]string{notSweep})
	assert.ErrorContains(t, err, "not.jsonl:1: not a sweep result")
}

// A program of several steps runs as a program: its time and each step's
// in the result, the counters of its last launch.
func TestRunEntryProgram(t *testing.T) {
	in := `{"spec": "../../testdata/host/cases/managed_1M/spec.json", "mode": "timing"}
{"spec": "../../testdata/host/cases/managed_1M/spec.json"}
`
	es, err := sweep.Parse(strings.NewReader(in), "programs.jsonl", ".")
	require.NoError(t, err)
	timed := sweep.RunEntry(context.Background(), es[0], sweep.Key, nil)
	require.Equal(t, sweep.StatusOK, timed.Status, timed.Error)
	require.NotNil(t, timed.TimeUS)
	require.Len(t, timed.Steps, 7)
	sum := 0.0
	for _, s := range timed.Steps {
		assert.True(t, s.Timed)
		sum += s.TimeUS
	}
	assert.InDelta(t, sum, *timed.TimeUS, 1e-6)
	assert.Equal(t, "launch", timed.Steps[6].Kind)
	assert.NotEmpty(t, timed.Metrics)
	fn := sweep.RunEntry(context.Background(), es[1], sweep.Key, nil)
	require.Equal(t, sweep.StatusOK, fn.Status, fn.Error)
	assert.Nil(t, fn.TimeUS, "a functional run does not time its launches")
	assert.False(t, fn.Steps[0].Timed)
	assert.True(t, fn.Steps[2].Timed, "the host's touch is timed in both modes")
}
