package vm

import (
	"fmt"
	"math/bits"
)

// Warp-synchronous instructions (shfl.sync, vote.sync, match.sync,
// redux.sync, elect.sync, bar.warp.sync) make every non-exited lane of their
// membermask execute them together (PTX ISA: the executing thread waits
// until all non-exited threads of membermask have executed it). A group that
// arrives first is held at the instruction until the rest of the mask
// arrives at the same instruction; then they run it as one group.

// memberReg is the register holding an instruction's membermask.
func memberReg(in *Inst) int32 {
	switch in.Op {
	case OpShfl:
		return in.V[0]
	case OpElect, OpWarpSync:
		return in.A
	}
	return in.B
}

// syncGroup returns the lanes that execute the warp-synchronous instruction
// at pc together with the running group mask, or 0 if the group must wait.
func (w *Warp) syncGroup(f *frame, in *Inst, mask uint32, pc int32) (uint32, error) {
	if in.Op == OpActivemask {
		return mask, nil
	}
	first := bits.TrailingZeros32(mask)
	// Each lane names its own member mask (cooperative-groups tiles give
	// each tile's lanes a different one); the group waits for their union.
	mr := f.r(memberReg(in))
	var member uint32
	for x := mask; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		m := uint32(mr[l])
		member |= m
		if w.cta.launch.Strict {
			if m>>l&1 == 0 {
				return 0, w.fault(f, pc, l, fmt.Sprintf("lane %d executes a warp-synchronous instruction but is not in its membermask %#08x", l, m))
			}
			if ex := m & w.exited; ex != 0 {
				return 0, w.fault(f, pc, l, fmt.Sprintf("membermask %#08x names lanes that have exited (%#08x)", m, ex))
			}
		}
	}
	_ = first
	missing := member & w.live &^ w.exited &^ mask
	if missing == 0 {
		return mask, nil
	}
	var held uint32
	for x := f.syncHeld; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x)
		if f.pc[l] == pc {
			held |= 1 << l
		}
	}
	if missing&^held == 0 {
		f.syncHeld &^= held
		return mask | held, nil
	}
	// Wait for the others.
	f.syncHeld |= mask
	for x := mask; x != 0; x &= x - 1 {
		f.pc[bits.TrailingZeros32(x)] = pc
	}
	return 0, nil
}

// execWarpOp runs a warp-level instruction for the lanes of exec.
func (w *Warp) execWarpOp(in *Inst, f *frame, exec uint32, pc int32) error {
	if exec == 0 {
		return nil
	}
	if in.Op == OpShfl {
		return w.execShfl(in, f, exec, pc)
	}
	if in.Op == OpActivemask || in.Op == OpWarpSync {
		return w.execWarpGroup(in, f, exec, exec)
	}
	// The other warp-wide operations combine the lanes of each lane's own
	// member mask that execute the instruction: run them once per distinct
	// member mask.
	mr := f.r(memberReg(in))
	for rest := exec; rest != 0; {
		m := uint32(mr[bits.TrailingZeros32(rest)&31])
		var lanes uint32
		for x := rest; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			if uint32(mr[l]) == m {
				lanes |= 1 << l
			}
		}
		rest &^= lanes
		if err := w.execWarpGroup(in, f, lanes, exec&m|lanes); err != nil {
			return err
		}
	}
	return nil
}

// execWarpGroup computes a warp-wide operation for the lanes dst over the
// participating lanes part (the executing lanes of their member mask).
func (w *Warp) execWarpGroup(in *Inst, f *frame, dst, part uint32) error {
	exec := part
	switch in.Op {
	case OpVote:
		p := f.preds[in.A]
		if in.Flags&FNeg2 != 0 {
			p = ^p
		}
		p &= exec
		if in.Imm == voteBallot {
			d := f.r(in.D)
			for x := dst; x != 0; x &= x - 1 {
				d[bits.TrailingZeros32(x)&31] = uint64(p)
			}
			return nil
		}
		var r bool
		switch in.Imm {
		case voteAll:
			r = p == exec
		case voteAny:
			r = p != 0
		case voteUni:
			r = p == exec || p == 0
		}
		q := &f.preds[in.D]
		if r {
			*q |= dst
		} else {
			*q &^= dst
		}
	case OpMatch:
		a, d := f.r(in.A), f.r(in.D)
		msk := sizeMask(in.T)
		var vals [32]uint64
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			vals[l] = a[l] & msk
		}
		if in.Imm == 0 { // any
			for x := dst; x != 0; x &= x - 1 {
				l := bits.TrailingZeros32(x) & 31
				var m uint32
				for y := exec; y != 0; y &= y - 1 {
					k := bits.TrailingZeros32(y) & 31
					if vals[k] == vals[l] {
						m |= 1 << k
					}
				}
				d[l] = uint64(m)
			}
			return nil
		}
		first := bits.TrailingZeros32(exec) & 31
		all := true
		for y := exec; y != 0; y &= y - 1 {
			if vals[bits.TrailingZeros32(y)&31] != vals[first] {
				all = false
			}
		}
		var r uint64
		if all {
			r = uint64(exec)
		}
		for x := dst; x != 0; x &= x - 1 {
			d[bits.TrailingZeros32(x)&31] = r
		}
		if in.D2 != NoReg {
			q := &f.preds[in.D2]
			if all {
				*q |= dst
			} else {
				*q &^= dst
			}
		}
	case OpRedux:
		a, d := f.r(in.A), f.r(in.D)
		first := bits.TrailingZeros32(exec) & 31
		acc := a[first] & 0xffffffff
		for y := exec & (exec - 1); y != 0; y &= y - 1 {
			v := a[bits.TrailingZeros32(y)&31] & 0xffffffff
			switch in.Imm {
			case reduxAdd:
				acc = (acc + v) & 0xffffffff
			case reduxMin:
				if in.T == S32 && int32(v) < int32(acc) || in.T != S32 && v < acc {
					acc = v
				}
			case reduxMax:
				if in.T == S32 && int32(v) > int32(acc) || in.T != S32 && v > acc {
					acc = v
				}
			case reduxAnd:
				acc &= v
			case reduxOr:
				acc |= v
			case reduxXor:
				acc ^= v
			}
		}
		for x := dst; x != 0; x &= x - 1 {
			d[bits.TrailingZeros32(x)&31] = acc
		}
	case OpActivemask:
		d := f.r(in.D)
		for x := exec; x != 0; x &= x - 1 {
			d[bits.TrailingZeros32(x)&31] = uint64(exec)
		}
	case OpElect:
		// part is already the executing lanes of this member mask.
		d := f.r(in.D)
		leader := bits.TrailingZeros32(exec)
		for x := dst; x != 0; x &= x - 1 {
			d[bits.TrailingZeros32(x)&31] = uint64(leader & 31)
		}
		if in.D2 != NoReg {
			q := &f.preds[in.D2]
			*q &^= dst
			if exec != 0 {
				*q |= 1 << leader & dst
			}
		}
	case OpWarpSync:
		// Convergence is all it does.
	}
	return nil
}

func (w *Warp) execShfl(in *Inst, f *frame, exec uint32, pc int32) error {
	a, b, c, d := f.r(in.A), f.r(in.B), f.r(in.C), f.r(in.D)
	src := *a // d may be a
	var pm uint32
	strict := w.cta.launch.Strict
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		bv, cv := int(b[l]&31), int(c[l]&31)
		seg := int(c[l] >> 8 & 31)
		maxLane := l&seg | cv&^seg
		minLane := l & seg
		var j int
		var ok bool
		switch in.Imm {
		case shflUp:
			j = l - bv
			ok = j >= maxLane
		case shflDown:
			j = l + bv
			ok = j <= maxLane
		case shflBfly:
			j = l ^ bv
			ok = j <= maxLane
		default:
			j = minLane | bv&^seg
			ok = j <= maxLane
		}
		if !ok {
			j = l
		}
		if strict && exec>>j&1 == 0 {
			return w.fault(f, pc, l, fmt.Sprintf("shfl reads lane %d, which is not executing it (its value is undefined)", j))
		}
		d[l] = src[j&31] & 0xffffffff
		if ok {
			pm |= 1 << l
		}
	}
	if in.D2 != NoReg {
		q := &f.preds[in.D2]
		*q = *q&^exec | pm
	}
	return nil
}
