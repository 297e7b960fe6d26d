package timing

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// StallSource is one place the warps' stall cycles went: a reason and the
// instruction (or CUDA line) it is charged to.
type StallSource struct {
	Reason Stall
	// Insts are the instructions charged: for the scoreboard reasons those
	// whose results the warps waited for, otherwise those the warps waited
	// to issue.
	Insts []*vm.InstInfo
	// Where is the CUDA source line ("matmul.cu:14"), or the PTX line when
	// the module has no line information ("PTX line 57").
	Where string
	// What names the instructions in words ("global loads").
	What string
	// Cycles are warp-cycles; Share their fraction of all stall cycles
	// (every reason but Selected).
	Cycles uint64
	Share  float64
	// Producer: the cycles are charged to the instructions whose results
	// the warps waited for.
	Producer bool
}

// Sentence says the source in plain words: "warps wait on global loads at
// matmul.cu:14: 71% of stalls".
func (s *StallSource) Sentence() string {
	pct := fmt.Sprintf("%.0f%% of stalls", 100*s.Share)
	switch s.Reason {
	case LongScoreboard, ShortScoreboard:
		return fmt.Sprintf("warps wait on %s at %s: %s", s.What, s.Where, pct)
	case Wait:
		if !s.Producer {
			return fmt.Sprintf("warps wait out the issue gap of their previous instruction at %s: %s", s.Where, pct)
		}
		return fmt.Sprintf("warps wait on the results of %s at %s (dependent instructions): %s", s.What, s.Where, pct)
	case Barrier:
		return fmt.Sprintf("warps wait at the barrier at %s for the rest of their block: %s", s.Where, pct)
	case NotSelected:
		return fmt.Sprintf("warps are ready at %s but another warp issues: %s", s.Where, pct)
	case MIOThrottle, LGThrottle, TexThrottle:
		return fmt.Sprintf("warps %s at %s (%s): %s", s.Reason.Words(), s.Where, s.What, pct)
	default:
		return fmt.Sprintf("warps %s at %s: %s", s.Reason.Words(), s.Where, pct)
	}
}

// namesWhat reports whether the sentence of a source of reason names the
// kind of instruction (sources whose sentences read the same are one).
func namesWhat(reason Stall, producer bool) bool {
	switch reason {
	case LongScoreboard, ShortScoreboard, MIOThrottle, LGThrottle, TexThrottle:
		return true
	case Wait:
		return producer
	}
	return false
}

// StallSources returns where the stall cycles went, largest first, grouped
// by reason and source line: scoreboard waits are charged to the
// instruction that produced the awaited value (the load, not its
// consumer), the other reasons to the instruction waiting to issue.
func (r *Result) StallSources() []StallSource {
	var total uint64
	for s := Stall(0); s < NumStalls; s++ {
		if s != Selected {
			total += r.Stalls[s]
		}
	}
	type key struct {
		reason   Stall
		where    string
		what     string
		producer bool
	}
	acc := map[key]*StallSource{}
	add := func(reason Stall, in *InstStats, cyc uint64, producer bool) {
		if cyc == 0 {
			return
		}
		k := key{reason, where(in.Info), "", producer}
		if namesWhat(reason, producer) {
			k.what = what(in.Info)
		}
		s := acc[k]
		if s == nil {
			s = &StallSource{Reason: reason, Where: k.where, What: k.what, Producer: producer}
			acc[k] = s
		}
		s.Cycles += cyc
		for _, x := range s.Insts {
			if x == in.Info {
				return
			}
		}
		s.Insts = append(s.Insts, in.Info)
	}
	// Scoreboard and fixed-latency waits go to the producer; what has no
	// known producer (predicates, the carry flag, the gap between a warp's
	// issues) stays with the waiting instruction.
	var charged, waiting Stalls
	for i := range r.Insts {
		in := &r.Insts[i]
		for _, reason := range []Stall{LongScoreboard, ShortScoreboard, Wait} {
			add(reason, in, in.Caused[reason], true)
			charged[reason] += in.Caused[reason]
			waiting[reason] += in.Stalls[reason]
		}
	}
	for i := range r.Insts {
		in := &r.Insts[i]
		for reason := Stall(0); reason < NumStalls; reason++ {
			switch reason {
			case Selected:
				continue
			case LongScoreboard, ShortScoreboard, Wait:
				// The waiting instruction's share of what has no producer.
				if waiting[reason] > charged[reason] && waiting[reason] > 0 {
					frac := float64(waiting[reason]-charged[reason]) / float64(waiting[reason])
					add(reason, in, uint64(frac*float64(in.Stalls[reason])+0.5), false)
				}
				continue
			}
			add(reason, in, in.Stalls[reason], false)
		}
	}
	out := make([]StallSource, 0, len(acc))
	for _, s := range acc {
		if total > 0 {
			s.Share = float64(s.Cycles) / float64(total)
		}
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Cycles != out[j].Cycles {
			return out[i].Cycles > out[j].Cycles
		}
		if out[i].Where != out[j].Where {
			return out[i].Where < out[j].Where
		}
		if out[i].Reason != out[j].Reason {
			return out[i].Reason < out[j].Reason
		}
		return out[i].Producer && !out[j].Producer
	})
	return out
}

func where(info *vm.InstInfo) string {
	if loc, ok := info.Source(); ok {
		return fmt.Sprintf("%s:%d", filepath.Base(loc.File), loc.Line)
	}
	return fmt.Sprintf("PTX line %d", info.Line)
}

// what names an instruction's kind in words.
func what(info *vm.InstInfo) string {
	in := info.Inst()
	store := in.Op == vm.OpSt
	switch info.Class {
	case vm.ClassLSUGlobal:
		if store {
			return "global stores"
		}
		return "global loads"
	case vm.ClassLSUShared:
		if store {
			return "shared-memory stores"
		}
		return "shared-memory loads"
	case vm.ClassLSULocal:
		return "local memory"
	case vm.ClassLSUConst:
		return "constant loads"
	case vm.ClassLSUParam:
		return "parameter loads"
	case vm.ClassLSUGeneric:
		if store {
			return "stores through generic pointers"
		}
		return "loads through generic pointers"
	case vm.ClassTexture:
		return "texture fetches"
	case vm.ClassAtomic:
		if info.Space == memspace.Shared {
			return "shared-memory atomics"
		}
		return "global atomics"
	case vm.ClassSFU:
		return "special-function results (" + in.Op.String() + ")"
	case vm.ClassFP64:
		return "FP64 arithmetic"
	case vm.ClassFP32:
		return "FP32 arithmetic"
	case vm.ClassHalf:
		if in.Op == vm.OpMma || in.Op == vm.OpWmmaMma {
			return "the tensor cores (" + in.Op.String() + ")"
		}
		return "half-precision arithmetic"
	case vm.ClassIntMul:
		return "integer multiplies"
	case vm.ClassIntDiv:
		return "integer divisions"
	case vm.ClassConvert:
		return "conversions"
	case vm.ClassWarpSync:
		return "warp shuffles and votes"
	case vm.ClassBranch:
		return "branches"
	case vm.ClassBarrier:
		return "barriers"
	}
	return "integer arithmetic"
}

// LineStats are the figures of the instructions of one source line (the
// CUDA line from .loc, or the PTX line).
type LineStats struct {
	Where  string `json:"where"`
	Issued uint64 `json:"machine_instructions"`
	// Stalls are the cycles warps waited to issue the line's
	// instructions, by reason (Nsight Compute's attribution).
	Stalls map[string]uint64 `json:"stalls"`
}

// Lines returns the figures per source line, the lines with most stall
// cycles first.
func (r *Result) Lines() []LineStats {
	by := map[string]*LineStats{}
	var order []string
	for i := range r.Insts {
		in := &r.Insts[i]
		if in.Execs == 0 {
			continue
		}
		w := where(in.Info)
		ls := by[w]
		if ls == nil {
			ls = &LineStats{Where: w, Stalls: map[string]uint64{}}
			by[w] = ls
			order = append(order, w)
		}
		ls.Issued += in.Issued
		for s := Stall(0); s < NumStalls; s++ {
			if v := in.Stalls[s]; v > 0 {
				ls.Stalls[s.String()] += v
			}
		}
	}
	out := make([]LineStats, 0, len(order))
	for _, w := range order {
		out = append(out, *by[w])
	}
	total := func(l *LineStats) uint64 {
		var t uint64
		for k, v := range l.Stalls {
			if k != Selected.String() {
				t += v
			}
		}
		return t
	}
	sort.SliceStable(out, func(i, j int) bool { return total(&out[i]) > total(&out[j]) })
	return out
}
