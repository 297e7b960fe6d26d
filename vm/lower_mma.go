package vm

import "github.com/ptxvm/ptxvm/ptx"

// Lowering of the warp-level matrix multiply-accumulate mma.sync (exec_mma.go
// executes it). Supported, each with the tensor core's arithmetic as
// measured on the GPU (docs/semantics.md, "Tensor cores"), .row.col:
//
//	.m16n8k16, .m16n8k8  .f32.f16.f16.f32, .f32.bf16.bf16.f32
//	.m16n8k16            .f16.f16.f16.f16 (f16 accumulator)
//	.m16n8k8, .m16n8k4   .f32.tf32.tf32.f32
//	.m8n8k4              .f64.f64.f64.f64
//	.m16n8k32            .s32.s8.s8.s32, with or without .satfinite
//
// An OpMma holds:
//
//	Imm     the shape's k (Inst.MmaK); M = 16, N = 8 (M = 8 for .f64)
//	T, T2   the D/C type (F32, F16, F64 or S32) and the A/B type (F16,
//	        BF16, TF32, F64 or S8)
//	Flags   FAligned, FSatFinite (.s32 only)
//	Target  Func.RegLists index (Inst.MmaRegs): the D registers, then the
//	        A, the B and the C registers (counts: mmaCounts)
//
// The other shapes and types (m16n8k8 .f16 accumulator, the unsigned and
// 4-bit integer types, fp8, .b1, m8n8k4 .f16, sparse mma.sp) are refused:
// their arithmetic has not been measured on the GPU.

// mmaCounts is the registers per lane of D (and C), A and B of an mma of
// D type d, A/B type a and shape k (0s for an unsupported form).
func mmaCounts(d, a Type, k uint64) (nd, na, nb int) {
	switch {
	case d == F32 && (a == F16 || a == BF16) && k == 16, d == F32 && a == TF32 && k == 8, d == S32 && a == S8 && k == 32:
		return 4, 4, 2
	case d == F32 && (a == F16 || a == BF16) && k == 8, d == F32 && a == TF32 && k == 4:
		return 4, 2, 1
	case d == F16 && a == F16 && k == 16:
		return 2, 4, 2
	case d == F64 && a == F64 && k == 4:
		return 2, 1, 1
	}
	return 0, 0, 0
}

// lowerMma lowers mma.sync into in.
func (l *fnLower) lowerMma(pi *ptx.Instruction, in *Inst, m *mods) bool {
	if !m.take(".sync") || m.flags&FAligned == 0 {
		l.errorf(pi.Pos, "mma needs .sync.aligned")
		return false
	}
	var k uint64
	m8 := false
	switch {
	case m.take(".m16n8k16"):
		k = 16
	case m.take(".m16n8k8"):
		k = 8
	case m.take(".m16n8k4"):
		k = 4
	case m.take(".m16n8k32"):
		k = 32
	case m.take(".m8n8k4"):
		k, m8 = 4, true
	default:
		l.errorf(pi.Pos, "mma: only the shapes .m16n8k16, .m16n8k8, .m16n8k4, .m16n8k32 and .m8n8k4 are supported")
		return false
	}
	if !m.take(".row") || !m.take(".col") {
		l.errorf(pi.Pos, "mma: the layouts are .row.col")
		return false
	}
	if len(m.types) != 4 || m.types[1] != m.types[2] || m.types[0] != m.types[3] {
		l.errorf(pi.Pos, "mma: needs four types .dtype.atype.btype.ctype with atype = btype and ctype = dtype (mixed types are not supported)")
		return false
	}
	d, a := m.types[0], m.types[1]
	nd, na, nb := mmaCounts(d, a, k)
	if nd == 0 || m8 != (a == F64) {
		l.errorf(pi.Pos, "mma: %s%s is not supported (the tensor-core arithmetic of this form has not been measured on the GPU)", pi.Opcode, joinMods(pi.Mods))
		return false
	}
	sat := m.flags&FSatFinite != 0
	if sat && d != S32 {
		l.errorf(pi.Pos, "mma: .satfinite is supported only on the .s32 forms")
		return false
	}
	if m.flags&^(FAligned|FSatFinite) != 0 || m.hasRnd || m.hasSpace || m.vec != 0 {
		l.errorf(pi.Pos, "unsupported modifier on mma%s (rounding and the other modifiers are not modelled)", joinMods(pi.Mods))
		return false
	}
	ni := newInst(OpMma)
	ni.T, ni.T2, ni.Imm = d, a, k
	ni.Guard, ni.GuardNeg, ni.Flags = in.Guard, in.GuardNeg, FAligned|m.flags&FSatFinite
	*in = ni
	ops := pi.Operands
	if len(ops) != 4 {
		l.errorf(pi.Pos, "mma takes 4 operands (d, a, b, c), found %d", len(ops))
		return false
	}
	rt := B32
	if d == F64 {
		rt = B64
	}
	list := make([]int32, 0, 2*nd+na+nb)
	for i, n := range [4]int{nd, na, nb, nd} {
		o := ops[i]
		elems := []*ptx.Operand{o}
		if o.Kind == ptx.OpVector {
			elems = o.Elems
		} else if ve := l.vectorElems(o); ve != nil {
			elems = ve
		}
		if len(elems) != n {
			l.errorf(o.Pos, "mma (k%d): operand %c needs %d registers, found %d", k, "dabc"[i], n, len(elems))
			return false
		}
		list = l.regOperands(list, elems, i == 0, rt)
	}
	l.setRegList(in, list)
	return true
}
