package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/report"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm/spec"
)

var bigTiming = flag.Bool("report.big", false, "TestTimingStallsAreTheGPUs: the perf corpus's matmuls of 512 and more too (minutes)")

// gpuLaunch finds a launch of an ncu table by case.
func gpuLaunch(t *testing.T, table, name string) *ncu.Launch {
	t.Helper()
	ls, err := ncu.Read(filepath.Join("..", "..", "testdata", table))
	require.NoError(t, err)
	for _, l := range ls {
		if l.Case == name && l.Repeat == 0 {
			return l
		}
	}
	t.Fatalf("%s: no launch of %s", table, name)
	return nil
}

// gpuStalls returns the GPU's stall reasons (ncu's per-issue ratios, all
// its reasons, selected left out), largest first, and their sum.
func gpuStalls(l *ncu.Launch) ([]report.StallReason, float64) {
	var out []report.StallReason
	total := 0.0
	for _, r := range []string{"not_selected", "wait", "long_scoreboard", "short_scoreboard", "math_pipe_throttle", "mio_throttle",
		"lg_throttle", "tex_throttle", "barrier", "membar", "branch_resolving", "no_instruction", "dispatch_stall",
		"drain", "misc", "sleeping", "imc_miss"} {
		v, ok := l.Value("smsp__average_warps_issue_stalled_" + r + "_per_issue_active.ratio")
		if !ok || v == 0 {
			continue
		}
		out = append(out, report.StallReason{Reason: r, PerIssue: v})
		total += v
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PerIssue > out[j].PerIssue })
	return out, total
}

func timedReport(t *testing.T, specPath string, regs int, tr *timing.Trace) *report.Report {
	t.Helper()
	sp, err := spec.Load(specPath)
	require.NoError(t, err)
	run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{Mode: scheduler.ModeTiming, Registers: regs, Trace: tr}, cache)
	require.NoError(t, err)
	defer run.Release()
	r, err := report.New(run, scheduler.H100)
	require.NoError(t, err)
	require.NotNil(t, r.Timing)
	return r
}

// The timing report of the mission's matmuls names the stall reasons the
// H100 shows for them under ncu (the nvcc corpus's launches at -O3 and -G,
// the perf corpus's calibration launches; registers as ncu reports them):
// the reason with the most stall cycles is the GPU's, the report's first
// sentence is about it, and every reason that holds 15 % or more of the
// GPU's stall cycles is among the model's three largest.
func TestTimingStallsAreTheGPUs(t *testing.T) {
	type launch struct{ table, name, variant string }
	launches := []launch{
		{"nvcc/ncu/O3.csv", "matmul_naive", "O3"},
		{"nvcc/ncu/O3.csv", "matmul_tiled", "O3"},
		{"nvcc/ncu/G.csv", "matmul_naive", "G"},
		{"nvcc/ncu/G.csv", "matmul_tiled", "G"},
		{"perf/ncu/calib.O3.csv.gz", "matmul_naive_256", "O3"},
		{"perf/ncu/calib.O3.csv.gz", "matmul_tiled_256", "O3"},
	}
	if *bigTiming {
		launches = append(launches,
			launch{"perf/ncu/calib.O3.csv.gz", "matmul_naive_512", "O3"},
			launch{"perf/ncu/calib.O3.csv.gz", "matmul_tiled_512", "O3"},
			launch{"perf/ncu/calib.O3.csv.gz", "matmul_naive_1024", "O3"},
			launch{"perf/ncu/calib.O3.csv.gz", "matmul_tiled_1024", "O3"},
			launch{"perf/ncu/calib.O3.csv.gz", "matmul_tiled_2048", "O3"})
	}
	for _, l := range launches {
		corpus := strings.Split(l.table, "/")[0]
		t.Run(corpus+"/"+l.name+"/"+l.variant, func(t *testing.T) {
			g := gpuLaunch(t, l.table, l.name)
			gpu, total := gpuStalls(g)
			require.NotEmpty(t, gpu)
			r := timedReport(t, g.SpecPath(), g.Int("launch__registers_per_thread"), nil)
			tm := r.Timing
			var model, onGPU []string
			for _, s := range tm.Stalls {
				if s.Reason != "selected" {
					model = append(model, fmt.Sprintf("%s %.2f", s.Reason, s.PerIssue))
				}
			}
			for _, s := range gpu {
				onGPU = append(onGPU, fmt.Sprintf("%s %.2f", s.Reason, s.PerIssue))
			}
			cyc, _ := g.Value("sm__cycles_elapsed.max")
			t.Logf("stalls per issued instruction: GPU %s; model %s. Cycles: GPU %.0f, model %d",
				strings.Join(onGPU[:min(4, len(onGPU))], ", "), strings.Join(model[:min(4, len(model))], ", "), cyc, tm.Cycles)
			top := tm.Top()
			require.NotNil(t, top)
			assert.Equal(t, gpu[0].Reason, top.Reason, "the largest stall reason")
			require.NotEmpty(t, tm.Sources)
			assert.Equal(t, gpu[0].Reason, tm.Sources[0].Reason, "the first sentence: %s", tm.Sources[0].Sentence)
			for _, s := range gpu {
				if s.PerIssue < 0.15*total {
					break
				}
				rank := -1
				for i, m := range tm.Stalls {
					if m.Reason == s.Reason {
						rank = i
					}
				}
				assert.True(t, rank >= 0 && rank < 3, "%s (%.0f %% of the GPU's stalls) is among the model's three largest (rank %d)", s.Reason, 100*s.PerIssue/total, rank)
			}
			// The text names the reason first in its table and sentences.
			var b bytes.Buffer
			require.NoError(t, r.WriteText(&b))
			out := b.String()
			i := strings.Index(out, "\nStall reasons")
			require.GreaterOrEqual(t, i, 0)
			rows := strings.Split(out[i:], "\n")
			require.Greater(t, len(rows), 3)
			assert.True(t, strings.HasPrefix(strings.TrimSpace(rows[3]), gpu[0].Reason+" "), "the first reason row: %q", rows[3])
		})
	}
}

// TestTimingSection: the timing section's figures are the timing model's
// metrics under their ncu names, the stall cycles per instruction add up
// to the run's, per line to per instruction, the sentences are in words
// with their CUDA lines, and the JSON carries it all.
func TestTimingSection(t *testing.T) {
	r := timedReport(t, filepath.Join("..", "..", "testdata", "nvcc", "cases", "matmul_tiled", "O3", "spec.json"), 32, nil)
	tm := r.Timing
	assert.Equal(t, "timing", r.Mode)
	assert.Equal(t, r.Metrics[timing.MetricCycles], float64(tm.Cycles))
	assert.Equal(t, r.Metrics[timing.MetricDuration], tm.DurationNs)
	assert.Equal(t, r.Metrics[timing.MetricOccupancy], tm.Occupancy)
	assert.Equal(t, r.Metrics[timing.MetricIPC], tm.IPC)
	assert.Equal(t, r.Metrics[timing.MetricIssueUtil], tm.IssueUtil)
	var stalls, perInst, perLine, share uint64
	for _, s := range tm.Stalls {
		assert.Equal(t, r.Metrics[s.Metric], s.PerIssue, s.Metric)
		assert.Equal(t, "smsp__average_warps_issue_stalled_"+s.Reason+"_per_issue_active.ratio", s.Metric)
		if s.Reason != "selected" {
			stalls += s.Cycles
		}
	}
	assert.Equal(t, tm.StallCycles, stalls)
	for _, in := range tm.Insts {
		perInst += in.StallCycles
		assert.Regexp(t, `^matmul\.O3\.ptx:\d+$`, in.PTXLine)
		assert.NotEmpty(t, in.PTX)
	}
	for _, ln := range tm.Lines {
		perLine += ln.StallCycles
	}
	assert.Equal(t, stalls, perInst, "every stall cycle is some instruction's")
	assert.Equal(t, perInst, perLine)
	for i, s := range tm.Sources {
		share += s.Cycles
		assert.Regexp(t, `^warps .* at (matmul\.cu:\d+|PTX line \d+).*: \d+% of stalls$`, s.Sentence)
		assert.NotEmpty(t, s.Insts)
		if i > 0 {
			assert.GreaterOrEqual(t, tm.Sources[i-1].Cycles, s.Cycles)
		}
		for j := range tm.Sources[:i] {
			assert.NotEqual(t, tm.Sources[j].Sentence, s.Sentence, "one sentence once")
		}
	}
	assert.LessOrEqual(t, share, stalls)
	assert.Greater(t, float64(share), 0.8*float64(stalls), "the sentences account for most stall cycles")

	data, err := json.Marshal(r)
	require.NoError(t, err)
	var back report.Report
	require.NoError(t, json.Unmarshal(data, &back))
	require.NotNil(t, back.Timing)
	assert.Equal(t, tm.Cycles, back.Timing.Cycles)
	assert.Equal(t, tm.Sources, back.Timing.Sources)
	assert.Equal(t, tm.Top().Reason, back.Timing.Top().Reason)
	top := tm.TopInsts(1)[0]
	assert.Equal(t, tm.Inst(top).WaitedOn, back.Timing.Inst(top).WaitedOn)
	assert.Contains(t, string(data), `"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"`)

	// Every figure of a timed run is in the catalogue, with its meaning.
	known := map[string]bool{}
	for _, m := range report.Catalogue() {
		known[m.Name] = true
	}
	for m := range r.Metrics {
		assert.True(t, known[m], "a timed run reports %s, which the catalogue lacks", m)
	}

	// The tables of lines and instructions by stall cycles are sorted by
	// the figure their heading names, the first column.
	var txt bytes.Buffer
	require.NoError(t, r.WriteText(&txt))
	for _, heading := range []string{"Source lines by stall cycles, STALLED + WAITED ON", "Top instructions by stall cycles, STALLED + WAITED ON"} {
		_, table, ok := strings.Cut(txt.String(), "\n"+heading)
		require.True(t, ok, heading)
		rows := strings.Split(table, "\n")[2:]
		prev := uint64(math.MaxUint64)
		n := 0
		for _, row := range rows {
			f := strings.Fields(row)
			col := 0 // the sort key's column: after the line for lines
			if strings.HasPrefix(heading, "Source") {
				col = 1
				if len(f) > 0 && f[0] == "PTX" {
					col = 3 // PTX line N
				}
			}
			if len(f) < col+4 {
				break
			}
			total, err1 := strconv.ParseUint(f[col], 10, 64)
			stalled, err2 := strconv.ParseUint(f[col+1], 10, 64)
			waited, err3 := strconv.ParseUint(f[col+3], 10, 64)
			require.NoError(t, errors.Join(err1, err2, err3), row)
			assert.Equal(t, stalled+waited, total, row)
			assert.LessOrEqual(t, total, prev, "%s: sorted by its first figure: %s", heading, row)
			prev = total
			n++
		}
		assert.Greater(t, n, 2, heading)
	}

	// A functional run has no timing section.
	f := build(t, "nvcc", "matmul_tiled", scheduler.H100)
	assert.Nil(t, f.Timing)
	assert.Equal(t, "functional", f.Mode)
	var b bytes.Buffer
	require.NoError(t, f.WriteText(&b))
	assert.NotContains(t, b.String(), "Stall reasons")
}

// TestTimeline: the timeline's rows cover the launch: every SM that ran
// blocks has a row whose average resident blocks never exceed the
// occupancy, the sampled SMs' warp slots each have runs covering every
// column, and the states are ncu's reasons.
func TestTimeline(t *testing.T) {
	tr := &timing.Trace{SampleSMs: 2}
	r := timedReport(t, filepath.Join("..", "..", "testdata", "nvcc", "cases", "matmul_tiled", "O3", "spec.json"), 32, tr)
	require.NoError(t, r.AddTimeline(tr))
	tl := r.Timing.Timeline
	require.NotNil(t, tl)
	assert.Equal(t, r.Timing.Cycles, tl.Cycles)
	assert.Len(t, tl.SMs, 64, "64 blocks on 64 SMs")
	blocks := 0
	for _, sm := range tl.SMs {
		blocks += sm.Blocks
		covered(t, sm.Runs, tl.Columns)
		busy := false
		for _, run := range sm.Runs {
			assert.LessOrEqual(t, run.Value, float64(tl.BlocksPerSM))
			busy = busy || run.Value > 0
		}
		assert.True(t, busy, "SM %d ran a block", sm.SM)
	}
	assert.Equal(t, 64, blocks)
	require.Len(t, tl.Warps, 2)
	states := map[string]bool{"idle": true, "active": true}
	for s := timing.Stall(0); s < timing.NumStalls; s++ {
		states[s.String()] = true
	}
	seen := map[string]bool{}
	for _, w := range append(tl.Warps, *tl.Detail) {
		assert.Len(t, w.Slots, 8, "a block of 8 warps")
		for _, s := range w.Slots {
			covered(t, s.Runs, w.Columns)
			for _, run := range s.Runs {
				assert.True(t, states[run.State], run.State)
				seen[run.State] = true
			}
		}
	}
	for _, want := range []string{"idle", "long_scoreboard", "barrier"} {
		assert.True(t, seen[want], "the warps show %s", want)
	}
	assert.Less(t, tl.Detail.To-tl.Detail.From, tl.Cycles)
	require.Error(t, (&report.Report{}).AddTimeline(tr), "a functional report has no timing")
}

// covered checks that runs tile [0, n) in order.
func covered(t *testing.T, runs []report.Run, n int) {
	t.Helper()
	next := 0
	for _, r := range runs {
		require.Equal(t, next, r.From)
		require.Greater(t, r.To, r.From)
		next = r.To
	}
	assert.Equal(t, n, next)
}
