package vm

import (
	"fmt"
	"math/bits"
)

// Warp-synchronous instructions (shfl.sync, vote.sync, match.sync,
// redux.sync, elect.sync, bar.warp.sync) make the non-exited lanes of their
// membermask execute them together (PTX ISA: the executing thread waits
// until all non-exited threads of membermask have executed it). What sm_90
// does when named lanes are elsewhere was recorded (testdata/conformance/
// issue7, warpdiv and barerr):
//
//   - A group that arrives first is held until each other lane of the mask
//     has exited or is held at a warp-synchronous instruction itself, at
//     this PC or another one: lanes that branched around the instruction
//     and exit let it complete over the lanes that came (the result is over
//     those lanes); lanes at another PC executing the same instruction form
//     one collective with it (WARPSYNC.COLLECTIVE: a vote over both halves
//     of an if/else); lanes held at a CTA barrier never come, which is a
//     deadlock (the GPU hangs).
//   - Lanes executing one instruction with different membermasks form
//     separate groups, one per mask value (WARPSYNC.EXCLUSIVE).
//   - shfl from a lane that is not executing with the group (branched
//     away, exited) reads 0.
//   - bar.warp.sync with a mask in a register that leaves the executing
//     lane out is an illegal instruction on the GPU; masks that differ
//     between lanes are not (each lane waits for the lanes it names).

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

// warpSyncRegMask marks (Inst.Imm) a bar.warp.sync whose membermask is a
// register, not an immediate.
const warpSyncRegMask = 1

// syncGroup returns the lanes that execute the warp-synchronous instruction
// at pc together with the running group mask, or 0 if the group must wait.
// Lanes held at other PCs that complete the collective are left in
// w.foreign for execWarpOp.
func (w *Warp) syncGroup(f *frame, in *Inst, mask uint32, pc int32) (uint32, error) {
	w.foreign = 0
	if in.Op == OpActivemask {
		return mask, nil
	}
	// Each lane names its own member mask (cooperative-groups tiles give
	// each tile's lanes a different one); the group waits for their union.
	mr := f.r(memberReg(in))
	var member uint32
	for x := mask; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		m := uint32(mr[l])
		member |= m
		if m>>l&1 == 0 && in.Op == OpWarpSync && in.Imm&warpSyncRegMask != 0 {
			if exec := w.guarded(f, in, mask); exec>>l&1 != 0 {
				return 0, w.illegal(f, pc, l, fmt.Sprintf("bar.warp.sync with membermask %#08x, which leaves out lane %d that executes it", m, l))
			}
		}
		if w.cta.launch.Strict {
			if m>>l&1 == 0 {
				return 0, w.fault(f, pc, l, fmt.Sprintf("lane %d executes a warp-synchronous instruction but is not in its membermask %#08x", l, m))
			}
			if ex := m & w.exited; ex != 0 {
				return 0, w.fault(f, pc, l, fmt.Sprintf("membermask %#08x names lanes that have exited (%#08x)", m, ex))
			}
		}
	}
	missing := member & w.live &^ w.exited &^ mask
	if missing == 0 {
		return mask, nil
	}
	if missing&^f.syncHeld == 0 {
		// Every named lane is here or held at a warp-synchronous
		// instruction: they execute as one collective.
		var same uint32
		for x := missing; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x)
			if f.pc[l] == pc {
				same |= 1 << l
			}
		}
		f.syncHeld &^= missing
		w.foreign = missing &^ same
		return mask | same, nil
	}
	// Wait for the others.
	f.syncHeld |= mask
	for x := mask; x != 0; x &= x - 1 {
		f.pc[bits.TrailingZeros32(x)] = pc
	}
	return 0, nil
}

// guarded is the lanes of mask for which in's guard predicate holds.
func (w *Warp) guarded(f *frame, in *Inst, mask uint32) uint32 {
	if in.Guard < 0 {
		return mask
	}
	p := f.preds[in.Guard]
	if in.GuardNeg {
		p = ^p
	}
	return mask & p
}

// releaseSync lets groups held at warp-synchronous instructions try again
// when nothing else in the frame can run: each group whose named lanes have
// all exited or are held themselves goes back to waiting at its PC (it
// then executes, or forms a collective with the others when they arrive).
// It reports whether any group was released.
func (f *frame) releaseSync(w *Warp) bool {
	released := uint32(0)
	for rest := f.syncHeld; rest != 0; {
		pc := f.pc[bits.TrailingZeros32(rest)]
		var g, member uint32
		mr := f.r(memberReg(&f.code[pc]))
		for x := rest; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			if f.pc[l] == pc {
				g |= 1 << l
				member |= uint32(mr[l])
			}
		}
		rest &^= g
		if member&w.live&^w.exited&^f.syncHeld == 0 {
			released |= g
		}
	}
	if released == 0 {
		return false
	}
	f.syncHeld &^= released
	for x := released; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x)
		f.park(1<<l, f.pc[l])
	}
	return true
}

// execWarpOp runs a warp-level instruction for the lanes of exec, and for
// the lanes of a collective held at other PCs (w.foreign).
func (w *Warp) execWarpOp(in *Inst, f *frame, exec uint32, pc int32) error {
	if foreign := w.foreign; foreign != 0 {
		w.foreign = 0
		return w.execCollective(in, f, exec, foreign)
	}
	if exec == 0 {
		return nil
	}
	if in.Op == OpShfl {
		return w.execShfl(in, f, exec, w.syncActive, pc)
	}
	if in.Op == OpActivemask || in.Op == OpWarpSync {
		return w.execWarpGroup(in, f, exec, exec)
	}
	// The other warp-wide operations combine the executing lanes that name
	// the same member mask: one group per distinct mask (lanes naming
	// different masks do not see each other, as WARPSYNC.EXCLUSIVE does).
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
		if err := w.execWarpGroup(in, f, lanes, lanes); err != nil {
			return err
		}
	}
	return nil
}

// execCollective executes a warp-synchronous instruction whose group
// formed across PCs: the running lanes (exec of in, at the current PC) and
// the foreign lanes held at the same kind of instruction elsewhere. Sources
// come from each lane's own instruction and results go to its own
// destinations; the foreign lanes then continue after their instruction.
func (w *Warp) execCollective(in *Inst, f *frame, exec, foreign uint32) error {
	var insts [32]*Inst
	active := w.syncActive | foreign
	all := exec
	mixed := false
	for x := w.syncActive; x != 0; x &= x - 1 {
		insts[bits.TrailingZeros32(x)&31] = in
	}
	for x := foreign; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		il := &f.code[f.pc[l]]
		insts[l] = il
		all |= w.guarded(f, il, 1<<l)
		if il.Op != in.Op || il.Imm != in.Imm || il.T != in.T {
			mixed = true
		}
	}
	defer func() {
		for x := foreign; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x)
			f.park(1<<l, f.pc[l]+1)
		}
	}()
	switch {
	case mixed || in.Op == OpWarpSync || in.Op == OpElect:
		// Nothing to exchange (bar.warp.sync), or different instructions
		// (undefined): each PC's lanes execute their own over themselves.
		for rest := all; rest != 0; {
			il := insts[bits.TrailingZeros32(rest)&31]
			var g uint32
			for x := rest; x != 0; x &= x - 1 {
				if l := bits.TrailingZeros32(x) & 31; insts[l] == il {
					g |= 1 << l
				}
			}
			rest &^= g
			var err error
			if il.Op == OpShfl {
				err = w.execShfl(il, f, g, g, f.curPC)
			} else {
				err = w.execWarpGroup(il, f, g, g)
			}
			if err != nil {
				return err
			}
		}
		return nil
	case in.Op == OpShfl:
		var src [32]uint64
		for x := active; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			src[l] = f.r(insts[l].A)[l]
		}
		for x := all; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			il := insts[l]
			j, ok := shflLane(il.Imm, l, f.r(il.B)[l], f.r(il.C)[l])
			v := uint64(0)
			if active>>j&1 != 0 {
				v = src[j] & 0xffffffff
			}
			f.r(il.D)[l] = v
			if il.D2 != NoReg {
				q := &f.preds[il.D2]
				*q &^= 1 << l
				if ok {
					*q |= 1 << l
				}
			}
		}
		return nil
	}
	// vote, match, redux: gather each lane's operand and mask, compute per
	// mask group, scatter.
	var src [32]uint64
	var mem [32]uint32
	var pbits uint32
	for x := all; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		il := insts[l]
		mem[l] = uint32(f.r(memberReg(il))[l])
		if in.Op == OpVote {
			p := f.preds[il.A]
			if il.Flags&FNeg2 != 0 {
				p = ^p
			}
			pbits |= p & (1 << l)
		} else {
			src[l] = f.r(il.A)[l]
		}
	}
	for rest := all; rest != 0; {
		m := mem[bits.TrailingZeros32(rest)&31]
		var g uint32
		for x := rest; x != 0; x &= x - 1 {
			if l := bits.TrailingZeros32(x) & 31; mem[l] == m {
				g |= 1 << l
			}
		}
		rest &^= g
		// Compute with the first lane's instruction over the group's
		// gathered operands, then copy the result to each lane's own
		// destination.
		for x := g; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			il := insts[l]
			switch in.Op {
			case OpVote:
				p := pbits & g
				if il.Imm == voteBallot {
					f.r(il.D)[l] = uint64(p)
					continue
				}
				var r bool
				switch il.Imm {
				case voteAll:
					r = p == g
				case voteAny:
					r = p != 0
				case voteUni:
					r = p == g || p == 0
				}
				q := &f.preds[il.D]
				*q &^= 1 << l
				if r {
					*q |= 1 << l
				}
			case OpRedux:
				f.r(il.D)[l] = reduxOf(il, &src, g)
			case OpMatch:
				d, all := matchOf(il, &src, g, l)
				f.r(il.D)[l] = d
				if il.D2 != NoReg {
					q := &f.preds[il.D2]
					*q &^= 1 << l
					if all {
						*q |= 1 << l
					}
				}
			}
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
		var all bool
		for x := dst; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			d[l], all = matchOf(in, a, exec, l)
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
		r := reduxOf(in, f.r(in.A), exec)
		d := f.r(in.D)
		for x := dst; x != 0; x &= x - 1 {
			d[bits.TrailingZeros32(x)&31] = r
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

// matchOf is match.sync for lane l over the lanes part, whose values are
// in a: match.any's mask of lanes holding l's value, or match.all's mask
// (all lanes of part, or 0) and whether they all agree.
func matchOf(in *Inst, a *[32]uint64, part uint32, l int) (uint64, bool) {
	msk := sizeMask(in.T)
	if in.Imm == 0 { // any
		var m uint32
		v := a[l] & msk
		for y := part; y != 0; y &= y - 1 {
			k := bits.TrailingZeros32(y) & 31
			if a[k]&msk == v {
				m |= 1 << k
			}
		}
		return uint64(m), false
	}
	first := a[bits.TrailingZeros32(part)&31] & msk
	for y := part; y != 0; y &= y - 1 {
		if a[bits.TrailingZeros32(y)&31]&msk != first {
			return 0, false
		}
	}
	return uint64(part), true
}

// reduxOf is redux.sync over the lanes part, whose values are in a.
func reduxOf(in *Inst, a *[32]uint64, part uint32) uint64 {
	if part == 0 {
		return 0
	}
	acc := a[bits.TrailingZeros32(part)&31] & 0xffffffff
	for y := part & (part - 1); y != 0; y &= y - 1 {
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
	return acc
}

// shflLane is the lane l reads in shfl instruction in, and whether it is in
// range (the predicate result); out of range, the lane reads itself.
func shflLane(mode uint64, l int, b, c uint64) (int, bool) {
	bv, cv := int(b&31), int(c&31)
	seg := int(c >> 8 & 31)
	maxLane := l&seg | cv&^seg
	minLane := l & seg
	var j int
	var ok bool
	switch mode {
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
	return j & 31, ok
}

// execShfl runs shfl for the lanes of exec; active is the lanes present
// with them (a lane outside it reads 0: it branched away or exited).
func (w *Warp) execShfl(in *Inst, f *frame, exec, active uint32, pc int32) error {
	a, b, c, d := f.r(in.A), f.r(in.B), f.r(in.C), f.r(in.D)
	src := *a // d may be a
	var pm uint32
	strict := w.cta.launch.Strict
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		j, ok := shflLane(in.Imm, l, b[l], c[l])
		if strict && exec>>j&1 == 0 {
			return w.fault(f, pc, l, fmt.Sprintf("shfl reads lane %d, which is not executing it (its value is undefined)", j))
		}
		if active>>j&1 != 0 {
			d[l] = src[j] & 0xffffffff
		} else {
			d[l] = 0
		}
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
