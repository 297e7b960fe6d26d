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
	var v uint32
	var ok bool
	switch op {
	case OpFDiv:
		if full {
			if v, ok = sfu.DivFull32(a, b, ftz); !ok {
				v = fpu.DivFull32(a, b, ftz)
			}
		} else if v, ok = sfu.DivApprox32(a, b, ftz); !ok {
			v = fpu.DivApprox32(a, b, ftz)
		}
	case OpFRcp:
		if v, ok = sfu.RcpApprox32(a, ftz); !ok {
			v = fpu.RcpApprox32(a, ftz)
		}
	case OpFSqrt:
		if v, ok = sfu.SqrtApprox32(a, ftz); !ok {
			v = fpu.SqrtApprox32(a, ftz)
		}
	case OpFRsqrt:
		if v, ok = sfu.RsqrtApprox32(a, ftz); !ok {
			v = fpu.RsqrtApprox32(a, ftz)
		}
	case OpFSin:
		if v, ok = sfu.SinApprox32(a, ftz); !ok {
			v = fpu.SinApprox32(a, ftz)
		}
	case OpFCos:
		if v, ok = sfu.CosApprox32(a, ftz); !ok {
			v = fpu.CosApprox32(a, ftz)
		}
	case OpFLg2:
		if v, ok = sfu.Lg2Approx32(a, ftz); !ok {
			v = fpu.Lg2Approx32(a, ftz)
		}
	case OpFEx2:
		if v, ok = sfu.Ex2Approx32(a, ftz); !ok {
			v = fpu.Ex2Approx32(a, ftz)
		}
	case OpFTanh:
		if v, ok = sfu.TanhApprox32(a); !ok {
			v = fpu.TanhApprox32(a)
		}
	}
	return v
}

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
