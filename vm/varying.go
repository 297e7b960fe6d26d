package vm

import "github.com/ptxvm/ptxvm/memspace"

// Varying says which registers and predicates of a function may hold
// different values in the lanes of one warp (true) and which hold the same
// value in every executing lane (false): values computed from kernel
// parameters, constants, %ctaid, %ntid and the like, as a compiler's
// uniformity analysis finds them (ptxas keeps such values in the SM's
// uniform registers, and warp-aggregates an atomic whose address is one).
//
// The analysis is conservative and flow-insensitive: a register is varying
// everywhere if any instruction can make it so. A value is varying when it
// reads %tid, %laneid or a lane mask, is loaded from memory other than
// kernel parameters and constants at a uniform address, comes back from an
// atomic, a shuffle, a texture or a call, is computed from a varying value
// or under a varying guard, or is written inside code that a branch on a
// varying predicate makes some lanes skip (or, for a loop whose exit
// varies, repeat). Warp-wide results (vote, redux, activemask, bar.red)
// are the same in every lane whatever their inputs.
type Varying struct {
	Regs  []bool // by register index (operand offset / 32)
	Preds []bool
}

// Varying computes the function's Varying sets.
func (f *Func) Varying() Varying {
	v := Varying{Regs: make([]bool, f.NumRegs), Preds: make([]bool, f.NumPred)}
	written := make([]bool, f.NumRegs)
	for i := range f.Info {
		for _, r := range f.Info[i].Writes.Regs {
			if int(r) < len(written) {
				written[r] = true
			}
		}
	}
	sreg := make([]bool, f.NumRegs)
	for _, s := range f.sregs {
		if int(s.reg/32) < len(sreg) {
			sreg[s.reg/32] = true
		}
	}
	// fullMask: a membermask operand that is the constant 0xffffffff (a
	// warp-wide result over fewer lanes is uniform only among them).
	fullMask := func(off int32) bool {
		r := off / 32
		return off != NoReg && int(r) < len(written) && !written[r] && !sreg[r] &&
			uint32(f.init[r][0]) == 0xffffffff
	}
	for _, s := range f.sregs {
		switch s.id {
		case srTidX, srTidY, srTidZ, srLaneid, srLanemaskEq, srLanemaskLe, srLanemaskLt, srLanemaskGe, srLanemaskGt:
			v.setReg(s.reg / 32)
		}
	}
	// Divergent regions: for each branch, the range of instructions that
	// a varying guard makes some lanes skip or repeat.
	type region struct{ lo, hi int32 } // [lo, hi)
	for changed := true; changed; {
		changed = false
		var regions []region
		for pc := range f.Code {
			in := &f.Code[pc]
			if in.Op != OpBra && in.Op != OpBrx {
				continue
			}
			div := in.Op == OpBrx && v.reg(in.A) || in.Guard != NoReg && v.pred(in.Guard)
			if !div {
				continue
			}
			t := in.Target
			if in.Op == OpBrx {
				// Any of its targets: the whole function (rare).
				regions = append(regions, region{0, int32(len(f.Code))})
				continue
			}
			if t > int32(pc) {
				if exits(f, t) {
					// The lanes that skip leave: nothing they skip
					// meets them again.
					continue
				}
				regions = append(regions, region{int32(pc) + 1, t})
			} else {
				regions = append(regions, region{t, int32(pc) + 1})
			}
		}
		inRegion := func(pc int) bool {
			for _, r := range regions {
				if int32(pc) >= r.lo && int32(pc) < r.hi {
					return true
				}
			}
			return false
		}
		for pc := range f.Code {
			in := &f.Code[pc]
			info := &f.Info[pc]
			var vary bool
			switch in.Op {
			case OpVote, OpRedux:
				// The same in every lane of a full warp; a varying guard
				// still leaves the register as it was in the lanes it
				// skips.
				vary = !fullMask(in.B) || in.Guard != NoReg && v.pred(in.Guard)
			case OpActivemask:
				vary = in.Guard != NoReg && v.pred(in.Guard)
			case OpBar:
				vary = in.Guard != NoReg && v.pred(in.Guard)
			case OpElect:
				// The leader's lane number is uniform, its predicate not.
				if in.D2 != NoReg && !v.Preds[in.D2] {
					v.Preds[in.D2], changed = true, true
				}
				vary = in.Guard != NoReg && v.pred(in.Guard)
			case OpLd:
				vary = v.reads(info) || !uniformSpace(in.Space)
			case OpAtom, OpShfl, OpMatch, OpTex, OpTxq, OpSuld, OpSuq, OpCall, OpClock:
				vary = true
			default:
				vary = v.reads(info)
			}
			if !vary && inRegion(pc) {
				vary = true
			}
			if vary {
				for _, r := range info.Writes.Regs {
					if !v.Regs[r] {
						v.Regs[r], changed = true, true
					}
				}
				for _, p := range info.Writes.Preds {
					if in.Op == OpElect && p != in.D2 {
						continue
					}
					if !v.Preds[p] {
						v.Preds[p], changed = true, true
					}
				}
			}
		}
	}
	return v
}

// exits says whether the code at pc leaves the function at once.
func exits(f *Func, pc int32) bool {
	for ; int(pc) < len(f.Code); pc++ {
		switch f.Code[pc].Op {
		case OpNop:
			continue
		case OpExit, OpRet:
			return f.Code[pc].Guard == NoReg
		}
		return false
	}
	return false
}

// uniformSpace says whether a load from the space at a uniform address
// reads the same value in every lane: kernel parameters and constants
// (nothing writes them during the launch).
func uniformSpace(s memspace.Space) bool {
	return s == memspace.Param || s == memspace.Const
}

func (v *Varying) setReg(r int32) {
	if int(r) < len(v.Regs) {
		v.Regs[r] = true
	}
}

// reg reports whether the register at operand offset off is varying.
func (v *Varying) reg(off int32) bool {
	return off != NoReg && int(off/32) < len(v.Regs) && v.Regs[off/32]
}

func (v *Varying) pred(p int32) bool { return int(p) < len(v.Preds) && v.Preds[p] }

// reads reports whether an instruction reads a varying register or
// predicate (its guard included).
func (v *Varying) reads(info *InstInfo) bool {
	for _, r := range info.Reads.Regs {
		if int(r) < len(v.Regs) && v.Regs[r] {
			return true
		}
	}
	for _, p := range info.Reads.Preds {
		if v.pred(p) {
			return true
		}
	}
	return false
}

// UniformAddress reports whether memory instruction pc of f addresses the
// same location in every executing lane (its address register, if it has
// one, is not varying).
func (v *Varying) UniformAddress(f *Func, pc int) bool {
	in := &f.Code[pc]
	if in.Flags&FLocalRel != 0 {
		return false // a per-thread frame
	}
	if in.Flags&FAbsAddr != 0 {
		return true
	}
	return !v.reg(in.A)
}
