package vm

import (
	"unsafe"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/internal/warpsimd"
)

// Full-warp runs
//
// Most of a kernel's instructions outside its shared-tile inner loops are
// integer and predicate arithmetic, address arithmetic, loads and stores
// of 32-bit words and branches, which a full warp runs with one warpsimd
// or memspace call each. Through runFrame's loop each of them cost a
// dispatch of about a hundred host instructions (Go keeps no register
// across a call, so every turn of the loop stores and reloads its live
// values, and counts the instruction) around a call of thirty to a
// hundred. A run is a stretch of consecutive instructions of such forms
// (FuseRun, markFused), with uniform branches between them: runFast
// executes it from a table built with the frame's layout (each
// instruction's form and its operands' slots resolved, runOp), counting
// its instructions once at the end. warpsimd.RunOps walks the table in one
// assembly loop with the forms' kernels inline (integer arithmetic, setp,
// predicates, branches, the shared loads and stores) and hands back the
// first entry it has none for (a global load, mul.lo, fma, ...), which
// runFast runs in Go before calling it again.
//
// runFrame enters a run only for a full warp (every lane of the warp in the
// running group, so no lane waits to rejoin inside it) with nothing watching
// (no observer, no timing model's Step) and no cp.async arrive pending
// (mbLate); anything else steps through the same instructions one by one.
// Each form computes what the general path computes for a full warp (the
// same warpsimd kernels, or their assembly inline), so a run computes and
// writes exactly what stepping would (TestRunsMatchStepping, three ways).
// A branch whose lanes disagree, a memory access whose fast path refuses,
// and every form a run does not cover, end the run where it stands, and
// the general path goes on from there (and faults, where it does).

// runKind is a run's form of one instruction (runOp.K); runNone ends a
// run. The forms are warpsimd's (RunCopy ...), whose RunOps executes those
// it has an AVX2 kernel for.
type runKind = uint8

const (
	runNone       = warpsimd.RunNone
	runCopy       = warpsimd.RunCopy // mov of 64 bits
	runAnd        = warpsimd.RunAnd  // and, and mov of fewer bits (a & a & m)
	runAdd        = warpsimd.RunAdd
	runSub        = warpsimd.RunSub
	runOr         = warpsimd.RunOr
	runXor        = warpsimd.RunXor
	runShl        = warpsimd.RunShl
	runShr        = warpsimd.RunShr // unsigned
	runMulWideU32 = warpsimd.RunMulWideU32
	runMulWideS32 = warpsimd.RunMulWideS32
	runMulLo      = warpsimd.RunMulLo
	runMadLo      = warpsimd.RunMadLo
	runFma32      = warpsimd.RunFma32  // fma.rn.f32 without ftz, sat or oob
	runSetp32     = warpsimd.RunSetp32 // setp of 32-bit integers, one destination, no combiner
	runPred       = warpsimd.RunPred   // and/or/xor/not/mov of predicates
	runBra        = warpsimd.RunBra    // bra, guarded or not
	// The memory forms run what execMem runs for a full warp with nothing
	// watching, where it takes a fast path; where that path declines (a
	// lane's access not plainly valid) the run ends before the
	// instruction, and stepping runs it from the start (and faults).
	runLdGlobal32 = warpsimd.RunLdGlobal32 // ld.global.{b,u,f}32 d, [rd+imm]
	runLdShared32 = warpsimd.RunLdShared32 // ld.shared.{b,u,f}32 d, [r+imm] (FastLdShared32)
	runStShared32 = warpsimd.RunStShared32 // st.shared.{b,u,s,f}32 [r+imm], b (FastStShared32)
)

// runOp is one instruction of a run (warpsimd.RunOp): its form K, and
// D, A, B, C the byte offsets of its register operands in the frame's
// register file (slot × 256) or predicate indexes; M the type's mask of
// the register forms, the memory forms' immediate offset; setp's and the
// predicate forms' encodings are warpsimd's (RunSetp32, RunPred); bra's A
// is its target pc, C its guard (-1 for none), Neg 1 where negated.
type runOp = warpsimd.RunOp

// runForm is the run form of in (runNone: not one), the same for every
// layout; runOpFor fills in the slots.
func runForm(in *Inst) runKind {
	if in.Op == OpBra {
		return runBra
	}
	if in.Guard >= 0 {
		return runNone
	}
	switch {
	case in.Fast == FastLdShared32 && in.Op == OpLd:
		return runLdShared32
	case in.Fast == FastStShared32 && in.Op == OpSt:
		return runStShared32
	case in.Op == OpLd && in.Fast == FastNone && in.Space == memspace.Global && in.Vec == 1 &&
		in.T.Size() == 4 && !in.T.Signed() && in.Flags&(FAbsAddr|FLocalRel|FAddr32) == 0:
		return runLdGlobal32
	}
	sz := in.T.Size()
	switch in.Op {
	case OpCvta:
		// To or from the global window, which starts at 0: execCvta's
		// (a ± 0) & the type's mask.
		if in.Space != memspace.Global || sz == 1 {
			return runNone
		}
		if sizeMask(in.T) == ^uint64(0) {
			return runCopy
		}
		return runAnd
	case OpMov:
		if sz == 1 {
			return runNone
		}
		if sizeMask(in.T) == ^uint64(0) {
			return runCopy
		}
		return runAnd
	case OpAdd:
		if sz == 4 && in.Flags&FSat == 0 || sz == 8 {
			return runAdd
		}
	case OpSub:
		if sz != 1 && in.Flags&FSat == 0 {
			return runSub
		}
	case OpAnd:
		if sz != 1 {
			return runAnd
		}
	case OpOr:
		if sz != 1 {
			return runOr
		}
	case OpXor:
		if sz != 1 {
			return runXor
		}
	case OpShl:
		if sz != 1 {
			return runShl
		}
	case OpShr:
		if sz != 1 && !in.T.Signed() {
			return runShr
		}
	case OpMulWide:
		if sz != 1 {
			switch in.T2 {
			case S32:
				return runMulWideS32
			case U32:
				return runMulWideU32
			}
		}
	case OpMulLo:
		if sz != 1 {
			return runMulLo
		}
	case OpMadLo:
		if sz != 1 {
			return runMadLo
		}
	case OpFFma:
		if in.T == F32 && in.Flags&(FFtz|FSat) == 0 && in.Rnd == rndN && in.Imm == 0 {
			return runFma32
		}
	case OpSetp:
		switch in.T {
		case B32, U32, S32:
			if in.BoolOp == BoolNone && in.D2 == NoReg {
				return runSetp32
			}
		}
	case OpPAnd, OpPOr, OpPXor, OpPNot, OpPMov:
		return runPred
	}
	return runNone
}

// runOpFor is in's runOp in the layout slot (register index → slot), or
// one of kind runNone where in is no run form or names a register the
// layout does not hold.
func runOpFor(in *Inst, slot []int32, slots int32, npred int) runOp {
	k := runForm(in)
	if k == runNone {
		return runOp{}
	}
	bad := false
	sl := func(off int32) int32 {
		if off < 0 || int(off>>5) >= len(slot) || slot[off>>5] < 0 || slot[off>>5] >= slots {
			bad = true
			return 0
		}
		return slot[off>>5] * regBytes
	}
	pr := func(p int32) int32 {
		if p < 0 || int(p) >= npred {
			bad = true
		}
		return p
	}
	o := runOp{K: k, M: sizeMask(in.T), C: -1}
	switch k {
	case runCopy:
		o.D, o.A = sl(in.D), sl(in.A)
	case runAnd:
		o.D, o.A, o.B = sl(in.D), sl(in.A), sl(in.A)
		if in.Op == OpAnd {
			o.B = sl(in.B)
		}
	case runAdd, runSub, runOr, runXor, runShl, runShr, runMulWideU32, runMulWideS32, runMulLo:
		o.D, o.A, o.B = sl(in.D), sl(in.A), sl(in.B)
		switch {
		case k == runAdd && in.T.Size() == 4:
			o.M = 0xffffffff // what runFrame's add passes
		case k == runMulWideU32 || k == runMulWideS32:
			o.M = ^uint64(0) // a 64-bit product
		}
	case runMadLo, runFma32:
		o.D, o.A, o.B, o.C = sl(in.D), sl(in.A), sl(in.B), sl(in.C)
	case runSetp32:
		o.D, o.A, o.B = pr(in.D), sl(in.A), sl(in.B)
		if in.T == S32 && in.Cmp <= CmpGe {
			o.Sub = 1
		}
		// intCmp is (lt & L | eq & E) ^ X for every comparison (lt and eq
		// are never both set in a lane).
		x := intCmp(in.Cmp, 0, 0, ^uint32(0))
		lm := intCmp(in.Cmp, ^uint32(0), 0, ^uint32(0)) ^ x
		em := intCmp(in.Cmp, 0, ^uint32(0), ^uint32(0)) ^ x
		o.M, o.C = uint64(lm)|uint64(em)<<32, int32(x)
	case runPred:
		o.D, o.A, o.B = pr(in.D), pr(in.A), pr(in.A)
		na := uint8(in.Imm & 1)
		switch in.Op {
		case OpPAnd, OpPOr, OpPXor:
			o.B = pr(in.B)
			o.Sub = uint8(in.Op - OpPAnd) // and 0, or 1, xor 2
			o.Cmp = uint8(in.Imm & 3)
		case OpPNot: // ^(a ^ na) = (a ^ x) & (a ^ x), x = ^na
			o.Cmp = 3 * (na ^ 1)
		default: // OpPMov: a ^ na
			if in.Flags&FNeg2 != 0 {
				na = 1
			}
			o.Cmp = 3 * na
		}
	case runBra:
		o.A = in.Target
		if in.GuardNeg {
			o.Neg = 1
		}
		if in.Guard >= 0 {
			o.C = pr(in.Guard)
		}
	case runLdGlobal32, runLdShared32:
		o.D, o.A, o.M = sl(in.V[0]), sl(in.A), uint64(in.Off)
		if k == runLdShared32 {
			o.M = uint64(uint32(in.Off))
		}
	case runStShared32:
		o.B, o.A, o.M = sl(in.V[0]), sl(in.A), uint64(uint32(in.Off))
	}
	if bad {
		return runOp{}
	}
	return o
}

// regBytes is the size of one slot of a frame's register file.
const regBytes = int32(unsafe.Sizeof([32]uint64{}))

// runPlans returns the run table of code in the layout slot: one runOp per
// instruction, runNone where no run form is (nil if no run starts in
// code). A run entered at a FuseRun mark goes on through every run form
// after it, a branch that ends the marks' count included.
func runPlans(code []Inst, slot []int32, slots, npred int) []runOp {
	var ops []runOp
	for pc := range code {
		if code[pc].Fuse == FuseRun {
			ops = make([]runOp, len(code))
			break
		}
	}
	if ops == nil {
		return nil
	}
	for pc := range code {
		if code[pc].Fuse == FuseNone || code[pc].Fuse == FuseRun {
			ops[pc] = runOpFor(&code[pc], slot, int32(slots), npred)
		}
	}
	return ops
}

// noRuns turns full-warp runs off, noRunKernels warpsimd.RunOps within
// them (tests that compare them with stepping).
var noRuns, noRunKernels bool

// runFast executes the run at pc for the full warp of frame f, at most max
// instructions, and returns how many it executed and the pc after them.
// It stops before an instruction of no run form, a branch whose lanes
// disagree, or a pc where waiting lanes would rejoin; 0 when it executed
// nothing. With kernels false (noRunKernels: tests) it runs every form in
// Go, through runOne, without warpsimd.RunOps. (Step's single instructions
// call runOne themselves: the loop's entry and exit, and RunOps', cost
// more than one instruction's kernel.)
func (w *Warp) runFast(f *frame, pc int32, max int, kernels bool) (int, int32) {
	ops, preds := f.runs, f.preds
	if len(f.regs) == 0 {
		return 0, pc
	}
	base := unsafe.Pointer(&f.regs[0])
	nw := f.nextWait
	k := 0
	for {
		if kernels {
			// The forms warpsimd has kernels for, up to the first other.
			k, pc = warpsimd.RunOps(base, preds, ops, pc, k, max, nw, w.view.Shared, w.view.SharedBase)
		}
		if k >= max || pc >= nw || uint(pc) >= uint(len(ops)) {
			break
		}
		npc := w.runOne(&ops[pc], base, preds, pc)
		if npc < 0 {
			break
		}
		k++
		pc = npc
	}
	return w.ranFast(k, pc)
}

// runOne executes run-form instruction o, at pc, for the full warp of a
// frame whose register file starts at base and whose predicates are preds,
// and returns the pc after it; -1 where it did not (no run form, a branch
// whose lanes disagree, a memory form the fast path refuses). It does not
// count the instruction.
func (w *Warp) runOne(o *runOp, base unsafe.Pointer, preds []uint32, pc int32) int32 {
	// The table's offsets were checked against the layout's slots when it
	// was built, and a frame's register file has a slot for each
	// (pushFrame): r needs no bounds check.
	r := func(off int32) *[32]uint64 { return (*[32]uint64)(unsafe.Add(base, off)) }
	switch o.K {
	case runCopy:
		*r(o.D) = *r(o.A)
	case runAnd:
		warpsimd.AndQ(r(o.D), r(o.A), r(o.B), o.M)
	case runAdd:
		warpsimd.AddQ(r(o.D), r(o.A), r(o.B), o.M)
	case runSub:
		warpsimd.SubQ(r(o.D), r(o.A), r(o.B), o.M)
	case runOr:
		warpsimd.OrQ(r(o.D), r(o.A), r(o.B), o.M)
	case runXor:
		warpsimd.XorQ(r(o.D), r(o.A), r(o.B), o.M)
	case runShl:
		warpsimd.ShlQ(r(o.D), r(o.A), r(o.B), o.M)
	case runShr:
		warpsimd.ShrQ(r(o.D), r(o.A), r(o.B), o.M)
	case runMulWideU32:
		warpsimd.MulWideU32(r(o.D), r(o.A), r(o.B))
	case runMulWideS32:
		warpsimd.MulWideS32(r(o.D), r(o.A), r(o.B))
	case runMulLo:
		d, a, b, m := r(o.D), r(o.A), r(o.B), o.M
		for l := range 32 {
			d[l] = (a[l] * b[l]) & m
		}
	case runMadLo:
		d, a, b, c, m := r(o.D), r(o.A), r(o.B), r(o.C), o.M
		for l := range 32 {
			d[l] = (a[l]*b[l] + c[l]) & m
		}
	case runFma32:
		warpsimd.FmaRN32(r(o.D), r(o.A), r(o.B), r(o.C))
	case runSetp32:
		lt, eq := warpsimd.Cmp32(r(o.A), r(o.B), o.Sub != 0)
		preds[o.D] = (lt&uint32(o.M) | eq&uint32(o.M>>32)) ^ uint32(o.C)
	case runPred:
		a, b := preds[o.A], preds[o.B]
		if o.Cmp&1 != 0 {
			a = ^a
		}
		if o.Cmp&2 != 0 {
			b = ^b
		}
		switch o.Sub {
		case 0:
			a &= b
		case 1:
			a |= b
		default:
			a ^= b
		}
		preds[o.D] = a
	case runBra:
		p := ^uint32(0)
		if o.C >= 0 {
			p = preds[o.C]
			if o.Neg != 0 {
				p = ^p
			}
		}
		switch p {
		case ^uint32(0):
			return o.A
		case 0:
		default:
			return -1 // divergence: the general path's
		}
	case runLdGlobal32:
		// execMem's steps: the access, its addresses, LoadScalar.
		acc := w.acc
		acc.Space, acc.Size, acc.Mask, acc.Kind = memspace.Global, 4, ^uint32(0), memspace.Load
		warpsimd.AddKQ(&acc.Addr, r(o.A), o.M, ^uint64(0))
		if !w.view.LoadScalar(acc, r(o.D)) {
			return -1
		}
		w.prefetchNext(pc)
	case runLdShared32:
		if !w.loadShared32Regs(r(o.A), uint32(o.M), r(o.D)) {
			return -1
		}
	case runStShared32:
		if !w.storeShared32Regs(r(o.A), uint32(o.M), r(o.B)) {
			return -1
		}
	default:
		return -1
	}
	return pc + 1
}

// ranFast counts a run's k instructions of a full warp.
func (w *Warp) ranFast(k int, pc int32) (int, int32) {
	w.Inst += uint64(k)
	w.ThreadInst += uint64(k) * WarpSize
	return k, pc
}
