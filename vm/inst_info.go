package vm

import (
	"github.com/ptxvm/ptxvm/memspace"
)

// This file is the instruction metadata lowering computes once, beside the
// code: what a timing model, a memory model or a report needs to know about
// an instruction, and the interpreter does not. Func.Info[pc] describes
// Func.Code[pc]; Kernel.Insts lists every instruction of a kernel by its
// kernel-wide id.

// Class is what kind of work an instruction is, at the granularity a timing
// model costs it: which pipe it issues to, and whether it waits for memory
// or for other threads.
type Class uint8

// Instruction classes.
const (
	ClassNop        Class = iota // no functional effect (membar, fence, prefetch, ...)
	ClassInt                     // integer ALU: add, logic, shifts, compares and selects, moves, bit fields
	ClassIntMul                  // integer multiply and multiply-add (mul, mad, mul24, sad, dp4a, madc)
	ClassIntDiv                  // integer division and remainder (a sequence on the GPU)
	ClassFP32                    // f32 add, mul, fma, min/max, compares
	ClassFP64                    // f64 arithmetic, compares, division and square root
	ClassHalf                    // f16, bf16 and their pairs
	ClassSFU                     // the special-function unit: rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh, f32 division
	ClassConvert                 // cvt between types and widths, cvt.pack
	ClassLSUGlobal               // ld/st of .global
	ClassLSUShared               // ld/st of .shared
	ClassLSULocal                // ld/st of .local
	ClassLSUConst                // ld of .const
	ClassLSUParam                // ld/st of kernel or function parameters
	ClassLSUGeneric              // ld/st of generic addresses (the space is known per lane only)
	ClassTexture                 // tex, tld4, txq; suld, sust, sured, suq (the texture unit)
	ClassBranch                  // bra, brx.idx
	ClassCall                    // call and ret
	ClassExit                    // exit, trap
	ClassBarrier                 // bar.sync, bar.arrive, bar.red
	ClassWarpSync                // shfl, vote, match, redux, elect, activemask, bar.warp.sync
	ClassAtomic                  // atom and red (InstInfo.Space says where)
	numClasses
)

var classNames = [numClasses]string{
	ClassNop: "nop", ClassInt: "int", ClassIntMul: "int-mul", ClassIntDiv: "int-div", ClassFP32: "fp32",
	ClassFP64: "fp64", ClassHalf: "half", ClassSFU: "sfu", ClassConvert: "convert",
	ClassLSUGlobal: "lsu-global", ClassLSUShared: "lsu-shared", ClassLSULocal: "lsu-local",
	ClassLSUConst: "lsu-const", ClassLSUParam: "lsu-param", ClassLSUGeneric: "lsu-generic",
	ClassTexture: "texture", ClassBranch: "branch", ClassCall: "call", ClassExit: "exit",
	ClassBarrier: "barrier", ClassWarpSync: "warp-sync", ClassAtomic: "atomic",
}

func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "class(" + itoa(int(c)) + ")"
}

// Memory reports whether instructions of the class access memory through
// the LSU or the texture unit (atomics included).
func (c Class) Memory() bool {
	return c >= ClassLSUGlobal && c <= ClassTexture || c == ClassAtomic
}

// Operands is a set of register-file locations an instruction reads or
// writes: value registers by index (a .b128 register is two consecutive
// indices; constants and special registers, which lowering places in
// registers filled once per frame, are registers too), predicates by index,
// and the carry flag of add.cc/addc/mad.cc/madc.
type Operands struct {
	Regs  []int32
	Preds []int32
	Carry bool
}

// InstInfo describes one lowered instruction. It is computed once, when a
// kernel is lowered.
type InstInfo struct {
	// ID is the instruction's kernel-wide id: dense over the entry and every
	// function the kernel can call (Kernel.Insts[ID] is this InstInfo).
	ID    int32
	Func  *Func
	PC    int32
	Class Class
	// Space is the state space a memory instruction names (Generic when it
	// names none, FParam for a .func's parameters); Global otherwise.
	Space memspace.Space
	// Reads and Writes are the exact register-file locations the
	// instruction reads and writes (the guard predicate is a read).
	Reads, Writes Operands
	// Cache is the cache operator (.ca, .cg, .cs, .lu, .cv; .wb, .wt);
	// L1Evict and L2Evict the L1::evict_* / L2::evict_* priorities
	// (L1::no_allocate is NoAllocate); NonCoherent marks ld.global.nc and
	// ldu.
	Cache            memspace.CacheOp
	L1Evict, L2Evict memspace.Evict
	NonCoherent      bool
	Line             int32 // PTX source line
	Src              int32 // index into Func.Locs (the CUDA line from .loc), or -1
}

// Source returns the CUDA source position of the instruction (from the
// module's .loc directives), if there is one.
func (i *InstInfo) Source() (SrcLoc, bool) {
	if i.Src < 0 || int(i.Src) >= len(i.Func.Locs) {
		return SrcLoc{}, false
	}
	return i.Func.Locs[i.Src], true
}

// Inst returns the lowered instruction the info describes.
func (i *InstInfo) Inst() *Inst { return &i.Func.Code[i.PC] }

// memAttrs are the cache attributes of a memory instruction, parsed from its
// modifiers.
type memAttrs struct {
	cache            memspace.CacheOp
	l1Evict, l2Evict memspace.Evict
	nonCoherent      bool
}

var cacheOps = map[string]memspace.CacheOp{
	".ca": memspace.CacheCA, ".cg": memspace.CacheCG, ".cs": memspace.CacheCS, ".lu": memspace.CacheLU,
	".cv": memspace.CacheCV, ".wb": memspace.CacheWB, ".wt": memspace.CacheWT,
}

var evictions = map[string]memspace.Evict{
	"evict_normal": memspace.EvictNormal, "evict_first": memspace.EvictFirst, "evict_last": memspace.EvictLast,
	"evict_unchanged": memspace.EvictUnchanged, "no_allocate": memspace.NoAllocate,
}

// classify returns the class of in.
func classify(in *Inst) Class {
	switch in.Op {
	case OpNop:
		return ClassNop
	case OpBra, OpBrx:
		return ClassBranch
	case OpCall, OpRet:
		return ClassCall
	case OpExit, OpTrap:
		return ClassExit
	case OpBar, OpBarCluster:
		return ClassBarrier
	case OpShfl, OpVote, OpMatch, OpRedux, OpActivemask, OpElect, OpWarpSync:
		return ClassWarpSync
	case OpTex, OpTxq, OpSuld, OpSust, OpSured, OpSuq:
		return ClassTexture
	case OpAtom, OpMbarrier:
		return ClassAtomic // mbarrier: read-modify-write of the object (InstInfo.Space: shared or generic)
	case OpCpAsync:
		return ClassLSUGlobal // LDGSTS: a global load whose data the LSU writes to shared memory
	case OpCpAsyncCommit, OpCpAsyncWait:
		return ClassNop // LDGDEPBAR, DEPBAR: scoreboard bookkeeping
	case OpMovmatrix:
		return ClassWarpSync // MOVM: a warp-wide exchange of registers
	case OpMma, OpWmmaMma, OpWgmma:
		return ClassHalf // HMMA, HGMMA: f16 multiplicands (the timing model has no tensor-core class)
	case OpBulk:
		return ClassLSUGlobal // UBLKCP, UTMALDG/UTMASTG: issued to the TMA unit through the LSU path
	case OpWmmaLoad, OpWmmaStore:
		switch in.Space {
		case memspace.Shared:
			return ClassLSUShared
		case memspace.Global:
			return ClassLSUGlobal
		}
		return ClassLSUGeneric
	case OpLdmatrix, OpStmatrix:
		if in.Space == memspace.Shared {
			return ClassLSUShared // LDSM, STSM
		}
		return ClassLSUGeneric
	case OpLd, OpSt:
		switch in.Space {
		case memspace.Global:
			return ClassLSUGlobal
		case memspace.Shared:
			return ClassLSUShared
		case memspace.Local:
			return ClassLSULocal
		case memspace.Const:
			return ClassLSUConst
		case memspace.Param, memspace.FParam:
			return ClassLSUParam
		}
		return ClassLSUGeneric
	case OpCvt, OpCvtPack, OpCvtPackInt, OpCvtFP8:
		return ClassConvert
	case OpMulLo, OpMulHi, OpMulWide, OpMadLo, OpMadHi, OpMadWide, OpMadc, OpMul24, OpMad24, OpSad, OpDp4a, OpDp2a:
		return ClassIntMul
	case OpDiv, OpRem:
		return ClassIntDiv
	case OpFRcp, OpFSqrt, OpFRsqrt, OpFDiv, OpFDivKeep:
		if in.T == F64 {
			return ClassFP64
		}
		return ClassSFU
	case OpFSin, OpFCos, OpFLg2, OpFEx2, OpFTanh:
		return ClassSFU
	case OpFAdd, OpFSub, OpFMul, OpFMulKeep, OpFFma, OpFMin, OpFMax, OpFAbs, OpFNeg, OpFCopysign, OpTestp:
		return floatClass(in.T)
	case OpSetp:
		if in.T.Float() {
			return floatClass(in.T)
		}
	case OpSet:
		if in.T2.Float() {
			return floatClass(in.T2)
		}
	}
	return ClassInt
}

func floatClass(t Type) Class {
	switch t {
	case F64:
		return ClassFP64
	case F16, F16x2, BF16, BF16x2:
		return ClassHalf
	}
	return ClassFP32
}

// operandSets computes the registers, predicates and carry flag in reads and
// writes. Register operands are offsets (index*32); the sets hold indices.
func operandSets(in *Inst, f *Func) (reads, writes Operands) {
	var r, w opSet
	if in.Guard != NoReg {
		r.pred(in.Guard)
	}
	reg := func(s *opSet, off int32) {
		if off != NoReg {
			s.reg(off)
		}
	}
	wide := func(s *opSet, off int32) { // a .b128 register: both halves
		s.reg(off)
		s.reg(off + 32)
	}
	addrReg := func() {
		if in.Flags&(FAbsAddr|FLocalRel) == 0 {
			reg(&r, in.A)
		}
	}
	switch in.Op {
	case OpCall:
		// .reg arguments are read at the call; .reg return values are
		// written when the callee returns (the call defines them).
		cs := in.CallSite(f)
		if cs.Indirect {
			r.reg(cs.Reg)
		}
		for _, a := range cs.RegArgs {
			r.reg(a.from)
		}
		for _, x := range cs.RegRets {
			w.reg(x.to)
		}
		for _, a := range cs.PredArgs {
			r.pred(a.from)
		}
		for _, x := range cs.PredRets {
			w.pred(x.to)
		}
	case OpNop, OpBra, OpRet, OpExit, OpTrap, OpBarCluster:
	case OpBrx:
		reg(&r, in.A)
	case OpBar:
		reg(&r, in.A)
		if in.Flags&FHasCnt != 0 {
			reg(&r, in.B)
		}
		if in.Flags&FRed != 0 {
			r.pred(in.C)
			if in.BoolOp == barRedPopc {
				w.reg(in.D)
			} else {
				w.pred(in.D)
			}
		}
	case OpClock, OpLocalAddr, OpActivemask:
		w.reg(in.D)
	case OpPack:
		for e := 0; e < int(in.Vec); e++ {
			r.reg(in.V[e])
		}
		if in.T == B128 {
			wide(&w, in.D)
		} else {
			w.reg(in.D)
		}
	case OpMovVec:
		for e := 0; e < int(in.Vec); e++ {
			r.reg(in.W[e])
			w.reg(in.V[e])
		}
	case OpUnpack:
		if in.T == B128 {
			wide(&r, in.A)
		} else {
			r.reg(in.A)
		}
		for e := 0; e < int(in.Vec); e++ {
			w.reg(in.V[e])
		}
	case OpSelp:
		r.reg(in.A)
		r.reg(in.B)
		r.pred(in.C)
		w.reg(in.D)
	case OpSet, OpSetp:
		r.reg(in.A)
		r.reg(in.B)
		if in.BoolOp != BoolNone {
			r.pred(in.C)
		}
		if in.Op == OpSet {
			w.reg(in.D)
		} else {
			w.pred(in.D)
			if in.D2 != NoReg {
				w.pred(in.D2)
			}
		}
	case OpPAnd, OpPOr, OpPXor:
		r.pred(in.A)
		r.pred(in.B)
		w.pred(in.D)
	case OpPNot, OpPMov:
		r.pred(in.A)
		w.pred(in.D)
	case OpTestp, OpIsspacep:
		r.reg(in.A)
		w.pred(in.D)
	case OpAddc, OpMadc:
		r.reg(in.A)
		r.reg(in.B)
		reg(&r, in.C)
		r.carry = in.Flags&FCCIn != 0
		w.reg(in.D)
		w.carry = in.Flags&FCCOut != 0
	case OpBfi:
		r.reg(in.A)
		r.reg(in.B)
		r.reg(in.C)
		r.reg(in.V[0])
		w.reg(in.D)
	case OpLop3:
		r.reg(in.A)
		r.reg(in.B)
		r.reg(in.C)
		w.reg(in.D)
		if in.BoolOp != BoolNone {
			r.pred(in.V[0])
			w.pred(in.D2)
		}
	case OpLd:
		addrReg()
		for _, x := range in.MemRegs(f) {
			w.reg(x)
		}
	case OpSt:
		addrReg()
		for _, x := range in.MemRegs(f) {
			reg(&r, x)
		}
	case OpAtom:
		addrReg()
		switch {
		case in.Vec > 1:
			list := in.RegList(f)
			for _, x := range list[in.Vec:] {
				r.reg(x)
			}
			for _, x := range list[:in.Vec] {
				w.reg(x)
			}
		case in.T.Size() == 16:
			wide(&r, in.B)
			if in.C != NoReg {
				wide(&r, in.C)
			}
			if in.D != NoReg {
				wide(&w, in.D)
			}
		default:
			r.reg(in.B)
			reg(&r, in.C)
			reg(&w, in.D)
		}
	case OpShfl:
		r.reg(in.A)
		r.reg(in.B)
		r.reg(in.C)
		r.reg(in.V[0])
		w.reg(in.D)
		if in.D2 != NoReg {
			w.pred(in.D2)
		}
	case OpVote:
		r.pred(in.A)
		r.reg(in.B)
		if in.Imm == voteBallot {
			w.reg(in.D)
		} else {
			w.pred(in.D)
		}
	case OpMatch, OpRedux:
		r.reg(in.A)
		r.reg(in.B)
		w.reg(in.D)
		if in.D2 != NoReg {
			w.pred(in.D2)
		}
	case OpElect:
		r.reg(in.A)
		w.reg(in.D)
		if in.D2 != NoReg {
			w.pred(in.D2)
		}
	case OpWarpSync:
		r.reg(in.A)
	case OpCpAsync:
		addrReg()
		r.reg(in.B)
		reg(&r, in.C)
		if in.V[0] != NoReg {
			r.pred(in.V[0])
		}
	case OpCpAsyncCommit, OpCpAsyncWait:
	case OpLdmatrix:
		addrReg()
		for e := 0; e < int(in.Vec); e++ {
			w.reg(in.V[e])
		}
	case OpStmatrix:
		addrReg()
		for e := 0; e < int(in.Vec); e++ {
			r.reg(in.V[e])
		}
	case OpWmmaLoad, OpWmmaStore:
		addrReg()
		reg(&r, in.B)
		for _, x := range in.RegList(f) {
			if in.Op == OpWmmaLoad {
				w.reg(x)
			} else {
				r.reg(x)
			}
		}
	case OpWmmaMma:
		d, a, b, c := in.WmmaRegs(f)
		for _, l := range [3][]int32{a, b, c} {
			for _, x := range l {
				r.reg(x)
			}
		}
		for _, x := range d {
			w.reg(x)
		}
	case OpMma:
		d, a, b, c := in.MmaRegs(f)
		reg(&r, in.A) // mma.sp's metadata
		for _, l := range [3][]int32{a, b, c} {
			for _, x := range l {
				r.reg(x)
			}
		}
		for _, x := range d {
			w.reg(x)
		}
	case OpBulk:
		reg(&r, in.A)
		reg(&r, in.B)
		reg(&r, in.C)
		reg(&r, in.V[0])
		reg(&r, in.V[1])
		if in.Target >= 0 && int(in.Target) < len(f.RegLists) {
			if k, _, _, _ := in.Bulk(); k >= BulkTensorLoad {
				for _, x := range in.RegList(f) {
					r.reg(x)
				}
			}
		}
	case OpWgmma:
		reg(&r, in.A)
		reg(&r, in.B)
		if in.V[0] != NoReg {
			r.pred(in.V[0])
		}
		nd := wgmmaDRegs(in.T, in.Wgmma().N)
		for i, x := range in.RegList(f) {
			r.reg(x)
			if i < nd {
				w.reg(x)
			}
		}
	case OpMbarrier:
		addrReg()
		reg(&r, in.B)
		reg(&r, in.C)
		if op, _ := in.Mbar(); op == MbarTestWait {
			w.pred(in.D)
		} else {
			reg(&w, in.D)
		}
	case OpFMulKeep, OpFDivKeep:
		r.reg(in.A)
		r.reg(in.B)
		w.reg(in.D)
		w.reg(in.V[0])
		w.reg(in.V[1])
	case OpSuld, OpSust, OpSured:
		r.reg(in.A)
		for _, c := range in.W {
			if c != NoReg {
				r.reg(c)
			}
		}
		reg(&r, in.B)
		for _, v := range in.V[:in.Vec] {
			if in.Op == OpSuld {
				w.reg(v)
			} else if v != NoReg {
				r.reg(v)
			}
		}
	case OpTex:
		r.reg(in.A)
		for _, c := range in.W {
			if c != NoReg {
				r.reg(c)
			}
		}
		reg(&r, in.B) // tex.level's level of detail (NoReg otherwise)
		if in.Imm&texGrad != 0 {
			for _, g := range in.RegList(f) {
				r.reg(g)
			}
		}
		for _, d := range in.V {
			w.reg(d)
		}
	default:
		// Value operations: sources A, B, C as present, destination D.
		reg(&r, in.A)
		reg(&r, in.B)
		reg(&r, in.C)
		reg(&w, in.D)
	}
	return r.operands(), w.operands()
}

// opSet collects operands without duplicates.
type opSet struct {
	regs, preds []int32
	carry       bool
}

func (s *opSet) reg(off int32) {
	s.regs = appendUnique(s.regs, off/32)
}

func (s *opSet) pred(p int32) { s.preds = appendUnique(s.preds, p) }

func (s *opSet) operands() Operands {
	return Operands{Regs: s.regs, Preds: s.preds, Carry: s.carry}
}

func appendUnique(l []int32, x int32) []int32 {
	for _, y := range l {
		if y == x {
			return l
		}
	}
	return append(l, x)
}
