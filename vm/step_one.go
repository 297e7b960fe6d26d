package vm

import (
	"math/bits"
	"unsafe"

	"github.com/ptxvm/ptxvm/memspace"
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

// stepFast runs, for Step, instruction in of frame f (at f.curPC) for a
// full warp (no cp.async arrival to land) where one of the forms of the
// full-warp runs (exec_run.go) other than their memory forms applies, and
// reports whether it did: one instruction of a run (an integer, predicate
// or fma operation, a uniform branch), and nops. (The shared loads and
// stores of 32-bit words, Inst.Fast, are stepShared32's: Step calls it
// itself.) Each computes and records what stepOne or runFrame would,
// without their generality around a single instruction
// (TestStepOneMatchesRunFrame).
func (w *Warp) stepFast(f *frame, in *Inst) bool {
	pc := f.curPC
	if in.Op == OpNop {
		// runFrame's nop (a branch lowering predicated away, a group's
		// bookkeeping): counted, nothing done.
		w.Inst++
		w.ThreadInst += WarpSize
		pc++
		f.curPC = pc
		if pc >= f.nextWait {
			w.resume()
		}
		return true
	}
	if uint(pc) >= uint(len(f.runs)) {
		return false
	}
	switch o := &f.runs[pc]; o.K {
	case runNone, runLdGlobal32, runLdShared32, runStShared32:
		// Memory forms are observed: execMem's path.
		return false
	case runFma32:
		w.Inst++
		w.ThreadInst += WarpSize
		// The run table's offsets of the registers in the frame's file,
		// as runFast uses them (checked when the table was built; f.r
		// looks each up through the slot table, with two bounds checks).
		base := unsafe.Pointer(&f.regs[0])
		warpsimd.FmaRN32((*[32]uint64)(unsafe.Add(base, o.D)), (*[32]uint64)(unsafe.Add(base, o.A)),
			(*[32]uint64)(unsafe.Add(base, o.B)), (*[32]uint64)(unsafe.Add(base, o.C)))
		pc++
	default:
		// runFast(f, pc, 1, false)'s one instruction, without its loop.
		if pc >= f.nextWait || len(f.regs) == 0 {
			return false
		}
		npc := w.runOne(o, unsafe.Pointer(&f.regs[0]), f.preds, pc)
		if npc < 0 {
			return false // a branch whose lanes disagree
		}
		w.Inst++
		w.ThreadInst += WarpSize
		pc = npc
	}
	f.curPC = pc
	if pc >= f.nextWait {
		w.resume()
	}
	return true
}

// stepShared32 is Step's own path for a full warp's ld/st.shared.32
// [r+imm] (Inst.Fast), with no cp.async arrival to land: what stepOne,
// execMem, addresses and observe do for it, without their tests for
// every other form. It reports false, having changed nothing the
// general path does not redo alike, where the word kernels refuse (a lane
// misaligned or out of range, a shared window past 4 GiB, a load into its
// own address register): Step then runs the instruction its usual way.
func (w *Warp) stepShared32(f *frame, in *Inst, info *InstInfo, st *Step) bool {
	sh, sb := w.view.Shared, w.view.SharedBase
	if sb+uint64(len(sh)) > 1<<32 {
		return false
	}
	acc := w.acc
	a, v := f.r(in.A), f.r(in.V[0])
	if in.Op == OpLd {
		// addresses' FAddr32 form (the 32-bit sum of the register and the
		// offset) and loadSharedWords in one pass (a refusal is left to
		// LoadScalar, as there).
		if v == a {
			return false
		}
		span, ok := warpsimd.LoadWords32Addr(v, &acc.Addr, a, uint32(in.Off), sh, -uint32(sb))
		if !ok {
			return false
		}
		acc.Kind = memspace.Load
		acc.SpanKnown, acc.XorSpan = true, uint64(span)
	} else {
		warpsimd.AddKQ(&acc.Addr, a, uint64(uint32(in.Off)), 0xffffffff)
		if !warpsimd.StoreWords32(sh, &acc.Addr, v, -uint32(sb)) {
			return false
		}
		acc.Kind = memspace.Store
		w.vbuf[0] = v[:]
		acc.Values, acc.Elems = &w.vbuf, 1
	}
	w.Inst++
	w.ThreadInst += WarpSize
	// observe, for a shared access of the whole warp.
	s := w.cta.sm
	acc.Space, acc.Size, acc.Mask = memspace.Shared, 4, ^uint32(0)
	acc.Cache, acc.L1Evict, acc.L2Evict, acc.NonCoherent = info.Cache, info.L1Evict, info.L2Evict, info.NonCoherent
	acc.Origin = memspace.Origin{SM: int32(s.ID), CTA: uint64(w.cta.index), Warp: int32(w.id), Inst: info.ID}
	acc.WordStride = 0
	acc.Tex, acc.Surface = nil, false
	if o := s.Observer; o != nil {
		st.Outcome = o.Observe(acc)
	}
	acc.Values = nil
	acc.SpanKnown, acc.XorSpan = false, 0 // for the load; the rest never set it
	st.Accesses = s.acc[:1]
	pc := f.curPC + 1
	f.curPC = pc
	if pc >= f.nextWait {
		w.resume()
	}
	return true
}
