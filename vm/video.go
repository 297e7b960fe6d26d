package vm

import (
	"math/bits"
	"strings"

	"github.com/ptxvm/ptxvm/ptx"
)

// The scalar video instructions: vadd, vsub, vabsdiff, vmin, vmax, vshl,
// vshr, vmad, vset (PTX ISA "Scalar Video Instructions"). Each takes a byte
// or half-word of its 32-bit operands (selectors .b0-.b3, .h0, .h1 written
// after a register), sign- or zero-extended by the operand's type, computes
// at full precision, optionally saturates, and then either applies a
// secondary operation with c (.add, .min, .max) or merges the result into
// a byte or half-word of c (d.b0 ... d.h1). They are lowered to OpVideo1
// with the whole form in Inst.Imm (a videoCtl). sm_90 has no video unit:
// ptxas expands each into integer instructions, and where that expansion
// departs from the ISA's pseudocode (a 32-bit sum sign-extended before a
// secondary min/max, unsigned saturation that only clamps below, a
// half-word merge into .h1 that keeps the result's upper half, vmad's c
// always sign-extended, shifts kept at 34 bits before saturation) the
// GPU's answers follow the expansion, and so does videoLane.

// videoCtl is a scalar video instruction's form: the operation, the
// selectors, the operand types' signedness and the modifiers.
type videoCtl uint64

// Scalar video operations.
const (
	vidAdd uint64 = iota
	vidSub
	vidAbsdiff
	vidMin
	vidMax
	vidShl
	vidShr
	vidMad
	vidSet
)

// Selectors (none: the whole word).
const (
	selNone uint64 = iota
	selB0
	selB1
	selB2
	selB3
	selH0
	selH1
)

// Secondary operations.
const (
	op2None uint64 = iota
	op2Add
	op2Min
	op2Max
)

const (
	vcOp      = 0  // 4 bits: vidAdd ...
	vcASel    = 4  // 3 bits: selNone ...
	vcBSel    = 7  // 3 bits
	vcDSel    = 10 // 3 bits: the merge destination's selector
	vcOp2     = 13 // 2 bits: op2None ...
	vcASigned = 15
	vcBSigned = 16
	vcDSigned = 17
	vcSat     = 18
	vcClamp   = 19 // vshl/vshr: .clamp (else .wrap)
	vcNegAB   = 20 // vmad: the product is negated (exactly one of a, b)
	vcNegC    = 21 // vmad: c is negated
	vcPO      = 22 // vmad: .po (plus one)
	vcScale   = 23 // 2 bits: vmad's right shift (0, 7, 15)
	vcCmp     = 25 // 3 bits: vset's comparison (CmpEq ... CmpGe)
)

func (v videoCtl) field(shift, width uint) uint64 { return uint64(v) >> shift & (1<<width - 1) }
func (v videoCtl) flag(shift uint) bool           { return uint64(v)>>shift&1 != 0 }

// Op is the operation (vidAdd ...).
func (v videoCtl) Op() uint64 { return v.field(vcOp, 4) }

// ASel, BSel and DSel are the selectors of a, b and of the merge destination.
func (v videoCtl) ASel() uint64 { return v.field(vcASel, 3) }
func (v videoCtl) BSel() uint64 { return v.field(vcBSel, 3) }
func (v videoCtl) DSel() uint64 { return v.field(vcDSel, 3) }

// Op2 is the secondary operation with c (op2None ...).
func (v videoCtl) Op2() uint64 { return v.field(vcOp2, 2) }

// Shift is vmad's scale (0, 7 or 15).
func (v videoCtl) Shift() uint {
	return [4]uint{0, 7, 15, 0}[v.field(vcScale, 2)]
}

// Cmp is vset's comparison.
func (v videoCtl) Cmp() uint8 { return uint8(v.field(vcCmp, 3)) }

var videoOps = map[string]uint64{
	"vadd": vidAdd, "vsub": vidSub, "vabsdiff": vidAbsdiff, "vmin": vidMin, "vmax": vidMax,
	"vshl": vidShl, "vshr": vidShr, "vmad": vidMad, "vset": vidSet,
}

var videoSels = map[string]uint64{".b0": selB0, ".b1": selB1, ".b2": selB2, ".b3": selB3, ".h0": selH0, ".h1": selH1}

// videoOperand splits a video operand into its register and selector.
func (l *fnLower) videoOperand(o *ptx.Operand, dst bool) (int32, uint64) {
	sel := selNone
	if o.Kind == ptx.OpName {
		if _, ok := l.reg(o.Name); !ok {
			if i := strings.LastIndexByte(o.Name, '.'); i > 0 {
				if s, ok := videoSels[o.Name[i:]]; ok {
					cp := *o
					cp.Name = o.Name[:i]
					o, sel = &cp, s
				}
			}
		}
	}
	if o.Minus {
		cp := *o
		cp.Minus = false
		o = &cp
	}
	if dst {
		return l.dst(o), sel
	}
	return l.src(o, B32), sel
}

// lowerVideo1 lowers a scalar video instruction.
func (l *fnLower) lowerVideo1(pi *ptx.Instruction, in *Inst, m *mods) bool {
	op := videoOps[pi.Opcode]
	ctl := op << vcOp
	ops := pi.Operands
	set := func(shift uint, on bool) {
		if on {
			ctl |= 1 << shift
		}
	}
	// Types: vset.atype.btype, vshl/vshr.dtype.atype.u32, others d.a.b.
	types := m.types
	want := 3
	if op == vidSet {
		want = 2
	}
	if len(types) != want {
		l.errorf(pi.Pos, "%s needs %d types (.u32 or .s32), found %d", pi.Opcode, want, len(types))
		return false
	}
	for _, t := range types {
		if t != U32 && t != S32 {
			l.errorf(pi.Pos, "%s: operand types are .u32 or .s32, not %s", pi.Opcode, t)
			return false
		}
	}
	if op == vidSet {
		set(vcASigned, types[0] == S32)
		set(vcBSigned, types[1] == S32)
		cmp, ok := takeOne(m, map[string]uint64{".eq": uint64(CmpEq), ".ne": uint64(CmpNe), ".lt": uint64(CmpLt),
			".le": uint64(CmpLe), ".gt": uint64(CmpGt), ".ge": uint64(CmpGe)})
		if !ok {
			l.errorf(pi.Pos, "vset needs a comparison (.eq, .ne, .lt, .le, .gt, .ge)")
			return false
		}
		ctl |= cmp << vcCmp
	} else {
		set(vcDSigned, types[0] == S32)
		set(vcASigned, types[1] == S32)
		set(vcBSigned, types[2] == S32)
	}
	set(vcSat, in.Flags&FSat != 0)
	in.Flags &^= FSat
	switch op {
	case vidShl, vidShr:
		if types[2] != U32 {
			l.errorf(pi.Pos, "%s: the shift amount's type is .u32", pi.Opcode)
		}
		switch {
		case m.take(".clamp"):
			ctl |= 1 << vcClamp
		case m.take(".wrap"):
		default:
			l.errorf(pi.Pos, "%s needs .clamp or .wrap", pi.Opcode)
		}
	case vidMad:
		set(vcPO, m.take(".po"))
		if m.take(".shr7") {
			ctl |= 1 << vcScale
		} else if m.take(".shr15") {
			ctl |= 2 << vcScale
		}
	}
	if op != vidMad {
		if o2, ok := takeOne(m, map[string]uint64{".add": op2Add, ".min": op2Min, ".max": op2Max}); ok {
			ctl |= o2 << vcOp2
		}
	}
	n := 3
	if op == vidMad || videoCtl(ctl).Op2() != op2None {
		n = 4
	}
	if len(ops) == 4 && op != vidMad && videoCtl(ctl).Op2() == op2None {
		n = 4 // d.dsel, a, b, c: a merge
	}
	if len(ops) != n {
		l.errorf(pi.Pos, "%s takes %d operands, found %d", pi.Opcode, n, len(ops))
		return false
	}
	var dsel, asel, bsel uint64
	in.D, dsel = l.videoOperand(ops[0], true)
	in.A, asel = l.videoOperand(ops[1], false)
	in.B, bsel = l.videoOperand(ops[2], false)
	if n == 4 {
		var csel uint64
		in.C, csel = l.videoOperand(ops[3], false)
		if csel != selNone {
			l.errorf(ops[3].Pos, "%s: c takes no selector", pi.Opcode)
		}
	}
	if dsel != selNone && (n != 4 || op == vidMad || videoCtl(ctl).Op2() != op2None) {
		l.errorf(ops[0].Pos, "%s: a destination selector needs the merge form d.sel, a, b, c", pi.Opcode)
	}
	if op == vidMad {
		if dsel != selNone {
			l.errorf(ops[0].Pos, "vmad takes no destination selector")
		}
		if ops[1].Minus != ops[2].Minus {
			ctl |= 1 << vcNegAB
		}
		set(vcNegC, ops[3].Minus)
		if videoCtl(ctl).flag(vcPO) && (ops[1].Minus || ops[2].Minus || ops[3].Minus) {
			l.errorf(pi.Pos, "vmad.po takes no negated operands")
		}
	} else {
		for _, o := range ops {
			if o.Minus {
				l.errorf(o.Pos, "only vmad takes negated operands")
			}
		}
	}
	ctl |= asel<<vcASel | bsel<<vcBSel | dsel<<vcDSel
	in.Op = OpVideo1
	in.T, in.T2 = TNone, TNone
	in.Imm = ctl
	return true
}

// selectPart extracts a's byte or half-word sel, sign- or zero-extended.
func selectPart(a uint64, sel uint64, signed bool) int64 {
	var v uint64
	var w int
	switch sel {
	case selB0, selB1, selB2, selB3:
		v, w = a>>(8*(sel-selB0))&0xff, 8
	case selH0, selH1:
		v, w = a>>(16*(sel-selH0))&0xffff, 16
	default:
		v, w = a&0xffffffff, 32
	}
	if signed {
		return sext(v, w)
	}
	return int64(v)
}

// videoSat clamps v to the range of the part of d that sel names.
func videoSat(v int64, signed bool, sel uint64) int64 {
	w := 32
	switch sel {
	case selB0, selB1, selB2, selB3:
		w = 8
	case selH0, selH1:
		w = 16
	}
	lo, hi := int64(0), int64(1)<<w-1
	if signed {
		lo, hi = -(int64(1) << (w - 1)), int64(1)<<(w-1)-1
	}
	return min(max(v, lo), hi)
}

// videoMerge writes v into the part sel of c.
func videoMerge(v int64, c uint64, sel uint64) uint64 {
	switch sel {
	case selB0, selB1, selB2, selB3:
		sh := 8 * (sel - selB0)
		return c&^(0xff<<sh) | (uint64(v)&0xff)<<sh
	case selH0, selH1:
		sh := 16 * (sel - selH0)
		return c&^(0xffff<<sh) | (uint64(v)&0xffff)<<sh
	}
	return uint64(v)
}

// execVideo1 executes a scalar video instruction (OpVideo1).
func execVideo1(in *Inst, f *frame, exec uint32) {
	v := videoCtl(in.Imm)
	d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
	c := a
	if in.C != NoReg {
		c = f.r(in.C)
	}
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		d[l] = videoLane(v, a[l], b[l], c[l]) & 0xffffffff
	}
}

// videoLane is one lane of a scalar video instruction. It follows what
// ptxas's expansion into integer instructions computes (sm_90 has no video
// unit), recorded on the GPU for every form of testdata/conformance/issue7
// (video): where that differs from the PTX ISA's pseudocode, the expansion
// wins (see the README's Limitations).
func videoLane(v videoCtl, a, b, c uint64) uint64 {
	op := v.Op()
	ta := selectPart(a, v.ASel(), v.flag(vcASigned))
	tb := selectPart(b, v.BSel(), v.flag(vcBSigned))
	if op == vidMad {
		return vmadLane(v, ta, tb, c)
	}
	dsigned := v.flag(vcDSigned)
	var t int64
	switch op {
	case vidAdd:
		t = ta + tb
	case vidSub:
		t = ta - tb
	case vidAbsdiff:
		t = ta - tb
		if t < 0 {
			t = -t
		}
	case vidMin:
		t = min(ta, tb)
	case vidMax:
		t = max(ta, tb)
	case vidShl, vidShr:
		tb = selectPart(b, v.BSel(), false)
		if v.flag(vcClamp) {
			tb = min(tb, 32)
		} else {
			tb &= 31
		}
		if op == vidShl {
			t = ta << uint(tb) // 64 bits, as the expansion's SHF pair
		} else {
			t = ta >> uint(tb)
		}
	case vidSet:
		var r bool
		switch v.Cmp() {
		case CmpEq:
			r = ta == tb
		case CmpNe:
			r = ta != tb
		case CmpLt:
			r = ta < tb
		case CmpLe:
			r = ta <= tb
		case CmpGt:
			r = ta > tb
		case CmpGe:
			r = ta >= tb
		}
		if r {
			t = 1
		}
		// The expansion compares vset's result with c as signed values.
		dsigned = v.flag(vcASigned) || v.flag(vcBSigned)
	}
	// t64 is the 64-bit value a secondary min/max compares with c.
	t64 := t
	if op == vidAdd || op == vidSub {
		// The expansion adds in 32 bits and sign-extends the sum.
		t64 = sext(uint64(t), 32)
	}
	if v.flag(vcSat) {
		if op == vidShl || op == vidShr {
			t = sext(uint64(t), 34) // the expansion keeps 34 bits
		}
		switch {
		case v.DSel() != selNone:
			t = videoSat(t, dsigned, v.DSel())
		case dsigned:
			t = min(max(t, -1<<31), 1<<31-1)
		case t < 0:
			// Unsigned saturation clamps below only: an unsigned result
			// above 2^32-1 keeps its low 32 bits.
			t = 0
		default:
			t &= 0xffffffff
		}
		t64 = t
		if dsigned {
			t64 = sext(uint64(t), 32)
		}
	}
	switch v.Op2() {
	case op2Add:
		return uint64(t) + c
	case op2Min, op2Max:
		less := false
		if dsigned {
			less = t64 < sext(c, 32)
		} else {
			less = uint64(t64) < c&0xffffffff
		}
		if less == (v.Op2() == op2Min) {
			return uint64(t64)
		}
		return c
	}
	switch v.DSel() {
	case selNone:
		return uint64(t)
	case selH1:
		// The expansion's PRMT keeps the result's own upper half.
		return c&0xffff | uint64(t)&0xffff0000
	}
	return videoMerge(t, c, v.DSel())
}

// vmadLane is vmad as ptxas expands it: IMAD.WIDE of the selected
// operands plus c sign-extended (whatever the types), with the negations
// and .po of the ISA; .shr7/.shr15 shift the 64-bit sum arithmetically when
// the final result is signed, logically otherwise; .sat clamps the 64-bit
// value to the final type's 32-bit range.
func vmadLane(v videoCtl, ta, tb int64, c uint64) uint64 {
	signedFinal := v.flag(vcASigned) || v.flag(vcBSigned) || v.flag(vcNegAB) || v.flag(vcNegC)
	t := ta * tb
	var lsb int64
	cv := c & 0xffffffff
	switch {
	case v.flag(vcPO):
		lsb = 1
	case v.flag(vcNegAB):
		t = ^t
		lsb = 1
	case v.flag(vcNegC):
		cv = ^cv & 0xffffffff
		lsb = 1
	}
	t += sext(cv, 32) + lsb
	if s := v.Shift(); s > 0 {
		if signedFinal {
			t >>= s
		} else {
			t = int64(uint64(t) >> s)
		}
	}
	if v.flag(vcSat) {
		if signedFinal {
			t = min(max(t, -1<<31), 1<<31-1)
		} else {
			t = min(max(t, 0), 1<<32-1)
		}
	}
	return uint64(t)
}
