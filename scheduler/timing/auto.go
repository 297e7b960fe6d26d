package timing

import (
	"fmt"
	"math"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
)

// ProbeBlocks is how many of a launch's blocks, spread over its grid, the
// automatic sampling runs ahead (functionally, undone afterwards) to
// estimate the launch's warp instructions before it starts.
const ProbeBlocks = 16

// AutoSampling says how the automatic sampling (Sample.MinInst > 0)
// decided, before the launch started: the launch's PTX warp instructions
// were estimated from ProbeBlocks of its blocks, spread over the grid,
// run functionally on the launch's memory and then undone
// (vm.Launch.Probe): their instructions times the grid's blocks over the
// blocks probed. Past the threshold the launch runs sampled on a slice
// of the GPU (as Sample.Mode with MinInst 0 does); otherwise in full.
type AutoSampling struct {
	// Threshold is the warp instructions past which the launch is sampled
	// (Sample.MinInst).
	Threshold int64 `json:"threshold_warp_instructions"`
	// EstimatedInst is the launch's PTX warp instructions, estimated;
	// AtLeast says that the probe stopped at its budget (a block that runs
	// very long, or waits for others): the launch has at least that many.
	EstimatedInst float64 `json:"estimated_warp_instructions"`
	AtLeast       bool    `json:"at_least,omitempty"`
	// Probed is the blocks run ahead (those that finished, if AtLeast).
	Probed int `json:"probed_blocks"`
	// Sampled says the estimate passed the threshold: the launch ran on a
	// slice of SliceSMs of the GPU's SMs with its waves sampled
	// (Result.Sampling, unless the slice's run found it could not).
	Sampled  bool `json:"sampled"`
	SliceSMs int  `json:"slice_sms,omitempty"`
	// Why, if not empty, says why the estimate did not decide (the launch
	// then samples as before: its waves on the whole GPU, decided from
	// its first waves' instructions).
	Why string `json:"why,omitempty"`
}

// Describe is the decision in words.
func (a *AutoSampling) Describe() string {
	if a.Why != "" {
		return a.Why
	}
	est := fmt.Sprintf("about %.2g", a.EstimatedInst)
	if a.AtLeast {
		est = fmt.Sprintf("at least %.2g", a.EstimatedInst)
	}
	if a.Sampled {
		return fmt.Sprintf("automatic: %s warp instructions estimated from %d blocks run ahead, more than %.2g; on a slice of %d SMs", est, a.Probed, float64(a.Threshold), a.SliceSMs)
	}
	return fmt.Sprintf("automatic: %s warp instructions estimated from %d blocks run ahead, at most %.2g", est, a.Probed, float64(a.Threshold))
}

// probeBlocks are the blocks of a grid of n the probe runs: the midpoints
// of k equal parts of the grid (all of them if k >= n), so that a grid
// whose blocks' work grows or shrinks along it is estimated at its mean.
func probeBlocks(n, k int) []int {
	k = min(k, n)
	out := make([]int, k)
	for i := range out {
		out[i] = (2*i + 1) * n / (2 * k)
	}
	return out
}

// EstimateInst estimates launch l's PTX warp instructions from k of its
// blocks spread over the grid (probeBlocks), run functionally and undone
// (vm.Launch.Probe), at most budget warp instructions of them (0: no
// limit). atLeast says the budget ran out: the launch has at least est.
// It does not depend on the host's goroutines: the blocks run one after
// another on the caller's.
func EstimateInst(l *vm.Launch, k int, budget int64) (est float64, probed int, atLeast bool, err error) {
	n := l.NumCTAs()
	blocks := probeBlocks(n, k)
	inst, ran, err := l.Probe(blocks, budget)
	if err != nil {
		return 0, ran, false, err
	}
	if ran < len(blocks) {
		// Past the budget: the blocks not run count as none.
		return float64(inst) * float64(n) / float64(len(blocks)), ran, true, nil
	}
	return float64(inst) * float64(n) / float64(len(blocks)), ran, false, nil
}

// PlanAuto decides the automatic sampling of launch l (s.MinInst > 0)
// before it runs, on prof at occ blocks per SM: a launch that can run on
// a slice of the GPU (spatial.go: one SM in s.Slice, at least
// MinSampleWaves waves on it; no clusters, no managed memory migrating) is
// probed (EstimateInst); past s.MinInst warp instructions it is sampled on
// the slice (the Sample returned has MinInst 0), otherwise it runs in full
// (SampleOff). A launch that cannot be sliced, or whose probe failed (a
// block faulted alone), keeps s: its waves are sampled on the whole GPU
// if its first waves project past s.MinInst (sample.go). The decision
// never depends on the host's goroutines.
func PlanAuto(l *vm.Launch, prof *gpu.Profile, occ int, s Sample, apertures []*hier.Aperture) (Sample, *AutoSampling) {
	if s.Mode == SampleOff || s.MinInst <= 0 {
		return s, nil
	}
	if migrates(apertures) || l.ClusterSize() > 1 {
		return s, nil
	}
	sp := newSpatial(prof, s.Slice, l.NumCTAs(), max(1, occ), l.DeviceBytes())
	if sp == nil {
		return s, nil
	}
	a := &AutoSampling{Threshold: s.MinInst}
	// The probe stops once its blocks alone put the launch past the
	// threshold by far (an eighth of it, at least what projects to it).
	n := l.NumCTAs()
	k := min(ProbeBlocks, n)
	budget := max(s.MinInst/8, int64(math.Ceil(float64(s.MinInst)*float64(k)/float64(n)))+1)
	l.NumSMs = prof.SMs // what %nsmid reads, as in the run
	est, probed, atLeast, err := EstimateInst(l, k, budget)
	if err != nil {
		a.Why = fmt.Sprintf("automatic: the launch's size could not be estimated ahead (%v): its waves are sampled on the whole GPU if its first waves project past %.2g warp instructions", err, float64(s.MinInst))
		return s, a
	}
	a.EstimatedInst, a.Probed, a.AtLeast = est, probed, atLeast
	if est <= float64(s.MinInst) {
		return Sample{}, a
	}
	a.Sampled, a.SliceSMs = true, sp.sms
	s.MinInst = 0
	return s, a
}
