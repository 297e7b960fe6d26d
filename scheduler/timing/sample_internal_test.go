package timing

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// feedWaves runs the sampler over per-wave times ts (in cycles, the
// warm-up wave first) of a grid of n blocks, wave at a time, as the block
// scheduler runs it once the grid's first wave is resident: a block
// retires, the next is dispatched in its place, and the sampler decides
// after each; wave j's blocks retire evenly over its time, its last at the
// sum of the first j+1 times. It stops where the sampler limits the blocks
// dispatched or the series ends. sliced: as on a slice of the GPU (whose
// erratic waves go on in detail past half the grid). The L2 is not
// tracked (never filling).
func feedWaves(cfg Sample, ts []uint64, n, wave int, sliced bool) *sampler {
	var sp *spatial
	if sliced {
		sp = &spatial{sms: 17, blocks: n}
	}
	p := newSampler(cfg, &vm.Launch{}, nil, 1<<40, 32, n, wave, 0, n, 132, sp)
	var at uint64
	for _, t := range ts {
		for b := 1; b <= wave; b++ {
			p.retire(at + t*uint64(b)/uint64(wave))
			if p.decide(min(p.retired+wave, n)) < n {
				return p
			}
		}
		at += t
	}
	return p
}

// The per-wave times (on the slice, in cycles) of corpus launches, the
// warm-up wave first, every wave of the slice's grid (2,110 blocks, 136 a
// wave: 15.5 waves), from `calibrate sample` with the slice run in full
// (docs/sampling.md, sixteenth session).
var (
	// apps/O3/jacobi2d_big: 1,667 to 1,897 cycles, no two consecutive
	// within 3% after the third, a steady mean.
	jacobiWaves = []uint64{3044, 1897, 1727, 1784, 1893, 1667, 1803, 1702, 1885, 1773, 1698, 1782, 1769, 1845, 1742}
	// perf/calib.O3/stencil5_smem_4096: 5,198 to 9,330 cycles.
	stencilSmemWaves = []uint64{7837, 6810, 5449, 6483, 7788, 5198, 9330, 6407, 8353, 8564, 6580, 6316, 7663, 8437, 8213}
	// 5,000 and 9,000 cycles in turn: a spread the mean cannot be known
	// within 3% of the launch over even one wave.
	alternatingWaves = []uint64{12000, 5000, 9000, 5000, 9000, 5000, 9000, 5000, 9000, 5000, 9000, 5000, 9000, 5000, 9000}
	// perf/calib.O3/reduce_shfl_32M's first waves: two agree at once.
	steadyWaves = []uint64{3005, 1692, 1631, 1662, 1624, 1637, 1646, 1629, 1635, 1630, 1669, 1612, 1644, 1672, 1624}
	// public/O3/hto_reduce_v2_8M on the slice of 17 (its first 16 waves,
	// then the mean of its waves 5 to 15 and their spread, 31 waves in
	// all): the time falls by 8% over the four waves after the warm-up,
	// and waves 2 and 3 agree within 3% while it does.
	decliningWaves = []uint64{3671, 2624, 2526, 2557, 2456, 2371, 2371, 2370, 2412, 2336, 2371, 2380, 2385, 2365, 2357, 2295,
		2371, 2380, 2352, 2365, 2371, 2336, 2385, 2357, 2371, 2365, 2380, 2352, 2371, 2365, 2357}
	// public/O3/cs_transpose_diagonal_4096 on the slice of 10, from the
	// wave after its L2 filled, behind a warm-up wave (24 waves): 2,103
	// to 4,325 cycles, a wave that ends late followed by a short one
	// (lag-1 autocorrelation about -0.5): 4 waves extrapolated, 2 with the
	// waves taken as independent (worked out, not run).
	jitterWaves = []uint64{3758, 2882, 2664, 2761, 3395, 2785, 2882, 3803, 2486, 3354, 4150, 2287, 3523, 3710, 2302, 3964, 3378, 2103, 4312, 3268, 2367, 4325, 3035, 2687}
)

// Waves of erratic length are extrapolated at their mean once it is known
// within the tolerance (the mean rule: the Jacobi step's waves, which two
// never agreed on, sampled from half the slice's grid, the extrapolated
// waves' real sum within the bound); waves that agree still stop at the
// first two that do (the mean rule does not change them); waves too
// erratic for the mean to be known with a wave left run in detail to the
// slice's end, with MeanWaves -1 every erratic launch does (the rule
// before the sixteenth session), and on the whole GPU such a launch runs
// in full.
func TestSampleMeanRule(t *testing.T) {
	const wave = 136
	for _, tc := range []struct {
		name     string
		ts       []uint64
		n        int // the grid's blocks (0: 2110, 15.5 waves)
		cfg      Sample
		sliced   bool
		byMean   bool
		left     int // waves extrapolated; 0: none (no decision)
		measured int
		why      string // notSampled
		// waveCycles: the per-wave time extrapolated (0: not checked).
		waveCycles float64
	}{
		{name: "erratic, steady mean", ts: jacobiWaves, cfg: Sample{Mode: SampleSkip}, sliced: true, byMean: true, left: 7, measured: 5},
		{name: "erratic, the rule off", ts: jacobiWaves, cfg: Sample{Mode: SampleSkip, MeanWaves: -1}, sliced: true,
			why: "the per-wave time had not settled by half the slice's grid (the last three waves took 1784, 1893 and 1667 cycles)"},
		{name: "erratic, the whole GPU", ts: stencilSmemWaves, cfg: Sample{Mode: SampleSkip},
			why: "not sampled: the per-wave time had not settled by half the grid"},
		{name: "erratic: the last wave only", ts: stencilSmemWaves, cfg: Sample{Mode: SampleSkip}, sliced: true, byMean: true, left: 1, measured: 10},
		{name: "wave ends that jitter", ts: jitterWaves, n: 24*wave + 4, cfg: Sample{Mode: SampleSkip}, sliced: true, byMean: true, left: 4, measured: 15},
		{name: "falling after the warm-up", ts: decliningWaves, n: 31*wave + 4, cfg: Sample{Mode: SampleSkip}, sliced: true, left: 23, measured: 2, waveCycles: 2371},
		{name: "too erratic for the mean", ts: alternatingWaves, cfg: Sample{Mode: SampleSkip}, sliced: true,
			why: "nor their mean with a wave left"},
		{name: "two agree", ts: steadyWaves, cfg: Sample{Mode: SampleSkip}, sliced: true, left: 10, measured: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.n
			if n == 0 {
				n = 2110
			}
			p := feedWaves(tc.cfg, tc.ts, n, wave, tc.sliced)
			if tc.left == 0 {
				assert.Nil(t, p.info, "nothing extrapolated")
				assert.Equal(t, n, p.limit, "every block in detail")
				assert.Contains(t, p.notSampled, tc.why)
				return
			}
			require.NotNil(t, p.info)
			s := p.info
			assert.Equal(t, tc.byMean, s.ByMean)
			assert.Equal(t, !tc.byMean, s.Stable)
			assert.Equal(t, tc.left, s.ExtrapolatedWaves)
			assert.Equal(t, tc.measured, s.MeasuredWaves)
			assert.Equal(t, n-tc.left*wave, s.Detailed)
			assert.Empty(t, p.notSampled)
			if tc.waveCycles > 0 {
				assert.InDelta(t, tc.waveCycles, s.WaveCycles, 1e-9)
			}
			// The extrapolated waves' real sum within the bound.
			full := len(tc.ts)
			var real float64
			for _, w := range tc.ts[full-tc.left:] {
				real += float64(w)
			}
			est := float64(tc.left) * s.WaveCycles
			assert.LessOrEqual(t, math.Abs(real-est), float64(s.Error), "the extrapolated %d waves: %.0f cycles against %.0f", tc.left, est, real)
			if !tc.byMean {
				return
			}
			// The mean of the waves after the warm-up, their standard
			// deviation, and a bound that holds the real waves' sum.
			first := 1 + min(maxSettleWaves, n/(wave*settleFraction))
			meas := tc.ts[first : first+tc.measured]
			var sum float64
			for _, w := range meas {
				sum += float64(w)
			}
			assert.InDelta(t, sum/float64(len(meas)), s.WaveCycles, 1e-9)
			assert.Positive(t, s.WaveSD)
			var all float64
			for _, w := range tc.ts {
				all += float64(w)
			}
			assert.LessOrEqual(t, float64(s.Error)-float64(tc.left)*errFloor*s.WaveCycles, DefaultSampleTolerance*all, "the mean's part of the bound within the tolerance of the launch")
			assert.Contains(t, s.Describe(), "of erratic length")
		})
	}
}

// The mean rule's variance of the extrapolated waves' sum, in waves'
// variances: independent waves give m + m²/k (the rule of the sixteenth
// session); waves whose ends jitter (lag-1 autocorrelation -1/2) give
// 1 + m/k + m²/k², which does not grow with m as the waves' own spread;
// a positive autocorrelation (a drift) more than independent waves. The
// autocorrelation taken is the sample's plus 1/k and 1/(2·sqrt k), within
// [-1/2, 1].
func TestMeanRuleVariance(t *testing.T) {
	for _, tc := range []struct {
		name      string
		m, k, rho float64
		want      float64
		ss, s1    float64
		n         int
		wantRho   float64
	}{
		{name: "independent", m: 10, k: 5, rho: 0, want: 10 + 100.0/5, ss: 4, s1: -0.2 * 4, n: 4, wantRho: -0.2 + 0.25 + 0.25},
		{name: "jittered ends", m: 10, k: 5, rho: -0.5, want: 1 + 2 + 4, ss: 4, s1: -4, n: 5, wantRho: -0.5},
		{name: "one wave, jittered", m: 1, k: 16, rho: -0.5, want: 1 + 1.0/16 + 1.0/256, ss: 1, s1: -0.6, n: 16, wantRho: -0.6 + 1.0/16 + 0.125},
		{name: "clamped", m: 1, k: 16, rho: -0.5, want: 1 + 1.0/16 + 1.0/256, ss: 1, s1: -0.9, n: 16, wantRho: -0.5},
		{name: "drift", m: 4, k: 8, rho: 0.5, want: (4 + 3) + 0.25*(8+7) - 0.5, ss: 2, s1: 2.5, n: 8, wantRho: 1},
		{name: "waves all alike", m: 4, k: 8, rho: 0, want: 4 + 2, ss: 0, s1: 0, n: 8, wantRho: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, sumVariance(tc.m, tc.k, tc.rho), 1e-9)
			assert.InDelta(t, tc.wantRho, lag1(tc.ss, tc.s1, tc.n), 1e-9)
		})
	}
}
