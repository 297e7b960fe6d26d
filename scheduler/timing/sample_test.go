package timing_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// corpusLaunch returns the ncu-profiled launch of the corpus with the name
// given (ncu.Launch.Name: "apps/O3/adam_big"). Only committed launches:
// the public corpus's PTX is not in a clone (testdata/public/.gitignore).
func corpusLaunch(t *testing.T, name string) *ncu.Launch {
	t.Helper()
	ls, err := readCorpus()
	require.NoError(t, err)
	for _, l := range ls {
		if l.Name() == name && l.Table != "repeat.O3" {
			return l
		}
	}
	require.FailNow(t, "no such corpus launch", name)
	return nil
}

// readCorpus reads the corpus's ncu rows once for the package's tests.
var readCorpus = sync.OnceValues(func() ([]*ncu.Launch, error) { return ncu.ReadWithPublic("../../testdata") })

// sampledRun runs a corpus launch in timing mode with the sampling given
// and returns the result and the launch's outputs.
func sampledRun(t *testing.T, l *ncu.Launch, s timing.Sample, workers int) (*scheduler.Result, map[string][]byte) {
	t.Helper()
	sp, err := spec.Load(l.SpecPath())
	require.NoError(t, err)
	p, err := sp.Prepare(vm.NewDevice(), nil)
	require.NoError(t, err)
	defer p.Launch.Release()
	res, err := scheduler.RunTimed(context.Background(), p.Launch, gpu.MustLookup("h100"), scheduler.Options{
		Registers: l.Int("launch__registers_per_thread"), Workers: workers, Sample: s})
	require.NoError(t, err, l.Name())
	out, err := p.Outputs()
	require.NoError(t, err)
	return res, out
}

var sampleAll = flag.Bool("sample.all", false, "TestSampledCyclesMatchFull samples in both modes on both slices (by default SampleExact on the whole GPU and SampleSkip on the default slice); TestSampledDeterministic runs on the slice too (by default on the whole GPU); TestSampleThresholds runs the Adam step under MinInst too (cmd/ptxrun's TestRunSample runs it by default)")

// Sampling the waves of a multi-wave corpus launch (the Adam update at -G,
// 10.3 waves of the H100) gives the full simulation's cycles within 3%,
// with at least a quarter of the blocks not in detail, on the whole GPU
// (Slice 1) and on a slice of 10 of its 132 SMs (the default for a
// launch of under 32 waves, since the seventeenth session; under a tenth
// of the blocks in detail); the blocks left out
// run functionally in SampleExact mode (outputs and PTX instruction counts
// those of the full run) and not at all in SampleSkip mode (said by the
// Sampling). (The shared transpose at 4096² gives +0.9%, settling after
// 55% of its grid; cmd/ptxrun's TestRunSample samples it. The Jacobi step
// at -O3, this test's launch until the SMs alternated between the L2's
// partitions, no longer settles on a slice of 17 SMs: its waves take 1,667
// to 1,893 cycles, and are extrapolated at their mean from 55% of the
// slice's grid, −0.84% against the whole GPU: docs/sampling.md, and
// TestAutoSampleEqualsAsked.) By default each mode runs once, SampleExact
// on the whole GPU and SampleSkip on the slice (the two differ only in the
// blocks left out of detail); -sample.all runs both modes on both.
func TestSampledCyclesMatchFull(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a corpus launch in full")
	}
	const launch = "apps/G/adam_big"
	l := corpusLaunch(t, launch)
	full, fullOut := sampledRun(t, l, timing.Sample{}, 0)
	for _, tc := range []struct {
		mode  timing.SampleMode
		slice int
	}{
		{timing.SampleExact, 1},
		{timing.SampleSkip, 1},
		{timing.SampleExact, 0},
		{timing.SampleSkip, 0},
	} {
		if !*sampleAll && (tc.mode == timing.SampleExact) != (tc.slice == 1) {
			continue
		}
		t.Run(fmt.Sprintf("%s/slice%d", tc.mode, tc.slice), func(t *testing.T) {
			require.Nil(t, full.Timing.Sampling, "a run without sampling is not sampled")
			res, out := sampledRun(t, l, timing.Sample{Mode: tc.mode, Slice: tc.slice}, 0)
			s := res.Timing.Sampling
			require.NotNil(t, s, "a 10-wave launch is sampled")
			if tc.slice == 1 {
				assert.Equal(t, s.SMs, s.SliceSMs, "the whole GPU")
				assert.Equal(t, s.Blocks, s.SliceBlocks)
			} else {
				assert.Equal(t, 132, s.SMs)
				assert.Equal(t, 10, s.SliceSMs, "one SM in 13 for a launch of under 32 waves, at whole L2 slices: 6 of 80")
				assert.Equal(t, 16384*10/132, s.SliceBlocks, "the grid's first blocks in as many waves (rounded)")
				assert.Less(t, s.Detailed, s.Blocks/10, "under a tenth of the blocks in detail")
			}
			e := (float64(res.Timing.Cycles) - float64(full.Timing.Cycles)) / float64(full.Timing.Cycles)
			assert.LessOrEqual(t, math.Abs(e), 0.03, "sampled %d cycles against %d in full (%+.2f%%; bound ±%.2f%%)", res.Timing.Cycles, full.Timing.Cycles, 100*e, s.ErrorPct())
			assert.LessOrEqual(t, s.Detailed, 3*s.Blocks/4, "at least a quarter of the blocks not in detail")
			assert.Equal(t, s.Blocks, s.Detailed+s.Functional+s.Skipped)
			assert.Zero(t, (s.SliceBlocks-s.Detailed)%s.WaveBlocks, "a whole number of the slice's waves left out")
			assert.Equal(t, s.Cycles, res.Timing.Cycles)
			assert.Equal(t, s.DetailedCycles+uint64(math.Round(float64(s.ExtrapolatedWaves)*s.WaveCycles)), s.Cycles)
			assert.Positive(t, s.Error)
			assert.LessOrEqual(t, math.Abs(float64(res.Timing.Cycles)-float64(full.Timing.Cycles)), float64(s.Error), "within the error bound")
			assert.Less(t, res.Timing.Issued, full.Timing.Issued, "issued counts the detailed blocks only")
			switch tc.mode {
			case timing.SampleExact:
				assert.True(t, s.OutputsComplete())
				assert.Equal(t, s.Blocks-s.Detailed, s.Functional)
				assert.Equal(t, full.Stats.Inst, res.Stats.Inst, "PTX instructions of every block")
				assert.Equal(t, full.Stats.ThreadInst, res.Stats.ThreadInst)
				for name, want := range fullOut {
					assert.True(t, string(want) == string(out[name]), "output %s bit-exact", name)
				}
			case timing.SampleSkip:
				assert.False(t, s.OutputsComplete())
				assert.Equal(t, s.Blocks-s.Detailed, s.Skipped)
				assert.Less(t, res.Stats.Inst, full.Stats.Inst, "the skipped blocks did not run")
				differ := false
				for name, want := range fullOut {
					differ = differ || string(want) != string(out[name])
				}
				assert.True(t, differ, "the skipped blocks wrote nothing")
			}
		})
	}
}

// A sampled run decides the same on any number of host goroutines, on
// the whole GPU and (-sample.all) on a slice of it: on the slice,
// TestAutoSampleEqualsAsked holds the Jacobi step's sampling, cycles,
// counts and outputs on 2 goroutines to those on 1 already. (The Adam
// step's -O3 build: the same grid, 7.8 waves, as its -G build, which this
// ran until 2026-11-29, in about half the time.)
func TestSampledDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a corpus launch twice")
	}
	l := corpusLaunch(t, "apps/O3/adam_big")
	slices := []int{1}
	if *sampleAll {
		slices = append(slices, 0)
	}
	for _, slice := range slices {
		var got []timing.Sampling
		var cycles []uint64
		for _, w := range []int{1, 2} {
			res, _ := sampledRun(t, l, timing.Sample{Mode: timing.SampleSkip, Slice: slice}, w)
			require.NotNil(t, res.Timing.Sampling)
			got = append(got, *res.Timing.Sampling)
			cycles = append(cycles, res.Timing.Cycles)
		}
		assert.Equal(t, got[0], got[1], "slice %d: 1 and 2 workers", slice)
		assert.Equal(t, cycles[0], cycles[1], "slice %d: 1 and 2 workers", slice)
	}
}

// Sampling leaves launches alone that are too small (under
// timing.MinSampleWaves waves: the warp-atomic reduction of 1 Mi words,
// 3.88 waves, which a threshold of 1 to 3 waves would sample; the tiled
// multiply at 256², 0.24 waves and as long to run, until 2026-11-29,
// which only a threshold under one wave would), with MinInst
// projected below it (the Adam step's -O3 build, 7.8 waves and about 3.2e6
// warp instructions, run in full; its -G build until 2026-11-29, twice as
// long to run), or whose per-wave time has not settled by half the grid
// (the padded transpose at 3072², 8.7 waves: 3,735, 4,209 and 4,311
// cycles), and says why where it was asked to sample one it could.
//
// The MinInst case runs only with -sample.all: it is cmd/ptxrun's
// TestRunSample "auto leaves a small launch alone" (the same launch, the
// same timing.AutoSample(false), run in full; that test holds its
// estimate, its decision and the full run's cycles under their ncu name),
// and TestPlanAuto holds the decision itself ("under the threshold: in
// full"). It cost 3.6 s of CPU here.
func TestSampleThresholds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs corpus launches")
	}
	for _, tc := range []struct {
		name   string
		launch string
		s      timing.Sample
		why    string
		all    bool // only with -sample.all
	}{
		{"under four waves", "perf/calib.O3/reduce_warpatomic_1M", timing.Sample{Mode: timing.SampleSkip}, "", false},
		{"under MinInst", "apps/O3/adam_big", timing.Sample{Mode: timing.SampleSkip, MinInst: timing.AutoSampleInst}, "", true},
		{"erratic waves", "perf/calib.O3/transpose_padded_3072", timing.Sample{Mode: timing.SampleSkip, Slice: 1}, "not sampled: the per-wave time had not settled by half the grid", false},
	} {
		if tc.all && !*sampleAll {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			res, _ := sampledRun(t, corpusLaunch(t, tc.launch), tc.s, 0)
			assert.Nil(t, res.Timing.Sampling)
			if tc.why == "" {
				assert.Empty(t, res.Timing.NotSampled)
			} else {
				assert.Contains(t, res.Timing.NotSampled, tc.why)
			}
		})
	}
}

// A sampled run's metrics carry no Nsight Compute name: the detailed
// part's figures are ptxvm__detailed__NAME, the estimate ptxvm__sampled_*.
func TestSampledMetricsNames(t *testing.T) {
	r := &timing.Result{Cycles: 1200, ClockMHz: 1000, Sampling: &timing.Sampling{Mode: timing.SampleSkip, Blocks: 10, Detailed: 4, Skipped: 6, Cycles: 1200, DetailedCycles: 500, Error: 30}}
	m := map[string]float64{timing.MetricCycles: 1200, "lts__t_sectors_op_read.sum": 7, "launch__grid_size": 10, "ptxvm__ptx_inst_executed.sum": 3}
	timing.SampledMetrics(m, r)
	for k := range m {
		assert.True(t, strings.HasPrefix(k, "ptxvm__") || strings.HasPrefix(k, "launch__"), "%s under an ncu name", k)
	}
	assert.Equal(t, 1200.0, m["ptxvm__sampled_cycles_estimate"])
	assert.Equal(t, 30.0, m["ptxvm__sampled_cycles_error"])
	assert.Equal(t, 500.0, m["ptxvm__detailed__"+timing.MetricCycles])
	assert.Equal(t, 7.0, m["ptxvm__detailed__lts__t_sectors_op_read.sum"])
	assert.Equal(t, 3.0, m["ptxvm__detailed__ptxvm__ptx_inst_executed.sum"], "skip mode: the PTX count is the detailed blocks'")
	assert.Equal(t, 0.0, m["ptxvm__sampled_outputs_complete"])
	assert.Equal(t, 10.0, m["launch__grid_size"])

	// Each metric is renamed once, whatever the map's order (renaming
	// while ranging over the map renamed some twice, different ones on
	// each run).
	many := map[string]float64{}
	for i := range 200 {
		many[fmt.Sprintf("lts__m%d.sum", i)] = float64(i)
	}
	timing.SampledMetrics(many, r)
	for i := range 200 {
		assert.Equal(t, float64(i), many[fmt.Sprintf("ptxvm__detailed__lts__m%d.sum", i)])
	}
	for k := range many {
		assert.NotContains(t, k, "ptxvm__detailed__ptxvm__detailed__")
	}
}

// The automatic sampling keeps outputs exact when they are used, and
// samples only launches past AutoSampleInst.
func TestAutoSample(t *testing.T) {
	assert.Equal(t, timing.Sample{Mode: timing.SampleExact, MinInst: timing.AutoSampleInst}, timing.AutoSample(true))
	assert.Equal(t, timing.Sample{Mode: timing.SampleSkip, MinInst: timing.AutoSampleInst}, timing.AutoSample(false))
}
