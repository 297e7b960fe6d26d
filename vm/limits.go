package vm

import (
	"errors"
	"fmt"
)

// The per-thread stack. On the GPU, ptxas sizes each function's stack frame
// (spills, saved registers, the return address, local arrays) and reports a
// kernel's "cumulative stack size" when its call graph has no cycle. At launch
// the driver gives each thread max(cudaLimitStackSize, that cumulative size)
// rounded up to 16 bytes: the corpus's -G cg_tiled kernel (1352 bytes
// cumulative, testdata/nvcc/ptxas) ran with Nsight Compute's
// launch__stack_size at 1360 while the limit was 1024, and the raised size
// stayed for the launches after it. A kernel without recursion therefore
// never overflows. With recursion ptxas cannot size the stack: the launch gets
// the limit (1 KiB unless the program raised it, as "stack_bytes" does), and
// a call chain deeper than it fits is a launch failure ("unspecified launch
// failure"; compute-sanitizer reports a stack overflow).
//
// PTX does not say how large ptxas makes a frame. A call here costs its PTX
// local depot (16-byte aligned) and 16 bytes for what every call saves (the
// return address and a register): a lower bound of ptxas's frames (the
// corpus's recursive functions take 24 to 48 bytes at -O3, 16 to 32 at -G),
// so that a recursion the GPU completes is never refused, and one that never
// ends is a fault at a depth close to the GPU's.

// DefaultStackLimit is cudaLimitStackSize's default: 1 KiB per thread.
const DefaultStackLimit = 1024

// callOverhead is what a call saves on the stack besides its local depot.
const callOverhead = 16

// frameStackCost is the stack a call of fn takes.
func frameStackCost(fn *Func) uint64 { return alignUp(fn.LocalSize, 16) + callOverhead }

// stackLimit is the per-thread stack of a launch of a recursive kernel.
func (l *Launch) stackLimit() uint64 {
	if l.StackLimit == 0 {
		return DefaultStackLimit
	}
	return l.StackLimit
}

// recursive reports whether some function k can reach calls itself again.
func (k *Kernel) recursive() bool {
	const (
		unseen = iota
		onPath
		finished
	)
	state := map[*Func]int{}
	var visit func(f *Func) bool
	visit = func(f *Func) bool {
		state[f] = onPath
		for i := range f.Calls {
			for _, c := range f.Calls[i].callees() {
				switch state[c] {
				case onPath:
					return true
				case unseen:
					if visit(c) {
						return true
					}
				}
			}
		}
		state[f] = finished
		return false
	}
	return visit(k.Entry)
}

// stackOverflow checks a call of callee from frame f of w against the
// launch's stack, and returns the stack the chain then takes.
func (w *Warp) stackOverflow(f *frame, callee *Func, pc int32, lane int) (uint64, error) {
	need := f.stack + frameStackCost(callee)
	l := w.cta.launch
	if !l.recursiveKernel || need <= l.stackLimit() {
		return need, nil
	}
	return 0, w.stackFault(f, pc, lane, fmt.Sprintf(
		"stack overflow: %d nested calls need about %d bytes of stack per thread, more than the launch's %d (cudaLimitStackSize; on the GPU a launch failure, which compute-sanitizer reports as a stack overflow). A recursion that never ends? If it should go this deep, raise the limit (\"stack_bytes\" in the spec)",
		w.depth, need, l.stackLimit()))
}

// stackFault builds the Fault of a stack overflow.
func (w *Warp) stackFault(f *frame, pc int32, lane int, msg string) *Fault {
	ft := w.fault(f, pc, lane, msg)
	ft.Err = ErrStackOverflow
	return ft
}

// BudgetError is the error of a launch that ran out of its instruction
// budget (it wraps ErrBudget): where it stopped, and the loop the warp that
// ran last was in.
type BudgetError struct {
	Kernel string
	Inst   int64     // warp instructions executed
	Block  [3]uint32 // the block that ran last
	Warp   int
	// Loop is the innermost loop around where that warp stopped (nil if
	// it was in none): a loop that does not end, or the one where most of
	// the time goes.
	Loop *Loop
}

// Loop is a loop of PTX: the instructions from the target of a backward
// branch to the branch.
type Loop struct {
	Func       string
	File       string
	FirstLine  int    // PTX line of the loop's first instruction
	BranchLine int    // PTX line of the backward branch
	Source     string // CUDA position of the branch (.loc), "" if none
}

func (e *BudgetError) Error() string {
	s := fmt.Sprintf("kernel %s: %v after %d warp instructions (block (%d,%d,%d))", e.Kernel, ErrBudget, e.Inst, e.Block[0], e.Block[1], e.Block[2])
	if lp := e.Loop; lp != nil {
		s += fmt.Sprintf("; warp %d of that block was in the loop of %s:%d-%d", e.Warp, lp.File, lp.FirstLine, lp.BranchLine)
		if lp.Func != e.Kernel {
			s += " (in " + lp.Func + ")"
		}
		if lp.Source != "" {
			s += ", source " + lp.Source
		}
	}
	return s
}

func (e *BudgetError) Unwrap() error { return ErrBudget }

// IsBudget returns the BudgetError in err's chain, if any.
func IsBudget(err error) (*BudgetError, bool) {
	var be *BudgetError
	ok := errors.As(err, &be)
	return be, ok
}

// loopAt finds the innermost loop around where warp w stands: in its
// running frame, or else around the call that frame came from.
func (w *Warp) loopAt() *Loop {
	for d := w.depth - 1; d >= 0; d-- {
		f := w.frames[d]
		pc := f.curPC
		if f.cur == 0 && f.nextWait != noPC {
			pc = f.nextWait
		}
		if d < w.depth-1 {
			pc = w.frames[d+1].callPC
		}
		if lp := innermostLoop(f.fn, pc, w.cta.launch.Module.Filename); lp != nil {
			return lp
		}
	}
	return nil
}

// innermostLoop is the shortest span [target, branch] of a backward bra in
// fn that contains pc.
func innermostLoop(fn *Func, pc int32, file string) *Loop {
	best := int32(-1)
	for b := range fn.Code {
		in := &fn.Code[b]
		if in.Op != OpBra || in.Target > int32(b) || in.Target > pc || int32(b) < pc {
			continue
		}
		if best < 0 || int32(b)-in.Target < best-fn.Code[best].Target {
			best = int32(b)
		}
	}
	if best < 0 {
		return nil
	}
	lp := &Loop{Func: fn.Name, File: file, FirstLine: int(fn.Info[fn.Code[best].Target].Line), BranchLine: int(fn.Info[best].Line)}
	if loc, ok := fn.Info[best].Source(); ok {
		lp.Source = loc.String()
	}
	return lp
}
