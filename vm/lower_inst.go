package vm

import (
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

var cmpNames = map[string]uint8{
	".eq": CmpEq, ".ne": CmpNe, ".lt": CmpLt, ".le": CmpLe, ".gt": CmpGt, ".ge": CmpGe,
	".lo": CmpLo, ".ls": CmpLs, ".hi": CmpHi, ".hs": CmpHs,
	".equ": CmpEqu, ".neu": CmpNeu, ".ltu": CmpLtu, ".leu": CmpLeu, ".gtu": CmpGtu, ".geu": CmpGeu,
	".num": CmpNum, ".nan": CmpNan,
}

// Testp classes (Inst.Imm).
const (
	testFinite uint64 = iota
	testInfinite
	testNumber
	testNotANumber
	testNormal
	testSubnormal
)

var testpNames = map[string]uint64{
	".finite": testFinite, ".infinite": testInfinite, ".number": testNumber,
	".notanumber": testNotANumber, ".normal": testNormal, ".subnormal": testSubnormal,
}

// prmt modes (Inst.Imm)
var prmtModes = map[string]uint64{"": 0, ".f4e": 1, ".b4e": 2, ".rc8": 3, ".ecl": 4, ".ecr": 5, ".rc16": 6}

// inst lowers one instruction.
func (l *fnLower) inst(pi *ptx.Instruction) {
	in := newInst(OpNop)
	if pi.Guard != nil {
		r, ok := l.reg(pi.Guard.Reg)
		if !ok || !r.pred {
			l.errorf(pi.Guard.Pos, "guard %s is not a predicate register", pi.Guard.Reg)
		} else {
			in.Guard, in.GuardNeg = r.off, pi.Guard.Neg
		}
	}
	m := parseMods(pi.Mods)
	l.mem = m.mem
	if b, w := orders(pi); b || w {
		l.f.ordersBlocks = l.f.ordersBlocks || b
		l.f.ordersWarps = l.f.ordersWarps || w
	}
	if pi.Opcode == "ldu" {
		l.mem.nonCoherent = true
	}
	in.Flags = m.flags
	in.Rnd = m.rnd
	ops := pi.Operands
	need := func(n int) bool {
		if len(ops) != n {
			l.errorf(pi.Pos, "%s takes %d operands, found %d", pi.Opcode, n, len(ops))
			return false
		}
		return true
	}
	t := m.typ(0)
	in.T = t
	switch pi.Opcode {
	case "mov":
		if !need(2) {
			return
		}
		l.lowerMov(pi, &in, t, m.vec)
		return
	case "ld", "ldu":
		l.lowerLdSt(pi, &in, &m, true)
		return
	case "st":
		l.lowerLdSt(pi, &in, &m, false)
		return
	case "add", "sub":
		if !need(3) {
			return
		}
		if t == Pred || t == TNone {
			l.errorf(pi.Pos, "%s needs a type", pi.Opcode)
			return
		}
		if t.Float() {
			in.Op = OpFAdd
			if pi.Opcode == "sub" {
				in.Op = OpFSub
			}
		} else if in.Flags.Has(FCCOut) {
			in.Op = OpAddc
			if pi.Opcode == "sub" {
				in.Imm = 1
			}
		} else {
			in.Op = OpAdd
			if pi.Opcode == "sub" {
				in.Op = OpSub
			}
		}
		if t == U16x2 || t == S16x2 {
			in.Imm, in.Op = uint64(in.Op), OpSimd2
		}
		l.bin(&in, ops, t)
	case "addc", "subc":
		if !need(3) {
			return
		}
		in.Op = OpAddc
		in.Flags |= FCCIn
		if pi.Opcode == "subc" {
			in.Imm = 1
		}
		l.bin(&in, ops, t)
	case "mul":
		if !need(3) {
			return
		}
		if t.Float() {
			in.Op = OpFMul
			l.bin(&in, ops, t)
			break
		}
		switch {
		case m.take(".hi"):
			in.Op = OpMulHi
		case m.take(".wide"):
			in.Op = OpMulWide
			in.D = l.dst(ops[0])
			in.A, in.B = l.src(ops[1], t), l.src(ops[2], t)
			in.T2 = t
			goto emit
		default:
			m.take(".lo")
			in.Op = OpMulLo
		}
		l.bin(&in, ops, t)
	case "mad", "fma":
		if !need(4) {
			return
		}
		if t.Float() {
			in.Op = OpFFma
			in.D = l.dst(ops[0])
			in.A, in.B, in.C = l.src(ops[1], t), l.src(ops[2], t), l.src(ops[3], t)
			break
		}
		if pi.Opcode == "fma" {
			l.errorf(pi.Pos, "fma needs a floating-point type")
			return
		}
		in.D = l.dst(ops[0])
		in.A, in.B = l.src(ops[1], t), l.src(ops[2], t)
		switch {
		case m.take(".hi"):
			in.Op = OpMadHi
			in.C = l.src(ops[3], t)
		case m.take(".wide"):
			in.Op = OpMadWide
			in.T2 = t
			in.C = l.src(ops[3], wideType(t))
		default:
			m.take(".lo")
			in.Op = OpMadLo
			in.C = l.src(ops[3], t)
		}
		if in.Flags.Has(FCCOut) {
			in.Imm = uint64(in.Op)
			in.Op = OpMadc
		}
	case "madc":
		if !need(4) {
			return
		}
		in.D = l.dst(ops[0])
		in.A, in.B, in.C = l.src(ops[1], t), l.src(ops[2], t), l.src(ops[3], t)
		in.Imm = uint64(OpMadLo)
		if m.take(".hi") {
			in.Imm = uint64(OpMadHi)
		}
		m.take(".lo")
		in.Op = OpMadc
		in.Flags |= FCCIn
	case "mul24", "mad24":
		in.Op = OpMul24
		n := 3
		if pi.Opcode == "mad24" {
			in.Op, n = OpMad24, 4
		}
		if !need(n) {
			return
		}
		if m.take(".hi") {
			in.Flags |= FHi
		}
		m.take(".lo")
		in.D = l.dst(ops[0])
		in.A, in.B = l.src(ops[1], t), l.src(ops[2], t)
		if n == 4 {
			in.C = l.src(ops[3], t)
		}
	case "sad":
		if !need(4) {
			return
		}
		in.Op = OpSad
		in.D = l.dst(ops[0])
		in.A, in.B, in.C = l.src(ops[1], t), l.src(ops[2], t), l.src(ops[3], t)
	case "div":
		if !need(3) {
			return
		}
		in.Op = OpDiv
		if t.Float() {
			in.Op = OpFDiv
		}
		l.bin(&in, ops, t)
	case "rem":
		if !need(3) {
			return
		}
		in.Op = OpRem
		l.bin(&in, ops, t)
	case "abs", "neg":
		if !need(2) {
			return
		}
		switch {
		case t.Float():
			in.Op = OpFAbs
			if pi.Opcode == "neg" {
				in.Op = OpFNeg
			}
		default:
			in.Op = OpAbs
			if pi.Opcode == "neg" {
				in.Op = OpNeg
			}
		}
		l.un(&in, ops, t)
	case "min", "max":
		if !need(3) {
			return
		}
		if m.take(".NaN") {
			in.Flags |= FNaN
		}
		if m.take(".xorsign.abs") || (m.take(".xorsign") && m.take(".abs")) {
			in.Flags |= FXorSign
		}
		if t.Float() {
			in.Op = OpFMin
			if pi.Opcode == "max" {
				in.Op = OpFMax
			}
		} else {
			in.Op = OpMin
			if pi.Opcode == "max" {
				in.Op = OpMax
			}
		}
		if t == U16x2 || t == S16x2 {
			in.Imm, in.Op = uint64(in.Op), OpSimd2
		}
		l.bin(&in, ops, t)
	case "popc", "clz", "brev":
		if !need(2) {
			return
		}
		in.Op = map[string]Op{"popc": OpPopc, "clz": OpClz, "brev": OpBrev}[pi.Opcode]
		l.un(&in, ops, t)
	case "bfind":
		if !need(2) {
			return
		}
		in.Op = OpBfind
		if m.take(".shiftamt") {
			in.Flags |= FShiftAmt
		}
		l.un(&in, ops, t)
	case "bfe":
		if !need(4) {
			return
		}
		in.Op = OpBfe
		in.D = l.dst(ops[0])
		in.A, in.B, in.C = l.src(ops[1], t), l.src(ops[2], U32), l.src(ops[3], U32)
	case "bfi":
		if !need(5) {
			return
		}
		in.Op = OpBfi
		in.D = l.dst(ops[0])
		in.A, in.B, in.C = l.src(ops[1], t), l.src(ops[2], t), l.src(ops[3], U32)
		in.V[0] = l.src(ops[4], U32)
	case "prmt":
		if !need(4) {
			return
		}
		in.Op = OpPrmt
		mode := ""
		for k := range prmtModes {
			if k != "" && m.take(k) {
				mode = k
			}
		}
		in.Imm = prmtModes[mode]
		in.D = l.dst(ops[0])
		in.A, in.B, in.C = l.src(ops[1], B32), l.src(ops[2], B32), l.src(ops[3], B32)
	case "shl", "shr":
		if !need(3) {
			return
		}
		in.Op = OpShl
		if pi.Opcode == "shr" {
			in.Op = OpShr
		}
		in.D = l.dst(ops[0])
		in.A, in.B = l.src(ops[1], t), l.src(ops[2], U32)
	case "shf":
		if !need(4) {
			return
		}
		in.Op = OpShf
		if m.take(".l") {
			in.Flags |= FLeft
		} else if !m.take(".r") {
			l.errorf(pi.Pos, "shf needs .l or .r")
		}
		if m.take(".clamp") {
			in.Flags |= FClamp
		} else if !m.take(".wrap") {
			l.errorf(pi.Pos, "shf needs .wrap or .clamp")
		}
		in.D = l.dst(ops[0])
		in.A, in.B, in.C = l.src(ops[1], B32), l.src(ops[2], B32), l.src(ops[3], U32)
	case "and", "or", "xor", "not", "cnot":
		if t == Pred {
			l.lowerPredLogic(pi, &in, ops)
			break
		}
		in.Op = map[string]Op{"and": OpAnd, "or": OpOr, "xor": OpXor, "not": OpNot, "cnot": OpCnot}[pi.Opcode]
		if pi.Opcode == "not" || pi.Opcode == "cnot" {
			if !need(2) {
				return
			}
			l.un(&in, ops, t)
		} else {
			if !need(3) {
				return
			}
			l.bin(&in, ops, t)
		}
	case "lop3":
		// lop3.b32 d, a, b, c, immLut; or lop3.BoolOp.b32 d|p, a, b, c, immLut, q
		in.BoolOp = l.takeBool(&m)
		want := 5
		if in.BoolOp != BoolNone {
			want = 6
		}
		if !need(want) {
			return
		}
		in.Op = OpLop3
		in.D = l.dst(ops[0])
		if ops[0].Pair != "" {
			in.D2 = l.predDst(&ptx.Operand{Pos: ops[0].Pos, Kind: ptx.OpName, Name: ops[0].Pair})
		}
		in.A, in.B, in.C = l.src(ops[1], B32), l.src(ops[2], B32), l.src(ops[3], B32)
		if ops[4].Kind != ptx.OpInt {
			l.errorf(ops[4].Pos, "lop3 needs an immediate lookup table")
		}
		in.Imm = uint64(ops[4].Int) & 0xff
		if want == 6 {
			p, neg := l.predSrc(ops[5])
			in.V[0] = p
			if neg {
				in.Flags |= FNeg2
			}
		}
	case "bmsk", "szext":
		if !need(3) {
			return
		}
		in.Op = OpBmsk
		if pi.Opcode == "szext" {
			in.Op = OpSzext
		}
		if m.take(".clamp") {
			in.Flags |= FClamp
		} else if !m.take(".wrap") {
			l.errorf(pi.Pos, "%s needs .clamp or .wrap", pi.Opcode)
		}
		l.bin(&in, ops, U32)
	case "vadd4", "vsub4", "vabsdiff4", "vmin4", "vmax4", "vavrg4",
		"vadd2", "vsub2", "vabsdiff2", "vmin2", "vmax2", "vavrg2":
		if !need(4) {
			return
		}
		for _, o := range ops {
			if o.Kind == ptx.OpName && strings.Count(o.Name, ".") > 0 {
				l.errorf(o.Pos, "%s: lane masks and byte selectors (%s) are not supported", pi.Opcode, o.Name)
				return
			}
		}
		in.Op = OpVideo
		name := pi.Opcode[:len(pi.Opcode)-1]
		in.Vec = pi.Opcode[len(pi.Opcode)-1] - '0'
		in.Imm = map[string]uint64{"vadd": 0, "vsub": 1, "vabsdiff": 2, "vmin": 3, "vmax": 4, "vavrg": 5}[name]
		if m.take(".add") {
			in.Flags |= FAccum
		}
		if len(m.types) != 3 {
			l.errorf(pi.Pos, "%s needs .dtype.atype.btype", pi.Opcode)
			return
		}
		in.T, in.T2 = m.types[0], m.types[1]
		if m.types[2].Signed() {
			in.Flags |= FNeg2 // b is signed
		}
		in.D = l.dst(ops[0])
		in.A, in.B, in.C = l.src(ops[1], B32), l.src(ops[2], B32), l.src(ops[3], B32)
	case "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset":
		if !l.lowerVideo1(pi, &in, &m) {
			return
		}
		m.types = nil
	case "fns":
		if !need(4) {
			return
		}
		in.Op = OpFns
		in.D = l.dst(ops[0])
		in.A, in.B, in.C = l.src(ops[1], B32), l.src(ops[2], U32), l.src(ops[3], S32)
	case "dp4a", "dp2a":
		if !need(4) {
			return
		}
		in.Op = OpDp4a
		if pi.Opcode == "dp2a" {
			in.Op = OpDp2a
			if m.take(".hi") {
				in.Flags |= FHi
			}
			m.take(".lo")
		}
		in.T, in.T2 = m.typ(0), m.typ(1)
		in.D = l.dst(ops[0])
		in.A, in.B, in.C = l.src(ops[1], B32), l.src(ops[2], B32), l.src(ops[3], in.T)
	case "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh":
		if !need(2) {
			return
		}
		in.Op = map[string]Op{"rcp": OpFRcp, "sqrt": OpFSqrt, "rsqrt": OpFRsqrt, "sin": OpFSin, "cos": OpFCos,
			"lg2": OpFLg2, "ex2": OpFEx2, "tanh": OpFTanh}[pi.Opcode]
		l.un(&in, ops, t)
	case "copysign":
		if !need(3) {
			return
		}
		in.Op = OpFCopysign
		l.bin(&in, ops, t)
	case "testp":
		if !need(2) {
			return
		}
		in.Op = OpTestp
		found := false
		for k, v := range testpNames {
			if m.take(k) {
				in.Imm, found = v, true
			}
		}
		if !found {
			l.errorf(pi.Pos, "testp needs a class (.finite, .infinite, .number, .notanumber, .normal, .subnormal)")
		}
		in.D = l.predDst(ops[0])
		in.A = l.src(ops[1], t)
	case "setp":
		l.lowerSetp(pi, &in, &m, ops)
	case "set":
		l.lowerSet(pi, &in, &m, ops)
	case "selp":
		if !need(4) {
			return
		}
		in.Op = OpSelp
		in.D = l.dst(ops[0])
		in.A, in.B = l.src(ops[1], t), l.src(ops[2], t)
		p, neg := l.predSrc(ops[3])
		in.C = p
		if neg {
			in.Flags |= FNeg2
		}
	case "slct":
		if !need(4) {
			return
		}
		in.Op = OpSlct
		in.T, in.T2 = m.typ(0), m.typ(1)
		in.D = l.dst(ops[0])
		in.A, in.B, in.C = l.src(ops[1], in.T), l.src(ops[2], in.T), l.src(ops[3], in.T2)
	case "cvt":
		l.lowerCvt(pi, &in, &m, ops)
	case "cvta":
		if !need(2) {
			return
		}
		in.Op = OpCvta
		if m.take(".to") {
			in.Flags |= FToSpace
		}
		if !m.hasSpace {
			l.errorf(pi.Pos, "cvta needs a state space")
		}
		in.Space = m.space
		in.D = l.dst(ops[0])
		if ops[1].Kind == ptx.OpName {
			if s := l.lookupLocal(ops[1].Name); s != nil && s.space == memspace.Local {
				// cvta.local of a depot symbol: take its frame address first.
				tmp := l.newReg()
				la := newInst(OpLocalAddr)
				la.T, la.D, la.Off, la.Guard, la.GuardNeg = U64, tmp, int64(s.off), in.Guard, in.GuardNeg
				l.emit(la, pi.Pos)
				in.A = tmp
				break
			}
		}
		in.A = l.src(ops[1], t)
	case "isspacep":
		if !need(2) {
			return
		}
		in.Op = OpIsspacep
		if !m.hasSpace {
			l.errorf(pi.Pos, "isspacep needs a state space")
		}
		in.Space = m.space
		if hasMod(pi, ".shared::cluster") {
			in.Flags |= FCluster
		}
		in.D = l.predDst(ops[0])
		in.A = l.src(ops[1], U64)
	case "bra":
		if !need(1) {
			return
		}
		in.Op = OpBra
		if ops[0].Kind != ptx.OpName {
			l.errorf(ops[0].Pos, "bra needs a label")
			return
		}
		l.fixes = append(l.fixes, fixup{pc: len(l.f.Code), label: ops[0].Name, pos: ops[0].Pos})
	case "brx":
		m.take(".idx")
		if !need(2) {
			return
		}
		if ops[1].Kind != ptx.OpName {
			l.errorf(ops[1].Pos, "brx.idx needs the label of a .branchtargets list")
			return
		}
		in.Op = OpBrx
		in.A = l.src(ops[0], U32)
		in.Imm = uint64(len(l.f.BrxTables))
		l.f.BrxTables = append(l.f.BrxTables, nil)
		l.brxFixes = append(l.brxFixes, brxFix{table: int(in.Imm), list: ops[1].Name, pos: ops[1].Pos})
	case "call":
		l.lowerCall(pi, &in, &m)
	case "ret":
		in.Op = OpRet
		if l.f.Entry {
			in.Op = OpExit
		}
	case "exit":
		in.Op = OpExit
	case "bar", "barrier":
		if pi.Opcode == "barrier" && hasMod(pi, ".cluster") {
			if !l.lowerBarCluster(pi, &in, &m) {
				return
			}
			break
		}
		l.lowerBar(pi, &in, &m, ops)
	case "mapa":
		if !l.lowerMapa(pi, &in, &m) {
			return
		}
	case "getctarank":
		if !l.lowerGetctarank(pi, &in, &m) {
			return
		}
	case "atom", "red":
		if !l.lowerAtom(pi, &in, &m) {
			return
		}
	case "shfl":
		if !l.lowerShfl(pi, &in, &m) {
			return
		}
	case "vote":
		if !l.lowerVote(pi, &in, &m) {
			return
		}
	case "match":
		if !l.lowerMatch(pi, &in, &m) {
			return
		}
	case "redux":
		if !l.lowerRedux(pi, &in, &m) {
			return
		}
	case "elect":
		if !l.lowerElect(pi, &in, &m) {
			return
		}
	case "tex", "tld4", "txq":
		if !l.lowerTex(pi, &in, &m) {
			return
		}
	case "suld", "sust", "sured", "suq":
		if !l.lowerSurf(pi, &in, &m) {
			return
		}
	case "cp":
		if !l.lowerCp(pi, &in, &m) {
			return
		}
	case "ldmatrix", "stmatrix":
		if !l.lowerMatrix(pi, &in, &m, pi.Opcode == "ldmatrix") {
			return
		}
	case "movmatrix":
		if !l.lowerMovmatrix(pi, &in, &m) {
			return
		}
	case "mma":
		if !l.lowerMma(pi, &in, &m) {
			return
		}
	case "wmma":
		if !l.lowerWmma(pi, &in, &m) {
			return
		}
	case "wgmma":
		if !l.lowerWgmma(pi, &in, &m) {
			return
		}
	case "mbarrier":
		if !l.lowerMbarrier(pi, &in, &m) {
			return
		}
	case "activemask":
		if !need(1) {
			return
		}
		in.Op = OpActivemask
		in.D = l.dst(ops[0])
	case "trap":
		in.Op = OpTrap
	case "membar", "fence", "prefetch", "prefetchu", "nanosleep", "pmevent", "brkpt",
		"discard", "applypriority", "griddepcontrol", "setmaxnreg":
		// Ordering, cache-management and hint instructions: no functional
		// effect in this model.
		in.Op = OpNop
		m.rest = nil
	case "createpolicy":
		in.Op = OpMov
		in.T = B64
		if len(ops) > 0 {
			in.D = l.dst(ops[0])
		}
		in.A = 0
		m.rest = nil
	default:
		if !ptx.KnownOpcode(pi.Opcode) {
			l.errorf(pi.Pos, "%s", ptx.UnknownInstruction(pi.Opcode, pi.Mods))
			return
		}
		l.errorf(pi.Pos, "unsupported instruction %s%s", pi.Opcode, strings.Join(pi.Mods, ""))
		return
	}
emit:
	if len(m.rest) > 0 {
		l.errorf(pi.Pos, "unsupported modifier %s on %s", strings.Join(m.rest, ""), pi.Opcode)
	}
	pc := l.emit(in, pi.Pos)
	if !m.hasRnd && (in.Op == OpFAdd || in.Op == OpFSub || in.Op == OpFMul) {
		if l.plain == nil {
			l.plain = map[int32]bool{}
		}
		l.plain[int32(pc)] = true
	}
}

// wideType is the type of a .wide result.
func wideType(t Type) Type {
	switch t {
	case U16:
		return U32
	case S16:
		return S32
	case U32:
		return U64
	case S32:
		return S64
	}
	return t
}

func (l *fnLower) bin(in *Inst, ops []*ptx.Operand, t Type) {
	in.D = l.dst(ops[0])
	in.A = l.src(ops[1], t)
	in.B = l.src(ops[2], t)
}

func (l *fnLower) un(in *Inst, ops []*ptx.Operand, t Type) {
	in.D = l.dst(ops[0])
	in.A = l.src(ops[1], t)
}

func (l *fnLower) lowerMov(pi *ptx.Instruction, in *Inst, t Type, vec int) {
	d, a := pi.Operands[0], pi.Operands[1]
	if t == Pred && a.Kind == ptx.OpName && a.Name == "%is_explicit_cluster" {
		// A predicate special register: its value (0 or 1) compared with 0.
		in.Op, in.T, in.Cmp = OpSetp, U32, CmpNe
		in.D = l.predDst(d)
		in.A, in.B = l.sregReg(srExplicitCluster), l.constReg(0)
		l.emit(*in, pi.Pos)
		return
	}
	if vec > 0 {
		l.lowerMovVec(pi, in, t, vec)
		return
	}
	if t == Pred {
		in.Op = OpPMov
		in.D = l.predDst(d)
		p, neg := l.predSrc(a)
		in.A = p
		if neg {
			in.Flags |= FNeg2
		}
		l.emit(*in, pi.Pos)
		return
	}
	// A vector register used whole (.reg .v2 .u32 %v) packs and unpacks
	// like the brace list of its elements: mov.b64 %rd, %v is
	// mov.b64 %rd, {%v.x, %v.y}.
	srcs, dsts := a.Elems, d.Elems
	if a.Kind != ptx.OpVector {
		srcs = l.vectorElems(a)
	}
	if d.Kind != ptx.OpVector {
		dsts = l.vectorElems(d)
	}
	if srcs != nil && dsts != nil {
		// Both sides lists: pack into a scratch register, unpack from it.
		if !l.checkPack(a, srcs, t) || !l.checkPack(d, dsts, t) || t == B128 {
			if t == B128 {
				l.errorf(pi.Pos, "mov.b128 between two vectors is not supported")
			}
			return
		}
		in.Op, in.Vec = OpPack, uint8(len(srcs))
		et := sizedBits(t.Size() / len(srcs))
		for i, e := range srcs {
			in.V[i] = l.src(e, et)
		}
		in.D = l.newReg()
		l.emit(*in, pi.Pos)
		un := newInst(OpUnpack)
		un.Guard, un.GuardNeg = in.Guard, in.GuardNeg
		un.T, un.Vec, un.A = t, uint8(len(dsts)), in.D
		for i, e := range dsts {
			un.V[i] = l.dst(e)
		}
		l.emit(un, pi.Pos)
		return
	}
	switch {
	case srcs != nil:
		if !l.checkPack(a, srcs, t) {
			return
		}
		in.Op = OpPack
		in.Vec = uint8(len(srcs))
		et := sizedBits(t.Size() / int(in.Vec))
		for i, e := range srcs {
			in.V[i] = l.src(e, et)
		}
		in.D = l.dst(d)
	case dsts != nil:
		if !l.checkPack(d, dsts, t) {
			return
		}
		in.Op = OpUnpack
		in.Vec = uint8(len(dsts))
		for i, e := range dsts {
			in.V[i] = l.dst(e)
		}
		in.A = l.src(a, t)
	default:
		in.D = l.dst(d)
		if a.Kind == ptx.OpName {
			if k, ok := clockNames[a.Name]; ok {
				in.Op = OpClock
				in.Imm = k
				l.emit(*in, pi.Pos)
				return
			}
			if s := l.lookupLocal(a.Name); s != nil && s.space == memspace.Local {
				in.Op = OpLocalAddr
				in.Off = int64(s.off)
				l.emit(*in, pi.Pos)
				return
			}
			if _, isReg := l.reg(a.Name); !isReg && l.m.funcs[a.Name] != nil {
				// A function's address (for an indirect call).
				g := l.funcs[a.Name]
				if g == nil {
					l.errorf(a.Pos, "taking the address of function %s, which has no body in this module, is not supported", a.Name)
					return
				}
				in.Op = OpMov
				in.A = l.constReg(g.Addr)
				l.emit(*in, pi.Pos)
				return
			}
		}
		in.Op = OpMov
		in.A = l.src(a, t)
		if t == B128 {
			// Both 64-bit halves: as mov.b128 d, {lo, hi}.
			if a.Kind != ptx.OpName {
				l.errorf(a.Pos, "mov.b128 needs a register source")
				return
			}
			in.Op, in.Vec = OpPack, 2
			in.V[0], in.V[1], in.A = in.A, in.A+32, NoReg
		}
	}
	l.emit(*in, pi.Pos)
}

// checkPack reports whether the values elems (a brace list, or the
// elements of the vector register o) fit a mov.t pack or unpack: 2 or 4
// values of equal width, t's size in all.
func (l *fnLower) checkPack(o *ptx.Operand, elems []*ptx.Operand, t Type) bool {
	n := len(elems)
	switch t {
	case B16, B32, B64, B128:
	default:
		// ptxas 13: "Arguments mismatch for instruction 'mov'".
		l.errorf(o.Pos, "mov%s cannot pack or unpack: the packing forms are mov.b16, .b32, .b64 and .b128", t)
		return false
	}
	if n != 2 && n != 4 || t.Size() == 0 || t.Size()%n != 0 {
		if o.Kind == ptx.OpVector {
			l.errorf(o.Pos, "cannot pack or unpack %d values as %s", n, t)
		} else {
			l.errorf(o.Pos, "vector register %s (%d values) does not pack into %s", o.Name, n, t)
		}
		return false
	}
	if o.Kind != ptx.OpVector {
		if r, _ := l.reg0(o.Name); r.t.Size()*n != t.Size() {
			l.errorf(o.Pos, "vector register %s is %d x %s (%d bytes); mov%s moves %d bytes", o.Name, n, r.t, r.t.Size()*n, t, t.Size())
			return false
		}
	}
	return true
}

// lowerMovVec lowers mov.v2/.v4: values moved element by element between
// vector registers and brace lists (mov.v4.u16 %v, {%a, %b, %c, %d};
// mov.v2.u32 {%a, _}, %v; mov.v2.u32 %w, %v). Every source is read before
// any destination is written.
func (l *fnLower) lowerMovVec(pi *ptx.Instruction, in *Inst, t Type, vec int) {
	d, a := pi.Operands[0], pi.Operands[1]
	if vec != 2 && vec != 4 || t == Pred || t == B128 || t.Size() == 0 {
		l.errorf(pi.Pos, "mov.v%d%s: mov moves vectors of 2 or 4 values of a 1- to 8-byte type", vec, t)
		return
	}
	elems := func(o *ptx.Operand) []*ptx.Operand {
		if o.Kind == ptx.OpVector {
			return o.Elems
		}
		if e := l.vectorElems(o); e != nil {
			return e
		}
		l.errorf(o.Pos, "mov.v%d needs a vector register or a {...} list of %d values here", vec, vec)
		return nil
	}
	dsts, srcs := elems(d), elems(a)
	if dsts == nil || srcs == nil {
		return
	}
	if len(dsts) != vec || len(srcs) != vec {
		l.errorf(pi.Pos, "mov.v%d moves %d values, found %d and %d", vec, vec, len(dsts), len(srcs))
		return
	}
	in.Op, in.T, in.Vec = OpMovVec, t, uint8(vec)
	for i := range vec {
		in.W[i] = l.src(srcs[i], t)
		in.V[i] = l.dst(dsts[i])
	}
	l.emit(*in, pi.Pos)
}

// sizedBits is the bit type of n bytes.
func sizedBits(n int) Type {
	switch n {
	case 1:
		return B8
	case 2:
		return B16
	case 4:
		return B32
	case 8:
		return B64
	}
	return TNone
}

func (l *fnLower) lowerLdSt(pi *ptx.Instruction, in *Inst, m *mods, load bool) {
	ops := pi.Operands
	if m.cacheHint && len(ops) == 3 {
		ops = ops[:2] // drop the cache-policy operand
	}
	if len(ops) != 2 {
		l.errorf(pi.Pos, "%s takes 2 operands, found %d", pi.Opcode, len(ops))
		return
	}
	t := m.typ(0)
	if t == TNone || t.Size() == 0 {
		l.errorf(pi.Pos, "%s needs a type", pi.Opcode)
		return
	}
	sp := memspace.Generic
	if m.hasSpace {
		sp = m.space
	}
	in.T = t
	vec := m.vec
	if vec == 0 {
		vec = 1
	}
	wide := vec*t.Size() == 32 // 256 bits: .v8 of 32-bit values, .v4 of 64-bit ones
	switch {
	case vec == 8 && t.Size() != 4 || vec > 8:
		l.errorf(pi.Pos, "%s.v%d%s: .v8 accesses move 32-bit values (.b32, .u32, .s32, .f32)", pi.Opcode, vec, t)
		return
	case wide && !l.wideAccessOK(pi, sp, vec, t):
		return
	case vec*t.Size() > 32:
		l.errorf(pi.Pos, "%s.v%d%s: a vector access moves at most 256 bits", pi.Opcode, vec, t)
		return
	}
	in.Vec = uint8(vec)
	if pi.Opcode == "ldu" {
		m.take(".nc")
	}
	data, addr := ops[0], ops[1]
	in.Op = OpLd
	if !load {
		in.Op = OpSt
		data, addr = ops[1], ops[0]
	}
	in.Space = l.address(addr, sp, in)
	elems := []*ptx.Operand{data}
	if data.Kind == ptx.OpVector {
		elems = data.Elems
	} else if ve := l.vectorElems(data); ve != nil {
		elems = ve // ld.v4.f32 %v, [a]: a vector register, element by element
	}
	if t == B128 && vec == 1 {
		// A 128-bit register is two 64-bit slots: move them as a .v2.b64.
		var r int32
		if load {
			r = l.dst(data)
		} else {
			r = l.src(data, t)
		}
		in.T, in.Vec = B64, 2
		in.V[0], in.V[1] = r, r+32
		l.emit(*in, pi.Pos)
		return
	}
	if len(elems) != vec {
		l.errorf(data.Pos, "%s.v%d needs %d values, found %d", pi.Opcode, vec, vec, len(elems))
		return
	}
	regs := make([]int32, vec)
	for i, e := range elems {
		switch {
		case load:
			regs[i] = l.dst(e)
		case e.Kind == ptx.OpName && e.Name == "_":
			// A store's sink: the element's bytes are not written.
			if !wide {
				l.errorf(e.Pos, "the sink _ stands for a stored value only in 256-bit stores (.v8, .v4 of 64-bit values)")
			}
			regs[i] = NoReg
		default:
			regs[i] = l.src(e, t)
		}
	}
	if vec > len(in.V) {
		l.setRegList(in, regs)
	} else {
		copy(in.V[:], regs)
	}
	if len(m.rest) > 0 {
		l.errorf(pi.Pos, "unsupported modifier %s on %s", strings.Join(m.rest, ""), pi.Opcode)
	}
	l.emit(*in, pi.Pos)
}

// wideAccessOK checks a 256-bit ld/st (.v8 of 32-bit values, .v4 of
// 64-bit ones): the ISA gives them to sm_100 and later, in the global
// space (or generic addresses in it).
func (l *fnLower) wideAccessOK(pi *ptx.Instruction, sp memspace.Space, vec int, t Type) bool {
	name := pi.Opcode + "." + sp.String() + ".v" + itoa(vec) + t.String()
	if sp == memspace.Generic {
		name = pi.Opcode + ".v" + itoa(vec) + t.String()
	}
	if sm := l.m.targetSM(); sm != 0 && sm < 100 || !l.m.versionAtLeast(8, 8) {
		l.errorf(pi.Pos, "%s: 256-bit accesses need PTX ISA .version 8.8 and .target sm_100 or later (the module: .version %s, .target %s)",
			name, l.m.AST.Version, strings.Join(l.m.AST.Target, ", "))
		return false
	}
	if sp != memspace.Global && sp != memspace.Generic {
		l.errorf(pi.Pos, "%s: 256-bit accesses are in the global space only (.global, or generic addresses in it)", name)
		return false
	}
	return true
}

func (l *fnLower) lowerPredLogic(pi *ptx.Instruction, in *Inst, ops []*ptx.Operand) {
	switch pi.Opcode {
	case "and", "or", "xor":
		if len(ops) != 3 {
			l.errorf(pi.Pos, "%s takes 3 operands", pi.Opcode)
			return
		}
		in.Op = map[string]Op{"and": OpPAnd, "or": OpPOr, "xor": OpPXor}[pi.Opcode]
		in.D = l.predDst(ops[0])
		a, na := l.predSrc(ops[1])
		b, nb := l.predSrc(ops[2])
		in.A, in.B = a, b
		if na {
			in.Imm |= 1
		}
		if nb {
			in.Imm |= 2
		}
	default: // not, cnot
		if len(ops) != 2 {
			l.errorf(pi.Pos, "%s takes 2 operands", pi.Opcode)
			return
		}
		in.Op = OpPNot
		in.D = l.predDst(ops[0])
		a, na := l.predSrc(ops[1])
		in.A = a
		if na {
			in.Imm |= 1
		}
	}
}

func (l *fnLower) takeCmp(pi *ptx.Instruction, m *mods) uint8 {
	for i, s := range m.rest {
		if c, ok := cmpNames[s]; ok {
			m.rest = append(m.rest[:i], m.rest[i+1:]...)
			return c
		}
	}
	l.errorf(pi.Pos, "%s needs a comparison operator", pi.Opcode)
	return CmpEq
}

func (l *fnLower) takeBool(m *mods) uint8 {
	switch {
	case m.take(".and"):
		return BoolAnd
	case m.take(".or"):
		return BoolOr
	case m.take(".xor"):
		return BoolXor
	}
	return BoolNone
}

func (l *fnLower) lowerSetp(pi *ptx.Instruction, in *Inst, m *mods, ops []*ptx.Operand) {
	in.Op = OpSetp
	in.Cmp = l.takeCmp(pi, m)
	in.BoolOp = l.takeBool(m)
	want := 3
	if in.BoolOp != BoolNone {
		want = 4
	}
	if len(ops) != want {
		l.errorf(pi.Pos, "setp takes %d operands, found %d", want, len(ops))
		return
	}
	t := in.T
	in.D = l.predDst(ops[0])
	if ops[0].Pair != "" {
		in.D2 = l.predDst(&ptx.Operand{Pos: ops[0].Pos, Kind: ptx.OpName, Name: ops[0].Pair})
	}
	in.A, in.B = l.src(ops[1], t), l.src(ops[2], t)
	if want == 4 {
		p, neg := l.predSrc(ops[3])
		in.C = p
		if neg {
			in.Flags |= FNeg2
		}
	}
}

func (l *fnLower) lowerSet(pi *ptx.Instruction, in *Inst, m *mods, ops []*ptx.Operand) {
	in.Op = OpSet
	in.Cmp = l.takeCmp(pi, m)
	in.BoolOp = l.takeBool(m)
	in.T, in.T2 = m.typ(0), m.typ(1)
	want := 3
	if in.BoolOp != BoolNone {
		want = 4
	}
	if len(ops) != want {
		l.errorf(pi.Pos, "set takes %d operands, found %d", want, len(ops))
		return
	}
	in.D = l.dst(ops[0])
	in.A, in.B = l.src(ops[1], in.T2), l.src(ops[2], in.T2)
	if want == 4 {
		p, neg := l.predSrc(ops[3])
		in.C = p
		if neg {
			in.Flags |= FNeg2
		}
	}
}

func (l *fnLower) lowerCvt(pi *ptx.Instruction, in *Inst, m *mods, ops []*ptx.Operand) {
	if m.take(".pack") {
		l.lowerCvtPackInt(pi, in, m, ops)
		return
	}
	in.T, in.T2 = m.typ(0), m.typ(1)
	if in.T == TNone || in.T2 == TNone {
		l.errorf(pi.Pos, "cvt needs a destination and a source type")
		return
	}
	if _, ok := fp8Pair(in.T); ok || in.T2 == E4M3x2 || in.T2 == E5M2x2 {
		// cvt.rn.satfinite.e4m3x2.f32 d, a, b; cvt.rn.satfinite.e4m3x2.f16x2 d, a;
		// cvt.rn.f16x2.e4m3x2 d, a (and e5m2x2)
		in.Op = OpCvtFP8
		want := 2
		if in.T2 == F32 {
			want = 3
		}
		if len(ops) != want {
			l.errorf(pi.Pos, "cvt %s.%s takes %d operands, found %d", in.T, in.T2, want, len(ops))
			return
		}
		if _, ok := fp8Pair(in.T); ok && !in.Flags.Has(FSatFinite) {
			l.errorf(pi.Pos, "conversions to %s need .satfinite", in.T)
		}
		in.D = l.dst(ops[0])
		in.A = l.src(ops[1], in.T2)
		if want == 3 {
			in.B = l.src(ops[2], in.T2)
		}
		return
	}
	if in.T == F16x2 || in.T == BF16x2 {
		// cvt.rn.f16x2.f32 d, a, b: pack two converted values (a in the upper half).
		if len(ops) != 3 {
			l.errorf(pi.Pos, "cvt to %s takes 3 operands", in.T)
			return
		}
		in.Op = OpCvtPack
		in.D = l.dst(ops[0])
		in.A, in.B = l.src(ops[1], in.T2), l.src(ops[2], in.T2)
		return
	}
	if len(ops) != 2 {
		l.errorf(pi.Pos, "cvt takes 2 operands, found %d", len(ops))
		return
	}
	in.Op = OpCvt
	if m.intRnd {
		in.Flags |= fIntRnd
	}
	if !m.hasRnd {
		in.Rnd = rndDefault
	}
	in.D = l.dst(ops[0])
	in.A = l.src(ops[1], in.T2)
}

// cvt rounding: no modifier given (fIntRnd marks .rni/.rzi/...).
const (
	fIntRnd    = FShiftAmt // reuse: cvt never has .shiftamt
	rndDefault = 7
)

func (l *fnLower) lowerCall(pi *ptx.Instruction, in *Inst, m *mods) {
	// A nop until the call site exists: a call refused below must not reach
	// the code as an OpCall without one.
	in.Op = OpNop
	m.take(".uni")
	in.Flags &^= FUni
	// call (rets), name, (args) [, prototype]
	var rets, args []*ptx.Operand
	name := ""
	var pos ptx.Pos
	state := 0
	for _, o := range pi.Operands {
		switch {
		case o.Kind == ptx.OpList && state == 0 && name == "":
			rets = o.Elems
		case o.Kind == ptx.OpName && name == "":
			name, pos = o.Name, o.Pos
			state = 1
		case o.Kind == ptx.OpList && state == 1:
			args = o.Elems
			state = 2
		case o.Kind == ptx.OpName && state >= 1:
			// prototype name of an indirect call
		default:
			l.errorf(o.Pos, "unexpected operand in call")
		}
	}
	if name == "" {
		l.errorf(pi.Pos, "call needs a function")
		return
	}
	indirect := int32(-1)
	if r, ok := l.reg(name); ok {
		if r.pred || r.vec > 0 || r.t.Size() != 8 {
			l.errorf(pos, "an indirect call's target must be a 64-bit register, not %s", name)
			return
		}
		indirect = r.off
	}
	// Arguments and return values are call-sequence .param variables of
	// the enclosing scope, or for a callee declared with .reg parameters,
	// registers (and constants) of this function; the callee's offsets are
	// filled in by linkCalls.
	var cps, crs []*ptx.Param
	if cf := l.m.funcs[name]; cf != nil {
		cps, crs = cf.Params, cf.Returns
		if name == assertFail && !cf.HasBody {
			l.lowerAssert(in, args)
			return
		}
	}
	var cs CallSite
	for i, a := range args {
		if i < len(cps) && cps[i].Space == ".reg" {
			l.regArg(&cs, a, cps[i], int32(i))
			continue
		}
		s := l.lookupLocal(a.Name)
		if a.Kind != ptx.OpName || s == nil || s.space != memspace.FParam {
			l.errorf(a.Pos, "call argument %s is not a .param variable of the call sequence", a.Name)
			continue
		}
		cs.Args = append(cs.Args, paramCopy{from: s.off, to: uint64(i), size: s.size})
	}
	for i, r := range rets {
		if i < len(crs) && crs[i].Space == ".reg" {
			l.regRet(&cs, r, crs[i], int32(i))
			continue
		}
		s := l.lookupLocal(r.Name)
		if r.Kind != ptx.OpName || s == nil || s.space != memspace.FParam {
			l.errorf(r.Pos, "call return %s is not a .param variable of the call sequence", r.Name)
			continue
		}
		cs.Rets = append(cs.Rets, paramCopy{from: uint64(i), to: s.off, size: s.size})
	}
	if indirect >= 0 {
		cs.Indirect, cs.Reg = true, indirect
		in.A = indirect
	}
	idx := len(l.f.Calls)
	in.Op = OpCall
	l.f.Calls = append(l.f.Calls, cs)
	l.pending = append(l.pending, pendingCall{idx: idx, callee: name, pos: pos, nargs: len(args), nrets: len(rets)})
	in.Imm = uint64(idx)
}

// assertFail is the CUDA runtime's device-side assert, which nvcc declares
// .extern and calls where an assert() fails: __assertfail(message, file,
// line, function, charSize).
const assertFail = "__assertfail"

// lowerAssert lowers a call of __assertfail to a trap (OpTrap) that reports
// the assertion: on the GPU the thread prints "file:line: function: block:
// [...], thread: [...] Assertion `message` failed." and the launch fails
// with cudaErrorAssert.
func (l *fnLower) lowerAssert(in *Inst, args []*ptx.Operand) {
	site := AssertSite{Message: -1, File: -1, Line: -1, Function: -1}
	for i, a := range args {
		s := l.lookupLocal(a.Name)
		if a.Kind != ptx.OpName || s == nil || s.space != memspace.FParam {
			l.errorf(a.Pos, "call argument %s is not a .param variable of the call sequence", a.Name)
			continue
		}
		switch i {
		case 0:
			site.Message = int64(s.off)
		case 1:
			site.File = int64(s.off)
		case 2:
			site.Line = int64(s.off)
		case 3:
			site.Function = int64(s.off)
		}
	}
	in.Op = OpTrap
	l.f.Asserts = append(l.f.Asserts, site)
	in.Imm = uint64(len(l.f.Asserts))
}

// regArg lowers argument a of a call for the callee's .reg parameter p
// (number i): a predicate, a value, or a vector or .b128 whose elements go
// one register each (a vector register or a {...} list for a vector).
func (l *fnLower) regArg(cs *CallSite, a *ptx.Operand, p *ptx.Param, i int32) {
	t, _ := ParseType(p.Type)
	if t == Pred {
		r, neg := l.predSrc(a)
		cs.PredArgs = append(cs.PredArgs, predCopy{from: r, to: i, neg: neg})
		return
	}
	for e, from := range l.regParts(a, p, t, false) {
		cs.RegArgs = append(cs.RegArgs, regCopy{from: from, to: i, elem: int32(e)})
	}
}

// regRet lowers return value r of a call from the callee's .reg return
// parameter p (number i), as regArg.
func (l *fnLower) regRet(cs *CallSite, r *ptx.Operand, p *ptx.Param, i int32) {
	t, _ := ParseType(p.Type)
	if t == Pred {
		cs.PredRets = append(cs.PredRets, predCopy{from: i, to: l.predDst(r)})
		return
	}
	for e, to := range l.regParts(r, p, t, true) {
		cs.RegRets = append(cs.RegRets, regCopy{from: i, to: to, elem: int32(e)})
	}
}

// regParts lowers the caller's side of a .reg argument (dst false) or
// return value (dst true) for parameter p of type t: one register per
// register of the callee's parameter.
func (l *fnLower) regParts(o *ptx.Operand, p *ptx.Param, t Type, dst bool) []int32 {
	one := func(o *ptx.Operand) int32 {
		if dst {
			return l.dst(o)
		}
		return l.src(o, t)
	}
	switch {
	case p.Vector > 0:
		elems := o.Elems
		if o.Kind != ptx.OpVector {
			elems = l.vectorElems(o)
		}
		if len(elems) != p.Vector {
			l.errorf(o.Pos, "%s: parameter %s is a vector of %d %s values; give a vector register or a {...} list of %d", o.Name, p.Name, p.Vector, t, p.Vector)
			return nil
		}
		if o.Kind != ptx.OpVector {
			if r, _ := l.reg0(o.Name); r.t.Size() != t.Size() {
				l.errorf(o.Pos, "vector register %s holds %s values, parameter %s %s", o.Name, r.t, p.Name, t)
				return nil
			}
		}
		out := make([]int32, len(elems))
		for e, x := range elems {
			out[e] = one(x)
		}
		return out
	case t == B128:
		r := one(o)
		if r == l.sink {
			return []int32{r, r}
		}
		return []int32{r, r + 32}
	}
	return []int32{one(o)}
}

func (l *fnLower) lowerBar(pi *ptx.Instruction, in *Inst, m *mods, ops []*ptx.Operand) {
	in.Op = OpBar
	m.take(".cta")
	switch {
	case m.take(".warp"):
		// bar.warp.sync membermask
		m.take(".sync")
		if len(ops) != 1 {
			l.errorf(pi.Pos, "bar.warp.sync takes a membermask")
			return
		}
		in.Op = OpWarpSync
		in.A = l.membermask(ops[0])
		if ops[0].Kind != ptx.OpInt {
			in.Imm = warpSyncRegMask
		}
		return
	case m.take(".sync"):
	case m.take(".arrive"):
		in.Flags |= FArrive
	case m.take(".red"):
		in.Flags |= FRed
		switch {
		case m.take(".popc"):
			in.BoolOp = barRedPopc
		case m.take(".and"):
			in.BoolOp = barRedAnd
		case m.take(".or"):
			in.BoolOp = barRedOr
		default:
			l.errorf(pi.Pos, "bar.red needs .popc, .and or .or")
			return
		}
		// bar.red.op.type d, a{, b}, {!}c
		if len(ops) < 3 || len(ops) > 4 {
			l.errorf(pi.Pos, "bar.red takes a destination, a barrier, an optional count and a predicate")
			return
		}
		if in.BoolOp == barRedPopc {
			in.D = l.dst(ops[0])
		} else {
			in.D = l.predDst(ops[0])
		}
		p, neg := l.predSrc(ops[len(ops)-1])
		in.C = p
		if neg {
			in.Flags |= FNeg2
		}
		ops = ops[1 : len(ops)-1]
	default:
		if pi.Opcode == "barrier" {
			l.errorf(pi.Pos, "barrier needs .sync or .arrive")
			return
		}
		// "bar 0" is bar.sync 0
	}
	if len(ops) < 1 || len(ops) > 2 {
		l.errorf(pi.Pos, "%s takes a barrier and an optional thread count", pi.Opcode)
		return
	}
	if ops[0].Kind == ptx.OpInt {
		if ops[0].Int < 0 || ops[0].Int > 15 {
			l.errorf(ops[0].Pos, "barrier number %d is out of range 0..15", ops[0].Int)
		}
		in.Imm = uint64(ops[0].Int) & 15
		in.A = NoReg
	} else {
		in.A = l.src(ops[0], U32)
	}
	if len(ops) == 2 {
		if ops[1].Kind == ptx.OpInt && ops[1].Int%WarpSize != 0 {
			// ptxas refuses to assemble it.
			l.errorf(ops[1].Pos, "%s: thread count %d is not a multiple of the warp size (%d)", pi.Opcode, ops[1].Int, WarpSize)
		}
		in.Flags |= FHasCnt
		in.B = l.src(ops[1], U32)
	}
}

// lowerCvtPackInt lowers cvt.pack.sat.{u16,s16}.s32 d, a, b and
// cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c: a and b saturated to
// N bits and packed (a above b), above them the low bits of c.
func (l *fnLower) lowerCvtPackInt(pi *ptx.Instruction, in *Inst, m *mods, ops []*ptx.Operand) {
	in.Op = OpCvtPackInt
	small := map[string]struct {
		bits   uint64
		signed bool
	}{".u4": {4, false}, ".s4": {4, true}, ".u2": {2, false}, ".s2": {2, true}}
	var n uint64
	var signed bool
	for k, v := range small {
		if m.take(k) {
			n, signed = v.bits, v.signed
		}
	}
	types := m.types
	if n == 0 {
		if len(types) == 0 {
			l.errorf(pi.Pos, "cvt.pack needs a conversion type")
			return
		}
		n, signed = uint64(types[0].Bits()), types[0].Signed()
		types = types[1:]
	}
	if !in.Flags.Has(FSat) {
		l.errorf(pi.Pos, "cvt.pack needs .sat")
	}
	in.Imm = n
	in.T = U32
	if signed {
		in.T = S32
	}
	want := 3
	if n <= 8 {
		want = 4
	}
	if len(ops) != want {
		l.errorf(pi.Pos, "cvt.pack with %d-bit values takes %d operands, found %d", n, want, len(ops))
		return
	}
	_ = types
	in.D = l.dst(ops[0])
	in.A, in.B = l.src(ops[1], S32), l.src(ops[2], S32)
	if want == 4 {
		in.C = l.src(ops[3], B32)
	}
}
