package vm

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/internal/fpu"
	"github.com/ptxvm/ptxvm/vm/internal/warpsimd"
)

// maxCallDepth bounds recursion (a runaway recursion is a fault, not a Go
// stack overflow or an out-of-memory).
const maxCallDepth = 1024

// resume returns the frame that can run next, settling lanes and popping
// finished activations; nil when the warp is held at a barrier or done.
func (w *Warp) resume() *frame {
	for {
		f := w.top()
		if f.settle() {
			return f
		}
		if f.syncHeld != 0 && f.releaseSync(w) {
			continue
		}
		if f.blocked != 0 || f.syncHeld != 0 || w.depth == 1 {
			return nil
		}
		w.popFrame()
	}
}

// ready is resume for the common case, small enough to inline: the top
// frame's current group runs on when no waiting lane is at or before its
// PC (settle would return it unchanged).
func (w *Warp) ready() *frame {
	if f := w.topf; f.cur != 0 && f.nextWait > f.curPC {
		return f
	}
	return w.resume()
}

// popFrame ends the top activation: lanes that returned get the return
// values and resume after the call in the caller.
func (w *Warp) popFrame() {
	f := w.top()
	c := w.frames[w.depth-2]
	back := f.done &^ w.exited
	if s := f.site; s != nil && back != 0 {
		fs, cs := uint64(f.fn.ParamBlock), uint64(c.fn.ParamBlock)
		for x := back; x != 0; x &= x - 1 {
			l := uint64(bits.TrailingZeros32(x))
			for _, r := range s.Rets {
				copy(c.params[l*cs+r.to:l*cs+r.to+r.size], f.params[l*fs+r.from:l*fs+r.from+r.size])
			}
		}
		for _, r := range s.RegRets {
			src, dst := f.r(r.from), c.r(r.to)
			for x := back; x != 0; x &= x - 1 {
				l := bits.TrailingZeros32(x) & 31
				dst[l] = src[l]
			}
		}
		for _, r := range s.PredRets {
			c.preds[r.to] = c.preds[r.to]&^back | f.preds[r.from]&back
		}
	}
	w.depth--
	w.topf = c
	w.view.FParam, w.view.FParamStride = c.params, int(c.fn.ParamBlock)
	c.cur, c.curPC = back, f.callPC+1
	if back == 0 {
		c.cur = 0
	}
}

// run executes up to limit warp instructions. It returns when the warp is
// done, held at a barrier, or has used its slice; or with a fault.
func (w *Warp) run(limit int) error {
	f := w.ready()
	if f == nil {
		return nil
	}
	return w.runFrame(f, limit)
}

// runFrame is run from f, the frame resume returned.
func (w *Warp) runFrame(f *frame, limit int) error {
	code, mask, pc := f.code, f.cur, f.curPC
	preds := f.preds
	for n := 0; n < limit; n++ {
		in := &code[pc]
		var exec uint32
		if in.Fuse == FuseRun && !w.watch && mask == ^uint32(0) && w.mbLate == 0 {
			// A full warp's run of arithmetic (exec_run.go), counted there.
			if k, npc := w.runFast(f, pc, limit-n, !noRunKernels); k > 0 {
				n += k - 1
				pc = npc
				if pc < f.nextWait {
					continue
				}
				f.cur, f.curPC = mask, pc
				goto resched
			}
		}
		exec = mask
		if in.Guard >= 0 {
			p := preds[in.Guard]
			if in.GuardNeg {
				p = ^p
			}
			exec &= p
		}
		if w.mbLate != 0 && w.Inst != w.mbLateAt {
			w.landLate() // a cp.async.mbarrier.arrive's, after the next instruction
		}
		w.Inst++
		w.ThreadInst += uint64(bits.OnesCount32(mask))
		switch in.Op {
		case OpNop:
		case OpMov:
			if exec == ^uint32(0) && w.fullInt(in, f) {
				break
			}
			d, a := f.r(in.D), f.r(in.A)
			msk := sizeMask(in.T)
			for x := exec; x != 0; x &= x - 1 {
				l := bits.TrailingZeros32(x) & 31
				d[l] = a[l] & msk
			}
		case OpAdd:
			d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
			switch in.T.Size() {
			case 4:
				if in.Flags&FSat != 0 {
					for x := exec; x != 0; x &= x - 1 {
						l := bits.TrailingZeros32(x) & 31
						d[l] = uint64(uint32(satS32(int64(int32(a[l])) + int64(int32(b[l])))))
					}
				} else if exec == ^uint32(0) {
					warpsimd.AddQ(d, a, b, 0xffffffff)
				} else {
					for x := exec; x != 0; x &= x - 1 {
						l := bits.TrailingZeros32(x) & 31
						d[l] = uint64(uint32(a[l] + b[l]))
					}
				}
			case 8:
				if exec == ^uint32(0) {
					warpsimd.AddQ(d, a, b, ^uint64(0))
					break
				}
				for x := exec; x != 0; x &= x - 1 {
					l := bits.TrailingZeros32(x) & 31
					d[l] = a[l] + b[l]
				}
			default:
				for x := exec; x != 0; x &= x - 1 {
					l := bits.TrailingZeros32(x) & 31
					d[l] = uint64(uint16(a[l] + b[l]))
				}
			}
		case OpMulLo:
			if exec == ^uint32(0) && w.fullInt(in, f) {
				break
			}
			d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
			msk := sizeMask(in.T)
			for x := exec; x != 0; x &= x - 1 {
				l := bits.TrailingZeros32(x) & 31
				d[l] = (a[l] * b[l]) & msk
			}
		case OpMadLo:
			if exec == ^uint32(0) && w.fullInt(in, f) {
				break
			}
			d, a, b, c := f.r(in.D), f.r(in.A), f.r(in.B), f.r(in.C)
			msk := sizeMask(in.T)
			for x := exec; x != 0; x &= x - 1 {
				l := bits.TrailingZeros32(x) & 31
				d[l] = (a[l]*b[l] + c[l]) & msk
			}
		case OpMulWide:
			if exec == ^uint32(0) && w.fullInt(in, f) {
				break
			}
			d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
			switch in.T2 {
			case S32:
				for x := exec; x != 0; x &= x - 1 {
					l := bits.TrailingZeros32(x) & 31
					d[l] = uint64(int64(int32(a[l])) * int64(int32(b[l])))
				}
			case U32:
				for x := exec; x != 0; x &= x - 1 {
					l := bits.TrailingZeros32(x) & 31
					d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l]))
				}
			case S16:
				for x := exec; x != 0; x &= x - 1 {
					l := bits.TrailingZeros32(x) & 31
					d[l] = uint64(uint32(int32(int16(a[l])) * int32(int16(b[l]))))
				}
			default:
				for x := exec; x != 0; x &= x - 1 {
					l := bits.TrailingZeros32(x) & 31
					d[l] = uint64(uint32(uint16(a[l])) * uint32(uint16(b[l])))
				}
			}
		case OpShl:
			if exec == ^uint32(0) && w.fullInt(in, f) {
				break
			}
			d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
			bitsN := uint64(in.T.Bits())
			msk := sizeMask(in.T)
			for x := exec; x != 0; x &= x - 1 {
				l := bits.TrailingZeros32(x) & 31
				s := uint64(uint32(b[l]))
				if s >= bitsN {
					d[l] = 0
				} else {
					d[l] = (a[l] << s) & msk
				}
			}
		case OpFFma:
			if in.T == F32 && in.Flags&(FFtz|FSat) == 0 && in.Rnd == rndN && in.Imm == 0 {
				// fpu.FmaRN32Fast is fpu.Fma32's fast path, inlined;
				// fma32 computes what it leaves (subnormal, huge, NaN,
				// halfway).
				d, a, b, c := f.r(in.D), f.r(in.A), f.r(in.B), f.r(in.C)
				if exec == ^uint32(0) {
					warpsimd.FmaRN32(d, a, b, c)
					break
				}
				for x := exec; x != 0; x &= x - 1 {
					l := bits.TrailingZeros32(x) & 31
					z, ok := fpu.FmaRN32Fast(uint32(a[l]), uint32(b[l]), uint32(c[l]))
					if !ok {
						z = fma32(uint32(a[l]), uint32(b[l]), uint32(c[l]))
					}
					d[l] = uint64(z)
				}
				break
			}
			w.execFloat(in, f, exec)
		case OpFAdd, OpFMul, OpFSub:
			if in.T == F32 && in.Flags&(FFtz|FSat) == 0 && in.Rnd == rndN {
				d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
				switch in.Op {
				case OpFAdd:
					for x := exec; x != 0; x &= x - 1 {
						l := bits.TrailingZeros32(x) & 31
						d[l] = uint64(canon32(math.Float32frombits(uint32(a[l])) + math.Float32frombits(uint32(b[l]))))
					}
				case OpFSub:
					for x := exec; x != 0; x &= x - 1 {
						l := bits.TrailingZeros32(x) & 31
						d[l] = uint64(canon32(math.Float32frombits(uint32(a[l])) - math.Float32frombits(uint32(b[l]))))
					}
				default:
					for x := exec; x != 0; x &= x - 1 {
						l := bits.TrailingZeros32(x) & 31
						d[l] = uint64(canon32(math.Float32frombits(uint32(a[l])) * math.Float32frombits(uint32(b[l]))))
					}
				}
				break
			}
			w.execFloat(in, f, exec)
		case OpSetp:
			if exec == ^uint32(0) && w.setp32Full(in, f) {
				break
			}
			w.execSetp(in, f, exec)
		case OpLd, OpSt:
			if (in.Fuse == FuseLdLdFma || in.Fuse == FuseLdLdFmaChain) && exec == ^uint32(0) && mask == exec && !w.watch && w.mbLate == 0 {
				// Several instructions at once (fuse.go).
				k := int32(0)
				if in.Fuse == FuseLdLdFmaChain {
					k = w.ldLdFmaChain(code, pc, f, limit-n)
				}
				if k == 0 && limit-n >= 3 && pc+2 < f.nextWait && w.ldLdFma(code, pc, f) {
					k = 3
				}
				if k > 0 {
					w.Inst += uint64(k - 1)
					w.ThreadInst += uint64(k-1) * 32
					n += int(k - 1)
					pc += k - 1
					break
				}
			}
			if err := w.execMem(in, f, exec, pc); err != nil {
				f.cur, f.curPC = mask, pc
				return err
			}
		case OpBra:
			if exec == mask {
				pc = in.Target
				if pc < f.nextWait {
					continue
				}
				f.cur, f.curPC = mask, pc
				goto resched
			}
			if exec != 0 {
				// Divergence: the not-taken lanes wait at pc+1.
				f.park(mask&^exec, pc+1)
				f.cur, f.curPC = exec, in.Target
				goto resched
			}
		case OpBrx:
			if exec == 0 {
				break
			}
			tab := in.BrxTable(f.fn)
			a := f.r(in.A)
			for x := exec; x != 0; x &= x - 1 {
				l := bits.TrailingZeros32(x) & 31
				if uint64(uint32(a[l])) >= uint64(len(tab)) {
					f.cur, f.curPC = mask, pc
					return w.fault(f, pc, l, fmt.Sprintf("brx.idx index %d is outside its %d targets", uint32(a[l]), len(tab)))
				}
			}
			f.park(mask&^exec, pc+1)
			for x := exec; x != 0; x &= x - 1 {
				l := bits.TrailingZeros32(x) & 31
				f.park(1<<l, tab[uint32(a[l])])
			}
			f.cur = 0
			goto resched
		case OpExit:
			if exec != 0 {
				w.exited |= exec
				mask &^= exec
				w.cta.threadsExited(bits.OnesCount32(exec))
				if mask == 0 {
					f.cur = 0
					goto resched
				}
			}
		case OpRet:
			if exec != 0 {
				f.done |= exec
				mask &^= exec
				if mask == 0 {
					f.cur = 0
					goto resched
				}
			}
		case OpCall:
			if exec != 0 {
				if err := w.call(in, f, exec, mask, pc); err != nil {
					f.cur, f.curPC = mask, pc
					return err
				}
				goto resched
			}
		case OpBar:
			if exec != 0 {
				id := in.BarrierID()
				if in.A != NoReg {
					id = int(f.r(in.A)[bits.TrailingZeros32(exec)] & 15)
				}
				cnt := 0
				if in.Flags&FHasCnt != 0 {
					l := bits.TrailingZeros32(exec)
					cnt = int(uint32(f.r(in.B)[l]))
					if cnt%WarpSize != 0 {
						// The GPU raises an illegal instruction (recorded for
						// bar.sync, barrier.sync, bar.arrive, bar.red).
						f.cur, f.curPC = mask, pc
						return w.illegal(f, pc, l, fmt.Sprintf("barrier %d with a thread count of %d, not a multiple of the warp size (%d)", id, cnt, WarpSize))
					}
				}
				if in.Flags&FRed != 0 {
					p := f.preds[in.C]
					if in.Flags&FNeg2 != 0 {
						p = ^p
					}
					w.cta.addRed(id, in.BoolOp, p&exec)
					w.barRed[id] = barRedDst{op: in.BoolOp, dst: in.D}
				}
				if s := w.cta.sm; s.Sync != nil {
					w.noteBarrier(s, f, pc, id, cnt, exec, mask, in.Flags&FArrive != 0)
				}
				if in.Flags&FArrive != 0 {
					w.cta.arrive(w, id, exec, cnt, false)
				} else {
					// The arriving lanes are held, to resume after the barrier.
					f.blocked |= exec
					if exec == ^uint32(0) {
						warpsimd.Fill32(&f.pc, pc+1)
					} else {
						for x := exec; x != 0; x &= x - 1 {
							f.pc[bits.TrailingZeros32(x)] = pc + 1
						}
					}
					mask &^= exec
					f.cur, f.curPC = mask, pc+1
					w.cta.arrive(w, id, exec, cnt, true)
					goto resched
				}
			}
		case OpBarCluster:
			if exec != 0 {
				if in.Flags&FArrive != 0 {
					w.clusterArrive(exec)
				} else if hold := w.clusterWait(exec); hold != 0 {
					// The lanes whose phase has not completed are held, to
					// resume after the barrier.
					f.blocked |= hold
					for x := hold; x != 0; x &= x - 1 {
						f.pc[bits.TrailingZeros32(x)] = pc + 1
					}
					mask &^= hold
					f.cur, f.curPC = mask, pc+1
					goto resched
				}
			}
		case OpShfl, OpVote, OpMatch, OpRedux, OpElect, OpWarpSync, OpActivemask:
			if exec != 0 || in.Op == OpWarpSync {
				grp, err := w.syncGroup(f, in, mask, pc)
				if err != nil {
					f.cur, f.curPC = mask, pc
					return err
				}
				if grp == 0 {
					if in.Op == OpWarpSync {
						if s := w.cta.sm; s.Sync != nil {
							w.noteWarpSync(s, f, in, pc, SyncWarpWait, mask, 0)
						}
					}
					w.syncActive, w.syncExec = mask, 0
					f.cur, f.curPC = 0, pc
					goto resched
				}
				if in.Op == OpWarpSync {
					if s := w.cta.sm; s.Sync != nil {
						w.noteWarpSync(s, f, in, pc, SyncWarp, grp, w.foreign)
					}
				}
				mask = grp
				exec = mask
				if in.Guard >= 0 {
					p := preds[in.Guard]
					if in.GuardNeg {
						p = ^p
					}
					exec &= p
				}
				w.syncActive, w.syncExec = mask, exec
				if err := w.execWarpOp(in, f, exec, pc); err != nil {
					f.cur, f.curPC = mask, pc
					return err
				}
			}
		case OpAtom:
			if err := w.execAtom(in, f, exec, pc); err != nil {
				f.cur, f.curPC = mask, pc
				return err
			}
		case OpTrap:
			if exec != 0 {
				f.cur, f.curPC = mask, pc
				if in.Imm != 0 {
					return w.assertFault(f, pc, bits.TrailingZeros32(exec), &f.fn.Asserts[in.Imm-1])
				}
				return w.fault(f, pc, bits.TrailingZeros32(exec), "trap instruction executed")
			}
		case OpSub, OpAnd, OpOr, OpXor, OpNot, OpShr, OpSelp:
			if exec == ^uint32(0) && w.fullInt(in, f) {
				break
			}
			_ = w.execOther(in, f, exec, pc) // these forms never fail
		default:
			if err := w.execOther(in, f, exec, pc); err != nil {
				f.cur, f.curPC = mask, pc
				return err
			}
		}
		pc++
		if pc < f.nextWait {
			continue
		}
		f.cur, f.curPC = mask, pc
	resched:
		// The running group moved, shrank, stopped or left the frame:
		// settle the frame (popping finished calls) and pick what runs next.
		if f = w.resume(); f == nil {
			if w.mbLate != 0 && w.Inst != w.mbLateAt {
				w.landLate() // the warp stops: held at a barrier or done
			}
			return nil
		}
		code, mask, pc, preds = f.code, f.cur, f.curPC, f.preds
	}
	f.cur, f.curPC = mask, pc
	if w.mbLate != 0 && w.Inst != w.mbLateAt {
		w.landLate() // the end of the warp's slice
	}
	return nil
}

// call pushes an activation of the callee for lanes exec; the other lanes
// of the running group wait after the call.
func (w *Warp) call(in *Inst, f *frame, exec, mask uint32, pc int32) error {
	if w.depth >= maxCallDepth {
		return w.stackFault(f, pc, bits.TrailingZeros32(exec), "call stack overflow: more than 1024 nested calls")
	}
	cs := in.CallSite(f.fn)
	if cs.Indirect {
		// Through a register: the lanes calling the first lane's target
		// go now; the others call at this PC when they have returned.
		l := bits.TrailingZeros32(exec)
		tr := f.r(cs.Reg)
		a := tr[l]
		i := w.cta.launch.Kernel.funcIndex(a)
		if i < 0 || cs.Targets[i].Callee == nil {
			what := "which is not the address of a function of this kernel"
			if i >= 0 {
				what = fmt.Sprintf("function %s, whose parameters are not the call's", w.cta.launch.Kernel.Funcs[i].Name)
			}
			return w.illegal(f, pc, l, fmt.Sprintf("indirect call to %#x, %s", a, what))
		}
		same := uint32(0)
		for x := exec; x != 0; x &= x - 1 {
			if l := bits.TrailingZeros32(x); tr[l] == a {
				same |= 1 << l
			}
		}
		f.park(exec&^same, pc)
		mask &^= exec &^ same
		exec = same
		cs = &cs.Targets[i]
	}
	callee := cs.Callee
	stack, err := w.stackOverflow(f, callee, pc, bits.TrailingZeros32(exec))
	if err != nil {
		return err
	}
	f.park(mask&^exec, pc+1)
	f.cur = 0
	f.curPC = pc
	base := alignUp(f.localBase+f.fn.LocalSize, max(callee.LocalAlign, 16))
	need := base + callee.LocalSize
	if need > memspace.DefaultLocalSize {
		return w.fault(f, pc, bits.TrailingZeros32(exec), "local memory exhausted by nested calls (more than 64 KiB per thread)")
	}
	w.ensureLocal(need)
	nf := w.pushFrame(callee, exec, base)
	// pushFrame may have grown w.frames; f stays valid (frames are pointers).
	nf.callPC = pc
	nf.stack = stack
	nf.site = cs
	fs, cs2 := uint64(f.fn.ParamBlock), uint64(callee.ParamBlock)
	for x := exec; x != 0; x &= x - 1 {
		l := uint64(bits.TrailingZeros32(x))
		for _, a := range cs.Args {
			copy(nf.params[l*cs2+a.to:l*cs2+a.to+a.size], f.params[l*fs+a.from:l*fs+a.from+a.size])
		}
	}
	for _, a := range cs.RegArgs {
		src, dst := f.r(a.from), nf.r(a.to)
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			dst[l] = src[l]
		}
	}
	for _, a := range cs.PredArgs {
		p := f.preds[a.from]
		if a.neg {
			p = ^p
		}
		nf.preds[a.to] = nf.preds[a.to]&^exec | p&exec
	}
	w.view.FParam, w.view.FParamStride = nf.params, int(callee.ParamBlock)
	return nil
}

func sizeMask(t Type) uint64 {
	switch t.Size() {
	case 1:
		return 0xff
	case 2:
		return 0xffff
	case 4:
		return 0xffffffff
	}
	return ^uint64(0)
}

func satS32(v int64) int64 {
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	if v < math.MinInt32 {
		return math.MinInt32
	}
	return v
}
