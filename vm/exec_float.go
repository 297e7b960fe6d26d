package vm

import (
	"math"
	"math/bits"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// canon32 returns the bits of an f32 result, with NaNs made canonical as
// the GPU does.
func canon32(x float32) uint32 {
	if x != x {
		return fpu.CanonNaN32
	}
	return math.Float32bits(x)
}

// fma32 is fma.rn.f32 with a single rounding.
func fma32(a, b, c uint32) uint32 { return fpu.Fma32(a, b, c, fpu.RN, false, false) }

var testpClass = [...]fpu.TestpClass{
	testFinite: fpu.TestFinite, testInfinite: fpu.TestInfinite, testNumber: fpu.TestNumber,
	testNotANumber: fpu.TestNotANumber, testNormal: fpu.TestNormal, testSubnormal: fpu.TestSubnormal,
}

// execFloat executes floating-point operations through package fpu.
func (w *Warp) execFloat(in *Inst, f *frame, exec uint32) {
	a := f.r(in.A)
	if in.Op == OpTestp {
		cl := testpClass[in.Imm]
		var r uint32
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			var ok bool
			switch in.T {
			case F64:
				ok = fpu.Testp64(a[l], cl)
			default:
				ok = fpu.Testp32(uint32(a[l]), cl)
			}
			if ok {
				r |= 1 << l
			}
		}
		p := &f.preds[in.D]
		*p = *p&^exec | r
		return
	}
	d := f.r(in.D)
	b, c := a, a
	if in.B != NoReg {
		b = f.r(in.B)
	}
	if in.C != NoReg {
		c = f.r(in.C)
	}
	if in.Op == OpFFma && in.Imm != 0 {
		// Contracted from mul + sub or neg: the operands' signs flipped as
		// the machine instruction's negation modifiers do (a NaN passes
		// unchanged: DFMA with -R returns R's NaN as it is).
		na, nc := in.Imm&fmaNegProduct != 0, in.Imm&fmaNegAddend != 0
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			av, cv := a[l], c[l]
			if na {
				av = negNonNaN(av, in.T)
			}
			if nc {
				cv = negNonNaN(cv, in.T)
			}
			d[l] = floatOp(in, av, b[l], cv)
		}
		return
	}
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		d[l] = floatOp(in, a[l], b[l], c[l])
	}
}

// negNonNaN flips the sign of each value of type t in v that is not a NaN.
func negNonNaN(v uint64, t Type) uint64 {
	switch t {
	case F32:
		if v&0x7fffffff <= 0x7f800000 {
			v ^= 1 << 31
		}
	case F64:
		if v&(1<<63-1) <= 0x7ff0000000000000 {
			v ^= 1 << 63
		}
	case F16:
		if v&0x7fff <= 0x7c00 {
			v ^= 1 << 15
		}
	case BF16:
		if v&0x7fff <= 0x7f80 {
			v ^= 1 << 15
		}
	case F16x2, BF16x2:
		h := F16
		if t == BF16x2 {
			h = BF16
		}
		v = negNonNaN(v>>16&0xffff, h)<<16 | negNonNaN(v&0xffff, h)
	}
	return v
}

func floatOp(in *Inst, a, b, c uint64) uint64 {
	switch in.T {
	case F32:
		return uint64(f32Op(in, uint32(a), uint32(b), uint32(c)))
	case F64:
		return f64Op(in, a, b, c)
	case F16, BF16:
		return uint64(f16Op(in, uint16(a), uint16(b), uint16(c), in.T == BF16))
	case F16x2, BF16x2:
		bf := in.T == BF16x2
		lo := f16Op(in, uint16(a), uint16(b), uint16(c), bf)
		hi := f16Op(in, uint16(a>>16), uint16(b>>16), uint16(c>>16), bf)
		return uint64(hi)<<16 | uint64(lo)
	}
	return 0
}

func f32Op(in *Inst, a, b, c uint32) uint32 {
	r := fpu.Round(in.Rnd)
	ftz, sat := in.Flags&FFtz != 0, in.Flags&FSat != 0
	approx := in.Flags&FApprox != 0
	var v uint32
	switch in.Op {
	case OpFAdd:
		return fpu.Add32(a, b, r, ftz, sat)
	case OpFSub:
		return fpu.Sub32(a, b, r, ftz, sat)
	case OpFMul:
		return fpu.Mul32(a, b, r, ftz, sat)
	case OpFFma:
		return fpu.Fma32(a, b, c, r, ftz, sat)
	case OpFDiv:
		if approx || in.Flags&FFull != 0 {
			v = approxF32(in.Op, a, b, ftz, in.Flags&FFull != 0)
		} else {
			v = fpu.Div32(a, b, r, ftz)
		}
	case OpFRcp, OpFSqrt:
		switch {
		case approx:
			v = approxF32(in.Op, a, b, ftz, false)
		case in.Op == OpFRcp:
			v = fpu.Rcp32(a, r, ftz)
		default:
			v = fpu.Sqrt32(a, r, ftz)
		}
	case OpFRsqrt, OpFSin, OpFCos, OpFLg2, OpFEx2, OpFTanh:
		v = approxF32(in.Op, a, b, ftz, false)
	case OpFMin:
		v = fpu.Min32(a, b, ftz, in.Flags&FNaN != 0, in.Flags&FXorSign != 0)
	case OpFMax:
		v = fpu.Max32(a, b, ftz, in.Flags&FNaN != 0, in.Flags&FXorSign != 0)
	case OpFAbs:
		v = fpu.Abs32(a, ftz)
	case OpFNeg:
		v = fpu.Neg32(a, ftz)
	case OpFCopysign:
		v = fpu.Copysign32(a, b)
	}
	if sat {
		v = fpu.Sat32(v)
	}
	return v
}

func f64Op(in *Inst, a, b, c uint64) uint64 {
	r := fpu.Round(in.Rnd)
	approx := in.Flags&FApprox != 0
	if in.Flags&FNaNFirstA != 0 {
		// The GPU returns the NaN of the operand ptxas places second in the
		// machine instruction; lowering predicted a comes first here.
		switch in.Op {
		case OpFAdd:
			return fpu.Add64(b, a, r)
		case OpFSub:
			return fpu.Sub64Swapped(a, b, r)
		case OpFMul:
			return fpu.Mul64(b, a, r)
		case OpFMin:
			return fpu.Min64(b, a)
		case OpFMax:
			return fpu.Max64(b, a)
		}
	}
	switch in.Op {
	case OpFAdd:
		return fpu.Add64(a, b, r)
	case OpFSub:
		return fpu.Sub64(a, b, r)
	case OpFMul:
		return fpu.Mul64(a, b, r)
	case OpFFma:
		return fpu.Fma64(a, b, c, r)
	case OpFDiv:
		return fpu.Div64(a, b, r)
	case OpFRcp:
		if approx {
			return rcpApproxFtz64(a)
		}
		return fpu.Rcp64(a, r)
	case OpFSqrt:
		return fpu.Sqrt64(a, r)
	case OpFRsqrt:
		if in.Flags&FFtz != 0 {
			return rsqrtApproxFtz64(a)
		}
		return rsqrtApprox64(a)
	case OpFMin:
		return fpu.Min64(a, b)
	case OpFMax:
		return fpu.Max64(a, b)
	case OpFAbs:
		return fpu.Abs64(a)
	case OpFNeg:
		return fpu.Neg64(a)
	case OpFCopysign:
		return fpu.Copysign64(a, b)
	}
	return 0
}

func f16Op(in *Inst, a, b, c uint16, bf bool) uint16 {
	if in.Flags&FOob != 0 && in.Op == OpFFma {
		if bf {
			return fpu.FmaOOBBF16(a, b, c, in.Flags&FRelu != 0)
		}
		return fpu.FmaOOB16(a, b, c, in.Flags&FRelu != 0)
	}
	r := fpu.Round(in.Rnd)
	ftz, sat := in.Flags&FFtz != 0, in.Flags&FSat != 0
	nan, xs := in.Flags&FNaN != 0, in.Flags&FXorSign != 0
	var v uint16
	if bf {
		switch in.Op {
		case OpFAdd:
			v = fpu.AddBF16(a, b, r)
		case OpFSub:
			v = fpu.SubBF16(a, b, r)
		case OpFMul:
			v = fpu.MulBF16(a, b, r)
		case OpFFma:
			v = fpu.FmaBF16(a, b, c, r)
		case OpFMin:
			v = fpu.MinBF16(a, b, nan, xs)
		case OpFMax:
			v = fpu.MaxBF16(a, b, nan, xs)
		case OpFNeg:
			v = fpu.NegBF16(a)
		case OpFAbs:
			v = fpu.AbsBF16(a)
		case OpFEx2:
			v = ex2ApproxBF16(a)
		case OpFTanh:
			v = tanhApproxBF16(a)
		}
		if in.Flags&FRelu != 0 {
			v = fpu.ReluBF16(v)
		}
		return v
	}
	switch in.Op {
	case OpFAdd:
		v = fpu.Add16(a, b, r, ftz, sat)
	case OpFSub:
		v = fpu.Sub16(a, b, r, ftz, sat)
	case OpFMul:
		v = fpu.Mul16(a, b, r, ftz, sat)
	case OpFFma:
		v = fpu.Fma16(a, b, c, r, ftz, sat)
	case OpFMin:
		v = fpu.Min16(a, b, ftz, nan, xs)
	case OpFMax:
		v = fpu.Max16(a, b, ftz, nan, xs)
	case OpFNeg:
		v = fpu.Neg16(a, ftz)
	case OpFAbs:
		v = fpu.Abs16(a, ftz)
	case OpFEx2:
		v = ex2Approx16(a)
	case OpFTanh:
		v = tanhApprox16(a)
	}
	if in.Flags&FRelu != 0 {
		v = fpu.Relu16(v)
	}
	return v
}

// floatKind maps a PTX float type to the fpu format.
func floatKind(t Type) fpu.FloatKind {
	switch t {
	case F16:
		return fpu.F16
	case BF16:
		return fpu.BF16
	case F64:
		return fpu.F64
	case TF32:
		return fpu.TF32
	}
	return fpu.F32
}

// execCvt implements cvt between every pair of types.
func (w *Warp) execCvt(in *Inst, f *frame, exec uint32) {
	d, a := f.r(in.D), f.r(in.A)
	dt, st := in.T, in.T2
	if !dt.Float() && !st.Float() {
		// integer -> integer: extend from the source width, then truncate
		// or saturate to the destination.
		sn, dn := st.Bits(), dt.Bits()
		dmask := sizeMask(dt)
		sat := in.Flags&FSat != 0
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			v := a[l]
			if st.Signed() {
				v = uint64(sext(v, sn))
			} else if sn < 64 {
				v &= uint64(1)<<uint(sn) - 1
			}
			if sat {
				v = satInt(v, st.Signed(), dn, dt.Signed())
			}
			if dt.Signed() {
				// A signed result narrower than its register is sign-extended
				// into it (cvt.s8 into a 16-bit register reads back as s16).
				d[l] = uint64(sext(v, dn))
			} else {
				d[l] = v & dmask
			}
		}
		return
	}
	rnd := fpu.Round(in.Rnd)
	ftz := in.Flags&FFtz != 0
	switch {
	case dt.Float() && !st.Float(): // int -> float
		if in.Rnd == rndDefault {
			rnd = fpu.RN
		}
		k := floatKind(dt)
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			v := fpu.IntToFloat(a[l], st.Bits(), st.Signed(), k, rnd)
			if in.Flags&FSat != 0 {
				v = satFloat(v, dt)
			}
			d[l] = v
		}
	case !dt.Float(): // float -> int
		if in.Rnd == rndDefault {
			rnd = fpu.RZ
		}
		k := floatKind(st)
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			v := fpu.FloatToInt(a[l], k, dt.Bits(), dt.Signed(), rnd, ftz)
			if dt.Signed() {
				v = uint64(sext(v, dt.Bits()))
			}
			d[l] = v
		}
	default: // float -> float
		sk, dk := floatKind(st), floatKind(dt)
		if in.Rnd == rndDefault {
			rnd = fpu.RN
		}
		var fl fpu.CvtFlags
		if ftz {
			fl |= fpu.CvtFtz
		}
		if in.Flags&FSat != 0 {
			fl |= fpu.CvtSat
		}
		if in.Flags&FRelu != 0 {
			fl |= fpu.CvtRelu
		}
		if in.Flags&FSatFinite != 0 {
			fl |= fpu.CvtSatFinite
		}
		intRnd := in.Flags&fIntRnd != 0
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			v := a[l]
			if intRnd {
				v = fpu.RoundIntegral(v, sk, rnd, ftz, in.Flags&FSat != 0)
				if sk != dk {
					v = fpu.Convert(v, sk, dk, fpu.RN, fl&^fpu.CvtSat)
				}
			} else {
				v = fpu.Convert(v, sk, dk, rnd, fl)
			}
			d[l] = v
		}
	}
}

// execCvtPack implements cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b:
// a converted into the upper half, b into the lower.
func (w *Warp) execCvtPack(in *Inst, f *frame, exec uint32) {
	d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
	k := fpu.F16
	if in.T == BF16x2 {
		k = fpu.BF16
	}
	var fl fpu.CvtFlags
	if in.Flags&FRelu != 0 {
		fl |= fpu.CvtRelu
	}
	if in.Flags&FSatFinite != 0 {
		fl |= fpu.CvtSatFinite
	}
	r := fpu.Round(in.Rnd)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		hi := fpu.Convert(a[l]&0xffffffff, fpu.F32, k, r, fl)
		lo := fpu.Convert(b[l]&0xffffffff, fpu.F32, k, r, fl)
		d[l] = hi<<16 | lo&0xffff
	}
}

// satInt clamps an extended integer to the destination range.
func satInt(v uint64, srcSigned bool, dn int, dstSigned bool) uint64 {
	if srcSigned {
		s := int64(v)
		var lo, hi int64
		if dstSigned {
			lo, hi = -(int64(1) << uint(dn-1)), int64(1)<<uint(dn-1)-1
			if dn == 64 {
				lo, hi = math.MinInt64, math.MaxInt64
			}
		} else {
			lo = 0
			hi = int64(1)<<uint(dn) - 1
			if dn == 64 {
				hi = math.MaxInt64
			}
		}
		if s < lo {
			return uint64(lo)
		}
		if s > hi {
			if !dstSigned && dn == 64 {
				return uint64(s)
			}
			return uint64(hi)
		}
		return uint64(s)
	}
	var hi uint64
	if dstSigned {
		hi = uint64(1)<<uint(dn-1) - 1
	} else {
		hi = uint64(1)<<uint(dn) - 1
		if dn == 64 {
			hi = math.MaxUint64
		}
	}
	if v > hi {
		return hi
	}
	return v
}

// satFloat clamps a float of type t to [0, 1]; NaN becomes +0.
func satFloat(v uint64, t Type) uint64 {
	switch t {
	case F64:
		return fpu.Sat64(v)
	case F32:
		return uint64(fpu.Sat32(uint32(v)))
	case F16:
		return uint64(fpu.Sat16(uint16(v)))
	}
	return v
}
