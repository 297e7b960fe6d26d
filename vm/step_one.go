package vm

import (
	"math/bits"

	"github.com/ptxvm/ptxvm/vm/internal/warpsimd"
)

// stepOneOff makes Step take runFrame for every instruction (tests compare
// the two).
var stepOneOff = false

// stepsOne reports whether stepOne executes instruction in, whose executing
// lanes are exec: a load or a store (memory instructions are most of a
// timing model's steps), or an fma.rn.f32 with every lane executing.
func stepsOne(in *Inst, exec uint32) bool {
	switch in.Op {
	case OpLd, OpSt:
		return !stepOneOff
	case OpFFma:
		return exec == ^uint32(0) && in.T == F32 && in.Flags&(FFtz|FSat) == 0 && in.Rnd == rndN && in.Imm == 0 && !stepOneOff
	}
	return false
}

// stepOne is runFrame(f, 1) for an instruction stepsOne accepts, at f.curPC
// with f.cur running (mask) and exec executing, while Step watches (so that
// none of runFrame's fused forms applies): the same work, without the
// interpreter loop's entry and exit around a single instruction (about a
// fifth of a timing model's host instructions per step went to them).
func (w *Warp) stepOne(f *frame, in *Inst, pc int32, mask, exec uint32) error {
	if w.mbLate != 0 && w.Inst != w.mbLateAt {
		w.landLate() // a cp.async.mbarrier.arrive's, after the next instruction
	}
	w.Inst++
	w.ThreadInst += uint64(bits.OnesCount32(mask))
	if in.Op == OpFFma {
		warpsimd.FmaRN32(f.r(in.D), f.r(in.A), f.r(in.B), f.r(in.C))
	} else if err := w.execMem(in, f, exec, pc); err != nil {
		f.cur, f.curPC = mask, pc
		return err
	}
	pc++
	f.cur, f.curPC = mask, pc
	if pc >= f.nextWait && w.resume() == nil {
		// The running group moved: settled as runFrame's resched does.
		if w.mbLate != 0 && w.Inst != w.mbLateAt {
			w.landLate() // the warp stops: held at a barrier or done
		}
		return nil
	}
	if w.mbLate != 0 && w.Inst != w.mbLateAt {
		w.landLate() // the end of the warp's slice
	}
	return nil
}
