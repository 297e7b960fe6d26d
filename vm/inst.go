package vm

import "github.com/ptxvm/ptxvm/memspace"

// Op is a lowered operation. One PTX opcode may lower to several Ops (and a
// type and flags); the interpreter switches on Op once per warp instruction.
type Op uint16

// Lowered operations.
const (
	OpNop Op = iota
	// control
	OpBra
	OpBrx
	OpCall
	OpRet
	OpExit
	OpBar   // bar.sync / barrier.sync / bar.arrive / bar.red (Flags say which)
	OpTrap  // trap: a fault
	OpClock // %clock, %clock64, %globaltimer reads
	// moves and selection
	OpMov
	OpPack   // mov.bN d, {a, b, ...}
	OpUnpack // mov.bN {a, b, ...}, s
	OpMovVec // mov.v2/.v4: V[e] = W[e] for e < Vec (every W read before any V is written)
	OpLocalAddr
	OpSelp
	OpSlct
	OpSet
	OpSetp
	// predicate logic
	OpPAnd
	OpPOr
	OpPXor
	OpPNot
	OpPMov
	// integer
	OpAdd
	OpSub
	OpAddc // add.cc / addc / sub.cc / subc (Flags)
	OpMulLo
	OpMulHi
	OpMulWide
	OpMadLo
	OpMadHi
	OpMadWide
	OpMadc // mad.cc / madc (lo or hi)
	OpMul24
	OpMad24
	OpSad
	OpDiv
	OpRem
	OpAbs
	OpNeg
	OpMin
	OpMax
	OpPopc
	OpClz
	OpBfind
	OpBrev
	OpBfe
	OpBfi
	OpPrmt
	OpShl
	OpShr
	OpShf
	OpAnd
	OpOr
	OpXor
	OpNot
	OpCnot
	OpLop3
	OpDp4a
	OpDp2a
	OpBmsk  // Flags FClamp: .clamp, else .wrap
	OpSzext // Flags FClamp
	OpFns
	OpSimd2  // 16x2 add/min/max (Imm: the scalar Op)
	OpVideo  // vadd4/vsub4/vabsdiff4/vmin4/vmax4/vavrg4 and the 2-lane forms (Imm: op, Vec: lanes)
	OpVideo1 // the scalar video instructions vadd ... vset (Imm: the form, a videoCtl; C: c)
	// floating point
	OpFAdd
	OpFSub
	OpFMul
	OpFFma // Imm: fmaNegProduct, fmaNegAddend (contracted from mul + sub/neg)
	// OpFMulKeep is a mul whose product lowering fused into later adds whose
	// sources change in between: it also copies a and b into V[0], V[1].
	OpFMulKeep
	// OpFDivKeep is an f32 div.approx/div.full whose final multiply lowering
	// fused into later adds: it also leaves that multiply's factors (the
	// scaled dividend, the reciprocal) in V[0], V[1].
	OpFDivKeep
	OpFDiv
	OpFRcp
	OpFSqrt
	OpFRsqrt
	OpFSin
	OpFCos
	OpFLg2
	OpFEx2
	OpFTanh
	OpFMin
	OpFMax
	OpFAbs
	OpFNeg
	OpFCopysign
	OpTestp
	// conversions and addresses
	OpCvt
	OpCvtPack
	OpCvtPackInt // cvt.pack.sat: Imm = bits per packed value, T2 = source type
	OpCvtFP8     // conversions to and from e4m3x2/e5m2x2
	OpCvta
	OpIsspacep
	// memory
	OpLd
	OpSt
	// atomics
	OpAtom // atom / red (Imm: atomic operation; D: NoReg for red)
	// warp-level
	OpShfl       // Imm: shuffle mode; V[0]: membermask
	OpVote       // Imm: vote mode; B: membermask
	OpMatch      // Imm: 0 any, 1 all; B: membermask
	OpRedux      // Imm: reduction; B: membermask
	OpActivemask // d = the executing lanes
	OpElect      // D: leader lane (or sink), D2: leader predicate; A: membermask
	OpWarpSync   // bar.warp.sync membermask
	// textures
	OpTex // tex / tld4 (Off: gathered component, -1 for tex); W: coordinates
	OpTxq
	// surfaces (lower_surf.go, exec_surf.go): A the surface handle, W the
	// coordinates (the layer first for a1d/a2d), Imm the geometry, boundary
	// mode, form and sured's operation (Inst.SurfGeom ...), T the data type
	OpSuld  // suld.b: V the Vec destinations
	OpSust  // sust.b / sust.p: V the Vec values
	OpSured // sured.b / sured.p: B the value
	OpSuq   // suq: Imm the query, D the destination
	// asynchronous copies (exec_async.go)
	OpCpAsync       // cp.async: A+Off the shared destination, B+Imm the global source, Vec cp-size, C src-size (NoReg: cp-size), V[0] ignore-src predicate (NoReg: none; FNeg2: negated)
	OpCpAsyncCommit // cp.async.commit_group
	OpCpAsyncWait   // cp.async.wait_group Imm / cp.async.wait_all (Imm: CpWaitAll)
	// matrix loads, stores and moves (exec_matrix.go)
	OpLdmatrix  // ldmatrix.sync.aligned.m8n8.b16: A+Off the row address, Vec matrices, V destinations, FTrans
	OpStmatrix  // stmatrix.sync.aligned.m8n8.b16: A+Off the row address, Vec matrices, V sources, FTrans
	OpMovmatrix // movmatrix.sync.aligned.m8n8.trans.b16 D, A
	// warp-level matrix multiply-accumulate (exec_mma.go)
	OpMma // mma.sync.aligned, mma.sp (lower_mma.go): Imm k, or the packed MmaForm of the extended forms (Inst.MmaForm); T/T2 the D and A types; A mma.sp's metadata; Target the register list (Inst.MmaRegs)
	// wmma .m16n16k16 (lower_wmma.go, exec_wmma.go)
	OpWmmaLoad  // wmma.load.a/b/c: A+Off the address, B the stride (NoReg: 16), Imm the matrix, FTrans .col, Target the registers
	OpWmmaStore // wmma.store.d: as OpWmmaLoad, the registers read
	OpWmmaMma   // wmma.mma: Target the registers d, a, b, c (8 each)
	// mbarriers (exec_mbarrier.go)
	OpMbarrier         // Imm: the operation (Inst.Mbar); A+Off the object; B, C operands; D the state or the wait predicate
	OpMbarPendingCount // mbarrier.pending_count D, A (a state)
	// clusters (cluster.go, lower_cluster.go)
	OpMapa       // mapa: D = A mapped into the block of rank B (Space: Shared, or Generic for generic addresses; T: u32 or u64)
	OpGetctarank // getctarank: D = the rank of the block A's shared address is in (Space as OpMapa)
	OpBarCluster // barrier.cluster.arrive (FArrive) / barrier.cluster.wait
	// bulk and tensor copies (lower_bulk.go, exec_bulk.go)
	OpBulk // cp{.reduce}.async.bulk{.tensor}: Imm the kind (Inst.Bulk), A the shared address, B the other (or the tensor map), C the size, V[0] the mbarrier, V[1] the multicast mask, Target the coordinates
	// warpgroup matrix multiply-accumulate (lower_wgmma.go, exec_wgmma.go)
	OpWgmma // wgmma.mma_async: Imm the form (Inst.Wgmma), A/B the descriptors, V[0] scale-d, Target the registers
	numOps
)

var opNames = [numOps]string{
	OpNop: "nop", OpBra: "bra", OpBrx: "brx.idx", OpCall: "call", OpRet: "ret", OpExit: "exit",
	OpBar: "bar", OpTrap: "trap", OpClock: "mov.clock",
	OpMov: "mov", OpPack: "mov.pack", OpUnpack: "mov.unpack", OpMovVec: "mov.vec", OpLocalAddr: "mov.local_addr",
	OpSelp: "selp", OpSlct: "slct", OpSet: "set", OpSetp: "setp",
	OpPAnd: "and.pred", OpPOr: "or.pred", OpPXor: "xor.pred", OpPNot: "not.pred", OpPMov: "mov.pred",
	OpAdd: "add", OpSub: "sub", OpAddc: "add.cc", OpMulLo: "mul.lo", OpMulHi: "mul.hi", OpMulWide: "mul.wide",
	OpMadLo: "mad.lo", OpMadHi: "mad.hi", OpMadWide: "mad.wide", OpMadc: "mad.cc", OpMul24: "mul24", OpMad24: "mad24",
	OpSad: "sad", OpDiv: "div", OpRem: "rem", OpAbs: "abs", OpNeg: "neg", OpMin: "min", OpMax: "max",
	OpPopc: "popc", OpClz: "clz", OpBfind: "bfind", OpBrev: "brev", OpBfe: "bfe", OpBfi: "bfi", OpPrmt: "prmt",
	OpShl: "shl", OpShr: "shr", OpShf: "shf", OpAnd: "and", OpOr: "or", OpXor: "xor", OpNot: "not", OpCnot: "cnot",
	OpLop3: "lop3", OpDp4a: "dp4a", OpDp2a: "dp2a", OpBmsk: "bmsk", OpSzext: "szext", OpFns: "fns",
	OpSimd2: "simd2", OpVideo: "video", OpVideo1: "video.scalar",
	OpFAdd: "add.f", OpFSub: "sub.f", OpFMul: "mul.f", OpFFma: "fma", OpFMulKeep: "mul.f.keep", OpFDivKeep: "div.f.keep", OpFDiv: "div.f", OpFRcp: "rcp",
	OpFSqrt: "sqrt", OpFRsqrt: "rsqrt", OpFSin: "sin", OpFCos: "cos", OpFLg2: "lg2", OpFEx2: "ex2", OpFTanh: "tanh",
	OpFMin: "min.f", OpFMax: "max.f", OpFAbs: "abs.f", OpFNeg: "neg.f", OpFCopysign: "copysign", OpTestp: "testp",
	OpCvt: "cvt", OpCvtPack: "cvt.pack", OpCvtPackInt: "cvt.pack.sat", OpCvtFP8: "cvt.fp8", OpCvta: "cvta", OpIsspacep: "isspacep",
	OpLd: "ld", OpSt: "st", OpAtom: "atom",
	OpShfl: "shfl.sync", OpVote: "vote.sync", OpMatch: "match.sync", OpRedux: "redux.sync", OpActivemask: "activemask",
	OpElect: "elect.sync", OpWarpSync: "bar.warp.sync",
	OpTex: "tex", OpTxq: "txq", OpSuld: "suld", OpSust: "sust", OpSured: "sured", OpSuq: "suq",
	OpCpAsync: "cp.async", OpCpAsyncCommit: "cp.async.commit_group", OpCpAsyncWait: "cp.async.wait_group",
	OpLdmatrix: "ldmatrix", OpStmatrix: "stmatrix", OpMovmatrix: "movmatrix", OpMma: "mma", OpWmmaLoad: "wmma.load", OpWmmaStore: "wmma.store", OpWmmaMma: "wmma.mma",
	OpMbarrier: "mbarrier", OpMbarPendingCount: "mbarrier.pending_count",
	OpMapa: "mapa", OpGetctarank: "getctarank", OpBarCluster: "barrier.cluster",
	OpBulk: "cp.async.bulk", OpWgmma: "wgmma.mma_async",
}

// String names the PTX form of the operation: its opcode, with the
// modifier that tells apart operations of one opcode (".f" for the
// floating-point forms of add, mul, min...; "mov.pack" for mov d, {a, b}).
func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "op(" + itoa(int(o)) + ")"
}

// Flags modify an Op.
type Flags uint32

// Instruction flags.
const (
	FFtz Flags = 1 << iota
	FSat
	FCCOut  // .cc: write the carry flag
	FCCIn   // addc/subc/madc: read the carry flag
	FApprox // .approx
	FFull   // .full
	FHi     // .hi
	FWide   // .wide
	FUni    // .uni
	FShiftAmt
	FClamp   // shf.clamp / shfl clamp
	FLeft    // shf.l
	FNaN     // min/max .NaN
	FXorSign // min/max .xorsign.abs
	FRelu
	FVolatile
	FAbsAddr  // address has no base register: Off is the address
	FLocalRel // address is relative to the frame's local base
	FToSpace  // cvta.to.<space> (generic -> space) rather than cvta.<space>
	FArrive   // bar.arrive
	FRed      // bar.red
	FAligned  // .aligned
	FNeg2     // setp/selp: second predicate operand negated
	FHasCnt   // bar: thread count operand present
	FNonCoherent
	FSatFinite // .satfinite
	FAccum     // video .add: sum the lanes into c
	FOob       // fma .oob: an out-of-bounds NaN operand gives +0
	FNaNFirstA // f64 binary op: a's NaN has priority over b's (see lowering)
	// FAddr32: the address is in a 32-bit window (.shared, .local, .const,
	// .param): base register plus offset is summed modulo 2^32, as the
	// GPU's LDS/LDL/LDC/STS/ATOMS do.
	FAddr32
	// FTrans: ldmatrix/stmatrix .trans (the matrices are transposed
	// between memory and the fragments).
	FTrans
	// FCluster: isspacep.shared::cluster (any block of the cluster's shared
	// memory, not only the executing block's).
	FCluster
)

// Has reports whether all bits of g are set.
func (f Flags) Has(g Flags) bool { return f&g == g }

// Comparison operators of setp/set.
const (
	CmpEq uint8 = iota
	CmpNe
	CmpLt
	CmpLe
	CmpGt
	CmpGe
	CmpLo
	CmpLs
	CmpHi
	CmpHs
	CmpEqu
	CmpNeu
	CmpLtu
	CmpLeu
	CmpGtu
	CmpGeu
	CmpNum
	CmpNan
)

// Boolean combiners of setp/set (.and/.or/.xor).
const (
	BoolNone uint8 = iota
	BoolAnd
	BoolOr
	BoolXor
)

// NoReg marks an absent register operand.
const NoReg int32 = -1

// Inst is one lowered, pre-decoded instruction: what the interpreter needs
// and nothing more (what a timing model or a report needs is in InstInfo,
// Func.Info[pc]). Register operands hold the register's offset in the
// frame's register file (index*32); predicate operands hold the predicate's
// index. Several fields mean different things for different Ops; each field
// lists its meanings, and the accessors below name them.
type Inst struct {
	Op Op
	// T is the instruction type (the destination type of cvt, set, slct,
	// video, dp4a/dp2a and tex).
	T Type
	// T2 is a second type: the source type of cvt and cvt.pack, the operand
	// type of set and slct's c, the source type of mul.wide/mad.wide, the
	// type of video's a, dp4a/dp2a's b, and tex's coordinates.
	T2  Type
	Rnd uint8 // rounding mode (rndN ...; rndDefault: cvt without one)
	Cmp uint8 // setp/set comparison (CmpEq ...)
	// BoolOp is the combiner of setp/set/lop3 (BoolAnd ...), or the
	// reduction of bar.red (barRedPopc, barRedAnd, barRedOr).
	BoolOp uint8
	// Space is the state space of ld/st/atom/red (Generic when none was
	// named; FParam for .param inside a .func) and of cvta/isspacep.
	Space memspace.Space
	// Vec is the number of values of ld/st/pack/unpack and of vector
	// atomics, and the lanes (2 or 4) of video instructions.
	Vec      uint8
	GuardNeg bool
	// Fuse names the superinstruction that starts here (FuseNone, or
	// FuseLdLdFma ...): a form the interpreter may run in one lane loop in
	// place of this instruction and the next ones, when a full warp runs
	// them and nothing watches (markFused, exec_fused.go). The instructions
	// themselves are unchanged: a timing model, a report or a partial warp
	// steps through them one by one.
	Fuse Fuse
	// Fast names the full-warp fast path this instruction alone may take
	// when nothing watches (FastNone ...; markFused): decided once here,
	// not at each execution.
	Fast  Fast
	Flags Flags
	Guard int32 // predicate index, or NoReg
	// D is the destination; D2 a second, predicate destination (setp's q,
	// shfl's in-range flag, match.all's predicate, elect's leader flag,
	// lop3's predicate result).
	D, D2   int32
	A, B, C int32 // sources
	// V holds the values of ld/st (destinations of a load, sources of a
	// store), pack's sources and unpack's destinations, tex/tld4's four
	// destinations, and one extra source: bfi's length, lop3's predicate
	// input, shfl's membermask.
	V [4]int32
	// W holds tex/tld4's coordinates (NoReg past the last), and the
	// sources of mov.v2/.v4 (OpMovVec; V the destinations).
	W [4]int32
	// Imm is an immediate whose meaning depends on Op: lop3's LUT
	// (Inst.LUT), prmt's mode, testp's class, the negation bits of
	// predicate logic (1: a, 2: b), add.cc/addc's subtract flag (1), madc's
	// low or high form (OpMadLo/OpMadHi), the scalar Op of a 16x2 SIMD
	// instruction, video's operation, the barrier number of bar (when A is
	// NoReg; Inst.BarrierID), the clock read by OpClock (Inst.ClockKind),
	// the call site of OpCall (an index into Func.Calls; Inst.CallSite),
	// brx.idx's table (Func.BrxTables), the operation of atom/red
	// (Inst.AtomOp), the mode of shfl and vote, match's .all (1), redux's
	// operation, cvt.pack's bits per value, tex's geometry and txq's query.
	Imm uint64
	// Off is the address offset of ld/st/atom/red, the depot offset of
	// OpLocalAddr, and the gathered component of tld4 (-1: tex).
	Off int64
	// Target is the branch target PC of bra, and the register list of a
	// vector atomic (an index into Func.RegLists; Inst.RegList) or a .v8
	// ld/st (Inst.MemRegs).
	Target int32
}

// newInst returns an instruction of op with every register operand absent.
func newInst(op Op) Inst {
	return Inst{Op: op, Guard: NoReg, D: NoReg, D2: NoReg, A: NoReg, B: NoReg, C: NoReg,
		V: [4]int32{NoReg, NoReg, NoReg, NoReg}, W: [4]int32{NoReg, NoReg, NoReg, NoReg}}
}

// NopAsyncGroup is the Imm of an OpNop lowered from the group bookkeeping
// of the asynchronous units (wgmma.fence, wgmma.commit_group,
// wgmma.wait_group, cp.async.bulk.commit_group, cp.async.bulk.wait_group,
// cp.async.bulk.prefetch): no memory barrier for the timing model.
const NopAsyncGroup = 1

// LUT is the truth table of lop3.
func (in *Inst) LUT() uint8 { return uint8(in.Imm) }

// BarrierID is the barrier number of bar (when it is not in register A).
func (in *Inst) BarrierID() int { return int(in.Imm & 15) }

// ClockKind is what OpClock reads (clock32, clock64, globaltimer...).
func (in *Inst) ClockKind() uint64 { return in.Imm }

// CallSite is the call an OpCall makes, in the function f it belongs to.
func (in *Inst) CallSite(f *Func) *CallSite { return &f.Calls[in.Imm] }

// AtomOp is the operation of atom/red (AtomAdd ...).
func (in *Inst) AtomOp() uint64 { return in.Imm }

// The operations of atom/red, as AtomOp returns them.
const (
	AtomAnd  = atomAnd
	AtomOr   = atomOr
	AtomXor  = atomXor
	AtomCas  = atomCas
	AtomExch = atomExch
	AtomAdd  = atomAdd
	AtomInc  = atomInc
	AtomDec  = atomDec
	AtomMin  = atomMin
	AtomMax  = atomMax
)

// MemRegs is the registers of an ld/st in f: the destinations of a load,
// the values of a store (NoReg for a store's sink `_`), one per element; a
// .v8 access keeps them in a register list.
func (in *Inst) MemRegs(f *Func) []int32 {
	if int(in.Vec) > len(in.V) {
		return f.RegLists[in.Target]
	}
	return in.V[:in.Vec]
}

// RegList is the register list of a vector atomic in f: the destinations,
// then the values.
func (in *Inst) RegList(f *Func) []int32 { return f.RegLists[in.Target] }

// MmaK is the k of an OpMma's shape (32, 16, 8 or 4).
func (in *Inst) MmaK() int { return int(in.Imm & 0x3ff) }

// MmaRegs splits an OpMma's register list in f into D, A, B and C (the
// metadata register of mma.sp is in.A).
func (in *Inst) MmaRegs(f *Func) (d, a, b, c []int32) {
	l := f.RegLists[in.Target]
	nd, na, nb := mmaCounts(in.T, in.T2, in.Imm)
	nc := nd
	if in.MmaExt() {
		nd, na, nb, nc = in.MmaForm().Counts()
	}
	if len(l) != nd+na+nb+nc {
		return nil, nil, nil, nil
	}
	return l[:nd], l[nd : nd+na], l[nd+na : nd+na+nb], l[nd+na+nb:]
}

// BrxTable is the target PCs of a brx.idx in f.
func (in *Inst) BrxTable(f *Func) []int32 { return f.BrxTables[in.Imm] }
