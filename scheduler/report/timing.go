package report

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
)

// Timing is what the cycle-level timing model says about a run (timing
// mode only): how long it took, how busy the SMs were, and where the warps
// waited, under Nsight Compute's names.
type Timing struct {
	// Cycles is sm__cycles_elapsed.max; DurationNs gpu__time_duration.sum,
	// the cycles at ClockMHz.
	Cycles     uint64  `json:"cycles"`
	DurationNs float64 `json:"duration_ns"`
	ClockMHz   float64 `json:"clock_mhz"`
	// Sampling, if not nil: the run was sampled; Cycles and DurationNs are
	// estimates (not sm__cycles_elapsed.max), every other figure counts the
	// detailed blocks only.
	Sampling *timing.Sampling `json:"sampling,omitempty"`
	// MachineInsts and MachineThreadInsts are the machine instructions
	// the SMs issued (smsp__inst_executed.sum and
	// smsp__thread_inst_executed.sum), estimated from the SASS cost table.
	MachineInsts       uint64 `json:"machine_warp_instructions"`
	MachineThreadInsts uint64 `json:"machine_thread_instructions"`
	// Occupancy is the achieved occupancy
	// (sm__warps_active.avg.pct_of_peak_sustained_active): resident warps
	// over the SMs' busy cycles, against WarpsPerSM.
	Occupancy   float64 `json:"achieved_occupancy_pct"`
	WarpsPerSM  int     `json:"warps_per_sm"`
	BlocksPerSM int     `json:"blocks_per_sm"`
	// IssueUtil is the share of the busy SMs' issue slots used
	// (ptxvm__issue_slot_utilization.pct); IPC the machine instructions
	// per busy SM cycle (ptxvm__ipc_per_busy_sm_cycle).
	IssueUtil float64 `json:"issue_slot_utilization_pct"`
	IPC       float64 `json:"ipc"`
	// Stalls are the reasons warps did not issue, largest first (selected,
	// the cycles they issued, last).
	Stalls []StallReason `json:"stall_reasons"`
	// StallCycles are the warp-cycles of every reason but selected.
	StallCycles uint64 `json:"stall_cycles"`
	// Sources say where the stall cycles went, largest first: a reason at
	// a source line, in plain words (those of at least 1 %).
	Sources []StallSource `json:"stall_sources"`
	// Insts are the instructions that executed, by id, with their stall
	// cycles.
	Insts []InstTiming `json:"instructions"`
	// Lines are the stall cycles per CUDA source line (per PTX line for
	// PTX without .loc), most first.
	Lines []LineTiming `json:"lines"`
	// Timeline, when the run recorded one (AddTimeline), is the launch's
	// blocks per SM over cycles and the sampled SMs' warps with their
	// stalls, aggregated for drawing.
	Timeline *Timeline `json:"timeline,omitempty"`

	byID map[int32]int
}

// StallReason is one of Nsight Compute's stall reasons in a run.
type StallReason struct {
	// Reason is ncu's short name (long_scoreboard), Metric the metric of
	// its average per issued instruction
	// (smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio).
	Reason string `json:"reason"`
	Metric string `json:"metric"`
	// PerIssue is the metric's value: warp-cycles in this state per issued
	// machine instruction.
	PerIssue float64 `json:"per_issue"`
	// Cycles are the warp-cycles; Share their fraction of the stall
	// cycles (0 for selected, which is no stall).
	Cycles uint64  `json:"cycles"`
	Share  float64 `json:"share"`
	// Meaning says in words what the warps wait for.
	Meaning string `json:"meaning"`
}

// StallSource is one place the stall cycles went.
type StallSource struct {
	// Sentence says it in words: "warps wait on global loads at
	// matmul.cu:14: 71% of stalls".
	Sentence string `json:"sentence"`
	Reason   string `json:"reason"`
	// Where is the CUDA line ("matmul.cu:14") or "PTX line N"; What the
	// instructions in words ("global loads").
	Where string `json:"where"`
	What  string `json:"what"`
	// Cycles are warp-cycles, Share their fraction of all stall cycles.
	Cycles uint64  `json:"cycles"`
	Share  float64 `json:"share"`
	// Insts are the ids of the instructions charged, the one with most
	// cycles first: for the scoreboard reasons those whose results the
	// warps waited for, otherwise those they waited to issue.
	Insts []int32 `json:"instructions"`
}

// InstTiming is one PTX instruction's issue and stall figures.
type InstTiming struct {
	ID      int32  `json:"id"`
	PTX     string `json:"ptx"`
	PTXLine string `json:"ptx_line"`
	CUDA    string `json:"cuda_line,omitempty"`
	// Form is its form in the SASS cost table.
	Form string `json:"form"`
	// Execs are its warp-level executions; Issued the machine
	// instructions they issued.
	Execs  uint64 `json:"executions"`
	Issued uint64 `json:"machine_instructions"`
	// Stalls are the cycles warps waited to issue it, by reason (as
	// Nsight Compute's source view attributes its samples: to the
	// instruction about to issue); StallCycles their sum.
	Stalls      map[string]uint64 `json:"stalls,omitempty"`
	StallCycles uint64            `json:"stall_cycles"`
	// WaitedOn are the cycles warps waited for its results (scoreboard
	// and fixed-latency waits charged to the producer), by reason;
	// WaitedOnCycles their sum.
	WaitedOn       map[string]uint64 `json:"waited_on,omitempty"`
	WaitedOnCycles uint64            `json:"waited_on_cycles"`
}

// LineTiming is the stall cycles of one source line's instructions.
type LineTiming struct {
	// Where is "matmul.cu:14", or "PTX line 57" without .loc.
	Where  string  `json:"where"`
	Insts  []int32 `json:"instructions"`
	Issued uint64  `json:"machine_instructions"`
	// Stalls, StallCycles, WaitedOn, WaitedOnCycles: as InstTiming's,
	// summed over the line's instructions.
	Stalls         map[string]uint64 `json:"stalls,omitempty"`
	StallCycles    uint64            `json:"stall_cycles"`
	WaitedOn       map[string]uint64 `json:"waited_on,omitempty"`
	WaitedOnCycles uint64            `json:"waited_on_cycles"`
}

// minShare is the smallest share of stall cycles a source is listed with.
const minShare = 0.01

// newTiming builds the timing section from a timed run; text holds the
// PTX text of the instructions' lines, ptxFile the module's base name.
func newTiming(tr *timing.Result, k *vm.Kernel, text map[int]string, ptxFile string) *Timing {
	m := tr.Metrics()
	t := &Timing{Cycles: tr.Cycles, DurationNs: tr.Nanoseconds(), ClockMHz: tr.ClockMHz,
		MachineInsts: tr.Issued, MachineThreadInsts: tr.ThreadIssued,
		Occupancy: m[timing.MetricOccupancy], WarpsPerSM: tr.WarpsPerSM, BlocksPerSM: tr.BlocksPerSM,
		IssueUtil: m[timing.MetricIssueUtil], IPC: m[timing.MetricIPC], byID: map[int32]int{}, Sampling: tr.Sampling}
	for s := timing.Stall(0); s < timing.NumStalls; s++ {
		if s != timing.Selected {
			t.StallCycles += tr.Stalls[s]
		}
	}
	for s := timing.Stall(0); s < timing.NumStalls; s++ {
		if tr.Stalls[s] == 0 {
			continue
		}
		sr := StallReason{Reason: s.String(), Metric: s.Metric(), PerIssue: m[s.Metric()], Cycles: tr.Stalls[s], Meaning: stallMeaning(s)}
		if s != timing.Selected && t.StallCycles > 0 {
			sr.Share = float64(tr.Stalls[s]) / float64(t.StallCycles)
		}
		t.Stalls = append(t.Stalls, sr)
	}
	sort.SliceStable(t.Stalls, func(i, j int) bool {
		a, b := &t.Stalls[i], &t.Stalls[j]
		if (a.Reason == "selected") != (b.Reason == "selected") {
			return b.Reason == "selected"
		}
		return a.Cycles > b.Cycles
	})

	t.Sources = Sources(tr)

	// Per instruction and per line.
	byLine := map[string]*LineTiming{}
	var lines []string
	for i := range tr.Insts {
		in := &tr.Insts[i]
		if in.Execs == 0 || in.Info == nil {
			continue
		}
		id := in.Info.ID
		info := in.Info
		if int(id) < len(k.Insts) {
			info = k.Insts[id] // the kernel as lowered (the timed run reorders a copy)
		}
		it := InstTiming{ID: id, PTX: text[int(info.Line)], PTXLine: fmt.Sprintf("%s:%d", ptxFile, info.Line), Form: in.Form,
			Execs: in.Execs, Issued: in.Issued}
		where := fmt.Sprintf("PTX line %d", info.Line)
		if loc, ok := info.Source(); ok {
			it.CUDA = fmt.Sprintf("%s:%d", filepath.Base(loc.File), loc.Line)
			where = it.CUDA
		}
		for s := timing.Stall(0); s < timing.NumStalls; s++ {
			if s == timing.Selected {
				continue
			}
			if v := in.Stalls[s]; v > 0 {
				if it.Stalls == nil {
					it.Stalls = map[string]uint64{}
				}
				it.Stalls[s.String()] = v
				it.StallCycles += v
			}
			if v := in.Caused[s]; v > 0 {
				if it.WaitedOn == nil {
					it.WaitedOn = map[string]uint64{}
				}
				it.WaitedOn[s.String()] = v
				it.WaitedOnCycles += v
			}
		}
		t.byID[id] = len(t.Insts)
		t.Insts = append(t.Insts, it)

		ln := byLine[where]
		if ln == nil {
			ln = &LineTiming{Where: where}
			byLine[where] = ln
			lines = append(lines, where)
		}
		ln.Insts = append(ln.Insts, id)
		ln.Issued += it.Issued
		ln.StallCycles += it.StallCycles
		ln.WaitedOnCycles += it.WaitedOnCycles
		ln.Stalls = addCounts(ln.Stalls, it.Stalls)
		ln.WaitedOn = addCounts(ln.WaitedOn, it.WaitedOn)
	}
	for _, w := range lines {
		t.Lines = append(t.Lines, *byLine[w])
	}
	sort.SliceStable(t.Lines, func(i, j int) bool {
		a, b := &t.Lines[i], &t.Lines[j]
		if a.StallCycles+a.WaitedOnCycles != b.StallCycles+b.WaitedOnCycles {
			return a.StallCycles+a.WaitedOnCycles > b.StallCycles+b.WaitedOnCycles
		}
		return a.Where < b.Where
	})
	return t
}

// Sources returns where a timed run's stall cycles went, largest first,
// those of at least 1 % of the stall cycles (timing.Result.StallSources,
// whose sources each read differently in words), each with its
// instructions, the one with most cycles of the reason first.
func Sources(tr *timing.Result) []StallSource {
	// An instruction's cycles under a reason, charged either way.
	cyclesOf := func(id int32, reason timing.Stall) uint64 {
		if int(id) >= len(tr.Insts) {
			return 0
		}
		in := &tr.Insts[id]
		return in.Stalls[reason] + in.Caused[reason]
	}
	var out []StallSource
	for _, src := range tr.StallSources() {
		if src.Share < minShare {
			break
		}
		insts := make([]int32, len(src.Insts))
		for i, in := range src.Insts {
			insts[i] = in.ID
		}
		sort.Slice(insts, func(i, j int) bool {
			ci, cj := cyclesOf(insts[i], src.Reason), cyclesOf(insts[j], src.Reason)
			return ci > cj || ci == cj && insts[i] < insts[j]
		})
		out = append(out, StallSource{Sentence: src.Sentence(), Reason: src.Reason.String(), Where: src.Where,
			What: src.What, Cycles: src.Cycles, Share: src.Share, Insts: insts})
	}
	return out
}

func addCounts(dst, src map[string]uint64) map[string]uint64 {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]uint64{}
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

// stallMeaning says what a reason means, for the report's readers.
func stallMeaning(s timing.Stall) string {
	if s == timing.Selected {
		return "warps issue (not a stall: one cycle per issued instruction)"
	}
	return "warps " + s.Words()
}

// Inst returns the timing of the instruction of id (nil when it did not
// execute).
func (t *Timing) Inst(id int32) *InstTiming {
	if t == nil {
		return nil
	}
	if i, ok := t.byID[id]; ok {
		return &t.Insts[i]
	}
	for i := range t.Insts { // a report read back from JSON
		if t.Insts[i].ID == id {
			return &t.Insts[i]
		}
	}
	return nil
}

// Top returns the reason with the most stall cycles (selected left out),
// nil when the warps never stalled.
func (t *Timing) Top() *StallReason {
	if t == nil {
		return nil
	}
	for i := range t.Stalls {
		if t.Stalls[i].Reason != "selected" {
			return &t.Stalls[i]
		}
	}
	return nil
}

// Reason returns the figures of a reason by its ncu name (zero values when
// the run has none of it).
func (t *Timing) Reason(name string) StallReason {
	if t != nil {
		for _, s := range t.Stalls {
			if s.Reason == name {
				return s
			}
		}
	}
	return StallReason{Reason: name}
}

// TopInsts returns the ids of up to n instructions with the most stall
// cycles, waiting to issue them and waiting on their results together,
// most first.
func (t *Timing) TopInsts(n int) []int32 {
	if t == nil {
		return nil
	}
	idx := make([]int, 0, len(t.Insts))
	for i := range t.Insts {
		if t.Insts[i].StallCycles+t.Insts[i].WaitedOnCycles > 0 {
			idx = append(idx, i)
		}
	}
	key := func(i int) uint64 { return t.Insts[i].StallCycles + t.Insts[i].WaitedOnCycles }
	sort.SliceStable(idx, func(a, b int) bool { return key(idx[a]) > key(idx[b]) })
	out := []int32{}
	for _, i := range idx[:min(n, len(idx))] {
		out = append(out, t.Insts[i].ID)
	}
	return out
}

// TopReasonOf returns the reason with the most cycles in a by-reason map
// ("" when empty).
func TopReasonOf(m map[string]uint64) string {
	best, bestV := "", uint64(0)
	for k, v := range m {
		if v > bestV || v == bestV && k < best {
			best, bestV = k, v
		}
	}
	return best
}
