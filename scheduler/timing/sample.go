package timing

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/vm"
)

// SampleMode says what a sampled run does with the blocks it does not
// simulate in detail.
type SampleMode int

const (
	// SampleOff simulates every block in detail (the default).
	SampleOff SampleMode = iota
	// SampleExact runs the blocks past the detailed part functionally
	// (no timing model, no counters): the outputs are exact, the cycles
	// an estimate.
	SampleExact
	// SampleSkip does not run the blocks past the detailed part: the
	// cycles are an estimate and the outputs incomplete.
	SampleSkip
)

func (m SampleMode) String() string {
	switch m {
	case SampleExact:
		return "exact"
	case SampleSkip:
		return "skip"
	}
	return "off"
}

// ParseSampleMode reads off, exact or skip.
func ParseSampleMode(s string) (SampleMode, error) {
	switch strings.ToLower(s) {
	case "", "off":
		return SampleOff, nil
	case "exact":
		return SampleExact, nil
	case "skip":
		return SampleSkip, nil
	}
	return SampleOff, fmt.Errorf("unknown sampling mode %q (off, exact or skip)", s)
}

// Sample configures wave sampling (sample.go): the launch's first waves
// are simulated in detail until the time a wave takes is stable; then the
// block scheduler stops dispatching at a block from which a whole number
// of waves is left, the blocks already resident drain in detail, and the
// cycles of the waves left out are added at the measured per-wave time.
type Sample struct {
	Mode SampleMode
	// MinInst: sample only a launch whose warp instructions are more than
	// this (0: any launch with waves enough): estimated before the launch
	// from some of its blocks run ahead (PlanAuto, auto.go) where it can
	// run on a slice; else projected from its first waves on the whole GPU
	// (a GPU too small to slice, a probe that failed). The automatic
	// threshold (AutoSample) is AutoSampleInst.
	MinInst int64
	// Tolerance is how far two consecutive per-wave times may differ,
	// relative to their mean, for the per-wave time to count as stable
	// (0: DefaultSampleTolerance).
	Tolerance float64
	// MeasureWaves is how many consecutive per-wave times, after the
	// first wave (warming the L2, the instruction caches and DRAM), must
	// agree within Tolerance (0: DefaultMeasureWaves; at least 2).
	MeasureWaves int
	// MeanWaves is the fewest per-wave times after the warm-up from which
	// waves of erratic length are extrapolated at their mean, once the
	// mean's uncertainty over the waves left is within Tolerance of the
	// launch's cycles (0: DefaultMeanWaves; negative: never, waves of
	// erratic length run in detail).
	MeanWaves int
	// Slice: the launch runs on a slice of the GPU, one SM in Slice with
	// the matching share of the L2 and DRAM, and only the first blocks of
	// the grid, as many as keep its waves (spatial.go); the wave sampling
	// then runs on the slice. 0: DefaultSliceFraction, or
	// FewWavesSliceFraction for a launch of fewer than FewWaves waves
	// (spatial.go); 1: the whole GPU.
	// With MinInst, the slice is taken when the estimate made before the
	// launch passes it (PlanAuto).
	Slice int
}

// Sampling defaults.
const (
	DefaultSampleTolerance = 0.03
	DefaultMeasureWaves    = 2
	DefaultMeanWaves       = 5
	// AutoSampleInst is the estimated warp instructions above which
	// ptxrun samples a timed launch unless told not to (about two minutes
	// of a full simulation on one host core).
	AutoSampleInst = 200_000_000
	// MinSampleWaves is the fewest waves a launch must have to be
	// sampled: a warm-up wave, the measured waves, one wave to
	// extrapolate and the partial last wave.
	MinSampleWaves = 4
)

// AutoSample is the sampling a timed run gets unless told otherwise: a
// launch estimated, before it starts, past AutoSampleInst warp
// instructions (PlanAuto) is sampled on a slice of the GPU, its blocks
// left out run functionally when the outputs are used (written or
// checked: exact) and not at all otherwise (skip).
func AutoSample(outputsUsed bool) Sample {
	m := SampleSkip
	if outputsUsed {
		m = SampleExact
	}
	return Sample{Mode: m, MinInst: AutoSampleInst}
}

// Sampling says how a sampled run's figures were obtained. Cycles (and
// Busy) in its Result are estimates: the detailed part's cycles plus
// ExtrapolatedWaves times WaveCycles. Every other figure of the Result
// (instructions issued, stalls, occupancy, the hierarchy's counters, the
// per-instruction and per-line figures, the trace) counts the detailed
// blocks only; Stats (PTX instructions) counts every block in SampleExact
// mode, the detailed blocks only in SampleSkip mode.
type Sampling struct {
	Mode SampleMode `json:"-"`
	// ModeName is Mode as a word (exact or skip).
	ModeName string `json:"mode"`
	// Blocks is the grid's blocks; Detailed those simulated in detail
	// (blocks 0 to Detailed-1); Functional those run functionally
	// (SampleExact), Skipped those not run at all (SampleSkip).
	Blocks     int `json:"blocks"`
	Detailed   int `json:"detailed_blocks"`
	Functional int `json:"functional_blocks"`
	Skipped    int `json:"skipped_blocks"`
	// WaveBlocks is the blocks the GPU holds at once (SMs used ×
	// occupancy); Waves the grid's waves.
	WaveBlocks int     `json:"wave_blocks"`
	Waves      float64 `json:"waves"`
	// SMs is the GPU's SMs; SliceSMs those of the slice the detailed part
	// ran on (equal when the launch was not sliced), SliceBlocks the
	// blocks the slice's grid had (its first blocks; Blocks if not sliced).
	SMs         int `json:"sms"`
	SliceSMs    int `json:"slice_sms"`
	SliceBlocks int `json:"slice_blocks"`
	// WaveTimes are the detailed waves' times in cycles, the first (the
	// warm-up) included: wave j ends when (j+1)·WaveBlocks blocks have
	// retired. MeasuredWaves is how many of the last of them the per-wave
	// time was taken from, WaveCycles their mean.
	WaveTimes     []uint64 `json:"wave_cycles_detailed"`
	MeasuredWaves int      `json:"measured_waves"`
	WaveCycles    float64  `json:"wave_cycles"`
	// Stable says whether the measured waves agreed within the tolerance
	// after the L2's filling. False with ByMean: they did not, and the
	// per-wave time is the mean of the MeasuredWaves waves after the
	// warm-up and the L2's filling (their standard deviation WaveSD),
	// once that mean was known well enough (sample.go, meanSettled).
	// False otherwise: the detailed part reached half the grid first, for
	// the reason Unstable gives, and the per-wave time is the last
	// detailed wave's.
	Stable   bool    `json:"stable"`
	ByMean   bool    `json:"by_mean,omitempty"`
	WaveSD   float64 `json:"wave_cycles_sd,omitempty"`
	Unstable string  `json:"unstable,omitempty"`
	// ExtrapolatedWaves is the whole waves left out, whose time is added.
	ExtrapolatedWaves int `json:"extrapolated_waves"`
	// DetailedCycles is the cycles of the detailed part alone (a launch of
	// its blocks: launch overhead, its waves and its drain).
	DetailedCycles uint64 `json:"detailed_cycles"`
	// Cycles is the estimate (Result.Cycles); Error its error bound in
	// cycles: per extrapolated wave, the change between the last two
	// measured waves plus 2% of WaveCycles (ByMean: twice the standard
	// error of the extrapolated waves' sum, meanSettled, plus 2% of
	// WaveCycles a wave); on a slice, plus 3% of the estimate (4% on a
	// slice of fewer than 16 SMs: spatial.errFraction).
	Cycles uint64 `json:"cycles"`
	Error  uint64 `json:"error_cycles"`
	// ProjectedInst is the launch's warp instructions projected from the
	// detailed part when the waves left out were decided.
	ProjectedInst float64 `json:"projected_warp_instructions"`
	// Auto, if not nil, is the automatic sampling's decision to sample,
	// taken before the launch from an estimate of its size (auto.go).
	Auto *AutoSampling `json:"auto,omitempty"`
}

// ErrorPct is the error bound as a percentage of the estimate.
func (s *Sampling) ErrorPct() float64 {
	if s.Cycles == 0 {
		return 0
	}
	return 100 * float64(s.Error) / float64(s.Cycles)
}

// OutputsComplete says whether every block ran (in detail or
// functionally), so that the launch's outputs are what a full run writes.
func (s *Sampling) OutputsComplete() bool { return s == nil || s.Skipped == 0 }

// Describe is one line on how the figures were obtained.
func (s *Sampling) Describe() string {
	what := fmt.Sprintf("%d of %d blocks (%.1f of %.1f waves) simulated in detail", s.Detailed, s.Blocks, float64(s.Detailed)/float64(s.WaveBlocks), s.Waves)
	if s.SliceSMs < s.SMs {
		what = fmt.Sprintf("%d of %d blocks simulated in detail on a slice of %d of the %d SMs (the grid's first %d blocks, %.1f of their %.1f waves)", s.Detailed, s.Blocks, s.SliceSMs, s.SMs, s.SliceBlocks, float64(s.Detailed)/float64(s.WaveBlocks), s.Waves)
	}
	switch s.Mode {
	case SampleExact:
		what += fmt.Sprintf(", %d run functionally (outputs exact)", s.Functional)
	case SampleSkip:
		what += fmt.Sprintf(", %d not run (outputs incomplete)", s.Skipped)
	}
	how := fmt.Sprintf("the mean of %d measured waves that agree", s.MeasuredWaves)
	switch {
	case s.ByMean:
		how = fmt.Sprintf("the mean of %d measured waves of erratic length, standard deviation %.0f cycles", s.MeasuredWaves, s.WaveSD)
	case !s.Stable:
		how = "the last detailed wave's: " + s.Unstable
	}
	if s.ExtrapolatedWaves == 0 {
		return fmt.Sprintf("%s; no wave extrapolated (%s)", what, s.Unstable)
	}
	return fmt.Sprintf("%s; %d waves extrapolated at %.0f cycles each (%s)", what, s.ExtrapolatedWaves, s.WaveCycles, how)
}

// fallbackSpread is how far apart (relative to the longest) the last three
// waves may be for a launch whose per-wave time is not stable by half the
// grid to be sampled at all.
const fallbackSpread = 0.09

// meanZ is how many standard errors of the extrapolated waves' sum the
// mean rule (meanSettled) takes as its uncertainty.
const meanZ = 2

// errFloor is the part of a wave's time the error bound adds per
// extrapolated wave whatever the measured waves' spread: the detailed
// part's drain and the launch's differ a little (measured on the corpus:
// docs/sampling.md).
const errFloor = 0.02

// settleFraction and maxSettleWaves: the waves after the warm-up wave that
// are never measured, a settleFraction-th of the grid's waves (rounded
// down), at most maxSettleWaves. A wave's time can keep
// falling for several waves after the warm-up, by 1-2% a wave, and two
// waves within the tolerance cannot see that: hto_reduce_v2_8M's waves
// after the warm-up take 2,624, 2,526, 2,557, 2,456, then about 2,370 on
// the slice (and fall alike on the whole GPU), and the first two that
// agreed were extrapolated over 26 waves at 7% too much (docs/sampling.md,
// seventeenth session, second change). For a launch of many waves the waves waited cost
// little against those extrapolated; under 8 waves none are waited.
const (
	settleFraction = 8
	maxSettleWaves = 4
)

// settleWaves is how many waves after the warm-up wave are not measured.
func (p *sampler) settleWaves() int {
	return min(maxSettleWaves, p.n/(p.wave*settleFraction))
}

// sampler watches a timed run's retirements and decides where the detailed
// part ends.
type sampler struct {
	cfg     Sample
	l       *vm.Launch
	n, wave int
	// all is the grid's blocks; sp the slice of the GPU the run is on
	// (nil: the whole GPU, all = n), sms the GPU's SMs.
	all, sms int
	sp       *spatial
	start    uint64
	retired  int
	marks    []uint64 // marks[j]: the cycle (j+1)·wave blocks had retired by
	limit    int      // blocks dispatched at most (n until decided)
	// The L2's warm state: h's counters give the bytes the launch has
	// brought into the L2 (fill: sectors read from DRAM and sectors
	// written) at each wave's end; warm is the first wave by whose end
	// they were at least the L2's capacity l2 (-1: not yet).
	h     *hier.Hierarchy
	l2    float64
	fill  float64
	fill0 float64 // fill by the first wave's end
	// filling: the L2 was projected to fill and had not when the detailed
	// part had to end.
	filling bool
	// notSampled says why a launch asked to be sampled ran in full.
	notSampled string
	// past: on a slice, the per-wave time had not settled by half the
	// grid; the waves go on in detail and only the mean rule may still
	// end the detailed part.
	past    bool
	warm    int
	decided bool
	info    *Sampling
}

func newSampler(cfg Sample, l *vm.Launch, h *hier.Hierarchy, l2Bytes, sectorBytes, n, wave int, start uint64, all, sms int, sp *spatial) *sampler {
	if cfg.Mode == SampleOff || wave <= 0 || n < MinSampleWaves*wave && sp == nil {
		return nil
	}
	if cfg.Tolerance <= 0 {
		cfg.Tolerance = DefaultSampleTolerance
	}
	if cfg.MeasureWaves <= 0 {
		cfg.MeasureWaves = DefaultMeasureWaves
	}
	cfg.MeasureWaves = max(cfg.MeasureWaves, 2)
	if cfg.MeanWaves == 0 {
		cfg.MeanWaves = DefaultMeanWaves
	}
	return &sampler{cfg: cfg, l: l, n: n, wave: wave, all: all, sms: sms, sp: sp, start: start, limit: n, h: h, l2: float64(l2Bytes) / float64(max(sectorBytes, 1)), warm: -1}
}

// retire counts a block that retired at cycle at (in order).
func (p *sampler) retire(at uint64) {
	p.retired++
	if p.retired%p.wave == 0 {
		p.marks = append(p.marks, at)
		if p.h != nil {
			c := p.h.Counts()
			p.fill = float64(c[hier.DRAMReadSectors] + c[hier.L2WriteSectors] + c[hier.L2AtomSectors] + c[hier.L2RedSectors])
			if len(p.marks) == 1 {
				p.fill0 = p.fill
			}
			if p.warm < 0 && p.fill >= p.l2 {
				p.warm = len(p.marks) - 1
			}
		}
	}
}

// times are the per-wave times so far (the first wave's from the first
// block's start).
func (p *sampler) times() []uint64 {
	out := make([]uint64, len(p.marks))
	prev := p.start
	for i, m := range p.marks {
		out[i] = m - min(m, prev)
		prev = m
	}
	return out
}

// decide is called after each window with the blocks dispatched so far;
// it returns how many blocks may be dispatched in all.
func (p *sampler) decide(next int) int {
	if p.decided {
		return p.limit
	}
	k := p.cfg.MeasureWaves
	ts := p.times()
	// The measured waves come after the first (cold caches, every block
	// starting at once) and the settling waves after it (settleWaves),
	// and, for a launch that brings more than the L2
	// holds, after the L2 has filled: from then on its misses evict (and
	// write back dirty lines), which the waves before did not pay.
	first := 1 + p.settleWaves()
	p.filling = false
	if p.warm >= 0 {
		first = max(first, p.warm+1)
	} else if len(ts) > 1 && p.fill+(p.fill-p.fill0)/float64(len(ts)-1)*float64(p.n-p.retired)/float64(p.wave) >= p.l2 {
		// At the fill rate of the waves after the first (whose compulsory
		// misses, of data every block reads, come once), the L2 fills
		// before the launch ends: not warm yet.
		first = len(ts) + 1
		p.filling = true
	}
	// Two waves that agree, before half the grid.
	stable := !p.past && len(ts) >= first+k
	var meas []uint64
	if stable {
		meas = ts[len(ts)-k:]
		for i := 1; i < len(meas); i++ {
			a, b := float64(meas[i-1]), float64(meas[i])
			if math.Abs(a-b) > p.cfg.Tolerance*(a+b)/2 {
				stable = false
			}
		}
	}
	// Else waves of erratic length whose mean is known well enough.
	var byMean bool
	var meanStat, sd float64
	if !stable && len(ts) > first {
		if _, sd, meanStat, byMean = p.meanSettled(ts, ts[first:], next); byMean {
			meas = ts[first:]
		}
	}
	if !stable && !byMean {
		// The three waves of the fallback come after the warm-up wave
		// (a launch of under 8 waves reaches half its grid before it has
		// three more: it waits for them).
		if p.past || next < p.n/2 || len(ts) < 4 {
			return p.limit
		}
		// Half the grid and no stable time. If the last three waves
		// agree within fallbackSpread (the L2 was projected to fill and
		// has not, or a slow drift), extrapolate at the last wave's time;
		// if they do not (waves that take erratic times), sampling would
		// guess: the run goes on in full, or on a slice until the mean
		// rule is satisfied.
		meas = ts[len(ts)-3:]
		lo, hi := float64(min(meas[0], meas[1], meas[2])), float64(max(meas[0], meas[1], meas[2]))
		if hi-lo > fallbackSpread*hi {
			if p.cfg.MinInst > 0 && float64(p.l.InstExecuted())*float64(p.all)/float64(max(next, 1)) <= float64(p.cfg.MinInst) {
				p.decided = true
				return p.limit
			}
			if p.sp != nil {
				// The slice goes on in detail (running it all costs about
				// an eighth of a full run), and its waves may still be
				// extrapolated at their mean; not at two that agree by
				// chance among erratic ones.
				p.past = true
				p.notSampled = fmt.Sprintf("the per-wave time had not settled by half the slice's grid (the last three waves took %d, %d and %d cycles), nor their mean with a wave left", meas[0], meas[1], meas[2])
				return p.limit
			}
			p.decided = true
			p.notSampled = fmt.Sprintf("not sampled: the per-wave time had not settled by half the grid (the last three waves took %d, %d and %d cycles)", meas[0], meas[1], meas[2])
			return p.limit
		}
		meas = meas[1:]
	}
	// Stop where a whole number of waves is left, so that the detailed
	// part ends with the grid's partial wave, as the launch does.
	left := (p.n - next) / p.wave
	d := p.n - left*p.wave
	p.decided = true
	projected := float64(p.l.InstExecuted()) * float64(p.all) / float64(max(next, 1))
	if left < 1 {
		p.notSampled = "not sampled: less than a wave was left when the per-wave time was known"
		if p.sp != nil {
			p.notSampled = "less than a wave was left when the per-wave time was known"
		}
		return p.limit
	}
	if p.cfg.MinInst > 0 && projected <= float64(p.cfg.MinInst) {
		return p.limit // not worth it: the run goes on in full
	}
	var sum float64
	for _, t := range meas {
		sum += float64(t)
	}
	mean := sum / float64(len(meas))
	last, prev := float64(meas[len(meas)-1]), float64(meas[len(meas)-2])
	if !stable && !byMean {
		mean = last
	}
	// The bound: per wave left, the change between the last two
	// measured waves (by the mean: the mean's uncertainty) plus errFloor
	// of a wave.
	m := float64(left)
	bound := m * (math.Abs(last-prev) + errFloor*mean)
	if byMean {
		bound = meanStat + m*errFloor*mean
	}
	p.limit = d
	p.info = p.newInfo(d)
	p.info.MeasuredWaves, p.info.WaveCycles, p.info.Stable = len(meas), mean, stable
	p.info.ExtrapolatedWaves, p.info.ProjectedInst = left, projected
	if byMean {
		p.info.ByMean, p.info.WaveSD = true, sd
		p.notSampled = ""
	} else if !stable {
		p.info.Unstable = "the per-wave time was not stable by half the grid"
		if p.filling && p.warm < 0 {
			p.info.Unstable = "the L2 was projected to fill and had not by half the grid: later waves may evict more than the detailed ones"
		}
	}
	p.info.Error = uint64(math.Ceil(bound))
	return p.limit
}

// meanSettled is the rule for waves of erratic length (no two consecutive
// agree within the tolerance, yet their mean is steady): ts are the
// per-wave times so far, win the measured ones (after the warm-up wave,
// the settling waves and the L2's filling), next the blocks dispatched.
// With k = len(win) waves of mean mu, variance s² = sd² and lag-1
// autocorrelation rho, the waves left if the detailed part ended now (m)
// would be extrapolated at mu; the error of that sum, S_m - m·mu, has the
// variance
//
//	s²·[(m + 2(m-1)·rho) + (m/k)²·(k + 2(k-1)·rho) - 2(m/k)·rho]
//
// for waves correlated with their neighbours only (the m waves' own
// spread, the mean's error over m waves, and the two sums' shared
// boundary). Independent waves (rho 0) give s²·(m + m²/k), the rule of
// the sixteenth session. A wave ends when a whole wave of blocks has
// retired, so a wave that ends late (its last block late) makes the next
// short: where that jitter of the wave ends is what varies, rho is -1/2
// and the variance s²·(1 + m/k + m²/k²) no longer grows with m (the
// diagonal transpose's waves on the slice: rho about -0.57). rho is the
// sample autocorrelation made larger for its uncertainty (lag1); a
// positive one (a drift) makes the variance larger. The mean
// rule holds once there are at least Sample.MeanWaves waves, a wave would
// be left, and meanZ standard errors are at most Tolerance of the
// launch's cycles (those so far and the waves left at mu); stat is that
// many standard errors, in cycles. A drift over more than neighbouring
// waves makes it an underestimate, which the per-wave errFloor of the
// bound is for.
func (p *sampler) meanSettled(ts, win []uint64, next int) (mu, sd, stat float64, ok bool) {
	k := len(win)
	if p.cfg.MeanWaves < 0 || k < max(p.cfg.MeanWaves, 2) {
		return 0, 0, 0, false
	}
	m := float64((p.n - next) / p.wave)
	if m < 1 {
		return 0, 0, 0, false
	}
	var sum, elapsed, ss, s1 float64
	for _, t := range win {
		sum += float64(t)
	}
	mu = sum / float64(k)
	for i, t := range win {
		d := float64(t) - mu
		ss += d * d
		if i > 0 {
			s1 += d * (float64(win[i-1]) - mu)
		}
	}
	sd = math.Sqrt(ss / float64(k-1))
	for _, t := range ts {
		elapsed += float64(t)
	}
	total := elapsed + float64(p.n-p.retired)/float64(p.wave)*mu
	stat = meanZ * sd * math.Sqrt(sumVariance(m, float64(k), lag1(ss, s1, k)))
	return mu, sd, stat, stat <= p.cfg.Tolerance*total
}

// lag1 is the lag-1 autocorrelation the mean rule takes for k waves whose
// squared deviations from their mean sum to ss and products of
// neighbours' deviations to s1: the sample autocorrelation plus its bias
// for k values (about 1/k) plus half its standard error (1/(2·sqrt k)),
// within [-1/2, 1] (below -1/2 the variance of a sum of such waves would
// be negative; 0 for waves all alike). The half standard error keeps the
// rule's bound as often right for independent waves as the rule without
// the autocorrelation (about 95% in a simulation of waves of independent
// normal lengths, 5% to 30% spread, 31 waves; docs/sampling.md,
// seventeenth session, second change), which the bias alone did not (92%).
func lag1(ss, s1 float64, k int) float64 {
	if ss <= 0 {
		return 0
	}
	return min(max(s1/ss+1/float64(k)+0.5/math.Sqrt(float64(k)), -0.5), 1)
}

// sumVariance is the variance, in units of one wave's, of the sum of the
// m waves after k measured ones less m times the k waves' mean, for waves
// of lag-1 autocorrelation rho and none further (meanSettled).
func sumVariance(m, k, rho float64) float64 {
	r := m / k
	return (m + 2*(m-1)*rho) + r*r*(k+2*(k-1)*rho) - 2*r*rho
}

// newInfo is the Sampling of a run whose first d blocks ran in detail.
func (p *sampler) newInfo(d int) *Sampling {
	s := &Sampling{Mode: p.cfg.Mode, ModeName: p.cfg.Mode.String(), Blocks: p.all, Detailed: d, WaveBlocks: p.wave,
		Waves: float64(p.n) / float64(p.wave), SMs: p.sms, SliceSMs: p.sms, SliceBlocks: p.n}
	if p.sp != nil {
		s.SliceSMs = p.sp.sms
	}
	if p.cfg.Mode == SampleExact {
		s.Functional = p.all - d
	} else {
		s.Skipped = p.all - d
	}
	return s
}

// finish turns the detailed run's result into the launch's estimate and,
// in SampleExact mode, runs the blocks left out functionally (with the
// kernel as written, orig).
func (p *sampler) finish(ctx context.Context, res *Result, orig *vm.Kernel, occ, workers int, done *atomic.Uint64) error {
	if p == nil {
		return nil
	}
	res.NotSampled = p.notSampled
	if p.info == nil && p.sp != nil {
		// The slice ran all its blocks: its cycles are the estimate.
		p.info = p.newInfo(p.n)
		p.info.Unstable = "the slice's blocks all ran in detail"
		if p.notSampled != "" {
			p.info.Unstable += ": " + p.notSampled
		}
		p.info.ProjectedInst = float64(p.l.InstExecuted()) * float64(p.all) / float64(max(p.n, 1))
		res.NotSampled = ""
	}
	if p.info == nil {
		return nil
	}
	s := p.info
	s.WaveTimes = p.times()
	s.DetailedCycles = res.Cycles
	add := uint64(math.Round(float64(s.ExtrapolatedWaves) * s.WaveCycles))
	res.Cycles += add
	res.Busy += add
	s.Cycles = res.Cycles
	if p.sp != nil {
		s.Error += uint64(math.Ceil(p.sp.errFraction() * float64(s.Cycles)))
	}
	res.Sampling = s
	if s.Functional == 0 {
		return nil
	}
	st, err := runRest(ctx, p.l, orig, s.Detailed, p.all, occ, workers, done)
	res.Stats.Add(st)
	return err
}

// restQuantum is the warp instructions a warp runs per turn when the blocks
// left out run functionally (the functional mode's quantum).
const restQuantum = 32

// runRest runs blocks [from, n) of l functionally with kernel k, occ at a
// time per host SM, on workers goroutines, and returns what they executed.
func runRest(ctx context.Context, l *vm.Launch, k *vm.Kernel, from, n, occ, workers int, done *atomic.Uint64) (vm.Stats, error) {
	saved := l.Kernel
	l.Kernel = k
	defer func() { l.Kernel = saved }()
	var next atomic.Int64
	next.Store(int64(from))
	sms := make([]*vm.SM, max(1, workers))
	errs := make([]error, len(sms))
	var wg sync.WaitGroup
	for i := range sms {
		sms[i] = l.NewSM(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := sms[i]
			for ctx.Err() == nil {
				a := int(next.Add(int64(occ))) - occ
				if a >= n {
					return
				}
				blocks := make([]int, 0, occ)
				for b := a; b < min(a+occ, n); b++ {
					blocks = append(blocks, b)
				}
				if err := s.RunCTAs(blocks, restQuantum); err != nil {
					errs[i] = err
					l.Stop()
					return
				}
				if done != nil {
					done.Add(uint64(len(blocks)))
				}
			}
		}()
	}
	wg.Wait()
	var st vm.Stats
	for _, s := range sms {
		st.Add(s.Stats)
	}
	for _, err := range errs {
		if err != nil && !vm.IsStopped(err) {
			return st, err
		}
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	for _, err := range errs {
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

// SampledMetrics relabels a sampled run's metrics so that no figure of
// the detailed part passes for the launch's: every name but the launch's
// configuration (launch__*) becomes ptxvm__detailed__NAME (the figure over
// the detailed blocks only), and the estimate is given under names of our
// own: ptxvm__sampled_cycles_estimate, ptxvm__sampled_cycles_error,
// ptxvm__sampled_duration_ns_estimate, ptxvm__sampled_detailed_blocks,
// ptxvm__sampled_blocks, ptxvm__sampled_slice_sms and
// ptxvm__sampled_outputs_complete; the automatic sampling's figures
// (ptxvm__sample_auto_*) keep their names. In
// SampleExact mode the PTX instruction counts are of every block and keep
// their names. m is changed in place and returned.
func SampledMetrics(m map[string]float64, r *Result) map[string]float64 {
	s := r.Sampling
	if s == nil {
		return m
	}
	keep := func(k string) bool {
		if strings.HasPrefix(k, "launch__") || strings.HasPrefix(k, "ptxvm__sample_auto_") {
			return true
		}
		return s.Mode == SampleExact && (k == "ptxvm__ptx_inst_executed.sum" || k == "ptxvm__ptx_thread_inst_executed.sum")
	}
	// The names are collected first: a key added to a map while ranging
	// over it may or may not be visited, so renaming in the loop renamed
	// some metrics again (ptxvm__detailed__ptxvm__detailed__...), a
	// different set on every run.
	var rename []string
	for k := range m {
		if !keep(k) {
			rename = append(rename, k)
		}
	}
	for _, k := range rename {
		v := m[k]
		delete(m, k)
		m["ptxvm__detailed__"+k] = v
	}
	m["ptxvm__detailed__"+MetricCycles] = float64(s.DetailedCycles)
	m["ptxvm__detailed__"+MetricDuration] = float64(s.DetailedCycles) * 1000 / max(r.ClockMHz, 1)
	m["ptxvm__sampled_cycles_estimate"] = float64(s.Cycles)
	m["ptxvm__sampled_cycles_error"] = float64(s.Error)
	m["ptxvm__sampled_duration_ns_estimate"] = r.Nanoseconds()
	m["ptxvm__sampled_detailed_blocks"] = float64(s.Detailed)
	m["ptxvm__sampled_blocks"] = float64(s.Blocks)
	m["ptxvm__sampled_slice_sms"] = float64(s.SliceSMs)
	complete := 0.0
	if s.OutputsComplete() {
		complete = 1
	}
	m["ptxvm__sampled_outputs_complete"] = complete
	return m
}
