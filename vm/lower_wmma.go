package vm

import (
	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
)

// Lowering of wmma (exec_wmma.go executes it): the .m16n16k16 forms with
// f16 multiplicands and an f32 accumulator that nvcc emits for
// nvcuda::wmma::fragment<..., 16, 16, 16, half, ...> with a float
// accumulator:
//
//	wmma.load.a.sync.aligned.{row,col}.m16n16k16{.global,.shared,}.f16  {8 regs}, [p]{, stride}
//	wmma.load.b.sync.aligned.{row,col}.m16n16k16{.global,.shared,}.f16  {8 regs}, [p]{, stride}
//	wmma.load.c.sync.aligned.{row,col}.m16n16k16{.global,.shared,}.f32  {8 regs}, [p]{, stride}
//	wmma.mma.sync.aligned.{row,col}.{row,col}.m16n16k16.f32.f32  d, a, b, c (8 registers each)
//	wmma.store.d.sync.aligned.{row,col}.m16n16k16{.global,.shared,}.f32  [p], {8 regs}{, stride}
//
// OpWmmaLoad / OpWmmaStore: A+Off the matrix's address, B the stride in
// elements (NoReg: 16), Imm the matrix (0 a, 1 b, 2 c, 3 d), FTrans the
// .col layout, T the element type, Target the register list. OpWmmaMma:
// Target the 32 registers d, a, b, c. The other shapes and types (the f16
// accumulator, bf16, tf32, the integer and sub-byte forms, .m32n8k16,
// .m8n32k16, .satfinite) are refused: their fragments and arithmetic have
// not been recorded on the GPU.

// lowerWmma lowers wmma into in.
func (l *fnLower) lowerWmma(pi *ptx.Instruction, in *Inst, m *mods) bool {
	var kind int64 = -1
	switch {
	case m.take(".load"):
		for i, s := range [3]string{".a", ".b", ".c"} {
			if m.take(s) {
				kind = int64(i)
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
		switch {
		case m.take(".row"):
		case m.take(".col"):
			lay[i] = true
		default:
			l.errorf(pi.Pos, "wmma needs a layout (.row or .col) for each matrix")
			return false
		}
	}
	if !m.take(".m16n16k16") {
		l.errorf(pi.Pos, "wmma: only the shape .m16n16k16 is supported (the other shapes have not been recorded on the GPU)")
		return false
	}
	if m.flags&^FAligned != 0 || m.hasRnd || m.vec != 0 {
		l.errorf(pi.Pos, "unsupported modifier on wmma%s", joinMods(pi.Mods))
		return false
	}
	ops := pi.Operands
	g, gn := in.Guard, in.GuardNeg
	if kind == 4 {
		if len(m.types) != 2 || m.types[0] != F32 || m.types[1] != F32 || m.hasSpace {
			l.errorf(pi.Pos, "wmma.mma: only .m16n16k16.f32.f32 with f16 fragments is supported (the tensor-core arithmetic of the other types has not been measured through wmma)")
			return false
		}
		*in = newInst(OpWmmaMma)
		in.Guard, in.GuardNeg, in.Flags, in.T, in.T2 = g, gn, FAligned, F32, F16
		if len(ops) != 4 {
			l.errorf(pi.Pos, "wmma.mma takes 4 operands (d, a, b, c), found %d", len(ops))
			return false
		}
		list := make([]int32, 0, 32)
		for i, o := range ops {
			elems := l.wmmaRegs(o, "dabc"[i])
			if elems == nil {
				return false
			}
			list = l.regOperands(list, elems, i == 0, B32)
		}
		l.setRegList(in, list)
		return true
	}
	want := F16
	if kind >= 2 {
		want = F32
	}
	if len(m.types) != 1 || m.types[0] != want {
		l.errorf(pi.Pos, "wmma.%s: only %s fragments are supported for .m16n16k16 (the f16 accumulator and the other types have not been recorded on the GPU)",
			[4]string{"load.a", "load.b", "load.c", "store.d"}[kind], want)
		return false
	}
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
	in.Guard, in.GuardNeg, in.Flags, in.T, in.Imm = g, gn, FAligned, want, uint64(kind)
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
	elems := l.wmmaRegs(regs, 'r')
	if elems == nil {
		return false
	}
	l.setRegList(in, l.regOperands(make([]int32, 0, 8), elems, load, B32))
	return true
}

// wmmaRegs is the 8 registers of a wmma fragment operand (nil after an
// error).
func (l *fnLower) wmmaRegs(o *ptx.Operand, name byte) []*ptx.Operand {
	elems := []*ptx.Operand{o}
	if o.Kind == ptx.OpVector {
		elems = o.Elems
	} else if ve := l.vectorElems(o); ve != nil {
		elems = ve
	}
	if len(elems) != 8 {
		l.errorf(o.Pos, "wmma.m16n16k16: fragment %c needs 8 registers, found %d", name, len(elems))
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
