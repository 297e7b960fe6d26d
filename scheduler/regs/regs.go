package regs

import (
	"math/bits"

	"github.com/ptxvm/ptxvm/vm"
)

// Pressure is what the liveness pass found in a kernel.
type Pressure struct {
	// MaxLive is the most 32-bit register slots live at once at any
	// instruction of the entry or of a function it calls (a 64-bit value
	// takes two), with what is live across a call added to the callee's
	// own pressure.
	MaxLive int
	// Debug: the module was compiled for debugging (nvcc -G), which ptxas
	// compiles without optimisation.
	Debug bool
}

// Analyze runs the liveness pass over kernel k's lowered code.
func Analyze(k *vm.Kernel) Pressure {
	p := Pressure{Debug: k.Debug()}
	own := map[*vm.Func]int{}
	across := map[*vm.Func][]callSite{}
	for _, f := range k.Funcs {
		own[f], across[f] = analyzeFunc(f)
	}
	// A function's pressure includes, at each call, the callee's pressure
	// on top of what lives across the call (recursion counts once).
	memo := map[*vm.Func]int{}
	var total func(f *vm.Func, depth int) int
	total = func(f *vm.Func, depth int) int {
		if v, ok := memo[f]; ok {
			return v
		}
		memo[f] = own[f] // a recursive call sees the function's own pressure
		v := own[f]
		if depth < 16 {
			for _, c := range across[f] {
				if c.callee != nil {
					v = max(v, c.live+total(c.callee, depth+1))
				}
			}
		}
		memo[f] = v
		return v
	}
	p.MaxLive = total(k.Entry, 0)
	return p
}

type callSite struct {
	callee *vm.Func
	live   int // slots live across the call
}

// AcrossCalls returns the 32-bit register slots of function f's values
// that live across at least one of its calls (the union over its call
// sites; 0 if it makes none). ptxas keeps such values in registers the
// callee must preserve: a function that may be called recursively saves
// them in its prologue and restores them in its epilogue (package
// sasscost's FrameSaves).
func AcrossCalls(f *vm.Func) int {
	_, _, across := liveness(f)
	return across
}

// analyzeFunc returns the most register slots live at once in f and, per
// call, the slots live across it.
func analyzeFunc(f *vm.Func) (int, []callSite) {
	most, calls, _ := liveness(f)
	return most, calls
}

// liveness is analyzeFunc, plus the slots live across any call (the union
// of the sets live after each call).
func liveness(f *vm.Func) (int, []callSite, int) {
	lv := Liveness(f)
	n := int(f.NumRegs)
	code, info := f.Code, f.Info
	words := (n + 63) / 64
	live, width, slots := lv.In, lv.Width, lv.Slots
	most := 0
	var calls []callSite
	union := make([]uint64, words)
	for pc := range code {
		// Live at pc: its live-in, plus what it defines (the definitions
		// occupy registers at the instruction too).
		v := slots(live[pc])
		for _, r := range info[pc].Writes.Regs {
			if int(r) < n && live[pc][r/64]&(1<<(r%64)) == 0 {
				v += int(width[r])
			}
		}
		most = max(most, v)
		if code[pc].Op == vm.OpCall {
			cs := code[pc].CallSite(f)
			lo := 0
			if pc+1 < len(code) {
				lo = slots(live[pc+1])
				for i, x := range live[pc+1] {
					union[i] |= x
				}
			}
			calls = append(calls, callSite{callee: cs.Callee, live: lo})
		}
	}
	return most, calls, slots(union)
}

// Live is the liveness of one function's registers.
type Live struct {
	// In is, per PC, the registers live into the instruction (bit r%64 of
	// word r/64).
	In [][]uint64
	// Width is the 32-bit slots each register takes (0: a constant or an
	// address ptxas folds into its uses).
	Width []uint8
}

// Slots is the register slots the registers of set take.
func (l *Live) Slots(set []uint64) int {
	s := 0
	for i, x := range set {
		for ; x != 0; x &= x - 1 {
			s += int(l.Width[i*64+bits.TrailingZeros64(x)])
		}
	}
	return s
}

// Liveness runs the backward dataflow over f's code.
func Liveness(f *vm.Func) Live {
	n := int(f.NumRegs)
	code, info := f.Code, f.Info
	words := (n + 63) / 64
	// Widths: the slots each register takes, from what writes it; a
	// register nothing writes is a constant, a special register or an
	// address lowering placed in a register (ptxas folds them into the
	// instructions that use them): 0.
	width := make([]uint8, n)
	for pc := range code {
		w := destSlots(&code[pc])
		for _, r := range info[pc].Writes.Regs {
			if int(r) < n {
				width[r] = max(width[r], w)
			}
		}
	}
	// Successors.
	succ := func(pc int, out []int) []int {
		in := &code[pc]
		out = out[:0]
		cond := in.Guard != vm.NoReg
		switch in.Op {
		case vm.OpBra:
			out = append(out, int(in.Target))
			if cond {
				out = append(out, pc+1)
			}
		case vm.OpBrx:
			out = append(out, asInts(in.BrxTable(f))...)
		case vm.OpExit, vm.OpRet, vm.OpTrap:
			if cond {
				out = append(out, pc+1)
			}
		default:
			out = append(out, pc+1)
		}
		k := 0
		for _, s := range out {
			if s >= 0 && s < len(code) {
				out[k] = s
				k++
			}
		}
		return out[:k]
	}
	// Backward dataflow: live-in of each instruction, iterated to a fixed
	// point in reverse order.
	live := make([][]uint64, len(code))
	for i := range live {
		live[i] = make([]uint64, words)
	}
	tmp := make([]uint64, words)
	var sbuf []int
	for changed := true; changed; {
		changed = false
		for pc := len(code) - 1; pc >= 0; pc-- {
			clear(tmp)
			sbuf = succ(pc, sbuf)
			for _, s := range sbuf {
				for i, x := range live[s] {
					tmp[i] |= x
				}
			}
			in := &code[pc]
			// A guarded write may leave the old value: it does not kill.
			if in.Guard == vm.NoReg {
				for _, r := range info[pc].Writes.Regs {
					if int(r) < n {
						tmp[r/64] &^= 1 << (r % 64)
					}
				}
			}
			for _, r := range info[pc].Reads.Regs {
				if int(r) < n && width[r] > 0 {
					tmp[r/64] |= 1 << (r % 64)
				}
			}
			for i := range tmp {
				if tmp[i] != live[pc][i] {
					copy(live[pc], tmp)
					changed = true
					break
				}
			}
		}
	}
	return Live{In: live, Width: width}
}

func asInts(t []int32) []int {
	out := make([]int, len(t))
	for i, x := range t {
		out[i] = int(x)
	}
	return out
}

// destSlots is how many 32-bit register slots a value that in writes
// takes.
func destSlots(in *vm.Inst) uint8 {
	size := in.T.Size()
	switch in.Op {
	case vm.OpMulWide, vm.OpMadWide:
		size = 2 * in.T2.Size()
	case vm.OpLocalAddr, vm.OpCvta:
		size = 8
	case vm.OpActivemask, vm.OpShfl, vm.OpVote, vm.OpMatch, vm.OpRedux, vm.OpElect:
		size = 4
	case vm.OpUnpack:
		if in.Vec > 0 {
			size = in.T.Size() / int(in.Vec)
		}
	}
	if size == 16 {
		size = 8 // a .b128 register is two registers of 64 bits
	}
	if size > 4 {
		return 2
	}
	return 1
}

// The estimate's coefficients: ptxas's registers per thread against the
// liveness pass's MaxLive, least squares on the relative error over every
// kernel of the corpora under testdata that has a ptxas -v report (go run
// ./scheduler/timing/calibrate regs refits them), for optimised code and
// for code compiled with -G.
var (
	fitO3    = [2]float64{4.82, 0.791}
	fitDebug = [2]float64{3.86, 1.424}
)

// MaxRegisters is the most registers a thread may have.
const MaxRegisters = 255

// Estimate returns the registers per thread ptxas would allocate for
// kernel k, estimated from its liveness (see the README for the error over
// the corpora), at least 8 and at most MaxRegisters.
func Estimate(k *vm.Kernel) int {
	return Analyze(k).Registers()
}

// Registers maps the pressure to a register count.
func (p Pressure) Registers() int {
	c := fitO3
	if p.Debug {
		c = fitDebug
	}
	return min(MaxRegisters, max(8, int(c[0]+c[1]*float64(p.MaxLive)+0.5)))
}
