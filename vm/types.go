package vm

// Type is a PTX fundamental type as it appears in an instruction or declaration.
type Type uint8

// The PTX types.
const (
	TNone Type = iota
	B8
	B16
	B32
	B64
	B128
	U8
	U16
	U32
	U64
	S8
	S16
	S32
	S64
	F16
	F16x2
	BF16
	BF16x2
	F32
	F64
	TF32
	Pred
	TexRef
	U16x2 // two 16-bit integers in 32 bits (SIMD add/min/max)
	S16x2
	E4M3x2 // two 8-bit floats in 16 bits (cvt only)
	E5M2x2
)

var typeNames = map[string]Type{
	".b8": B8, ".b16": B16, ".b32": B32, ".b64": B64, ".b128": B128,
	".u8": U8, ".u16": U16, ".u32": U32, ".u64": U64,
	".s8": S8, ".s16": S16, ".s32": S32, ".s64": S64,
	".f16": F16, ".f16x2": F16x2, ".bf16": BF16, ".bf16x2": BF16x2,
	".f32": F32, ".f64": F64, ".tf32": TF32, ".pred": Pred,
	".texref": TexRef, ".u16x2": U16x2, ".s16x2": S16x2, ".e4m3x2": E4M3x2, ".e5m2x2": E5M2x2,
}

// ParseType returns the type a PTX type modifier names (".f32", ".b128",
// ".pred", ...).
func ParseType(s string) (Type, bool) {
	t, ok := typeNames[s]
	return t, ok
}

var typeStrings = func() map[Type]string {
	m := make(map[Type]string, len(typeNames))
	for s, t := range typeNames {
		m[t] = s
	}
	return m
}()

func (t Type) String() string {
	if s, ok := typeStrings[t]; ok {
		return s
	}
	return "<none>"
}

// Size is the size in bytes of one value of t.
func (t Type) Size() int { return int(typeSizes[t]) }

// typeSizes is Size by type, a table: the interpreter asks for a size at
// nearly every instruction, and a switch over the types was a chain of
// compares (about 1% of the tiled multiply's host instructions).
var typeSizes = [256]uint8{
	B8: 1, U8: 1, S8: 1,
	B16: 2, U16: 2, S16: 2, F16: 2, BF16: 2, E4M3x2: 2, E5M2x2: 2,
	B32: 4, U32: 4, S32: 4, F32: 4, F16x2: 4, BF16x2: 4, TF32: 4, U16x2: 4, S16x2: 4,
	B64: 8, U64: 8, S64: 8, F64: 8, TexRef: 8,
	B128: 16,
}

// Bits is 8*Size.
func (t Type) Bits() int { return 8 * t.Size() }

// Signed reports whether t is a signed integer type.
func (t Type) Signed() bool { return t == S8 || t == S16 || t == S32 || t == S64 }

// Float reports whether t is a floating-point type.
func (t Type) Float() bool {
	switch t {
	case F16, F16x2, BF16, BF16x2, F32, F64, TF32:
		return true
	}
	return false
}

// Int reports whether t is an integer or bit-size type.
func (t Type) Int() bool { return !t.Float() && t != Pred && t != TNone && t != TexRef }
