package timing

import (
	"math"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
)

// DefaultSliceFraction is the part of the GPU a sampled run simulates
// (Sample.Slice): one SM in 8, with the matching share of the L2 and of
// DRAM, for a launch of FewWaves waves or more; a launch of fewer gets
// one SM in FewWavesSliceFraction.
const DefaultSliceFraction = 8

// FewWaves and FewWavesSliceFraction: by default a launch of fewer than
// FewWaves waves (its blocks over the GPU's SMs × blocks per SM, ncu's
// launch__waves_per_multiprocessor) runs on a slice of one SM in
// FewWavesSliceFraction (the H100: 10 SMs and 6 of the 80 L2 slices,
// against 17 and 10). Its waves leave little to extrapolate once the
// detailed part has had its warm-up wave, the L2's filling and the waves
// measured (8 to 12 waves on the corpus's launches of 15.5 waves whose
// waves settle late or not at all; 28 of 31 for the diagonal transpose
// of the public corpus, whose waves vary by 22%), so its host time is
// about the slice's, and an eighth of the SMs is under 10× less than the
// full simulation; a thirteenth is over. A launch of more waves keeps
// the larger slice, whose estimate is closer (docs/sampling.md,
// seventeenth session; 16 waves at first, 32 since the same session's second change, chosen
// on the public corpus's launches of 31 waves).
const (
	FewWaves              = 32
	FewWavesSliceFraction = 13
)

// sliceFraction is the fraction of the SMs a launch of n blocks at occ per
// SM runs on, for Sample.Slice frac (0: by the launch's waves).
func sliceFraction(prof *gpu.Profile, frac, n, occ int) int {
	if frac > 0 {
		return frac
	}
	if n < FewWaves*prof.SMs*max(1, occ) {
		return FewWavesSliceFraction
	}
	return DefaultSliceFraction
}

// MinSliceSMs is the fewest SMs a slice may have; a GPU too small to give
// that many at the fraction asked is not sliced.
const MinSliceSMs = 4

// errSlice is the part of the slice's cycles the error bound adds for
// simulating a slice of the GPU rather than the whole: a slice's per-SM
// share of the L2 and of DRAM is rounded to whole slices and channels, and
// its L2 and DRAM queues see fewer, burstier clients (measured on the
// corpus: docs/sampling.md). A slice of fewer than errSliceFewSMs SMs
// (the slice of 10 of a launch of under FewWaves waves) adds
// errSliceFew: its slices run in full were up to 3.34% from the whole
// GPU on the corpus (hec_scan_bcao_8M; 3% was fitted on the slice of 17).
const (
	errSlice       = 0.03
	errSliceFew    = 0.04
	errSliceFewSMs = 16
)

// errFraction is the part of the slice's cycles the error bound adds for
// this slice (errSlice, errSliceFew).
func (s *spatial) errFraction() float64 {
	if s.sms < errSliceFewSMs {
		return errSliceFew
	}
	return errSlice
}

// spatial is a spatial sample of the GPU (sample.go): sms of the profile's
// SMs, the share r = slices/profile's slices of the L2 (whole slices, the
// same size each) and r of DRAM's bandwidth and channels, the block
// scheduler dispatching at r of its rate, running the first blocks of the
// grid, as many as keep the launch's waves: round(n·sms/SMs). Each of its
// SMs then sees what an SM of the whole GPU sees (the same blocks per SM,
// the same share of the L2's capacity, bandwidth and fill), and the
// slice's cycles are the launch's estimate.
type spatial struct {
	sms    int
	blocks int
	scale  float64 // the GPU's SMs over the slice's
	mem    hier.Config
	ratio  float64 // the slice's share of the L2's capacity
	// wholeL2: the launch's device memory fits in the GPU's L2, and the
	// slice has all of its capacity (its share of the bandwidth only).
	wholeL2 bool
}

// newSpatial returns the slice of prof at one SM in frac (0: by the
// launch's waves, sliceFraction) for a grid of n blocks of occ per SM, or
// nil when the GPU is too small to slice. A
// launch whose device memory (footprint bytes) fits in the GPU's L2 gets
// the whole L2's capacity over the slice's slices: on the GPU nothing it
// touches is evicted, and data every block reads (a matrix multiply's
// operands) would not fit in the slice's share.
func newSpatial(prof *gpu.Profile, frac, n, occ int, footprint uint64) *spatial {
	frac = sliceFraction(prof, frac, n, occ)
	if frac == 1 {
		return nil
	}
	m := prof.Memory
	parts := max(1, m.L2.Partitions)
	// Whole slices, as many in each partition.
	sl := int(math.Round(float64(m.L2.Slices)/float64(frac*parts))) * parts
	sl = max(sl, parts)
	r := float64(sl) / float64(m.L2.Slices)
	sms := int(math.Round(float64(prof.SMs) * r))
	if sms < MinSliceSMs || sms >= prof.SMs || m.L2.Slices <= sl {
		return nil
	}
	m.SMs = sms
	whole := footprint <= uint64(m.L2.SizeBytes)
	if whole {
		unit := sl * max(1, m.L2.Ways) * max(1, m.LineBytes)
		m.L2.SizeBytes = m.L2.SizeBytes / unit * unit
	} else {
		m.L2.SizeBytes = m.L2.SizeBytes / m.L2.Slices * sl
	}
	capacity := float64(m.L2.SizeBytes) / float64(prof.Memory.L2.SizeBytes)
	m.L2.Slices = sl
	m.DRAM.Channels = max(1, int(math.Round(float64(m.DRAM.Channels)*r)))
	m.DRAM.BytesPerCycle *= float64(sms) / float64(prof.SMs)
	blocks := int(math.Round(float64(n) * float64(sms) / float64(prof.SMs)))
	if blocks < MinSampleWaves*sms*occ {
		return nil
	}
	return &spatial{sms: sms, blocks: blocks, scale: float64(prof.SMs) / float64(sms), mem: m, ratio: capacity, wholeL2: whole}
}
