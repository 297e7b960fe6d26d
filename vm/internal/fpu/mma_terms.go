package fpu

// TcTerm is a tensor-core multiplicand decoded once for the many dot
// products it enters (a wmma of 16×16×16 uses each element of A and B in
// 16 of them): its significand with the implicit bit (0 for a zero), its
// exponent field less the bias (a subnormal's field counts as 1), its sign,
// and whether it is an infinity or a NaN.
type TcTerm struct {
	M       uint32
	E       int32
	Neg     bool
	Special bool
}

// DecodeTc decodes x, a multiplicand of format f, for DotF32Terms.
func DecodeTc(f MmaIn, x uint32) TcTerm {
	ft := mmaFmts[f&3]
	x >>= ft.sh
	emask, mmask := uint32(1)<<ft.eb-1, uint32(1)<<ft.mb-1
	e, m := x>>ft.mb&emask, x&mmask
	t := TcTerm{Neg: x>>(ft.eb+ft.mb)&1 != 0}
	switch {
	case e == emask:
		t.Special = true
	case e == 0:
		t.M, t.E = m, 1-int32(ft.bias)
	default:
		t.M, t.E = m|1<<ft.mb, int32(e)-int32(ft.bias)
	}
	return t
}

// DecodeTcRow sets dst[k] = DecodeTc(f, src[k]) for the first k = len(dst)
// elements (at most len(src)): one row of A or column of B.
func DecodeTcRow(f MmaIn, dst []TcTerm, src []uint32) {
	for k := range min(len(dst), len(src)) {
		dst[k] = DecodeTc(f, src[k])
	}
}

// DotF32Terms is DotF32(f, a, b, c) with a[k] and b[k] also given decoded
// (ta[k] = DecodeTc(f, a[k]), likewise tb): the same sum, bit for bit,
// without decoding each multiplicand again in every dot product it enters.
// An infinite or NaN operand or c, or a sum of zeros, takes DotF32 itself.
func DotF32Terms(f MmaIn, ta, tb []TcTerm, a, b []uint32, c uint32) uint32 {
	n := min(len(ta), len(tb), 16)
	cm, cl, ce, cneg, cnan, cpinf, cninf := decodeC32(c)
	if cnan || cpinf || cninf {
		return DotF32(f, a, b, c)
	}
	mb2 := 2 * int32(mmaFmts[f&3].mb)
	E := int32(-1 << 30)
	for k := range n {
		x, y := &ta[k], &tb[k]
		if x.Special || y.Special {
			return DotF32(f, a, b, c)
		}
		if x.M != 0 && y.M != 0 {
			E = max(E, x.E+y.E)
		}
	}
	if cm != 0 {
		E = max(E, ce)
	} else if E == -1<<30 {
		return DotF32(f, a, b, c) // every term zero: the sign rule
	}
	sc := E - mmaKeep // weight of the last bit kept
	// A product's exponent is at most E, so its bits shift left by at most
	// mmaKeep - 2·mb (5 for f16 and tf32, 11 for bf16: below 2^27) and
	// then right by E minus its exponent, truncating; without a branch
	// (a zero product, or one shifted out entirely, adds 0: Go's shifts
	// of 64 or more give 0).
	up := uint(mmaKeep - mb2)
	var sum int64
	for k := range n {
		x, y := &ta[k], &tb[k]
		v := int64(uint64(x.M) * uint64(y.M) << up >> uint(E-(x.E+y.E)))
		neg := -int64(b2i(x.Neg != y.Neg)) // 0 or -1
		sum += v ^ neg - neg
	}
	if cm != 0 {
		var v uint64
		if sh := cl - sc; sh >= 0 {
			v = cm << uint(sh)
		} else if sh > -64 {
			v = cm >> uint(-sh)
		}
		if cneg {
			sum -= int64(v)
		} else {
			sum += int64(v)
		}
	}
	return mmaRoundZ32(sum, sc)
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
