package vm

import (
	"math"
	"math/bits"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
	"github.com/ptxvm/ptxvm/vm/internal/warpsimd"
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

// halfType is the element type of a packed pair type (or t itself).
func halfType(t Type) Type {
	switch t {
	case F16x2:
		return F16
	case BF16x2:
		return BF16
	}
	return t
}

// compareLanes computes the comparison bit for every lane of exec. For a
// packed pair type, shift selects the half (0 or 16).
func compareLanes(in *Inst, f *frame, exec uint32, t Type, shift uint) uint32 {
	a, b := f.r(in.A), f.r(in.B)
	var r uint32
	if t.Float() {
		ftz := in.Flags&FFtz != 0
		et := halfType(t)
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			if cmpFloat(in.Cmp, floatVal(a[l]>>shift, et, ftz), floatVal(b[l]>>shift, et, ftz)) {
				r |= 1 << l
			}
		}
		return r
	}
	lt, eq := intOrder(a, b, exec, t.Bits(), t.Signed() && in.Cmp <= CmpGe)
	return intCmp(in.Cmp, lt, eq, exec)
}

// intCmp is the integer comparison cmp of the lanes of exec from their
// order (intOrder's masks).
func intCmp(cmp uint8, lt, eq, exec uint32) uint32 {
	switch cmp {
	case CmpEq:
		return eq
	case CmpNe:
		return exec &^ eq
	case CmpLt, CmpLo:
		return lt
	case CmpLe, CmpLs:
		return lt | eq
	case CmpGt, CmpHi:
		return exec &^ (lt | eq)
	}
	return exec &^ lt // CmpGe, CmpHs
}

// setp32Full is execSetp for a full warp's setp of 32-bit integers with
// one destination and no boolean combiner (the tiled multiply's bounds
// and loop tests): the comparison straight from warpsimd.Cmp32, without
// compareLanes' type dispatch. It reports false, having done nothing, for
// other forms.
func (w *Warp) setp32Full(in *Inst, f *frame) bool {
	switch in.T {
	case B32, U32, S32:
	default:
		return false
	}
	if in.BoolOp != BoolNone || in.D2 != NoReg {
		return false
	}
	lt, eq := warpsimd.Cmp32(f.r(in.A), f.r(in.B), in.T == S32 && in.Cmp <= CmpGe)
	f.preds[in.D] = intCmp(in.Cmp, lt, eq, ^uint32(0))
	return true
}

// intOrder compares the n-bit integers a and b of the lanes of exec (as
// cmpInt does), returning the lanes where a < b and those where a == b;
// every integer comparison is one of these masks or a complement. Signed
// values are compared with their sign bit flipped, which maps two's
// complement order onto unsigned order. The lane loop has no branch and
// no switch per lane, and a full warp skips the mask walk (measured: the
// per-lane cmpInt was most of setp's cost in the tiled matmul).
func intOrder(a, b *[32]uint64, exec uint32, n int, signed bool) (lt, eq uint32) {
	if exec == ^uint32(0) && n == 32 {
		return warpsimd.Cmp32(a, b, signed)
	}
	m := ^uint64(0)
	if n < 64 {
		m = 1<<n - 1
	}
	var flip uint64
	if signed {
		flip = 1 << (n - 1)
	}
	if exec == ^uint32(0) {
		for l := range 32 {
			x, y := a[l]&m^flip, b[l]&m^flip
			lt |= b2u(x < y) << l
			eq |= b2u(x == y) << l
		}
		return lt, eq
	}
	for e := exec; e != 0; e &= e - 1 {
		l := bits.TrailingZeros32(e) & 31
		x, y := a[l]&m^flip, b[l]&m^flip
		lt |= b2u(x < y) << l
		eq |= b2u(x == y) << l
	}
	return lt, eq
}

// b2u is 1 for true, 0 for false (compiled without a branch).
func b2u(b bool) uint32 {
	var u uint32
	if b {
		u = 1
	}
	return u
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
	r := compareLanes(in, f, exec, in.T, 0)
	nr := ^r
	if in.T == F16x2 || in.T == BF16x2 {
		// p|q receive the comparisons of the low and high halves.
		nr = compareLanes(in, f, exec, in.T, 16)
	}
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

// execSet writes 1.0 (float destinations) or all ones (integer ones) for a
// true comparison and 0 for a false one; with a packed pair source each
// half of the destination receives its half's result.
func (w *Warp) execSet(in *Inst, f *frame, exec uint32) {
	pair := in.T2 == F16x2 || in.T2 == BF16x2
	var res [2]uint32
	for h := range res {
		if h == 1 && !pair {
			break
		}
		r := compareLanes(in, f, exec, in.T2, uint(16*h))
		if in.BoolOp != BoolNone {
			c := f.preds[in.C]
			if in.Flags&FNeg2 != 0 {
				c = ^c
			}
			r = combine(in.BoolOp, r, c)
		}
		res[h] = r
	}
	var yes uint64
	switch in.T {
	case F32:
		yes = 0x3f800000
	case F16, F16x2:
		yes = 0x3c00
	case BF16, BF16x2:
		yes = 0x3f80
	default:
		yes = 0xffffffff
		if pair {
			yes = 0xffff
		}
	}
	d := f.r(in.D)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		var v uint64
		if res[0]>>l&1 != 0 {
			v = yes
		}
		if pair && res[1]>>l&1 != 0 {
			v |= yes << 16
		}
		d[l] = v
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
