package vm

import (
	"math"
	"math/bits"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// cmpInt evaluates an integer comparison of the low n bits of a and b.
func cmpInt(c uint8, a, b uint64, n int, signed bool) bool {
	if signed && c <= CmpGe {
		x, y := sext(a, n), sext(b, n)
		switch c {
		case CmpEq:
			return x == y
		case CmpNe:
			return x != y
		case CmpLt:
			return x < y
		case CmpLe:
			return x <= y
		case CmpGt:
			return x > y
		default:
			return x >= y
		}
	}
	m := uint64(1)<<uint(n) - 1
	if n == 64 {
		m = ^uint64(0)
	}
	x, y := a&m, b&m
	switch c {
	case CmpEq:
		return x == y
	case CmpNe:
		return x != y
	case CmpLt, CmpLo:
		return x < y
	case CmpLe, CmpLs:
		return x <= y
	case CmpGt, CmpHi:
		return x > y
	default:
		return x >= y
	}
}

// cmpFloat evaluates a floating-point comparison, ordered or unordered.
func cmpFloat(c uint8, x, y float64) bool {
	nan := x != x || y != y
	switch c {
	case CmpEq:
		return !nan && x == y
	case CmpNe:
		return !nan && x != y
	case CmpLt:
		return !nan && x < y
	case CmpLe:
		return !nan && x <= y
	case CmpGt:
		return !nan && x > y
	case CmpGe:
		return !nan && x >= y
	case CmpEqu:
		return nan || x == y
	case CmpNeu:
		return nan || x != y
	case CmpLtu:
		return nan || x < y
	case CmpLeu:
		return nan || x <= y
	case CmpGtu:
		return nan || x > y
	case CmpGeu:
		return nan || x >= y
	case CmpNum:
		return !nan
	case CmpNan:
		return nan
	}
	return false
}

// floatVal widens a float register value of type t to float64 exactly.
func floatVal(v uint64, t Type, ftz bool) float64 {
	switch t {
	case F64:
		return math.Float64frombits(v)
	case F16:
		h := uint16(v)
		if ftz {
			h = fpu.Flush16(h)
		}
		return float64(math.Float32frombits(fpu.F16ToF32(h)))
	case BF16:
		return float64(math.Float32frombits(uint32(uint16(v)) << 16))
	}
	x := uint32(v)
	if ftz {
		x = fpu.Flush32(x)
	}
	return float64(math.Float32frombits(x))
}

// compareLanes computes the comparison bit for every lane of exec.
func compareLanes(in *Inst, f *frame, exec uint32, t Type) uint32 {
	a, b := f.r(in.A), f.r(in.B)
	var r uint32
	if t.Float() {
		ftz := in.Flags&FFtz != 0
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			if cmpFloat(in.Cmp, floatVal(a[l], t, ftz), floatVal(b[l], t, ftz)) {
				r |= 1 << l
			}
		}
		return r
	}
	n, s := t.Bits(), t.Signed()
	if n == 32 && s && in.Cmp == CmpLt {
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			if int32(a[l]) < int32(b[l]) {
				r |= 1 << l
			}
		}
		return r
	}
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if cmpInt(in.Cmp, a[l], b[l], n, s) {
			r |= 1 << l
		}
	}
	return r
}

func combine(op uint8, v, c uint32) uint32 {
	switch op {
	case BoolAnd:
		return v & c
	case BoolOr:
		return v | c
	case BoolXor:
		return v ^ c
	}
	return v
}

func (w *Warp) execSetp(in *Inst, f *frame, exec uint32) {
	if exec == 0 {
		return
	}
	r := compareLanes(in, f, exec, in.T)
	nr := ^r
	if in.BoolOp != BoolNone {
		c := f.preds[in.C]
		if in.Flags&FNeg2 != 0 {
			c = ^c
		}
		r, nr = combine(in.BoolOp, r, c), combine(in.BoolOp, nr, c)
	}
	p := &f.preds[in.D]
	*p = *p&^exec | r&exec
	if in.D2 != NoReg {
		q := &f.preds[in.D2]
		*q = *q&^exec | nr&exec
	}
}

func (w *Warp) execSet(in *Inst, f *frame, exec uint32) {
	r := compareLanes(in, f, exec, in.T2)
	if in.BoolOp != BoolNone {
		c := f.preds[in.C]
		if in.Flags&FNeg2 != 0 {
			c = ^c
		}
		r = combine(in.BoolOp, r, c)
	}
	d := f.r(in.D)
	var yes uint64 = 0xffffffff
	if in.T == F32 {
		yes = 0x3f800000
	}
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if r>>l&1 != 0 {
			d[l] = yes
		} else {
			d[l] = 0
		}
	}
}

func execSlct(in *Inst, f *frame, exec uint32) {
	d, a, b, c := f.r(in.D), f.r(in.A), f.r(in.B), f.r(in.C)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		var pick bool
		if in.T2 == F32 {
			v := uint32(c[l])
			if in.Flags&FFtz != 0 {
				v = fpu.Flush32(v)
			}
			pick = math.Float32frombits(v) >= 0
		} else {
			pick = int32(c[l]) >= 0
		}
		if pick {
			d[l] = a[l]
		} else {
			d[l] = b[l]
		}
	}
}
