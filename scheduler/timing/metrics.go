package timing

import "github.com/ptxvm/ptxvm/memspace/hier"

// Metric names the timing model reports besides the stall reasons
// (Stall.Metric) and the hierarchy's counters.
const (
	MetricCycles     = "sm__cycles_elapsed.max"
	MetricDuration   = "gpu__time_duration.sum"
	MetricInst       = "smsp__inst_executed.sum"
	MetricThreadInst = "smsp__thread_inst_executed.sum"
	MetricOccupancy  = "sm__warps_active.avg.pct_of_peak_sustained_active"
	// Figures computed differently from ncu's, under names of our own:
	// issue slots used over those the busy SMs' schedulers had, and machine
	// instructions per busy SM cycle.
	MetricIssueUtil = "ptxvm__issue_slot_utilization.pct"
	MetricIPC       = "ptxvm__ipc_per_busy_sm_cycle"
)

// Metrics returns the run's figures by metric name: the cycles and time,
// the machine instructions estimated from the SASS cost table, each stall
// reason per issued instruction, achieved occupancy, issue-slot use and
// IPC, and the memory hierarchy's counters as the timed interleaving left
// them.
func (r *Result) Metrics() map[string]float64 {
	m := map[string]float64{
		MetricCycles:     float64(r.Cycles),
		MetricDuration:   r.Nanoseconds(),
		MetricInst:       float64(r.Issued),
		MetricThreadInst: float64(r.ThreadIssued),
	}
	iss := float64(max(r.Issued, 1))
	for s := Stall(0); s < NumStalls; s++ {
		m[s.Metric()] = float64(r.Stalls[s]) / iss
	}
	if r.SMCycles > 0 {
		m[MetricOccupancy] = 100 * float64(r.WarpCycles) / float64(r.SMCycles) / float64(r.WarpsPerSM)
		m[MetricIssueUtil] = 100 * float64(r.Issued) / float64(r.SMCycles*uint64(r.SubPartitions))
		m[MetricIPC] = float64(r.Issued) / float64(r.SMCycles)
	}
	if r.Hier != nil {
		c := r.Hier.Counts()
		for _, x := range hier.Metrics(&c, hier.Extra{InstIssued: r.Issued}) {
			m[x.Name] = x.Value
		}
	}
	if a := r.Auto; a != nil && a.Why == "" {
		m[MetricAutoEstimate] = a.EstimatedInst
		m[MetricAutoThreshold] = float64(a.Threshold)
		sampled := 0.0
		if a.Sampled && r.Sampling != nil {
			sampled = 1
		}
		m[MetricAutoSampled] = sampled
	}
	return m
}

// The automatic sampling's figures (auto.go), ours: the launch's PTX warp
// instructions estimated before it started, the threshold, and whether it
// was sampled (1) or simulated in full (0).
const (
	MetricAutoEstimate  = "ptxvm__sample_auto_estimated_warp_inst"
	MetricAutoThreshold = "ptxvm__sample_auto_threshold_warp_inst"
	MetricAutoSampled   = "ptxvm__sample_auto_sampled"
)

// Nanoseconds is the launch's duration at the profile's clock
// (gpu__time_duration.sum).
func (r *Result) Nanoseconds() float64 {
	if r.ClockMHz <= 0 {
		return 0
	}
	return float64(r.Cycles) * 1000 / r.ClockMHz
}
