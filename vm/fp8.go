package vm

import (
	"math/bits"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// fp8Kind maps a packed fp8 pair type to its element format.
func fp8Kind(t Type) (fpu.FloatKind, bool) {
	switch t {
	case E4M3x2:
		return fpu.E4M3, true
	case E5M2x2:
		return fpu.E5M2, true
	}
	return 0, false
}

// fp8Pair reports whether t is a packed fp8 pair.
func fp8Pair(t Type) (fpu.FloatKind, bool) { return fp8Kind(t) }

// execCvtFP8 converts to and from the packed fp8 pairs (sm_89+):
// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b (a into the upper
// byte), cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a and
// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a.
func (w *Warp) execCvtFP8(in *Inst, f *frame, exec uint32) {
	d, a := f.r(in.D), f.r(in.A)
	var fl fpu.CvtFlags
	if in.Flags&FRelu != 0 {
		fl |= fpu.CvtRelu
	}
	if in.Flags&FSatFinite != 0 {
		fl |= fpu.CvtSatFinite
	}
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if src, ok := fp8Kind(in.T2); ok { // unpack to f16x2
			v := a[l]
			lo := fpu.Convert(v&0xff, src, fpu.F16, fpu.RN, fl)
			hi := fpu.Convert(v>>8&0xff, src, fpu.F16, fpu.RN, fl)
			d[l] = hi<<16 | lo
			continue
		}
		dst, _ := fp8Kind(in.T)
		var hi, lo uint64
		if in.T2 == F32 {
			hi = fpu.Convert(a[l]&0xffffffff, fpu.F32, dst, fpu.RN, fl)
			lo = fpu.Convert(f.r(in.B)[l]&0xffffffff, fpu.F32, dst, fpu.RN, fl)
		} else { // f16x2
			hi = fpu.Convert(a[l]>>16&0xffff, fpu.F16, dst, fpu.RN, fl)
			lo = fpu.Convert(a[l]&0xffff, fpu.F16, dst, fpu.RN, fl)
		}
		d[l] = hi<<8 | lo
	}
}
