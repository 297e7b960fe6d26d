package timing

// Stall is why a warp did not issue in a cycle, with Nsight Compute's
// names and meanings (smsp__average_warps_issue_stalled_<name>_per_issue_active).
// Each cycle of each resident warp is one of them; Selected is the cycle
// it issued.
type Stall uint8

// Stall reasons.
const (
	// Selected: the warp issued an instruction this cycle.
	Selected Stall = iota
	// NotSelected: the warp could issue, but the scheduler picked another.
	NotSelected
	// Wait: a fixed-latency dependency or the compiler's stall count (the
	// result of an ALU, FMA, FP64... instruction, or the minimum gap
	// between issues).
	Wait
	// LongScoreboard: an operand comes from L1TEX (global, local or
	// texture memory, global atomics).
	LongScoreboard
	// ShortScoreboard: an operand comes from the MIO unit (shared memory,
	// transcendentals and conversions, shuffles, special registers).
	ShortScoreboard
	// MathPipeThrottle: the execution pipe the instruction needs is busy.
	MathPipeThrottle
	// MIOThrottle: the MIO instruction queue is full.
	MIOThrottle
	// LGThrottle: the local/global (LSU) instruction queue is full.
	LGThrottle
	// TexThrottle: the texture instruction queue is full.
	TexThrottle
	// Barrier: waiting at a CTA barrier for the other warps.
	Barrier
	// Membar: waiting for a memory barrier.
	Membar
	// BranchResolving: waiting for a branch's target.
	BranchResolving
	// NoInstruction: no instruction fetched yet (a block's first
	// instructions).
	NoInstruction
	// DispatchStall: the dispatcher could not take the instruction (not
	// modelled: always 0).
	DispatchStall
	// ImcMiss: waiting for a constant-cache miss at issue. ptxas reads
	// kernel parameters as constant operands (ULDC, c[0x0][...]), which
	// hold the warp where they miss; here a parameter load whose line the
	// SM's constant cache does not yet have (the launch's first blocks).
	ImcMiss
	NumStalls
)

var stallNames = [NumStalls]string{
	"selected", "not_selected", "wait", "long_scoreboard", "short_scoreboard", "math_pipe_throttle",
	"mio_throttle", "lg_throttle", "tex_throttle", "barrier", "membar", "branch_resolving",
	"no_instruction", "dispatch_stall", "imc_miss",
}

// String is the reason's Nsight Compute name (long_scoreboard, ...).
func (s Stall) String() string {
	if s < NumStalls {
		return stallNames[s]
	}
	return "stall(?)"
}

// Metric is the Nsight Compute metric of the reason's average per issue.
func (s Stall) Metric() string {
	return "smsp__average_warps_issue_stalled_" + s.String() + "_per_issue_active.ratio"
}

// Words says in plain words what a warp waiting for this reason waits for.
func (s Stall) Words() string {
	switch s {
	case Selected:
		return "issue"
	case NotSelected:
		return "are ready but another warp issues"
	case Wait:
		return "wait on fixed-latency results (ALU/FMA dependency chains)"
	case LongScoreboard:
		return "wait on global/local/texture memory"
	case ShortScoreboard:
		return "wait on shared memory or the special-function unit"
	case MathPipeThrottle:
		return "wait for a busy math pipe"
	case MIOThrottle:
		return "wait for room in the shared-memory/MIO queue"
	case LGThrottle:
		return "wait for room in the global/local memory queue"
	case TexThrottle:
		return "wait for room in the texture queue"
	case Barrier:
		return "wait at a barrier for the other warps of their block"
	case Membar:
		return "wait for a memory barrier"
	case BranchResolving:
		return "wait for a branch target"
	case NoInstruction:
		return "wait for instructions to be fetched"
	case DispatchStall:
		return "wait for the dispatcher"
	case ImcMiss:
		return "wait for kernel parameters to reach the constant cache"
	}
	return "?"
}

// Stalls are cycles per reason.
type Stalls [NumStalls]uint64

// Add accumulates o.
func (s *Stalls) Add(o *Stalls) {
	for i := range s {
		s[i] += o[i]
	}
}

// Total is the sum over every reason.
func (s *Stalls) Total() uint64 {
	var t uint64
	for _, v := range s {
		t += v
	}
	return t
}
