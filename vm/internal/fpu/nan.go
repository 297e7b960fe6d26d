package fpu

// The NaN policy lives here and nowhere else. Every function in the package
// that produces a NaN asks one of these functions for its bit pattern, so a
// correction from real-GPU results is a change to this file only.
//
// What the sources say:
//   - CUDA C++ Programming Guide (floating-point standard): "the result of a
//     single-precision floating-point operation involving one or more input
//     NaNs is the quiet NaN of bit pattern 0x7fffffff", and "double-precision
//     floating-point absolute value and negation are not compliant with
//     IEEE-754 with respect to NaNs; these are passed through unchanged".
//   - PTX ISA 9.7.3 (Floating-Point Instructions): "NaN payloads are
//     supported for double-precision instructions (except for
//     rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64, which maps input NaNs to a
//     canonical NaN)". Single- and half-precision instructions "return an
//     unspecified NaN". abs.f64: "NaN input is passed through unchanged".
//   - PTX ISA 9.7.3.14/17: the canonical NaN of rcp/rsqrt.approx.ftz.f64 is
//     0x7fffffff00000000.
//
// What is a guess, to be settled against H100 results:
//   - CanonNaN64, the f64 NaN an invalid operation (inf-inf, 0*inf, 0/0,
//     sqrt(-1)) produces when no input is NaN;
//   - which input NaN an f64 operation propagates when several are NaN (we
//     take the first in operand order a, b, c) and whether it is quieted (we
//     set the quiet bit, as IEEE 754 requires);
//   - CanonNaN16 / CanonNaNBF16 for half-precision results;
//   - the NaN a widening conversion produces (f32→f64 keeps the payload);
//   - the NaN abs/neg of f32/f16/bf16 produce (we canonicalize: ptxas often
//     lowers them to FADD/HADD2 with operand modifiers, which canonicalize).

const (
	// CanonNaN32 is NVIDIA's canonical f32 NaN (CUDA Programming Guide).
	CanonNaN32 uint32 = 0x7fffffff
	// CanonNaN64 is the f64 NaN of an invalid operation (to be confirmed).
	CanonNaN64 uint64 = 0x7fffffffffffffff
	// CanonNaN16 is the f16 NaN of half-precision results (to be confirmed).
	CanonNaN16 uint16 = 0x7fff
	// CanonNaNBF16 is the bf16 NaN of bf16 results (to be confirmed).
	CanonNaNBF16 uint16 = 0x7fff
	// CanonNaN64Hi is the canonical NaN of rcp.approx.ftz.f64 and
	// rsqrt.approx.ftz.f64 (PTX ISA 9.7.3.14, 9.7.3.17).
	CanonNaN64Hi uint64 = 0x7fffffff00000000
	// CanonNaNTF32 is the NaN of a conversion to tf32 (to be confirmed).
	CanonNaNTF32 uint32 = 0x7fffffff
)

// propagateNaN64 selects whether f64 arithmetic returns an input NaN
// (quieted) rather than CanonNaN64 (PTX ISA: payloads are supported).
const propagateNaN64 = true

const (
	quiet64 = uint64(1) << 51
	quiet32 = uint32(1) << 22
)

func isNaN64(x uint64) bool  { return x&^(1<<63) > 0x7ff0000000000000 }
func isNaN32(x uint32) bool  { return x&0x7fffffff > 0x7f800000 }
func isNaN16(x uint16) bool  { return x&0x7fff > 0x7c00 }
func isNaNBF(x uint16) bool  { return x&0x7fff > 0x7f80 }
func isInf64(x uint64) bool  { return x&^(1<<63) == 0x7ff0000000000000 }
func isInf32(x uint32) bool  { return x&0x7fffffff == 0x7f800000 }
func isSpec32(x uint32) bool { return x&0x7f800000 == 0x7f800000 } // inf or NaN
func isSpec64(x uint64) bool { return x&0x7ff0000000000000 == 0x7ff0000000000000 }

// nan32 is the result of every f32 operation whose result is NaN.
func nan32() uint32 { return CanonNaN32 }

// nan16 is the result of every f16 operation whose result is NaN.
func nan16() uint16 { return CanonNaN16 }

// nanBF16 is the result of every bf16 operation whose result is NaN.
func nanBF16() uint16 { return CanonNaNBF16 }

// nan64 is the result of an f64 operation with operands a, b (pass a NaN-free
// value such as 0 for absent operands) whose result is NaN.
func nan64(a, b uint64) uint64 {
	if propagateNaN64 && isNaN64(a) {
		return a | quiet64
	}
	if propagateNaN64 && isNaN64(b) {
		return b | quiet64
	}
	return CanonNaN64
}

// nan64x3 is nan64 for three operands.
func nan64x3(a, b, c uint64) uint64 {
	if propagateNaN64 && !isNaN64(a) && !isNaN64(b) && isNaN64(c) {
		return c | quiet64
	}
	return nan64(a, b)
}

// absNeg64NaN is abs.f64/neg.f64 of a NaN: passed through unchanged.
func absNeg64NaN(a uint64) uint64 { return a }

// nanConvert is the NaN that cvt produces from NaN input bits a of kind src
// into kind dst.
func nanConvert(a uint64, src, dst FloatKind) uint64 {
	switch dst {
	case F64:
		// Widening into f64: a double-precision result, which supports
		// payloads: keep sign and payload (left-aligned), set the quiet bit.
		switch src {
		case F64:
			return a | quiet64
		case F32, TF32:
			return uint64(a>>31&1)<<63 | 0x7ff<<52 | uint64(a&0x7fffff)<<29 | quiet64
		case F16:
			return uint64(a>>15&1)<<63 | 0x7ff<<52 | uint64(a&0x3ff)<<42 | quiet64
		case BF16:
			return uint64(a>>15&1)<<63 | 0x7ff<<52 | uint64(a&0x7f)<<45 | quiet64
		}
	case F32:
		if src == BF16 {
			// cvt.f32.bf16 is a bit move on the GPU (the bf16 pattern
			// becomes the upper half of the f32): the NaN is kept as is.
			return a << 16
		}
		return uint64(nan32())
	case TF32:
		return uint64(CanonNaNTF32)
	case F16:
		return uint64(nan16())
	case BF16:
		return uint64(nanBF16())
	}
	return 0
}
