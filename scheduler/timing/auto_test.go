package timing_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/occupancy"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// preparedLaunch prepares a corpus launch and its blocks per SM on prof.
func preparedLaunch(t *testing.T, l *ncu.Launch, prof *gpu.Profile) (*spec.Prepared, int) {
	t.Helper()
	sp, err := spec.Load(l.SpecPath())
	require.NoError(t, err)
	p, err := sp.Prepare(vm.NewDevice(), nil)
	require.NoError(t, err)
	t.Cleanup(p.Launch.Release)
	lk := p.Launch
	o, err := occupancy.Compute(prof, occupancy.Input{Threads: lk.ThreadsPerCTA(), Registers: l.Int("launch__registers_per_thread"),
		Shared: int(lk.Kernel.SharedStatic + lk.DynSmem), Barriers: occupancy.Barriers(lk.Kernel), Blocks: lk.NumCTAs()})
	require.NoError(t, err)
	return p, o.BlocksPerSM
}

// The automatic sampling decides before the launch: a launch too small to
// run on a slice of the GPU (under 4 waves), or on a GPU too small to
// slice (the GF100's 16 SMs), is not probed and keeps the sampling of its
// waves on the whole GPU (decided from its first waves); a larger one is
// probed, run in full under the threshold and sampled on a slice past it;
// a probe whose blocks alone pass its budget says the launch has at least
// its estimate.
func TestPlanAuto(t *testing.T) {
	h100, gf100 := gpu.MustLookup("h100"), gpu.MustLookup("gf100")
	auto := timing.AutoSample(false)
	for _, tc := range []struct {
		name   string
		launch string
		prof   *gpu.Profile
		s      timing.Sample
		want   timing.Sample
		// probed: an AutoSampling is returned; sampled: its decision.
		probed, sampled, atLeast bool
		// est: the estimate (0: not checked).
		est float64
	}{
		{name: "one wave: not probed", launch: "perf/calib.O3/matmul_tiled_256", prof: h100, s: auto, want: auto},
		{name: "a GPU too small to slice", launch: "apps/O3/jacobi2d_big", prof: gf100, s: auto, want: auto},
		{name: "under the threshold: in full", launch: "apps/O3/jacobi2d_big", prof: h100, s: auto, want: timing.Sample{}, probed: true, est: 7471104},
		{name: "past the threshold: on a slice", launch: "apps/O3/jacobi2d_big", prof: h100, s: timing.Sample{Mode: timing.SampleExact, MinInst: 1e6},
			want: timing.Sample{Mode: timing.SampleExact}, probed: true, sampled: true, est: 7471104},
		{name: "past the probe's budget", launch: "apps/O3/jacobi2d_big", prof: h100, s: timing.Sample{Mode: timing.SampleSkip, MinInst: 8000},
			want: timing.Sample{Mode: timing.SampleSkip}, probed: true, sampled: true, atLeast: true},
		{name: "asked for skip: nothing to decide", launch: "apps/O3/jacobi2d_big", prof: h100, s: timing.Sample{Mode: timing.SampleSkip}, want: timing.Sample{Mode: timing.SampleSkip}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, occ := preparedLaunch(t, corpusLaunch(t, tc.launch), tc.prof)
			got, a := timing.PlanAuto(p.Launch, tc.prof, occ, tc.s, nil)
			assert.Equal(t, tc.want, got)
			assert.Zero(t, p.Launch.InstExecuted(), "the probe is not counted against the launch")
			if !tc.probed {
				assert.Nil(t, a)
				return
			}
			require.NotNil(t, a)
			assert.Empty(t, a.Why)
			assert.Equal(t, tc.s.MinInst, a.Threshold)
			assert.Equal(t, tc.sampled, a.Sampled)
			assert.Equal(t, tc.atLeast, a.AtLeast)
			if tc.sampled {
				assert.Equal(t, 10, a.SliceSMs, "15.5 waves: one SM in 13")
				assert.Greater(t, a.EstimatedInst, float64(tc.s.MinInst))
			}
			if !tc.atLeast {
				assert.Equal(t, timing.ProbeBlocks, a.Probed)
			}
			if tc.est != 0 {
				assert.Equal(t, tc.est, a.EstimatedInst)
			}
		})
	}
}

// The estimate against the PTX warp instructions of every block run
// functionally: exact for launches whose blocks do the same work (Adam),
// 3.6% high for the Jacobi step, whose
// boundary blocks (not among the 16 probed) do less.
func TestEstimateInst(t *testing.T) {
	h100 := gpu.MustLookup("h100")
	for _, tc := range []struct {
		launch string
		true   uint64
		ratio  float64
	}{
		{"apps/O3/adam_big", 3211264, 1},
		{"apps/O3/jacobi2d_big", 7213560, 1.0357},
	} {
		t.Run(tc.launch, func(t *testing.T) {
			p, _ := preparedLaunch(t, corpusLaunch(t, tc.launch), h100)
			est, probed, atLeast, err := timing.EstimateInst(p.Launch, timing.ProbeBlocks, 0)
			require.NoError(t, err)
			assert.Equal(t, timing.ProbeBlocks, probed)
			assert.False(t, atLeast)
			assert.InDelta(t, tc.ratio, est/float64(tc.true), 0.0001)
			// The count every block gives, which the probe left as it was.
			s := p.Launch.NewSM(0)
			for b := range p.Launch.NumCTAs() {
				require.NoError(t, s.RunCTA(b))
			}
			assert.Equal(t, tc.true, s.Stats.Inst)
		})
	}
}

// The automatic sampling of a launch past its threshold gives exactly what
// asking for the sampling gives (the same slice, waves, cycles, counts and
// outputs; exact: the outputs of a full run), on 1 and (skip) 2 host
// goroutines. The Jacobi step's waves on the slice are of erratic length
// (no two agree within 3%), and are extrapolated at their mean (the mean
// rule, sample.go's meanSettled, since the sixteenth session).
func TestAutoSampleEqualsAsked(t *testing.T) {
	l := corpusLaunch(t, "apps/O3/jacobi2d_big")
	for _, tc := range []struct {
		mode    timing.SampleMode
		workers []int
	}{
		{timing.SampleExact, []int{1}},
		{timing.SampleSkip, []int{1, 2}},
	} {
		mode := tc.mode
		t.Run(mode.String(), func(t *testing.T) {
			// One SM in 8 (on the default slice of one in 13 for its 15.5
			// waves, two of its waves agree).
			asked, askedOut := sampledRun(t, l, timing.Sample{Mode: mode, Slice: timing.DefaultSliceFraction}, 1)
			require.NotNil(t, asked.Timing.Sampling)
			require.Nil(t, asked.Timing.Auto)
			assert.True(t, asked.Timing.Sampling.ByMean, "extrapolated at the mean of waves of erratic length")
			assert.Positive(t, asked.Timing.Sampling.ExtrapolatedWaves)
			for _, w := range tc.workers {
				res, out := sampledRun(t, l, timing.Sample{Mode: mode, MinInst: 1e6, Slice: timing.DefaultSliceFraction}, w)
				s := res.Timing.Sampling
				require.NotNil(t, s)
				require.NotNil(t, s.Auto)
				assert.True(t, s.Auto.Sampled)
				assert.Same(t, res.Timing.Auto, s.Auto)
				got := *s
				got.Auto = nil
				assert.Equal(t, *asked.Timing.Sampling, got, "%d workers", w)
				assert.Equal(t, asked.Timing.Cycles, res.Timing.Cycles)
				assert.Equal(t, asked.Timing.Issued, res.Timing.Issued)
				assert.Equal(t, asked.Stats, res.Stats)
				for name, want := range askedOut {
					assert.True(t, string(want) == string(out[name]), "output %s", name)
				}
				m := res.Timing.Metrics()
				assert.Equal(t, 1.0, m[timing.MetricAutoSampled])
				assert.InDelta(t, 7471104, m[timing.MetricAutoEstimate], 0.5)
				timing.SampledMetrics(m, res.Timing)
				assert.Equal(t, 1.0, m[timing.MetricAutoSampled], "kept under its name")
				assert.Equal(t, 17.0, m["ptxvm__sampled_slice_sms"])
			}
		})
	}
}

// A launch the automatic sampling estimated and ran in full says so in its
// metrics, under names of ours beside the ncu ones.
func TestAutoMetrics(t *testing.T) {
	r := &timing.Result{Cycles: 1000, ClockMHz: 1000, Auto: &timing.AutoSampling{Threshold: timing.AutoSampleInst, EstimatedInst: 7.5e6, Probed: 16}}
	m := r.Metrics()
	assert.Equal(t, 0.0, m[timing.MetricAutoSampled])
	assert.Equal(t, 7.5e6, m[timing.MetricAutoEstimate])
	assert.Equal(t, float64(timing.AutoSampleInst), m[timing.MetricAutoThreshold])
	assert.Equal(t, 1000.0, m[timing.MetricCycles])
	assert.Equal(t, "automatic: about 7.5e+06 warp instructions estimated from 16 blocks run ahead, at most 2e+08", r.Auto.Describe())
	// A probe that failed decides nothing: no figures.
	r.Auto = &timing.AutoSampling{Threshold: timing.AutoSampleInst, Why: "automatic: the launch's size could not be estimated ahead"}
	assert.NotContains(t, r.Metrics(), timing.MetricAutoSampled)
}
