package sasscost

import (
	"github.com/ptxvm/ptxvm/scheduler/regs"
	"github.com/ptxvm/ptxvm/vm"
)

// FrameSave is the form of one register a function's stack frame saves:
// a store to local memory in its prologue (STL [R1+...]) and a load in its
// epilogue (LDL R, [R1+...]) before it returns. Its count in a launch is,
// for each execution of a function's ret, that function's FrameSaves.
const FrameSave = "frame.save"

// FrameSaves is how many 32-bit registers the prologue of function f
// stores to the stack and its epilogue loads back, as ptxas's calling
// convention has it (read off the corpus's SASS):
//
//   - a kernel, and a function that calls nothing, save nothing: ptxas
//     allocates a leaf callee's registers around its callers' and it
//     returns through the register its caller put the return address in
//     (RET.REL.NODEC R4 after a bare body);
//   - a function that calls saves the return address it was given (R20
//     and R21: it passes its own callees theirs there), every register
//     slot of a value live across one of its calls (regs.AcrossCalls: the
//     callee may be itself, so these go into callee-saved registers whose
//     old contents it saves), and, in optimised code with conditional
//     branches, the caller's convergence barrier (BMOV.32.CLEAR R, B6
//     into a callee-saved register; -G code has no BSSY/BSYNC).
//
// On the corpus's optimised SASS this gives fib 5, tree_sum 11 and
// ackermann 9 saves where ptxas saves 5, 11 and 10 (ackermann keeps three
// convergence barriers). For -G code it is low by 2.5 registers on average
// over 139 functions (-G keeps variables in registers longer, and its SASS
// calls division and square-root subroutines the PTX does not).
func FrameSaves(f *vm.Func, debug bool) int {
	if f == nil || f.Entry {
		return 0
	}
	calls, cond := false, false
	for i := range f.Code {
		in := &f.Code[i]
		switch in.Op {
		case vm.OpCall:
			calls = true
		case vm.OpBra:
			cond = cond || in.Guard >= 0
		}
	}
	if !calls {
		return 0
	}
	n := 2 + regs.AcrossCalls(f)
	if cond && !debug {
		n++
	}
	return n
}
