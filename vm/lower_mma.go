package vm

import "github.com/ptxvm/ptxvm/ptx"

// Lowering of the warp-level matrix multiply-accumulate mma.sync (exec_mma.go
// executes it). Supported: .m16n8k16 and .m16n8k8, .row.col,
// .f32.f16.f16.f32 (f16 multiplicands, f32 accumulator). An OpMma holds:
//
//	Imm     the shape's k (16 or 8; Inst.MmaK); M = 16, N = 8
//	T, T2   the D/C type (F32) and the A/B type (F16)
//	Target  Func.RegLists index (Inst.MmaRegs): the 4 D registers, then
//	        the A registers (4 for k16, 2 for k8), the B registers (2, 1),
//	        then the 4 C registers
//
// The .f16 accumulator (.f16.f16.f16.f16), bf16, tf32, f64, the integer and
// fp8 types and the other shapes are refused: their arithmetic has not been
// measured on the GPU (docs/semantics.md, "Tensor cores").

// mmaForm is the register counts of one mma form.
type mmaForm struct {
	k          uint64
	nd, na, nb int // D (and C), A and B registers per lane
}

// newMmaM16N8K16F32F16 is mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32.
func newMmaM16N8K16F32F16() (Inst, mmaForm) {
	in := newInst(OpMma)
	in.T, in.T2, in.Imm = F32, F16, 16
	return in, mmaForm{k: 16, nd: 4, na: 4, nb: 2}
}

// newMmaM16N8K8F32F16 is mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32.
func newMmaM16N8K8F32F16() (Inst, mmaForm) {
	in := newInst(OpMma)
	in.T, in.T2, in.Imm = F32, F16, 8
	return in, mmaForm{k: 8, nd: 4, na: 2, nb: 1}
}

// lowerMma lowers mma.sync into in.
func (l *fnLower) lowerMma(pi *ptx.Instruction, in *Inst, m *mods) bool {
	if !m.take(".sync") || m.flags&FAligned == 0 {
		l.errorf(pi.Pos, "mma needs .sync.aligned")
		return false
	}
	var mk func() (Inst, mmaForm)
	switch {
	case m.take(".m16n8k16"):
		mk = newMmaM16N8K16F32F16
	case m.take(".m16n8k8"):
		mk = newMmaM16N8K8F32F16
	default:
		l.errorf(pi.Pos, "mma: only the shapes .m16n8k16 and .m16n8k8 are supported")
		return false
	}
	if !m.take(".row") || !m.take(".col") {
		l.errorf(pi.Pos, "mma.m16n8: the layouts are .row.col")
		return false
	}
	if len(m.types) != 4 || m.types[0] != F32 || m.types[1] != F16 || m.types[2] != F16 || m.types[3] != F32 {
		l.errorf(pi.Pos, "mma: only .f32.f16.f16.f32 is supported (the tensor-core arithmetic of the other types has not been measured on the GPU)")
		return false
	}
	if m.flags&^FAligned != 0 || m.hasRnd || m.hasSpace || m.vec != 0 {
		l.errorf(pi.Pos, "unsupported modifier on mma%s (.satfinite, rounding and the other modifiers are not modelled)", joinMods(pi.Mods))
		return false
	}
	ni, form := mk()
	ni.Guard, ni.GuardNeg, ni.Flags = in.Guard, in.GuardNeg, FAligned
	*in = ni
	ops := pi.Operands
	if len(ops) != 4 {
		l.errorf(pi.Pos, "mma takes 4 operands (d, a, b, c), found %d", len(ops))
		return false
	}
	list := make([]int32, 0, 2*form.nd+form.na+form.nb)
	for i, n := range [4]int{form.nd, form.na, form.nb, form.nd} {
		o := ops[i]
		elems := []*ptx.Operand{o}
		if o.Kind == ptx.OpVector {
			elems = o.Elems
		} else if ve := l.vectorElems(o); ve != nil {
			elems = ve
		}
		if len(elems) != n {
			l.errorf(o.Pos, "mma.m16n8k%d: operand %c needs %d registers, found %d", form.k, "dabc"[i], n, len(elems))
			return false
		}
		for _, e := range elems {
			if i == 0 {
				list = append(list, l.dst(e))
			} else {
				list = append(list, l.src(e, B32))
			}
		}
	}
	in.Target = int32(len(l.f.RegLists))
	l.f.RegLists = append(l.f.RegLists, list)
	return true
}
