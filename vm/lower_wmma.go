package vm

import (
	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

// Lowering of wmma (exec_wmma.go executes it): every shape and type nvcc
// emits for nvcuda::wmma on sm_80/sm_90:
//
//	wmma.load.{a,b}.sync.aligned.{row,col}.shape{.global,.shared,}.atype  {regs}, [p]{, stride}
//	wmma.load.c.sync.aligned.{row,col}.shape{.global,.shared,}.ctype      {regs}, [p]{, stride}
//	wmma.mma{.op.popc}.sync.aligned.{row,col}.{row,col}.shape{.rnd}.types{.satfinite} d, a, b, c
//	wmma.store.d.sync.aligned.{row,col}.shape{.global,.shared,}.dtype     [p], {regs}{, stride}
//
// with the shapes and types
//
//	.m16n16k16 .m32n8k16 .m8n32k16  .f16 (f16 or f32 accumulator), .bf16, .s8, .u8
//	.m16n16k8                       .tf32
//	.m8n8k4                         .f64 (wmma.mma with .rn/.rz/.rm/.rp)
//	.m8n8k32                        .s4, .u4 (.row.col)
//	.m8n8k128                       .b1 (.and.popc, .xor.popc; .row.col)
//
// OpWmmaLoad / OpWmmaStore: A+Off the matrix's address, B the stride in
// elements (NoReg: the shape's), FTrans the .col layout, T the element's
// Type where it has one, Imm the packed WmmaForm (Inst.Wmma: the matrix
// 0 a, 1 b, 2 c, 3 d, the shape and the element format), Target the
// register list. OpWmmaMma: Imm the packed WmmaForm (shape, A, C and D
// formats, rounding, .xor), FSatFinite, Target the registers d, a, b, c.

// WmmaShape is a wmma shape.
type WmmaShape uint8

// The wmma shapes.
const (
	WmmaM16N16K16 WmmaShape = iota
	WmmaM32N8K16
	WmmaM8N32K16
	WmmaM16N16K8
	WmmaM8N8K4
	WmmaM8N8K32
	WmmaM8N8K128
	numWmmaShapes
)

var wmmaShapes = [numWmmaShapes]struct {
	name    string
	m, n, k int
}{{".m16n16k16", 16, 16, 16}, {".m32n8k16", 32, 8, 16}, {".m8n32k16", 8, 32, 16}, {".m16n16k8", 16, 16, 8},
	{".m8n8k4", 8, 8, 4}, {".m8n8k32", 8, 8, 32}, {".m8n8k128", 8, 8, 128}}

// MNK is the shape's dimensions.
func (s WmmaShape) MNK() (m, n, k int) {
	d := wmmaShapes[s%numWmmaShapes]
	return d.m, d.n, d.k
}

// WmmaForm describes one wmma instruction.
type WmmaForm struct {
	Kind  int // load/store: 0 a, 1 b, 2 c, 3 d; 4 mma
	Shape WmmaShape
	Elem  MmaElem // load/store: the fragment's element format
	// mma: the A/B, C and D formats, the rounding of .f64 (0 none, 1 .rn,
	// 2 .rz, 3 .rm, 4 .rp) and b1's .xor.
	A, C, D MmaElem
	Rnd     uint8
	Xor     bool
}

func (f WmmaForm) imm() uint64 {
	v := uint64(f.Kind&7) | uint64(f.Shape&15)<<4 | uint64(f.Elem&15)<<8 | uint64(f.A&15)<<12 |
		uint64(f.C&15)<<16 | uint64(f.D&15)<<20 | uint64(f.Rnd&7)<<24
	if f.Xor {
		v |= 1 << 27
	}
	return v
}

// Wmma decodes an OpWmmaLoad, OpWmmaStore or OpWmmaMma's form.
func (in *Inst) Wmma() WmmaForm {
	v := in.Imm
	return WmmaForm{Kind: int(v & 7), Shape: WmmaShape(v >> 4 & 15), Elem: MmaElem(v >> 8 & 15), A: MmaElem(v >> 12 & 15),
		C: MmaElem(v >> 16 & 15), D: MmaElem(v >> 20 & 15), Rnd: uint8(v >> 24 & 7), Xor: v>>27&1 != 0}
}

// wmmaRegCount is the registers of a fragment: matrix kind (0 a, 1 b, 2
// c or d) of shape s with elements e (0: not a valid combination).
func wmmaRegCount(s WmmaShape, kind int, e MmaElem) int {
	m, n, k := s.MNK()
	switch {
	case kind >= 2 && e == MmaF16:
		return 4
	case kind >= 2 && e == MmaF64:
		return m * n / 32
	case kind >= 2 && (e == MmaF32 || e == MmaS32):
		return m * n / 32
	case kind < 2 && e == MmaF16:
		return 8 // every shape: eight f16x2 registers
	case kind < 2 && e == MmaF64:
		return 1
	}
	el := m * k
	if kind == 1 {
		el = k * n
	}
	return el * e.Bits() / 32 / 32
}

// wmmaTypesValid reports whether shape s takes multiplicands a with
// accumulators c and d.
func wmmaTypesValid(s WmmaShape, a, c, d MmaElem) bool {
	switch s {
	case WmmaM16N16K16, WmmaM32N8K16, WmmaM8N32K16:
		switch a {
		case MmaF16:
			return (c == MmaF16 || c == MmaF32) && (d == MmaF16 || d == MmaF32)
		case MmaBF16:
			return c == MmaF32 && d == MmaF32
		case MmaS8, MmaU8:
			return c == MmaS32 && d == MmaS32
		}
	case WmmaM16N16K8:
		return a == MmaTF32 && c == MmaF32 && d == MmaF32
	case WmmaM8N8K4:
		return a == MmaF64 && c == MmaF64 && d == MmaF64
	case WmmaM8N8K32:
		return (a == MmaS4 || a == MmaU4) && c == MmaS32 && d == MmaS32
	case WmmaM8N8K128:
		return a == MmaB1 && c == MmaS32 && d == MmaS32
	}
	return false
}

// lowerWmma lowers wmma into in.
func (l *fnLower) lowerWmma(pi *ptx.Instruction, in *Inst, m *mods) bool {
	kind := -1
	switch {
	case m.take(".load"):
		for i, s := range [3]string{".a", ".b", ".c"} {
			if m.take(s) {
				kind = i
			}
		}
	case m.take(".store"):
		if m.take(".d") {
			kind = 3
		}
	case m.take(".mma"):
		kind = 4
	}
	if kind < 0 {
		l.errorf(pi.Pos, "wmma: only wmma.load.a/.b/.c, wmma.mma and wmma.store.d are supported")
		return false
	}
	wf := WmmaForm{Kind: kind}
	bop := 0 // b1's operation: 1 .and, 2 .xor
	if kind == 4 {
		switch {
		case m.take(".and"):
			bop = 1
		case m.take(".xor"):
			bop = 2
		}
		if bop != 0 && !m.take(".popc") {
			l.errorf(pi.Pos, "wmma.mma: .and/.xor go with .popc")
			return false
		}
		wf.Xor = bop == 2
	}
	if !m.take(".sync") || m.flags&FAligned == 0 {
		l.errorf(pi.Pos, "wmma needs .sync.aligned")
		return false
	}
	var lay [2]bool // .col
	nl := 1
	if kind == 4 {
		nl = 2
	}
	for i := 0; i < nl; i++ {
		switch m.takeFirst(".row", ".col") {
		case 0:
		case 1:
			lay[i] = true
		default:
			l.errorf(pi.Pos, "wmma needs a layout (.row or .col) for each matrix")
			return false
		}
	}
	found := false
	for s := range wmmaShapes {
		if m.take(wmmaShapes[s].name) {
			wf.Shape, found = WmmaShape(s), true
			break
		}
	}
	if !found {
		l.errorf(pi.Pos, "wmma: unknown shape (.m16n16k16, .m32n8k16, .m8n32k16, .m16n16k8, .m8n8k4, .m8n8k32, .m8n8k128)")
		return false
	}
	var elems []MmaElem
	for _, s := range pi.Mods {
		if e, ok := mmaElemOf(s); ok {
			elems = append(elems, e)
		}
	}
	m.types = m.types[:0]
	for _, e := range elems {
		m.take(e.String())
	}
	if m.hasRnd {
		if kind != 4 || wf.Shape != WmmaM8N8K4 || m.rnd > rndP {
			l.errorf(pi.Pos, "wmma: a rounding modifier is only for the .f64 wmma.mma (.rn, .rz, .rm, .rp)")
			return false
		}
		wf.Rnd = m.rnd + 1
	}
	if m.flags&^(FAligned|FSatFinite) != 0 || m.vec != 0 || len(m.rest) != 0 || m.flags&FSatFinite != 0 && kind != 4 {
		l.errorf(pi.Pos, "unsupported modifier on wmma%s", joinMods(pi.Mods))
		return false
	}
	ops := pi.Operands
	g, gn := in.Guard, in.GuardNeg
	if kind == 4 {
		var a, c, d MmaElem
		switch len(elems) {
		case 2: // .dtype.ctype (f16 multiplicands)
			a, d, c = MmaF16, elems[0], elems[1]
		case 4:
			if elems[1] != elems[2] {
				l.errorf(pi.Pos, "wmma.mma: A and B have the same type")
				return false
			}
			d, a, c = elems[0], elems[1], elems[3]
		default:
			l.errorf(pi.Pos, "wmma.mma needs .dtype.ctype or .dtype.atype.btype.ctype")
			return false
		}
		if !wmmaTypesValid(wf.Shape, a, c, d) {
			l.errorf(pi.Pos, "wmma.mma: %s does not take %s multiplicands with %s/%s accumulators", wmmaShapes[wf.Shape].name, a, d, c)
			return false
		}
		sat := m.flags&FSatFinite != 0
		if sat && a != MmaS8 && a != MmaU8 && a != MmaS4 && a != MmaU4 {
			l.errorf(pi.Pos, "wmma.mma: .satfinite is for the 8- and 4-bit integer forms")
			return false
		}
		if (a == MmaB1) != (bop != 0) {
			l.errorf(pi.Pos, "wmma.mma: .b1 needs .xor.popc or .and.popc (and only .b1 takes them)")
			return false
		}
		if (a == MmaS4 || a == MmaU4 || a == MmaB1) && (lay[0] || !lay[1]) {
			l.errorf(pi.Pos, "wmma.mma: the sub-byte forms are .row.col")
			return false
		}
		wf.A, wf.C, wf.D = a, c, d
		*in = newInst(OpWmmaMma)
		in.Guard, in.GuardNeg, in.Flags, in.T, in.T2 = g, gn, FAligned|m.flags&FSatFinite, mmaTypeOf(d), mmaTypeOf(a)
		in.Imm = wf.imm()
		if len(ops) != 4 {
			l.errorf(pi.Pos, "wmma.mma takes 4 operands (d, a, b, c), found %d", len(ops))
			return false
		}
		counts := [4]int{wmmaRegCount(wf.Shape, 3, d), wmmaRegCount(wf.Shape, 0, a), wmmaRegCount(wf.Shape, 1, a),
			wmmaRegCount(wf.Shape, 2, c)}
		list := make([]int32, 0, counts[0]+counts[1]+counts[2]+counts[3])
		for i, o := range ops {
			rt := B32
			if (i == 0 && d == MmaF64) || (i == 3 && c == MmaF64) || ((i == 1 || i == 2) && a == MmaF64) {
				rt = B64
			}
			elems := l.wmmaRegs(o, "dabc"[i], counts[i])
			if elems == nil {
				return false
			}
			list = l.regOperands(list, elems, i == 0, rt)
		}
		l.setRegList(in, list)
		return true
	}
	if len(elems) != 1 {
		l.errorf(pi.Pos, "wmma.%s needs one element type", [4]string{"load.a", "load.b", "load.c", "store.d"}[kind])
		return false
	}
	e := elems[0]
	n := wmmaRegCount(wf.Shape, kind, e)
	ok := n > 0
	if ok {
		switch kind {
		case 0, 1:
			ok = wmmaTypesValid(wf.Shape, e, wmmaAccOf(wf.Shape, e), wmmaAccOf(wf.Shape, e))
		default:
			ok = e == MmaF16 && wmmaTypesValid(wf.Shape, MmaF16, e, e) || wmmaTypesValid(wf.Shape, wmmaMulOf(wf.Shape, e), e, e)
		}
	}
	if !ok {
		l.errorf(pi.Pos, "wmma.%s: %s fragments are not defined for %s",
			[4]string{"load.a", "load.b", "load.c", "store.d"}[kind], e, wmmaShapes[wf.Shape].name)
		return false
	}
	if kind < 2 && (e == MmaS4 || e == MmaU4 || e == MmaB1) && lay[0] != (kind == 1) {
		l.errorf(pi.Pos, "wmma: the sub-byte fragments are A .row and B .col")
		return false
	}
	wf.Elem = e
	sp := memspace.Generic
	if m.hasSpace {
		sp = m.space
		if sp != memspace.Global && sp != memspace.Shared {
			l.errorf(pi.Pos, "wmma accesses .global, .shared or generic memory")
			return false
		}
	}
	load := kind < 3
	*in = newInst(OpWmmaStore)
	if load {
		in.Op = OpWmmaLoad
	}
	in.Guard, in.GuardNeg, in.Flags, in.T, in.Imm = g, gn, FAligned, mmaTypeOf(e), wf.imm()
	if lay[0] {
		in.Flags |= FTrans
	}
	if len(ops) != 2 && len(ops) != 3 {
		l.errorf(pi.Pos, "wmma.%s takes 2 or 3 operands, found %d", [2]string{"store", "load"}[b2i(load)], len(ops))
		return false
	}
	regs, addr := ops[0], ops[1]
	if !load {
		regs, addr = ops[1], ops[0]
	}
	in.Space = l.address(addr, sp, in)
	in.B = NoReg
	if len(ops) == 3 {
		in.B = l.src(ops[2], U32)
	}
	elemOps := l.wmmaRegs(regs, 'r', n)
	if elemOps == nil {
		return false
	}
	rt := B32
	if e == MmaF64 {
		rt = B64
	}
	l.setRegList(in, l.regOperands(make([]int32, 0, n), elemOps, load, rt))
	return true
}

// wmmaAccOf is an accumulator format that goes with multiplicands e.
func wmmaAccOf(s WmmaShape, e MmaElem) MmaElem {
	switch e {
	case MmaF16, MmaBF16, MmaTF32:
		return MmaF32
	case MmaF64:
		return MmaF64
	}
	return MmaS32
}

// wmmaMulOf is a multiplicand format that goes with accumulators e.
func wmmaMulOf(s WmmaShape, e MmaElem) MmaElem {
	switch {
	case e == MmaF64:
		return MmaF64
	case e == MmaF32 && s == WmmaM16N16K8:
		return MmaTF32
	case e == MmaF32:
		return MmaF16
	case s == WmmaM8N8K32:
		return MmaS4
	case s == WmmaM8N8K128:
		return MmaB1
	}
	return MmaS8
}

// wmmaRegs is the n registers of a wmma fragment operand (nil after an
// error).
func (l *fnLower) wmmaRegs(o *ptx.Operand, name byte, n int) []*ptx.Operand {
	elems := []*ptx.Operand{o}
	if o.Kind == ptx.OpVector {
		elems = o.Elems
	} else if ve := l.vectorElems(o); ve != nil {
		elems = ve
	}
	if len(elems) != n {
		l.errorf(o.Pos, "wmma: fragment %c needs %d registers, found %d", name, n, len(elems))
		return nil
	}
	return elems
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
