package vm

import (
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

// mods is an instruction's dotted modifiers, sorted into what the lowering
// needs. Rest keeps opcode-specific words (".lo", ".wrap", ".bfly", ...).
type mods struct {
	types    []Type
	rnd      uint8
	hasRnd   bool
	intRnd   bool // .rni/.rzi/.rmi/.rpi
	flags    Flags
	space    memspace.Space
	hasSpace bool
	vec      int
	rest     []string
	// cacheHint: .L2::cache_hint, which adds a trailing cache-policy operand.
	cacheHint bool
	// mem: cache operator and eviction priorities (they change nothing
	// functionally; the memory model reads them from InstInfo).
	mem memAttrs
}

// Rounding modes (the values match fpu.Round).
const (
	rndN uint8 = iota
	rndZ
	rndM
	rndP
	rndNA
)

func parseMods(ms []string) mods {
	var m mods
	for _, s := range ms {
		if t, ok := typeNames[s]; ok {
			m.types = append(m.types, t)
			continue
		}
		switch s {
		case ".rn":
			m.rnd, m.hasRnd = rndN, true
		case ".rz":
			m.rnd, m.hasRnd = rndZ, true
		case ".rm":
			m.rnd, m.hasRnd = rndM, true
		case ".rp":
			m.rnd, m.hasRnd = rndP, true
		case ".rna":
			m.rnd, m.hasRnd = rndNA, true
		case ".rni":
			m.rnd, m.hasRnd, m.intRnd = rndN, true, true
		case ".rzi":
			m.rnd, m.hasRnd, m.intRnd = rndZ, true, true
		case ".rmi":
			m.rnd, m.hasRnd, m.intRnd = rndM, true, true
		case ".rpi":
			m.rnd, m.hasRnd, m.intRnd = rndP, true, true
		case ".ftz":
			m.flags |= FFtz
		case ".sat":
			m.flags |= FSat
		case ".satfinite":
			m.flags |= FSatFinite
		case ".approx":
			m.flags |= FApprox
		case ".full":
			m.flags |= FFull
		case ".uni":
			m.flags |= FUni
		case ".cc":
			m.flags |= FCCOut
		case ".volatile":
			m.flags |= FVolatile
		case ".nc":
			m.flags |= FNonCoherent
			m.mem.nonCoherent = true
		case ".aligned":
			m.flags |= FAligned
		case ".relu":
			m.flags |= FRelu
		case ".oob":
			m.flags |= FOob
		case ".global":
			m.space, m.hasSpace = memspace.Global, true
		case ".shared", ".shared::cta", ".shared::cluster":
			m.space, m.hasSpace = memspace.Shared, true
		case ".local":
			m.space, m.hasSpace = memspace.Local, true
		case ".const":
			m.space, m.hasSpace = memspace.Const, true
		case ".param", ".param::entry", ".param::func":
			m.space, m.hasSpace = memspace.Param, true
		case ".v2":
			m.vec = 2
		case ".v4":
			m.vec = 4
		case ".v8":
			m.vec = 8
		case ".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt":
			m.mem.cache = cacheOps[s]
		// Memory-order semantics and scopes change nothing functionally in
		// this model.
		case ".weak", ".relaxed", ".acquire", ".release", ".acq_rel", ".mmio",
			".cta", ".gpu", ".sys", ".cluster", ".sc":
		default:
			if l1, ok := strings.CutPrefix(s, ".L1::"); ok {
				if e, ok := evictions[l1]; ok {
					m.mem.l1Evict = e
				}
				continue
			}
			if l2, ok := strings.CutPrefix(s, ".L2::"); ok {
				if e, ok := evictions[l2]; ok {
					m.mem.l2Evict = e
				}
				m.cacheHint = m.cacheHint || s == ".L2::cache_hint"
				continue
			}
			m.rest = append(m.rest, s)
		}
	}
	return m
}

// has reports whether w is among the opcode-specific modifiers, and removes it.
func (m *mods) take(w string) bool {
	for i, s := range m.rest {
		if s == w {
			m.rest = append(m.rest[:i], m.rest[i+1:]...)
			return true
		}
	}
	return false
}

// takeFirst takes whichever of the words comes first in rest, and
// returns its index in words (-1: none is there).
func (m *mods) takeFirst(words ...string) int {
	for i, s := range m.rest {
		for j, w := range words {
			if s == w {
				m.rest = append(m.rest[:i], m.rest[i+1:]...)
				return j
			}
		}
	}
	return -1
}

// typ returns the i'th type modifier, or TNone.
func (m *mods) typ(i int) Type {
	if i < len(m.types) {
		return m.types[i]
	}
	return TNone
}

func litValue(o *ptx.Operand, t Type) uint64 {
	switch t {
	case F32:
		return f32bits(o)
	case F64:
		return f64bits(o)
	}
	if o.Kind == ptx.OpFloat {
		if o.Double && t.Size() == 4 {
			return f32bits(o)
		}
		return o.Float
	}
	v := uint64(o.Int)
	switch t.Size() {
	case 1:
		v &= 0xff
	case 2:
		v &= 0xffff
	case 4:
		v &= 0xffffffff
	}
	return v
}

// src lowers a source operand of type t to a register offset.
func (l *fnLower) src(o *ptx.Operand, t Type) int32 {
	switch o.Kind {
	case ptx.OpInt, ptx.OpFloat:
		return l.constReg(litValue(o, t))
	case ptx.OpName:
		if o.Neg {
			l.errorf(o.Pos, "'!' applies only to predicate operands")
		}
		if r, ok := l.reg(o.Name); ok {
			if r.pred {
				l.errorf(o.Pos, "predicate %s used where a %s value is expected", o.Name, t)
				return 0
			}
			if r.vec > 0 {
				l.errorf(o.Pos, "vector register %s used where one value is expected (name an element: %s.x)", o.Name, o.Name)
			}
			return r.off
		}
		if o.Name == "WARP_SZ" {
			return l.constReg(WarpSize)
		}
		if s, ok := sregNames[o.Name]; ok {
			return l.sregReg(s)
		}
		if strings.HasPrefix(o.Name, "%envreg") {
			return l.sregReg(srZero)
		}
		if _, ok := clockNames[o.Name]; ok {
			l.errorf(o.Pos, "%s can only be read with mov", o.Name)
			return 0
		}
		if v, ok := l.symAddr(o.Name, o.Pos, false); ok {
			if l.sharedSym(o.Name) {
				return l.sharedSymReg(v)
			}
			return l.constReg(v)
		}
		l.errorf(o.Pos, "unknown register or symbol %s", o.Name)
		return 0
	}
	if o.Kind == ptx.OpRegPlus {
		return l.regPlus(o, t)
	}
	l.errorf(o.Pos, "expected a register or constant operand")
	return 0
}

// sharedSym reports whether name is a shared variable.
func (l *fnLower) sharedSym(name string) bool {
	if s := l.lookupLocal(name); s != nil {
		return s.space == memspace.Shared
	}
	s := l.m.syms[name]
	return s != nil && s.Space == memspace.Shared
}

// sharedSymReg returns a register that holds shared address v of the
// executing block: v in a block of rank 0, v plus the block's slot of the
// shared::cluster window in a cluster (pushFrame adds it).
func (l *fnLower) sharedSymReg(v uint64) int32 {
	if r, ok := l.shsyms[v]; ok {
		return r
	}
	r := l.newReg()
	l.shsyms[v] = r
	l.f.sharedSyms = append(l.f.sharedSyms, sharedSymUse{val: v, reg: r})
	return r
}

// regPlus lowers a register expression `r + imm` (a value operand ptxas
// takes: `st.u64 [a], %rd1 + 1;`) into an add to a fresh register emitted
// before the instruction that reads it, and returns that register. The sum
// is taken at the width of t (the register's own width when t has none);
// the low bits of a sum do not depend on the width it is taken at.
func (l *fnLower) regPlus(o *ptx.Operand, t Type) int32 {
	r, ok := l.reg(o.Name)
	switch {
	case !ok:
		l.errorf(o.Pos, "%s%+d: %s is not a register", o.Name, o.Int, o.Name)
		return 0
	case r.pred || r.vec > 0 || r.t == B128:
		l.errorf(o.Pos, "%s%+d: a register expression needs a scalar integer register", o.Name, o.Int)
		return 0
	case t.Float() || r.t.Float() && t == TNone:
		l.errorf(o.Pos, "%s%+d: a register expression needs an integer or bit type, not %s", o.Name, o.Int, t)
		return 0
	}
	w := t.Size()
	if w == 0 {
		w = r.t.Size()
	}
	add := newInst(OpAdd)
	switch w {
	case 8:
		add.T = U64
	case 4:
		add.T = U32
	default:
		add.T = U16
	}
	add.D, add.A = l.newReg(), r.off
	add.B = l.constReg(uint64(o.Int) & sizeMask(add.T))
	l.emit(add, o.Pos)
	return add.D
}

// symAddr returns the address of a symbol that has a constant address in
// its own space (everything but frame-relative locals). generic converts
// shared addresses into the generic window.
func (l *fnLower) symAddr(name string, pos ptx.Pos, generic bool) (uint64, bool) {
	if s := l.lookupLocal(name); s != nil {
		switch s.space {
		case memspace.Shared:
			if generic {
				return memspace.SharedWindow + s.off, true
			}
			return s.off, true
		case memspace.Param, memspace.FParam:
			return s.off, true
		case memspace.Local:
			l.errorf(pos, "the address of local variable %s is frame-relative; take it with mov", name)
			return 0, true
		}
		return 0, false
	}
	s := l.m.syms[name]
	if s == nil {
		return 0, false
	}
	switch s.Space {
	case memspace.Shared:
		off, ok := l.k.sharedOff[s]
		if !ok {
			l.errorf(pos, "shared variable %s has no place in this kernel's layout", name)
		}
		if generic {
			return memspace.SharedWindow + off, true
		}
		return off, true
	case memspace.Const:
		if generic {
			return l.m.constBank.Base + s.Addr, true
		}
		return s.Addr, true
	}
	return s.Addr, true
}

// dst lowers a destination register operand ("_" is the sink).
func (l *fnLower) dst(o *ptx.Operand) int32 {
	if o.Kind == ptx.OpName {
		if o.Name == "_" {
			return l.sink
		}
		if r, ok := l.reg(o.Name); ok && !r.pred {
			if r.vec > 0 {
				l.errorf(o.Pos, "vector register %s used where one value is expected (name an element: %s.x)", o.Name, o.Name)
			}
			return r.off
		}
		if r, ok := l.reg(o.Name); ok && r.pred {
			l.errorf(o.Pos, "predicate %s used as a value destination", o.Name)
			return l.sink
		}
	}
	l.errorf(o.Pos, "destination must be a register")
	return l.sink
}

// vectorElems returns the elements of a whole vector register operand (ld,
// st and mov of a .v2/.v4 register), or nil.
func (l *fnLower) vectorElems(o *ptx.Operand) []*ptx.Operand {
	if o.Kind != ptx.OpName {
		return nil
	}
	r, ok := l.reg0(o.Name)
	if !ok || r.vec == 0 {
		return nil
	}
	out := make([]*ptx.Operand, r.vec)
	for i := range out {
		out[i] = &ptx.Operand{Pos: o.Pos, Kind: ptx.OpName, Name: o.Name + [4]string{".x", ".y", ".z", ".w"}[i]}
	}
	return out
}

// regType is the declared type of a register operand (TNone otherwise).
func (l *fnLower) regType(o *ptx.Operand) Type {
	if o.Kind == ptx.OpName {
		if r, ok := l.reg(o.Name); ok {
			return r.t
		}
	}
	return TNone
}

// predSrc lowers a predicate source operand. Literal 0/1 become the
// always-false / always-true predicates.
func (l *fnLower) predSrc(o *ptx.Operand) (int32, bool) {
	switch o.Kind {
	case ptx.OpName:
		if r, ok := l.reg(o.Name); ok && r.pred {
			return r.off, o.Neg
		}
		if o.Name == "%is_explicit_cluster" {
			l.errorf(o.Pos, "%%is_explicit_cluster can only be read with mov.pred")
			return l.constPred(), false
		}
	case ptx.OpInt:
		p := l.constPred()
		return p, o.Int == 0
	}
	l.errorf(o.Pos, "expected a predicate register")
	return l.constPred(), false
}

// constPred returns a predicate that is always true.
func (l *fnLower) constPred() int32 {
	if r, ok := l.reg("%<true>"); ok {
		return r.off
	}
	p := l.npreds
	l.npreds++
	l.regs["%<true>"] = regInfo{off: p, t: Pred, pred: true}
	l.f.truePred = p
	l.f.hasTrue = true
	return p
}

func (l *fnLower) predDst(o *ptx.Operand) int32 {
	if o.Kind == ptx.OpName {
		if o.Name == "_" {
			return l.sinkPred()
		}
		if r, ok := l.reg(o.Name); ok && r.pred {
			return r.off
		}
	}
	l.errorf(o.Pos, "destination must be a predicate register")
	return l.sinkPred()
}

func (l *fnLower) sinkPred() int32 {
	if r, ok := l.reg("%<sink>"); ok {
		return r.off
	}
	p := l.npreds
	l.npreds++
	l.regs["%<sink>"] = regInfo{off: p, t: Pred, pred: true}
	return p
}

// address lowers an address operand for an access in space sp. It sets A,
// Off and the address flags of in, and returns the space the access uses
// (kernel vs function parameters are told apart here). Accesses to the
// 32-bit windows (.shared, .local, .const, .param) get FAddr32: the GPU
// sums base and offset modulo 2^32 there.
func (l *fnLower) address(o *ptx.Operand, sp memspace.Space, in *Inst) memspace.Space {
	sp = l.address64(o, sp, in)
	switch sp {
	case memspace.Shared, memspace.Local, memspace.Const, memspace.Param, memspace.FParam:
		in.Flags |= FAddr32
	}
	return sp
}

func (l *fnLower) address64(o *ptx.Operand, sp memspace.Space, in *Inst) memspace.Space {
	if o.Kind != ptx.OpAddress {
		l.errorf(o.Pos, "expected an address [..]")
		return sp
	}
	if sp == memspace.Param && !l.f.Entry {
		sp = memspace.FParam
	}
	in.Off = o.Int
	in.A = NoReg
	if o.Name == "" {
		in.Flags |= FAbsAddr
		return sp
	}
	if r, ok := l.reg(o.Name); ok && !r.pred {
		in.A = r.off
		return sp
	}
	if s := l.lookupLocal(o.Name); s != nil {
		switch s.space {
		case memspace.Local:
			in.Flags |= FLocalRel
			in.Off += int64(s.off)
			if sp == memspace.Generic {
				l.errorf(o.Pos, "generic access to local variable %s by name is not supported", o.Name)
			}
			return sp
		case memspace.FParam, memspace.Param:
			in.Flags |= FAbsAddr
			in.Off += int64(s.off)
			if sp != memspace.Param && sp != memspace.FParam {
				l.errorf(o.Pos, "parameter %s accessed through the %s space", o.Name, sp)
			}
			return s.space
		}
	}
	v, ok := l.symAddr(o.Name, o.Pos, sp == memspace.Generic)
	if !ok {
		l.errorf(o.Pos, "unknown register or symbol %s in address", o.Name)
		return sp
	}
	in.Flags |= FAbsAddr
	in.Off += int64(v)
	return sp
}

// regOperands appends the registers of elems to list: as destinations
// when dst, else as sources of type t.
func (l *fnLower) regOperands(list []int32, elems []*ptx.Operand, dst bool, t Type) []int32 {
	for _, e := range elems {
		if dst {
			list = append(list, l.dst(e))
		} else {
			list = append(list, l.src(e, t))
		}
	}
	return list
}

// setRegList records list as in's register list (Inst.Target, an index
// into Func.RegLists).
func (l *fnLower) setRegList(in *Inst, list []int32) {
	in.Target = int32(len(l.f.RegLists))
	l.f.RegLists = append(l.f.RegLists, list)
}
