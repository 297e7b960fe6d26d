package vm

import (
	"fmt"

	"github.com/ptxvm/ptxvm/ptx"
)

// Lowering of the warpgroup matrix multiply-accumulate of sm_90a
// (exec_wgmma.go executes it):
//
//	wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a-desc|{a}, b-desc, scale-d{, imm-scale-a, imm-scale-b{, imm-trans-a}, imm-trans-b}
//	wgmma.fence.sync.aligned, wgmma.commit_group.sync.aligned, wgmma.wait_group.sync.aligned N
//
// Supported: .f32.f16.f16, .f16.f16.f16, .f32.bf16.bf16 (k16), .f32.tf32.tf32
// (k8), .s32 with .s8/.u8 multiplicands (k32, .satfinite or not), .f32 and
// .f16 with .e4m3/.e5m2 multiplicands in any pairing (k32), .s32.b1.b1
// .and.popc (k256), every N of the ISA (8 to 256 in steps of 8; 8, 16, 24
// and multiples of 16 for .s32), A from shared memory (a descriptor) or
// registers. The sparse wgmma.mma_async.sp is refused.
//
// An OpWgmma holds T the accumulator type (F32, F16, S32), Imm the form
// (Inst.Wgmma), A the A descriptor's register (NoReg: A in registers), B
// the B descriptor's, V[0] the scale-d predicate (FNeg2: negated; NoReg: an
// immediate, Imm's wgScaleD), Target the register list: the accumulators,
// then A's four registers when A is in registers.
//
// The fence, commit and wait lower to OpNop: the multiply-accumulate
// completes when it is issued (exec_wgmma.go).

// The multiplicand formats of wgmma (Inst.Wgmma).
const (
	wgF16 uint64 = iota
	wgBF16
	wgTF32
	wgS8
	wgU8
	wgE4M3
	wgE5M2
	wgB1 // single bits, .and.popc
)

// Bits of an OpWgmma's Imm.
const (
	wgNShift = 0 // N (8-256)
	wgKShift = 9 // K/8 (K: 8, 16, 32, 256)
	wgRS     = 1 << 16
	wgNegA   = 1 << 17
	wgNegB   = 1 << 18
	wgTransA = 1 << 19
	wgTransB = 1 << 20
	wgSat    = 1 << 21
	wgScaleD = 1 << 22 // scale-d is the immediate 1
	wgAShift = 24      // atype (wgF16 ...)
	wgBShift = 28      // btype
)

// WgmmaForm is a decoded wgmma.mma_async.
type WgmmaForm struct {
	N, K           int
	RS             bool // A from registers
	NegA, NegB     bool // imm-scale-a/b = -1
	TransA, TransB bool // imm-trans-a/b = 1 (MN-major in shared memory)
	Sat            bool
	A, B           uint64 // multiplicand formats (wgF16 ...)
}

// Wgmma decodes an OpWgmma's form.
func (in *Inst) Wgmma() WgmmaForm {
	x := in.Imm
	return WgmmaForm{N: int(x >> wgNShift & 0x1ff), K: int(x>>wgKShift&0x7f) * 8, RS: x&wgRS != 0,
		NegA: x&wgNegA != 0, NegB: x&wgNegB != 0, TransA: x&wgTransA != 0, TransB: x&wgTransB != 0,
		Sat: x&wgSat != 0, A: x >> wgAShift & 15, B: x >> wgBShift & 15}
}

// wgmmaDRegs is the number of accumulator registers per lane.
func wgmmaDRegs(d Type, n int) int {
	if d == F16 {
		return n / 4
	}
	return n / 2
}

// lowerWgmma lowers the wgmma family.
func (l *fnLower) lowerWgmma(pi *ptx.Instruction, in *Inst, m *mods) bool {
	if !m.take(".sync") || m.flags&FAligned == 0 {
		l.errorf(pi.Pos, "wgmma needs .sync.aligned")
		return false
	}
	onlySync := func() bool {
		if m.flags&^FAligned != 0 || m.hasRnd || m.hasSpace || m.vec != 0 || len(m.rest) != 0 || len(m.types) != 0 {
			l.errorf(pi.Pos, "unsupported modifier on wgmma%s", joinMods(pi.Mods))
			return false
		}
		return true
	}
	switch {
	case m.take(".fence"), m.take(".commit_group"):
		in.Op, in.Imm = OpNop, NopAsyncGroup
		return onlySync() && l.noOperands(pi)
	case m.take(".wait_group"):
		in.Op, in.Imm = OpNop, NopAsyncGroup
		if !onlySync() {
			return false
		}
		if len(pi.Operands) != 1 || pi.Operands[0].Kind != ptx.OpInt || pi.Operands[0].Int < 0 {
			l.errorf(pi.Pos, "wgmma.wait_group takes one non-negative integer constant")
			return false
		}
		return true
	case m.take(".mma_async"):
	default:
		l.errorf(pi.Pos, "unsupported instruction wgmma%s", joinMods(pi.Mods))
		return false
	}
	if m.take(".sp") {
		l.errorf(pi.Pos, "wgmma.mma_async.sp (sparse) is not supported")
		return false
	}
	var n, k int
	shape := ""
	for _, r := range m.rest {
		if _, err := fmt.Sscanf(r, ".m64n%dk%d", &n, &k); err == nil && r == fmt.Sprintf(".m64n%dk%d", n, k) {
			shape = r
		}
	}
	if shape == "" {
		l.errorf(pi.Pos, "wgmma.mma_async needs a shape .m64nNkK")
		return false
	}
	m.take(shape)
	// The three types .dtype.atype.btype, in order (.e4m3, .e5m2 and .b1
	// are not PTX register types: read them from the modifiers).
	var types []MmaElem
	for _, s := range pi.Mods {
		if e, ok := mmaElemOf(s); ok {
			types = append(types, e)
		}
	}
	m.types = nil
	for _, e := range types {
		m.take(e.String())
	}
	if len(types) != 3 {
		l.errorf(pi.Pos, "wgmma.mma_async needs three types .dtype.atype.btype")
		return false
	}
	fmtOf := func(e MmaElem) (uint64, bool) {
		switch e {
		case MmaF16:
			return wgF16, true
		case MmaBF16:
			return wgBF16, true
		case MmaTF32:
			return wgTF32, true
		case MmaS8:
			return wgS8, true
		case MmaU8:
			return wgU8, true
		case MmaE4M3:
			return wgE4M3, true
		case MmaE5M2:
			return wgE5M2, true
		case MmaB1:
			return wgB1, true
		}
		return 0, false
	}
	d := mmaTypeOf(types[0])
	at := types[1]
	fa, okA := fmtOf(types[1])
	fb, okB := fmtOf(types[2])
	integer := (fa == wgS8 || fa == wgU8) && (fb == wgS8 || fb == wgU8)
	fp8 := (fa == wgE4M3 || fa == wgE5M2) && (fb == wgE4M3 || fb == wgE5M2)
	b1 := fa == wgB1 && fb == wgB1
	if b1 && !(m.take(".and") && m.take(".popc")) {
		l.errorf(pi.Pos, "wgmma.mma_async .b1 needs .and.popc")
		return false
	}
	wantK := map[uint64]int{wgF16: 16, wgBF16: 16, wgTF32: 8, wgS8: 32, wgU8: 32, wgE4M3: 32, wgE5M2: 32, wgB1: 256}[fa]
	validN := n >= 8 && n <= 256 && n%8 == 0
	if (integer || b1) && n > 24 {
		validN = validN && n%16 == 0
	}
	switch {
	case !okA || !okB || (fa != fb && !integer && !fp8):
		l.errorf(pi.Pos, "wgmma.mma_async%s: unsupported multiplicand types", joinMods(pi.Mods))
		return false
	case (integer || b1) && d != S32, !integer && !b1 && d != F32 && !(d == F16 && (fa == wgF16 || fp8)):
		l.errorf(pi.Pos, "wgmma.mma_async%s: the accumulator type does not go with %s", joinMods(pi.Mods), at)
		return false
	case k != wantK || !validN:
		l.errorf(pi.Pos, "wgmma.mma_async: %s is not a shape of %s (m64nNk%d)", shape, at, wantK)
		return false
	}
	sat := m.flags&FSatFinite != 0
	if sat && !integer {
		l.errorf(pi.Pos, "wgmma.mma_async: .satfinite applies to the integer forms")
		return false
	}
	if m.flags&^(FAligned|FSatFinite) != 0 || m.hasRnd || m.hasSpace || m.vec != 0 || len(m.rest) != 0 {
		l.errorf(pi.Pos, "unsupported modifier on wgmma%s", joinMods(pi.Mods))
		return false
	}
	m.types = nil
	ops := pi.Operands
	if len(ops) < 4 {
		l.errorf(pi.Pos, "wgmma.mma_async takes d, a, b-desc, scale-d and the immediates, found %d operands", len(ops))
		return false
	}
	rs := ops[1].Kind == ptx.OpVector || l.vectorElems(ops[1]) != nil
	// Immediates after scale-d: f16/bf16: scale-a, scale-b, (trans-a,) trans-b;
	// tf32 and fp8: scale-a, scale-b; integers and .b1: none.
	nImm := 2
	switch {
	case integer || b1:
		nImm = 0
	case fa == wgF16 || fa == wgBF16:
		nImm = 4
		if rs {
			nImm = 3
		}
	}
	if len(ops) != 4+nImm {
		l.errorf(pi.Pos, "wgmma.mma_async%s takes %d operands, found %d", joinMods(pi.Mods), 4+nImm, len(ops))
		return false
	}
	imm := make([]int64, nImm)
	for i := range imm {
		o := ops[4+i]
		if o.Kind != ptx.OpInt {
			l.errorf(o.Pos, "wgmma.mma_async: the scale and transpose operands are integer constants")
			return false
		}
		imm[i] = o.Int
	}
	ni := newInst(OpWgmma)
	ni.Guard, ni.GuardNeg, ni.T = in.Guard, in.GuardNeg, d
	ni.Imm = uint64(n)<<wgNShift | uint64(k/8)<<wgKShift | fa<<wgAShift | fb<<wgBShift
	if sat {
		ni.Imm |= wgSat
	}
	if rs {
		ni.Imm |= wgRS
	}
	if nImm >= 2 {
		for i, bit := range []uint64{wgNegA, wgNegB} {
			switch imm[i] {
			case -1:
				ni.Imm |= bit
			case 1:
			default:
				l.errorf(ops[4+i].Pos, "wgmma.mma_async: imm-scale-%c is 1 or -1", "ab"[i])
				return false
			}
		}
		trans := imm[2:]
		bits := []uint64{wgTransA, wgTransB}
		if rs {
			bits = bits[1:]
		}
		for i, t := range trans {
			switch t {
			case 1:
				ni.Imm |= bits[i]
			case 0:
			default:
				l.errorf(ops[6+i].Pos, "wgmma.mma_async: imm-trans is 0 or 1")
				return false
			}
		}
	}
	// scale-d: a predicate, or the constant 0 or 1.
	if sd := ops[3]; sd.Kind == ptx.OpInt {
		if sd.Int != 0 {
			ni.Imm |= wgScaleD
		}
	} else {
		p, neg := l.predSrc(sd)
		ni.V[0] = p
		if neg {
			ni.Flags |= FNeg2
		}
	}
	if !rs {
		ni.A = l.src(ops[1], B64)
	}
	ni.B = l.src(ops[2], B64)
	nd := wgmmaDRegs(d, n)
	elems := func(o *ptx.Operand) []*ptx.Operand {
		if o.Kind == ptx.OpVector {
			return o.Elems
		}
		return l.vectorElems(o)
	}
	de := elems(ops[0])
	if len(de) != nd {
		l.errorf(ops[0].Pos, "wgmma.mma_async%s: d needs %d registers, found %d", joinMods(pi.Mods), nd, len(de))
		return false
	}
	rt := B32
	list := l.regOperands(make([]int32, 0, nd+4), de, false, rt) // read (the accumulator in) ...
	for i, e := range de {
		if r := l.dst(e); r != list[i] { // ... and written: the same registers
			l.errorf(e.Pos, "wgmma.mma_async: d must be registers")
			return false
		}
	}
	if rs {
		ae := elems(ops[1])
		if len(ae) != 4 {
			l.errorf(ops[1].Pos, "wgmma.mma_async: a needs 4 registers, found %d", len(ae))
			return false
		}
		list = l.regOperands(list, ae, false, B32)
	}
	l.setRegList(&ni, list)
	*in = ni
	return true
}
