package vm

import (
	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

// Atomic operations (Inst.Imm of OpAtom).
const (
	atomAnd uint64 = iota
	atomOr
	atomXor
	atomCas
	atomExch
	atomAdd
	atomInc
	atomDec
	atomMin
	atomMax
)

var atomOps = map[string]uint64{".and": atomAnd, ".or": atomOr, ".xor": atomXor, ".cas": atomCas,
	".exch": atomExch, ".add": atomAdd, ".inc": atomInc, ".dec": atomDec, ".min": atomMin, ".max": atomMax}

// Shuffle modes.
const (
	shflUp uint64 = iota
	shflDown
	shflBfly
	shflIdx
)

// Vote modes.
const (
	voteAll uint64 = iota
	voteAny
	voteUni
	voteBallot
)

// Warp reductions (redux.sync).
const (
	reduxAdd uint64 = iota
	reduxMin
	reduxMax
	reduxAnd
	reduxOr
	reduxXor
)

// Barrier reductions (Inst.BoolOp of a bar.red).
const (
	barRedPopc uint8 = iota + 1
	barRedAnd
	barRedOr
)

// takeOne removes the first modifier of m.rest found in table.
func takeOne(m *mods, table map[string]uint64) (uint64, bool) {
	for i, s := range m.rest {
		if v, ok := table[s]; ok {
			m.rest = append(m.rest[:i], m.rest[i+1:]...)
			return v, true
		}
	}
	return 0, false
}

// lowerAtom lowers atom (with a destination) and red (without).
func (l *fnLower) lowerAtom(pi *ptx.Instruction, in *Inst, m *mods) bool {
	op, ok := takeOne(m, atomOps)
	if !ok {
		l.errorf(pi.Pos, "%s needs an operation (.add, .min, .max, .inc, .dec, .and, .or, .xor, .exch, .cas)", pi.Opcode)
		return false
	}
	m.take(".noftz")
	in.Op = OpAtom
	in.Imm = op
	t := m.typ(0)
	if t == TNone {
		l.errorf(pi.Pos, "%s needs a type", pi.Opcode)
		return false
	}
	in.T = t
	if m.vec != 0 {
		return l.lowerVecAtom(pi, in, m, op)
	}
	sp := memspace.Generic
	if m.hasSpace {
		sp = m.space
	}
	if sp != memspace.Generic && sp != memspace.Global && sp != memspace.Shared {
		l.errorf(pi.Pos, "atomics apply to global, shared or generic addresses, not %s", sp)
		return false
	}
	ops := pi.Operands
	// Drop a trailing cache-policy operand (a 64-bit register after the values).
	want := 3
	if pi.Opcode == "red" {
		want = 2
	}
	if op == atomCas {
		want++
	}
	if m.cacheHint && len(ops) == want+1 {
		ops = ops[:want]
	}
	if len(ops) != want {
		l.errorf(pi.Pos, "%s%s takes %d operands, found %d", pi.Opcode, map[bool]string{true: ".cas", false: ""}[op == atomCas], want, len(ops))
		return false
	}
	if pi.Opcode == "atom" {
		in.D = l.dst(ops[0])
		ops = ops[1:]
	}
	in.Space = l.address(ops[0], sp, in)
	in.B = l.src(ops[1], t)
	if op == atomCas {
		in.C = l.src(ops[2], t)
	}
	return true
}

func (l *fnLower) membermask(o *ptx.Operand) int32 { return l.src(o, B32) }

func (l *fnLower) lowerShfl(pi *ptx.Instruction, in *Inst, m *mods) bool {
	sync := m.take(".sync")
	mode, ok := takeOne(m, map[string]uint64{".up": shflUp, ".down": shflDown, ".bfly": shflBfly, ".idx": shflIdx})
	if !ok {
		l.errorf(pi.Pos, "shfl needs a mode (.up, .down, .bfly, .idx)")
		return false
	}
	want := 4
	if sync {
		want = 5
	}
	ops := pi.Operands
	if len(ops) != want {
		l.errorf(pi.Pos, "shfl takes %d operands, found %d", want, len(ops))
		return false
	}
	in.Op, in.Imm = OpShfl, mode
	in.D = l.dst(ops[0])
	if ops[0].Pair != "" {
		in.D2 = l.predDst(&ptx.Operand{Pos: ops[0].Pos, Kind: ptx.OpName, Name: ops[0].Pair})
	}
	in.A, in.B, in.C = l.src(ops[1], B32), l.src(ops[2], B32), l.src(ops[3], B32)
	if sync {
		in.V[0] = l.membermask(ops[4])
	} else {
		in.V[0] = l.constReg(0xffffffff)
	}
	return true
}

func (l *fnLower) lowerVote(pi *ptx.Instruction, in *Inst, m *mods) bool {
	sync := m.take(".sync")
	mode, ok := takeOne(m, map[string]uint64{".all": voteAll, ".any": voteAny, ".uni": voteUni, ".ballot": voteBallot})
	if !ok && m.flags&FUni != 0 { // parseMods took ".uni" for the branch modifier
		mode, ok = voteUni, true
		m.flags &^= FUni
		in.Flags &^= FUni
	}
	if !ok {
		l.errorf(pi.Pos, "vote needs a mode (.all, .any, .uni, .ballot)")
		return false
	}
	ops := pi.Operands
	want := 2
	if sync {
		want = 3
	}
	if len(ops) != want {
		l.errorf(pi.Pos, "vote takes %d operands, found %d", want, len(ops))
		return false
	}
	in.Op, in.Imm = OpVote, mode
	if mode == voteBallot {
		in.D = l.dst(ops[0])
	} else {
		in.D = l.predDst(ops[0])
	}
	p, neg := l.predSrc(ops[1])
	in.A = p
	if neg {
		in.Flags |= FNeg2
	}
	if sync {
		in.B = l.membermask(ops[2])
	} else {
		in.B = l.constReg(0xffffffff)
	}
	return true
}

func (l *fnLower) lowerMatch(pi *ptx.Instruction, in *Inst, m *mods) bool {
	m.take(".sync")
	in.Op = OpMatch
	switch {
	case m.take(".any"):
	case m.take(".all"):
		in.Imm = 1
	default:
		l.errorf(pi.Pos, "match needs .any or .all")
		return false
	}
	ops := pi.Operands
	if len(ops) != 3 {
		l.errorf(pi.Pos, "match takes 3 operands, found %d", len(ops))
		return false
	}
	in.D = l.dst(ops[0])
	if ops[0].Pair != "" {
		in.D2 = l.predDst(&ptx.Operand{Pos: ops[0].Pos, Kind: ptx.OpName, Name: ops[0].Pair})
	}
	in.A = l.src(ops[1], in.T)
	in.B = l.membermask(ops[2])
	return true
}

func (l *fnLower) lowerRedux(pi *ptx.Instruction, in *Inst, m *mods) bool {
	m.take(".sync")
	op, ok := takeOne(m, map[string]uint64{".add": reduxAdd, ".min": reduxMin, ".max": reduxMax, ".and": reduxAnd, ".or": reduxOr, ".xor": reduxXor})
	if !ok {
		l.errorf(pi.Pos, "redux needs an operation")
		return false
	}
	ops := pi.Operands
	if len(ops) != 3 {
		l.errorf(pi.Pos, "redux takes 3 operands, found %d", len(ops))
		return false
	}
	in.Op, in.Imm = OpRedux, op
	in.D = l.dst(ops[0])
	in.A = l.src(ops[1], in.T)
	in.B = l.membermask(ops[2])
	return true
}

func (l *fnLower) lowerElect(pi *ptx.Instruction, in *Inst, m *mods) bool {
	m.take(".sync")
	ops := pi.Operands
	if len(ops) != 2 {
		l.errorf(pi.Pos, "elect.sync takes 2 operands (d|p, membermask), found %d", len(ops))
		return false
	}
	in.Op = OpElect
	in.D = l.dst(ops[0])
	if ops[0].Pair != "" {
		in.D2 = l.predDst(&ptx.Operand{Pos: ops[0].Pos, Kind: ptx.OpName, Name: ops[0].Pair})
	}
	in.A = l.membermask(ops[1])
	return true
}

// lowerVecAtom lowers the sm_90 vector forms (atom/red .v2/.v4/.v8 on f32,
// f16, bf16 and their pairs): each element is an atomic of its own on
// consecutive addresses. The register list lives in Func.RegLists[Target].
func (l *fnLower) lowerVecAtom(pi *ptx.Instruction, in *Inst, m *mods, op uint64) bool {
	if op != atomAdd && op != atomMin && op != atomMax {
		l.errorf(pi.Pos, "vector atomics support .add, .min and .max")
		return false
	}
	ops := pi.Operands
	want := 3
	if pi.Opcode == "red" {
		want = 2
	}
	if m.cacheHint && len(ops) == want+1 {
		ops = ops[:want]
	}
	if len(ops) != want {
		l.errorf(pi.Pos, "%s takes %d operands, found %d", pi.Opcode, want, len(ops))
		return false
	}
	sp := memspace.Generic
	if m.hasSpace {
		sp = m.space
	}
	var list []int32
	in.Vec = uint8(m.vec)
	if pi.Opcode == "atom" {
		if ops[0].Kind != ptx.OpVector || len(ops[0].Elems) != m.vec {
			l.errorf(ops[0].Pos, "%s.v%d needs a vector of %d destinations", pi.Opcode, m.vec, m.vec)
			return false
		}
		for _, e := range ops[0].Elems {
			list = append(list, l.dst(e))
		}
		ops = ops[1:]
	} else {
		in.D = NoReg
		for i := 0; i < m.vec; i++ {
			list = append(list, l.sink)
		}
	}
	if ops[1].Kind != ptx.OpVector || len(ops[1].Elems) != m.vec {
		l.errorf(ops[1].Pos, "%s.v%d needs a vector of %d values", pi.Opcode, m.vec, m.vec)
		return false
	}
	for _, e := range ops[1].Elems {
		list = append(list, l.src(e, in.T))
	}
	in.Space = l.address(ops[0], sp, in)
	l.setRegList(in, list)
	if pi.Opcode == "atom" {
		in.D = list[0]
	}
	in.B = list[m.vec]
	return true
}
