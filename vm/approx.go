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

// computedOnly makes the computed approximations stand in for the tables
// (set by tests whose subject is not the values: decoding every table costs
// seconds).
var computedOnly bool

func approxF32(op Op, a, b uint32, ftz, full bool) uint32 {
	if op == OpFDiv {
		if full {
			if !computedOnly {
				if v, ok := sfu.DivFull32(a, b, ftz); ok {
					return v
				}
			}
			return fpu.DivFull32(a, b, ftz)
		}
		if !computedOnly {
			if v, ok := sfu.DivApprox32(a, b, ftz); ok {
				return v
			}
		}
		return fpu.DivApprox32(a, b, ftz)
	}
	table, computed := unaryApprox32(op)
	if !computedOnly {
		if v, ok := table(a, ftz); ok {
			return v
		}
	}
	return computed(a, ftz)
}

// divParts32 returns the factors of the FMUL that ends div.approx/div.full
// f32 (sfu.DivParts32); without the tables, a and the computed reciprocal.
func divParts32(a, b uint32, ftz, full bool) (uint32, uint32) {
	if !computedOnly {
		if as, r, ok := sfu.DivParts32(a, b, ftz, full); ok {
			return as, r
		}
	}
	return a, fpu.RcpApprox32(b, ftz)
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

// orComputed is table(a) where the tables cover a, else computed(a).
func orComputed[T uint16 | uint64](table func(T) (T, bool), computed func(T) T, a T) T {
	if !computedOnly {
		if v, ok := table(a); ok {
			return v
		}
	}
	return computed(a)
}

func rcpApproxFtz64(a uint64) uint64 {
	return orComputed(sfu.RcpApproxFtz64, fpu.RcpApproxFtz64, a)
}
func rsqrtApproxFtz64(a uint64) uint64 {
	return orComputed(sfu.RsqrtApproxFtz64, fpu.RsqrtApproxFtz64, a)
}
func rsqrtApprox64(a uint64) uint64 { return orComputed(sfu.RsqrtApprox64, fpu.RsqrtApprox64, a) }
func ex2Approx16(a uint16) uint16   { return orComputed(sfu.Ex2Approx16, fpu.Ex2Approx16, a) }
func tanhApprox16(a uint16) uint16  { return orComputed(sfu.TanhApprox16, fpu.TanhApprox16, a) }
func ex2ApproxBF16(a uint16) uint16 { return orComputed(sfu.Ex2ApproxBF16, fpu.Ex2ApproxBF16, a) }
func tanhApproxBF16(a uint16) uint16 {
	return orComputed(sfu.TanhApproxBF16, fpu.TanhApproxBF16, a)
}
