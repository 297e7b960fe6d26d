// Package fpu owns the floating-point and conversion semantics of PTX as
// pure functions over IEEE bit patterns: f32/f64 arithmetic in every
// rounding mode (add, sub, mul, fma, div, sqrt, rcp), min/max, abs, neg,
// copysign and testp; f16 and bf16 scalar arithmetic; the approximate
// instructions (rcp/div/sqrt/rsqrt/sin/cos/lg2/ex2/tanh .approx); and cvt
// between every float and integer type, with .ftz, .sat, .relu and
// .satfinite; and the tensor core's dot product of mma .f32.f16.f16.f32
// (DotF16F32, mma.go: one fused sum of the exact products and c with
// alignment truncation and rounding toward zero, learned from the GPU), the
// other mma types (mma_ext.go) and the native fp8 wgmma (DotFP8WG,
// wgfp8.go: the same sum with 13 bits kept).
//
// Package vm calls it once per lane; it knows nothing about registers,
// warps or the instruction stream, and the .x2 packed forms are built by
// the caller from the scalar functions here.
//
// Semantics, in brief (the PTX ISA's instruction pages are the authority;
// each function's comment names the rule it follows):
//   - IEEE results are correctly rounded with a single rounding in RN, RZ,
//     RM and RP (and RNA for cvt), with gradual underflow and IEEE overflow
//     (RN → inf; RZ → max finite; RM/RP by sign). roundMant in round.go is
//     the one rounding routine every slow path ends in.
//   - .ftz flushes f32 (or f16) subnormal inputs to a zero of the same
//     sign, and results that are tiny after rounding: below the smallest
//     normal once rounded to full precision with an unbounded exponent
//     (roundMantFtz; so a result just below 2^-126 that IEEE subnormal
//     rounding would carry up to 2^-126 is flushed, as on the GPU).
//   - .sat clamps to [0.0, 1.0] with NaN (and -0) giving +0.0.
//   - NaN results follow the policy in nan.go, read off real-GPU results:
//     f32/f16/bf16 results are canonical NaNs, f64 results propagate a
//     quieted input NaN (chosen by operand position) or 0xfff8000000000000.
//   - gpu_test.go runs every function on the real-GPU vectors of the PTX
//     conformance suite (testdata/conformance) and logs the largest error
//     of each approximate instruction.
//   - Approximate instructions are evaluated accurately and rounded to
//     nearest (or as fitted to the GPU, see ApproxBounds), inside the ISA's
//     stated bounds, with the ISA's special-value tables honoured exactly.
//
// Speed: the RN, no-.ftz, no-.sat paths of Add32, Mul32, Fma32, Div32,
// F64ToF32 and the f64 operations are a few native float operations plus a
// NaN check, and allocate nothing. math/big appears only on rare f64 slow
// paths (directed-rounding fma whose product is near the bottom of the
// subnormal range or near overflow, directed sqrt of tiny values).
package fpu
