package sasscost

import (
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// Form names the PTX form of instruction info at the granularity the cost
// table distinguishes: the operation, the state space and vector width of a
// memory access, the operand type (size and signedness where ptxas expands
// them differently), rounding and approximation modifiers where they change
// the machine code ("div.rn.f32", "div.full.f32", "rem.u64", "mul.wide.32",
// "ld.global.v4.32", "mov.ro" for a move of a constant or special register).
// fx holds the facts of info's function that forms depend on (NewFacts):
// which registers no instruction writes (constants, special registers and
// symbol addresses), and which instructions ptxas folds into the
// instructions that read their results (".mod": a negation or absolute
// value that only floating-point arithmetic reads becomes an operand
// modifier; ".sat": a saturation of an add, multiply or fma's result
// becomes that instruction's .SAT). Read off the SASS of expf, whose 15
// PTX instructions are 8 machine instructions
// (testdata/perf/micro/sched/pipes.sass.gz, expf_ind).
func Form(info *vm.InstInfo, fx *Facts) string {
	ro := fx.ro
	in := info.Inst()
	var b strings.Builder
	op := in.Op
	// The float forms' names end in ".f" ("add.f"); the type says it.
	b.WriteString(strings.TrimSuffix(op.String(), ".f"))
	size := func(t vm.Type) {
		switch t {
		case vm.F16, vm.F16x2, vm.BF16, vm.BF16x2, vm.F32, vm.F64, vm.TF32:
			b.WriteString(t.String())
		default:
			b.WriteString(".")
			b.WriteString(itoa(t.Size() * 8))
		}
	}
	signed := func(t vm.Type) {
		switch t {
		case vm.S8, vm.S16, vm.S32, vm.S64:
			b.WriteString(".s")
		default:
			b.WriteString(".u")
		}
		b.WriteString(itoa(t.Size() * 8))
	}
	switch op {
	case vm.OpNop, vm.OpBra, vm.OpBrx, vm.OpCall, vm.OpRet, vm.OpExit, vm.OpTrap, vm.OpClock,
		vm.OpActivemask, vm.OpElect, vm.OpWarpSync, vm.OpMatch, vm.OpVote, vm.OpLocalAddr:
		if op == vm.OpBra && in.Guard >= 0 {
			b.WriteString(".cond")
		}
	case vm.OpBar:
		switch {
		case in.Flags&vm.FRed != 0:
			b.WriteString(".red")
		case in.Flags&vm.FArrive != 0:
			b.WriteString(".arrive")
		default:
			b.WriteString(".sync")
		}
	case vm.OpMov:
		if len(info.Reads.Regs) > 0 && readOnly(ro, info.Reads.Regs[0]) {
			b.WriteString(".ro")
		}
		size(in.T)
	case vm.OpDiv, vm.OpRem, vm.OpMulHi, vm.OpMadHi:
		signed(in.T)
	case vm.OpMulWide, vm.OpMadWide:
		b.WriteString(".")
		b.WriteString(itoa(in.T2.Size() * 8))
	case vm.OpFDiv, vm.OpFRcp, vm.OpFSqrt, vm.OpFRsqrt, vm.OpFSin, vm.OpFCos, vm.OpFLg2, vm.OpFEx2, vm.OpFTanh:
		switch {
		case in.Flags&vm.FApprox != 0:
			b.WriteString(".approx")
		case in.Flags&vm.FFull != 0:
			b.WriteString(".full")
		default:
			b.WriteString(".rn") // every IEEE rounding expands alike
		}
		if in.Flags&vm.FFtz != 0 && in.T == vm.F32 {
			b.WriteString(".ftz")
		}
		size(in.T)
	case vm.OpCvt:
		size(in.T)
		size(in.T2)
		if in.T.Float() && in.T == in.T2 {
			b.WriteString(".rint")
		}
	case vm.OpCvta:
		if in.Flags&vm.FToSpace != 0 {
			b.WriteString(".to")
		}
		b.WriteString(spaceName(in.Space))
	case vm.OpLd, vm.OpSt:
		b.WriteString(spaceName(in.Space))
		if in.Vec > 1 {
			b.WriteString(".v")
			b.WriteString(itoa(int(in.Vec)))
		}
		b.WriteString(".")
		b.WriteString(itoa(in.T.Size() * 8))
	case vm.OpAtom:
		if in.D == vm.NoReg {
			b.Reset()
			b.WriteString("red")
		}
		b.WriteString(spaceName(in.Space))
		if in.T.Float() {
			size(in.T)
		} else {
			b.WriteString(".")
			b.WriteString(itoa(in.T.Size() * 8))
		}
	case vm.OpTex:
		if in.Off >= 0 {
			b.WriteString(".tld4")
		}
	case vm.OpSetp, vm.OpSet, vm.OpSelp, vm.OpSlct:
		t := in.T
		if op == vm.OpSet || op == vm.OpSlct {
			t = in.T2
		}
		size(t)
	default:
		if in.T != vm.TNone && in.T != vm.Pred {
			size(in.T)
		}
	}
	if int(info.PC) < len(fx.folded) && fx.folded[info.PC] {
		switch op {
		case vm.OpFNeg, vm.OpFAbs:
			b.WriteString(".mod")
		case vm.OpCvt:
			s := strings.TrimSuffix(b.String(), ".rint")
			b.Reset()
			b.WriteString(s + ".sat")
		}
	}
	return b.String()
}

// Facts are what Form needs to know of a function (see Form).
type Facts struct {
	ro     []bool // by register: no instruction writes it
	folded []bool // by PC: ptxas folds it into the instructions that read its result
}

// NewFacts computes function f's Facts.
func NewFacts(f *vm.Func) *Facts {
	fx := &Facts{ro: ReadOnly(f), folded: make([]bool, len(f.Code))}
	// Each register's writers and whether every reader is floating-point
	// arithmetic that takes operand modifiers.
	writers := make([]int32, f.NumRegs)
	for i := range writers {
		writers[i] = -1
	}
	modOK := make([]bool, f.NumRegs)
	for i := range modOK {
		modOK[i] = true
	}
	for pc := range f.Info {
		info := &f.Info[pc]
		for _, r := range info.Writes.Regs {
			if writers[r] == -1 {
				writers[r] = int32(pc)
			} else {
				writers[r] = -2 // written more than once
			}
		}
		takesMod := false
		switch f.Code[pc].Op {
		case vm.OpFAdd, vm.OpFSub, vm.OpFMul, vm.OpFFma, vm.OpFMin, vm.OpFMax:
			takesMod = true
		case vm.OpSetp:
			takesMod = f.Code[pc].T.Float()
		}
		if !takesMod {
			for _, r := range info.Reads.Regs {
				modOK[r] = false
			}
		}
	}
	for pc := range f.Code {
		in := &f.Code[pc]
		d := in.D
		if d == vm.NoReg {
			continue
		}
		r := d / 32
		switch {
		case (in.Op == vm.OpFNeg || in.Op == vm.OpFAbs) && (in.T == vm.F32 || in.T == vm.F64):
			fx.folded[pc] = modOK[r] && writers[r] == int32(pc)
		case in.Op == vm.OpCvt && in.Flags&vm.FSat != 0 && in.T == vm.F32 && in.T2 == vm.F32:
			// The source's single writer is an f32 add, multiply or fma.
			src := in.A / 32
			if in.A == vm.NoReg || int(src) >= len(writers) || writers[src] < 0 {
				continue
			}
			switch w := &f.Code[writers[src]]; w.Op {
			case vm.OpFAdd, vm.OpFSub, vm.OpFMul, vm.OpFFma:
				fx.folded[pc] = w.T == vm.F32
			}
		}
	}
	return fx
}

func spaceName(s memspace.Space) string {
	switch s {
	case memspace.Global:
		return ".global"
	case memspace.Shared:
		return ".shared"
	case memspace.Local:
		return ".local"
	case memspace.Const:
		return ".const"
	case memspace.Param, memspace.FParam:
		return ".param"
	case memspace.Generic:
		return ""
	}
	return "." + strings.ToLower(s.String())
}

// ReadOnly returns, for function f, which registers no instruction of f
// writes: the constants, special registers and addresses lowering placed in
// registers filled once per frame, and parameters' registers.
func ReadOnly(f *vm.Func) []bool {
	ro := make([]bool, f.NumRegs)
	for i := range ro {
		ro[i] = true
	}
	for i := range f.Info {
		for _, r := range f.Info[i].Writes.Regs {
			if int(r) < len(ro) {
				ro[r] = false
			}
		}
	}
	return ro
}

func readOnly(ro []bool, r int32) bool { return int(r) < len(ro) && ro[r] }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
