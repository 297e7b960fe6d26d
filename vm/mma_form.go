package vm

// The mma forms beyond the first ones (lower_mma.go's table): every other
// shape and type combination of mma.sync and mma.sp that ptxas accepts for
// sm_90. Their OpMma carries an MmaForm packed into Imm (Inst.MmaForm);
// the first forms keep Imm = k and T/T2 (MmaForm reports them too).

// MmaElem is the element format of an mma operand.
type MmaElem uint8

// The element formats.
const (
	MmaNone MmaElem = iota
	MmaF16
	MmaBF16
	MmaTF32
	MmaF32
	MmaF64
	MmaS8
	MmaU8
	MmaS4
	MmaU4
	MmaB1
	MmaE4M3
	MmaE5M2
	MmaS32
	numMmaElems
)

var mmaElemNames = [numMmaElems]string{"", ".f16", ".bf16", ".tf32", ".f32", ".f64", ".s8", ".u8", ".s4", ".u4", ".b1",
	".e4m3", ".e5m2", ".s32"}

var mmaElemBits = [numMmaElems]int{0, 16, 16, 32, 32, 64, 8, 8, 4, 4, 1, 8, 8, 32}

func (e MmaElem) String() string {
	if e < numMmaElems {
		return mmaElemNames[e]
	}
	return "?"
}

// Bits is the width of one element.
func (e MmaElem) Bits() int {
	if e < numMmaElems {
		return mmaElemBits[e]
	}
	return 0
}

// Int reports an integer format (the b1 bits included).
func (e MmaElem) Int() bool { return e >= MmaS8 && e <= MmaB1 || e == MmaS32 }

// Signed reports a signed integer format.
func (e MmaElem) Signed() bool { return e == MmaS8 || e == MmaS4 || e == MmaS32 }

func mmaElemOf(s string) (MmaElem, bool) {
	for i, n := range mmaElemNames {
		if i > 0 && n == s {
			return MmaElem(i), true
		}
	}
	return MmaNone, false
}

// Sparse kinds of an mma.
const (
	MmaDense   = 0
	MmaSp      = 1 // mma.sp
	MmaSpOrder = 2 // mma.sp::ordered_metadata
)

// MmaForm describes one mma: D (MxN) = A (MxK) * B (KxN) + C.
type MmaForm struct {
	M, N, K    int
	A, B, C, D MmaElem
	// Sparse is MmaDense, MmaSp or MmaSpOrder; Sel the sparsity selector.
	Sparse, Sel uint8
	Xor         bool // b1: .xor.popc (else .and.popc)
	ACol, BRow  bool // m8n8k4 .f16: A column-major, B row-major
	Sat         bool // .satfinite
}

// Imm layout of an extended OpMma: bits 0-9 k, 10 M = 8, 11-12 sparse,
// 13-14 selector, 15 xor, 16 A .col, 17 B .row, 20-23 A, 24-27 B, 28-31 C,
// 32-35 D element formats, 36 set (an extended form).
const mmaExt = 1 << 36

func (f MmaForm) imm() uint64 {
	v := uint64(f.K)&0x3ff | uint64(f.Sparse&3)<<11 | uint64(f.Sel&3)<<13 |
		uint64(f.A&15)<<20 | uint64(f.B&15)<<24 | uint64(f.C&15)<<28 | uint64(f.D&15)<<32 | mmaExt
	if f.M == 8 {
		v |= 1 << 10
	}
	if f.Xor {
		v |= 1 << 15
	}
	if f.ACol {
		v |= 1 << 16
	}
	if f.BRow {
		v |= 1 << 17
	}
	return v
}

// mmaElemOfType is the element format of a first-form OpMma type.
func mmaElemOfType(t Type) MmaElem {
	switch t {
	case F16:
		return MmaF16
	case BF16:
		return MmaBF16
	case TF32:
		return MmaTF32
	case F32:
		return MmaF32
	case F64:
		return MmaF64
	case S8:
		return MmaS8
	case S32:
		return MmaS32
	}
	return MmaNone
}

// MmaExt reports an OpMma of the extended forms (Inst.MmaForm decodes it).
func (in *Inst) MmaExt() bool { return in.Imm&mmaExt != 0 }

// MmaForm decodes an OpMma's form.
func (in *Inst) MmaForm() MmaForm {
	v := in.Imm
	if v&mmaExt == 0 {
		a, d := mmaElemOfType(in.T2), mmaElemOfType(in.T)
		f := MmaForm{M: 16, N: 8, K: int(v & 0x3ff), A: a, B: a, C: d, D: d, Sat: in.Flags&FSatFinite != 0}
		if a == MmaF64 {
			f.M = 8
		}
		return f
	}
	f := MmaForm{M: 16, N: 8, K: int(v & 0x3ff), Sparse: uint8(v >> 11 & 3), Sel: uint8(v >> 13 & 3),
		Xor: v>>15&1 != 0, ACol: v>>16&1 != 0, BRow: v>>17&1 != 0,
		A: MmaElem(v >> 20 & 15), B: MmaElem(v >> 24 & 15), C: MmaElem(v >> 28 & 15), D: MmaElem(v >> 32 & 15),
		Sat: in.Flags&FSatFinite != 0}
	if v>>10&1 != 0 {
		f.M = 8
	}
	return f
}

// M884F16 reports the m8n8k4 form with f16 multiplicands (four 8x8x4
// products a warp, one per quad pair).
func (f MmaForm) M884F16() bool { return f.M == 8 && f.K == 4 && f.A == MmaF16 }

// Counts is the registers per lane of D, A, B and C.
func (f MmaForm) Counts() (nd, na, nb, nc int) {
	regs := func(elems int, e MmaElem) int {
		b := elems * e.Bits()
		if e == MmaF64 {
			return b / 64
		}
		return b / 32
	}
	if f.M884F16() {
		cd := func(e MmaElem) int {
			if e == MmaF16 {
				return 4
			}
			return 8
		}
		return cd(f.D), 2, 2, cd(f.C)
	}
	ka := f.K
	if f.Sparse != MmaDense {
		ka /= 2
	}
	return regs(f.M*f.N/32, f.D), regs(f.M*ka/32, f.A), regs(f.K*f.N/32, f.B), regs(f.M*f.N/32, f.C)
}

// Meta reports whether the form takes a sparsity metadata register (in.A).
func (f MmaForm) Meta() bool { return f.Sparse != MmaDense }
