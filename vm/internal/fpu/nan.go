package fpu

// The NaN policy lives here and nowhere else. Every function in the package
// that produces a NaN asks one of these functions for its bit pattern.
//
// Every rule below was read off real-GPU results: the PTX conformance suite
// in testdata/conformance (recorded on an NVIDIA H100 and an H200, sm_90, with identical results; "form" names
// below are its cases/<family>/<form>), checked over every vector of each
// form. The NaN inputs there are quiet and signalling, of both signs, with
// and without payloads (0x7ff8000000000000, 0xfff0000000000003,
// 0x7ff7ffffffffffff, 0x7fc00015, 0xff800001, 0x7e15, 0x7f81, ...).
//
// f32, f16, bf16 (and packed .x2) arithmetic, min/max, abs, neg and the
// approximate instructions: every NaN result is the canonical NaN of the
// format, whatever the inputs: 0x7fffffff (every f32 form: add, sub, mul,
// fma, mad, div, rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh, min, max, abs,
// neg, in every rounding mode, with and without .ftz/.sat/.NaN), 0x7fff
// (every f16 and bf16 form, fma .relu and .oob included). abs and neg of a
// NaN also give it: they are not sign-bit operations on NaNs (abs_f32,
// neg_f32, abs_f16, neg_bf16...). copysign is a pure bit operation.
//
// f64 arithmetic propagates NaNs (PTX ISA: "NaN payloads are supported for
// double-precision instructions"):
//   - a NaN input is returned quieted (quiet bit 51 set), with its sign and
//     payload (0xfff0000000000003 → 0xfff8000000000003), never negated: sub
//     and neg do not flip the sign of a NaN, abs does not clear it (sub_*_f64,
//     neg_f64, abs_f64: abs(0xfff0000000000001) = 0xfff8000000000001);
//   - when several inputs are NaN, the one returned is chosen by operand
//     position, not by quiet/signalling: add, sub, mul and min/max take b
//     before a (add_rn_f64: (0x7ff8000000000000, 0xfff0000000000003) →
//     0xfff8000000000003 and (0xfff0000000000003, 0x7ff8000000000000) →
//     0x7ff8000000000000); div takes a before b (div_rn_f64: the mirror
//     results); fma/mad take b, then c, then a (fma_*_f64, mad_*_f64:
//     (sNaN, 1, qNaN) → qNaN, (qNaN, 3, sNaN) → sNaN quieted, (1, qNaN,
//     sNaN) → qNaN, (inf, sNaN, qNaN) → sNaN quieted);
//     The position is really that of the SASS sources, which ptxas
//     chooses: nvcc's f64_arith at -O3 compiles x+y to DADD R4, R20(y),
//     R22(x) and x-y to DADD R12, -R20(y), R22(x), and the GPU returns x's
//     NaN (the second source); at -G it emits DADD R6, R22(x), R24(y) and
//     y's NaN wins. In every kernel seen so far the operand loaded first
//     comes first: the conformance kernels load a, b, c in that order
//     (hence "b before a", and for DFMA second, third, first); nvcc's
//     f64_arith, f64_round and f64_minmax at -O3 load y before x, and the
//     GPU returns x's NaN for x+y, x-y, x*y, fma(x,y,z) (then z, then y),
//     fmin/fmax(x,y) and fdim. A caller that knows the order swaps the
//     commutative operands, or uses Sub64Swapped;
//   - an invalid operation on non-NaN inputs (inf-inf, 0*inf, 0/0, inf/inf,
//     sqrt of a negative, rsqrt.approx.f64 of a negative) gives
//     0xfff8000000000000 (CanonNaN64; add/sub/mul/div/fma/mad/sqrt_*_f64);
//   - rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 give 0x7fffffff00000000
//     (CanonNaN64Hi) for a NaN upper word and for invalid operations
//     (rcp_approx_ftz_f64, rsqrt_approx_ftz_f64);
//   - cvt.rni/rzi/rmi/rpi.f64.f64 returns the NaN quieted (cvt_rni_f64_f64);
//   - atom/red.add.f64 on shared memory quiets and takes old's NaN before
//     b's; on global memory it takes b's before old's and does not quiet
//     (AtomAdd64, nanAtomGlobal64; atom_shared_add_f64, red_shared_add_f64,
//     atom_global_add_f64, red_global_add_f64). atom.add.f32 gives
//     0x7fffffff like every f32 operation.
//
// cvt between float formats (nanConvert):
//   - narrowing from f64 (to f32, f16, bf16; with or without .ftz) keeps the
//     sign and the leading payload bits and sets the quiet bit
//     (cvt_rn_f32_f64: 0x7ff7ffffffffffff → 0x7fffffff, 0xfff4000000000000 →
//     0xffe00000, 0xfff0000000000001 → 0xffc00000; cvt_rn_f16_f64 and
//     cvt_rn_bf16_f64 likewise: → 0xff00, 0xffe0);
//   - widening to f64 keeps sign and payload and sets the quiet bit, from
//     f32, f16 and bf16 (cvt_f64_f32: 0x7f800001 → 0x7ff8000020000000;
//     cvt_f64_f16: 0x7c01 → 0x7ff8040000000000), except cvt.ftz.f64.f32,
//     which gives the widened canonical NaN 0x7fffffffe0000000
//     (cvt_ftz_f64_f32);
//   - cvt.f32.bf16 without .ftz is a bit move (cvt_f32_bf16: 0xffc1 →
//     0xffc10000); with .ftz it gives 0x7fffffff (cvt_ftz_f32_bf16);
//   - every other conversion gives the destination's canonical NaN: f32
//     0x7fffffff (cvt_f32_f16, cvt_ftz_f32_f16, cvt_ftz_f32_f32, cvt.rXi.f32),
//     f16/bf16 0x7fff (from f32, f16, bf16, and from fp8 in
//     cvt.f16x2.e4m3x2/e5m2x2), tf32 0x7fffe000 under .rn/.rz
//     (cvt_rn_tf32_f32, cvt_rz_relu_tf32_f32), fp8 0x7f (e4m3x2 and e5m2x2
//     from f32 and f16x2, with or without .relu);
//   - cvt.rna.tf32.f32 truncates a NaN's low 13 bits (so 0x7f800001 gives
//     +inf: cvt_rna_tf32_f32), and .satfinite then subtracts one tf32 ulp
//     from the magnitude (0x7fc00000 → 0x7fbfe000, 0x7f800001 → 0x7f7fe000:
//     cvt_rna_satfinite_tf32_f32); see tf32RNA in cvt.go.
//   - .relu does not change a NaN result; .sat turns it into +0.

const (
	// CanonNaN32 is the NaN of every f32 result (CUDA Programming Guide;
	// every f32 conformance form).
	CanonNaN32 uint32 = 0x7fffffff
	// CanonNaN64 is the f64 NaN of an invalid operation on non-NaN inputs
	// (the negative default NaN: add/mul/div/fma/sqrt_*_f64).
	CanonNaN64 uint64 = 0xfff8000000000000
	// CanonNaN16 is the NaN of every f16 result.
	CanonNaN16 uint16 = 0x7fff
	// CanonNaNBF16 is the NaN of every bf16 result.
	CanonNaNBF16 uint16 = 0x7fff
	// CanonNaN64Hi is the canonical NaN of rcp.approx.ftz.f64 and
	// rsqrt.approx.ftz.f64 (PTX ISA 9.7.3.14, 9.7.3.17; rcp_approx_ftz_f64).
	CanonNaN64Hi uint64 = 0x7fffffff00000000
	// CanonNaNTF32 is the NaN of cvt.rn/.rz.tf32.f32 (cvt_rn_tf32_f32).
	CanonNaNTF32 uint32 = 0x7fffe000
	// CanonNaNFP8 is the NaN of a conversion to e4m3 or e5m2.
	CanonNaNFP8 uint8 = 0x7f
)

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

// pickNaN64 returns the first NaN of x, y, z quieted, or CanonNaN64 when
// none is a NaN (an invalid operation). Pass 0 for absent operands.
func pickNaN64(x, y, z uint64) uint64 {
	switch {
	case isNaN64(x):
		return x | quiet64
	case isNaN64(y):
		return y | quiet64
	case isNaN64(z):
		return z | quiet64
	}
	return CanonNaN64
}

// nanAdd64 is the NaN result of add, sub and mul.f64 d, a, b (and of
// min/max.f64 with two NaN operands): b's NaN before a's.
func nanAdd64(a, b uint64) uint64 { return pickNaN64(b, a, 0) }

// nanDiv64 is the NaN result of div.f64 d, a, b: a's NaN before b's.
func nanDiv64(a, b uint64) uint64 { return pickNaN64(a, b, 0) }

// nanFma64 is the NaN result of fma/mad.f64 d, a, b, c: b, then c, then a.
func nanFma64(a, b, c uint64) uint64 { return pickNaN64(b, c, a) }

// nanAtomGlobal64 is the NaN that atom/red.global.add.f64 stores: the
// L2's adder neither quiets nor reorders: b's NaN as it is, else old's
// (atom_global_add_f64, red_global_add_f64: old 0x7ff8000000000000 + b
// 0xfff0000000000003 stores 0xfff0000000000003; old 0xfff0000000000003 +
// 1.0 stores 0xfff0000000000003). Invalid operations give CanonNaN64.
func nanAtomGlobal64(old, b uint64) uint64 {
	switch {
	case isNaN64(b):
		return b
	case isNaN64(old):
		return old
	}
	return CanonNaN64
}

// nanUnary64 is the NaN result of a one-operand f64 operation (sqrt, rcp,
// rsqrt.approx, abs, neg, cvt.rXi): the input quieted, or CanonNaN64.
func nanUnary64(a uint64) uint64 { return pickNaN64(a, 0, 0) }

// nanConvert is the NaN that cvt produces from NaN input bits a of kind src
// into kind dst; ftz reports the .ftz modifier.
func nanConvert(a uint64, src, dst FloatKind, ftz bool) uint64 {
	switch dst {
	case F64:
		// Widening: sign and payload kept (left-aligned), quiet bit set.
		switch src {
		case F64:
			return a | quiet64
		case F32, TF32:
			if ftz {
				a = uint64(nan32())
			}
			return uint64(a>>31&1)<<63 | 0x7ff<<52 | uint64(a&0x7fffff)<<29 | quiet64
		case F16:
			return uint64(a>>15&1)<<63 | 0x7ff<<52 | uint64(a&0x3ff)<<42 | quiet64
		case BF16:
			return uint64(a>>15&1)<<63 | 0x7ff<<52 | uint64(a&0x7f)<<45 | quiet64
		}
		return CanonNaN64
	case F32:
		switch {
		case src == BF16 && !ftz:
			return a << 16 // a bit move
		case src == F64:
			return narrowNaN64(a, &fmtF32)
		}
		return uint64(nan32())
	case TF32:
		return uint64(CanonNaNTF32)
	case F16:
		if src == F64 {
			return narrowNaN64(a, &fmtF16)
		}
		return uint64(nan16())
	case BF16:
		if src == F64 {
			return narrowNaN64(a, &fmtBF16)
		}
		return uint64(nanBF16())
	case E4M3, E5M2:
		return uint64(CanonNaNFP8)
	}
	return 0
}

// narrowNaN64 converts an f64 NaN to format f: sign and leading payload
// bits kept, quiet bit (the top fraction bit) set.
func narrowNaN64(a uint64, f *format) uint64 {
	frac := (a & (1<<52 - 1)) >> (52 - f.mant)
	return a>>63<<f.sign | f.inf | frac | 1<<(f.mant-1)
}
