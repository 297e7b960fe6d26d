package vm

import (
	"github.com/ptxvm/ptxvm/vm/internal/fpu"
	"github.com/ptxvm/ptxvm/vm/internal/sfu"
)

// The approximate instructions (MUFU on the GPU) come from package sfu,
// which reproduces the H100's answers bit for bit from tables recorded on
// the GPU. Should the tables be missing (a build without them), or an
// operand fall outside what they cover, package fpu's own approximations,
// within the PTX ISA's error bounds, stand in.

func approxF32(op Op, a, b uint32, ftz, full bool) uint32 {
	if op == OpFDiv {
		if full {
			if v, ok := sfu.DivFull32(a, b, ftz); ok {
				return v
			}
			return fpu.DivFull32(a, b, ftz)
		}
		if v, ok := sfu.DivApprox32(a, b, ftz); ok {
			return v
		}
		return fpu.DivApprox32(a, b, ftz)
	}
	table, computed := unaryApprox32(op)
	if v, ok := table(a, ftz); ok {
		return v
	}
	return computed(a, ftz)
}

// unaryApprox32 returns the table-driven and the computed form of a unary
// approximate f32 instruction.
func unaryApprox32(op Op) (func(uint32, bool) (uint32, bool), func(uint32, bool) uint32) {
	switch op {
	case OpFRcp:
		return sfu.RcpApprox32, fpu.RcpApprox32
	case OpFSqrt:
		return sfu.SqrtApprox32, fpu.SqrtApprox32
	case OpFRsqrt:
		return sfu.RsqrtApprox32, fpu.RsqrtApprox32
	case OpFSin:
		return sfu.SinApprox32, fpu.SinApprox32
	case OpFCos:
		return sfu.CosApprox32, fpu.CosApprox32
	case OpFLg2:
		return sfu.Lg2Approx32, fpu.Lg2Approx32
	case OpFEx2:
		return sfu.Ex2Approx32, fpu.Ex2Approx32
	}
	return tanhTable32, tanhComputed32 // OpFTanh, the only other approximate unary op
}

func tanhTable32(a uint32, _ bool) (uint32, bool) { return sfu.TanhApprox32(a) }
func tanhComputed32(a uint32, _ bool) uint32      { return fpu.TanhApprox32(a) }

func rcpApproxFtz64(a uint64) uint64 {
	if v, ok := sfu.RcpApproxFtz64(a); ok {
		return v
	}
	return fpu.RcpApproxFtz64(a)
}

func rsqrtApproxFtz64(a uint64) uint64 {
	if v, ok := sfu.RsqrtApproxFtz64(a); ok {
		return v
	}
	return fpu.RsqrtApproxFtz64(a)
}

// The half-precision forms are the f32 MUFU operation on the widened
// operand, its result narrowed by truncation (the conformance vectors:
// round-to-nearest is 1 ulp off on a quarter to a third of them, truncation
// matches all), except that an f16 result of 2^16 or more is +inf.

// truncF16 narrows an f32 MUFU result to f16 as the half forms do.
func truncF16(v uint32) uint16 {
	if v&0x7FFFFFFF >= 0x47800000 && v&0x7FFFFFFF <= 0x7F800000 { // 2^16 .. inf
		return uint16(v>>16&0x8000) | 0x7C00
	}
	return fpu.F32ToF16(v, fpu.RZ, false, false)
}

// ex2Approx16 is ex2.approx.f16.
func ex2Approx16(a uint16) uint16 {
	if v, ok := sfu.Ex2Approx32(fpu.F16ToF32(a), true); ok && !fpu.IsNaN(uint64(a), fpu.F16) {
		return truncF16(v)
	}
	return fpu.Ex2Approx16(a)
}

// tanhApprox16 is tanh.approx.f16.
func tanhApprox16(a uint16) uint16 {
	if v, ok := sfu.TanhApprox32(fpu.F16ToF32(a)); ok && !fpu.IsNaN(uint64(a), fpu.F16) {
		return truncF16(v)
	}
	return fpu.TanhApprox16(a)
}

// ex2ApproxBF16 is ex2.approx.ftz.bf16 (subnormal operands and results
// flushed).
func ex2ApproxBF16(a uint16) uint16 {
	if v, ok := sfu.Ex2Approx32(fpu.BF16ToF32(fpu.FlushBF16(a)), true); ok && !fpu.IsNaN(uint64(a), fpu.BF16) {
		return fpu.FlushBF16(fpu.F32ToBF16(v, fpu.RZ, false, false))
	}
	return fpu.Ex2ApproxBF16(a)
}

// tanhApproxBF16 is tanh.approx.bf16.
func tanhApproxBF16(a uint16) uint16 {
	if v, ok := sfu.TanhApprox32(fpu.BF16ToF32(a)); ok && !fpu.IsNaN(uint64(a), fpu.BF16) {
		return fpu.F32ToBF16(v, fpu.RZ, false, false)
	}
	return fpu.TanhApproxBF16(a)
}

// rsqrtApprox64 is rsqrt.approx.f64 as ptxas (CUDA 13, sm_90) emits it
// (testdata/nvcc/sass/float_libm.O3.sass, sfu_asm): y = MUFU.RSQ64H of the
// upper word, then one refinement, e = 1 − x·y², y + (0.5 + 0.375e)·(y·e),
// in DMUL/DFMA. Zero, negative, infinite, NaN and subnormal operands take
// ptxas's slow path: ±0 → ±inf, NaN → x + x, negative → NaN, +inf → +0, and
// a subnormal x runs the same sequence on x·2^54 and scales the result by
// 2^27.
func rsqrtApprox64(a uint64) uint64 {
	const (
		one     = 0x3FF0000000000000
		half    = 0x3FE0000000000000
		c0375   = 0x3FD8000000000000
		two54   = 0x4350000000000000
		two27   = 0x41A0000000000000
		sign64  = 1 << 63
		expMask = 0x7FF0000000000000
	)
	orig, hi := a, uint32(a>>32)
	scaled := false
	if hi-0x100000 >= 0x7FE00000 { // not a positive normal number
		switch {
		case a<<1 == 0:
			return a&sign64 | expMask
		case a&^sign64 > expMask:
			return fpu.Add64(a, a, fpu.RN)
		case a&sign64 != 0:
			return 0xFFF8000000000000
		case a == expMask:
			return 0
		}
		a, scaled = fpu.Mul64(a, two54, fpu.RN), true
	}
	y, ok := sfu.RsqrtApproxFtz64(a)
	if !ok {
		return fpu.RsqrtApprox64(orig)
	}
	yy := fpu.Mul64(y, y, fpu.RN)
	e := fpu.Fma64(a, yy^sign64, one, fpu.RN)
	t := fpu.Fma64(e, c0375, half, fpu.RN)
	r := fpu.Fma64(t, fpu.Mul64(y, e, fpu.RN), y, fpu.RN)
	if scaled {
		r = fpu.Mul64(r, two27, fpu.RN)
	}
	return r
}
