package vm

import "github.com/ptxvm/ptxvm/ptx"

// Lowering of the warp-level matrix multiply-accumulate mma.sync and
// mma.sp (exec_mma.go, exec_mma_ext.go execute it). The first forms, each
// with the tensor core's arithmetic as measured on the GPU
// (docs/semantics.md, "Tensor cores"), .row.col:
//
//	.m16n8k16, .m16n8k8  .f32.f16.f16.f32, .f32.bf16.bf16.f32
//	.m16n8k16            .f16.f16.f16.f16 (f16 accumulator)
//	.m16n8k8, .m16n8k4   .f32.tf32.tf32.f32
//	.m8n8k4              .f64.f64.f64.f64
//	.m16n8k32            .s32.s8.s8.s32, with or without .satfinite
//
// hold in their OpMma:
//
//	Imm     the shape's k (Inst.MmaK); M = 16, N = 8 (M = 8 for .f64)
//	T, T2   the D/C type (F32, F16, F64 or S32) and the A/B type (F16,
//	        BF16, TF32, F64 or S8)
//	Flags   FAligned, FSatFinite (.s32 only)
//	Target  Func.RegLists index (Inst.MmaRegs): the D registers, then the
//	        A, the B and the C registers (counts: mmaCounts)
//
// Every other form ptxas accepts for sm_90 (mmaFormRefused: u8 and mixed
// 8-bit, s4/u4, .b1 .and/.xor.popc, e4m3/e5m2, m16n8k8 .f16, m8n8k4 .f16
// in every layout, mma.sp and mma.sp::ordered_metadata with their
// selectors) is an extended OpMma: Imm the packed MmaForm (mma_form.go,
// Inst.MmaForm), T/T2 the D and A Types where they have one, A the
// metadata register of mma.sp, Target the registers d, a, b, c
// (MmaForm.Counts). Their arithmetic is the GPU's as recorded
// (docs/semantics.md, "Every other mma.sync, mma.sp and wmma form").

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

// lowerMma lowers mma.sync and mma.sp into in.
func (l *fnLower) lowerMma(pi *ptx.Instruction, in *Inst, m *mods) bool {
	var sparse uint8
	switch {
	case m.take(".sp"):
		sparse = MmaSp
	case m.take(".sp::ordered_metadata"):
		sparse = MmaSpOrder
	}
	if !m.take(".sync") || m.flags&FAligned == 0 {
		l.errorf(pi.Pos, "mma needs .sync.aligned")
		return false
	}
	f := MmaForm{N: 8, Sparse: sparse, Sat: m.flags&FSatFinite != 0}
	for _, s := range []struct {
		name string
		m, k int
	}{{".m16n8k16", 16, 16}, {".m16n8k8", 16, 8}, {".m16n8k4", 16, 4}, {".m16n8k32", 16, 32}, {".m16n8k64", 16, 64},
		{".m16n8k128", 16, 128}, {".m16n8k256", 16, 256}, {".m8n8k4", 8, 4}, {".m8n8k16", 8, 16}, {".m8n8k32", 8, 32},
		{".m8n8k128", 8, 128}} {
		if m.take(s.name) {
			f.M, f.K = s.m, s.k
			break
		}
	}
	if f.M == 0 {
		l.errorf(pi.Pos, "mma: unknown shape (the shapes are .m16n8k4/8/16/32/64/128/256 and .m8n8k4/16/32/128)")
		return false
	}
	var lay [2]bool // .col for A, .row for B
	for i := range lay {
		switch m.takeFirst(".row", ".col") {
		case 0:
			lay[i] = i == 1
		case 1:
			lay[i] = i == 0
		default:
			l.errorf(pi.Pos, "mma needs the layouts of A and B (.row.col)")
			return false
		}
	}
	f.ACol, f.BRow = lay[0], lay[1]
	// The four types .dtype.atype.btype.ctype, in order, and b1's operation.
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
	if len(elems) != 4 {
		l.errorf(pi.Pos, "mma needs four types .dtype.atype.btype.ctype")
		return false
	}
	f.D, f.A, f.B, f.C = elems[0], elems[1], elems[2], elems[3]
	if f.A == MmaB1 {
		switch {
		case m.take(".and"):
		case m.take(".xor"):
			f.Xor = true
		default:
			l.errorf(pi.Pos, "mma .b1 needs .and.popc or .xor.popc")
			return false
		}
		if !m.take(".popc") {
			l.errorf(pi.Pos, "mma .b1 needs .and.popc or .xor.popc")
			return false
		}
	}
	if m.flags&^(FAligned|FSatFinite) != 0 || m.hasRnd || m.hasSpace || m.vec != 0 || len(m.rest) != 0 {
		l.errorf(pi.Pos, "unsupported modifier on mma%s (rounding and the other modifiers are not modelled)", joinMods(pi.Mods))
		return false
	}
	ops := pi.Operands
	if want := 4 + 2*b2i(sparse != MmaDense); len(ops) != want {
		l.errorf(pi.Pos, "mma takes %d operands, found %d", want, len(ops))
		return false
	}
	g, gn := in.Guard, in.GuardNeg
	if first := sparse == MmaDense && !f.ACol && !f.BRow && f.A == f.B && f.C == f.D && f.A != MmaB1; first {
		if t := mmaTypeOf(f.D); t != TNone {
			if a := mmaTypeOf(f.A); a != TNone {
				if nd, _, _ := mmaCounts(t, a, uint64(f.K)); nd != 0 && (f.M == 8) == (a == F64) {
					if f.Sat && t != S32 {
						l.errorf(pi.Pos, "mma: .satfinite is supported only on the integer forms")
						return false
					}
					ni := newInst(OpMma)
					ni.T, ni.T2, ni.Imm = t, a, uint64(f.K)
					ni.Guard, ni.GuardNeg, ni.Flags = g, gn, FAligned|m.flags&FSatFinite
					*in = ni
					return l.mmaOperands(pi, in, f)
				}
			}
		}
	}
	if why := mmaFormRefused(f); why != "" {
		l.errorf(pi.Pos, "mma: %s%s is not supported: %s", pi.Opcode, joinMods(pi.Mods), why)
		return false
	}
	ni := newInst(OpMma)
	ni.T, ni.T2, ni.Imm = mmaTypeOf(f.D), mmaTypeOf(f.A), f.imm()
	ni.Guard, ni.GuardNeg, ni.Flags = g, gn, FAligned|m.flags&FSatFinite
	*in = ni
	if sparse != MmaDense {
		in.A = l.src(ops[4], B32)
		sel := ops[5]
		if sel.Kind != ptx.OpInt || sel.Int < 0 || sel.Int > 3 {
			l.errorf(sel.Pos, "mma.sp: the sparsity selector is an immediate 0-3")
			return false
		}
		f.Sel = uint8(sel.Int)
		if max := mmaSelectors(f); int(f.Sel) >= max {
			l.errorf(sel.Pos, "mma.sp: sparsity selector %d out of range (0-%d for this form)", f.Sel, max-1)
			return false
		}
		in.Imm = f.imm()
	}
	return l.mmaOperands(pi, in, f)
}

// mmaTypeOf is the Type of an element format (TNone for the formats
// without one: .s4, .u4, .b1, .e4m3, .e5m2, .u8 has U8).
func mmaTypeOf(e MmaElem) Type {
	switch e {
	case MmaF16:
		return F16
	case MmaBF16:
		return BF16
	case MmaTF32:
		return TF32
	case MmaF32:
		return F32
	case MmaF64:
		return F64
	case MmaS8:
		return S8
	case MmaU8:
		return U8
	case MmaS32:
		return S32
	}
	return TNone
}

// mmaOperands lowers d, a, b, c into in's register list.
func (l *fnLower) mmaOperands(pi *ptx.Instruction, in *Inst, f MmaForm) bool {
	nd, na, nb, nc := f.Counts()
	if !in.MmaExt() {
		nd, na, nb = mmaCounts(in.T, in.T2, in.Imm)
		nc = nd
	}
	list := make([]int32, 0, nd+na+nb+nc)
	for i, n := range [4]int{nd, na, nb, nc} {
		o := pi.Operands[i]
		rt := B32
		if (i == 0 && f.D == MmaF64) || (i == 3 && f.C == MmaF64) || ((i == 1 || i == 2) && f.A == MmaF64) {
			rt = B64
		}
		elems := []*ptx.Operand{o}
		if o.Kind == ptx.OpVector {
			elems = o.Elems
		} else if ve := l.vectorElems(o); ve != nil {
			elems = ve
		}
		if len(elems) != n {
			l.errorf(o.Pos, "mma (m%dn%dk%d): operand %c needs %d registers, found %d", f.M, f.N, f.K, "dabc"[i], n, len(elems))
			return false
		}
		list = l.regOperands(list, elems, i == 0, rt)
	}
	l.setRegList(in, list)
	return true
}

// mmaSelectors is the number of sparsity selectors a form accepts, as
// ptxas 13.0 accepts them for sm_90 and the H200 runs them: 0-3 when a
// row's metadata is 16 bits (16-bit types at k16, tf32 at k8), 0-1 when
// it is 32 bits, 0 when it is 64 (8-bit types at k64, 4-bit at k128, fp8).
// (ptxas accepts 2 and 3 for m16n8k32 .f32.f16 too, but the GPU stops the
// kernel with an illegal instruction: refused here.)
func mmaSelectors(f MmaForm) int {
	bits := 4 * f.K / 4 // metadata bits per row: a 4-bit field per 4 columns ...
	switch f.A.Bits() {
	case 32:
		bits = 4 * f.K / 2 // ... per 2 tf32 columns
	case 4:
		bits = 4 * f.K / 8 // ... per 8 4-bit columns
	}
	switch {
	case f.A == MmaE4M3 || f.A == MmaE5M2 || bits > 32:
		return 1
	case bits == 32:
		return 2
	}
	return 4
}

// mmaFormRefused says why an extended form is refused ("" when it is
// supported).
func mmaFormRefused(f MmaForm) string {
	d, a, b, c := f.D, f.A, f.B, f.C
	ints := func(x MmaElem, w int) bool { return x.Int() && x.Bits() == w && x != MmaB1 }
	if f.Sparse != MmaDense {
		switch {
		case f.M != 16 || f.ACol || f.BRow || a != b || c != d:
			return "mma.sp is .m16n8 .row.col with atype = btype and ctype = dtype"
		case (a == MmaF16 && (d == MmaF32 || d == MmaF16) || a == MmaBF16 && d == MmaF32) && (f.K == 16 || f.K == 32),
			a == MmaTF32 && d == MmaF32 && (f.K == 8 || f.K == 16),
			ints(a, 8) && d == MmaS32 && (f.K == 32 || f.K == 64),
			ints(a, 4) && d == MmaS32 && (f.K == 64 || f.K == 128),
			(a == MmaE4M3 || a == MmaE5M2) && d == MmaF32 && f.K == 64:
		default:
			return "no such sparse form"
		}
		if f.Sat && d != MmaS32 {
			return ".satfinite is for the integer forms"
		}
		return ""
	}
	if f.M884F16() {
		if a != MmaF16 || b != MmaF16 || (d != MmaF16 && d != MmaF32) || (c != MmaF16 && c != MmaF32) || f.Sat {
			return "m8n8k4 .f16 takes f16 multiplicands and f16/f32 accumulators"
		}
		if c == MmaF32 && d == MmaF16 {
			return ".dtype must be .f32 when .ctype is .f32 (as ptxas says)"
		}
		return ""
	}
	if f.ACol || f.BRow {
		return "the layouts are .row.col"
	}
	switch {
	case f.M == 16 && f.K == 8 && a == MmaF16 && b == MmaF16 && d == MmaF16 && c == MmaF16:
	case ints(a, 8) && ints(b, 8) && d == MmaS32 && c == MmaS32 && (f.M == 16 && (f.K == 16 || f.K == 32) || f.M == 8 && f.K == 16):
	case ints(a, 4) && ints(b, 4) && d == MmaS32 && c == MmaS32 && (f.M == 16 && (f.K == 32 || f.K == 64) || f.M == 8 && f.K == 32):
	case a == MmaB1 && b == MmaB1 && d == MmaS32 && c == MmaS32 && (f.M == 16 && (f.K == 128 || f.K == 256) || f.M == 8 && f.K == 128):
		if f.Sat {
			return ".satfinite is not allowed on .b1"
		}
	case (a == MmaE4M3 || a == MmaE5M2) && (b == MmaE4M3 || b == MmaE5M2) && f.M == 16 && (f.K == 32 || f.K == 16) &&
		(d == MmaF32 || d == MmaF16) && c == d:
	default:
		return "no such form (or one whose arithmetic has not been recorded)"
	}
	if f.Sat && d != MmaS32 {
		return ".satfinite is for the integer forms"
	}
	return ""
}
