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
	OpPSelp // selp.pred-like: d = c ? a : b on predicates (via and/or)
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
	OpSimd2 // 16x2 add/min/max (Imm: the scalar Op)
	OpVideo // vadd4/vsub4/vabsdiff4/vmin4/vmax4/vavrg4 and the 2-lane forms (Imm: op, Vec: lanes)
	// floating point
	OpFAdd
	OpFSub
	OpFMul
	OpFFma
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
	numOps
)

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

// Inst is one lowered, pre-decoded instruction. Register operands hold the
// register's offset in the frame's register file (index*32); predicate
// operands hold the predicate's index.
type Inst struct {
	Op       Op
	T        Type // the instruction type (destination type for cvt)
	T2       Type // the source type (cvt, set, slct, mul.wide sources)
	Rnd      uint8
	Cmp      uint8
	BoolOp   uint8
	Space    memspace.Space
	Vec      uint8 // elements moved by ld/st/pack/unpack
	GuardNeg bool
	Flags    Flags
	Guard    int32 // predicate index, or NoReg
	D, D2    int32 // destinations (D2: second predicate of setp, carry, ...)
	A, B, C  int32 // sources
	V        [4]int32
	W        [4]int32 // texture coordinates
	Imm      uint64   // lop3 LUT, prmt selector mode, barrier id, clock kind, call site, ...
	Off      int64    // address offset
	Target   int32    // branch target PC
	Line     int32    // PTX source line
	Src      int32    // index into Func.Locs, or -1
}
