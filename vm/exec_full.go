package vm

import "github.com/ptxvm/ptxvm/vm/internal/warpsimd"

// fullInt runs the commonest integer instructions for a full warp (exec all
// ones) in straight lane loops or warpsimd's AVX2 forms, without the mask walk and the per-lane
// operation switch of the general paths (measured: a mask-walked mov or
// add.s64 costs about 18 ns per warp instruction, a straight one about 12,
// most of it dispatch). It reports false, having done nothing, for a form
// it does not cover; the general path then runs it. Each form computes
// what the general path computes (TestFullWarpIntMatchesGeneral).
func (w *Warp) fullInt(in *Inst, f *frame) bool {
	if in.T.Size() == 1 {
		return false // the general paths' 8-bit forms are not all masks
	}
	msk := sizeMask(in.T)
	switch in.Op {
	case OpMov:
		d, a := f.r(in.D), f.r(in.A)
		if msk == ^uint64(0) {
			*d = *a
			break
		}
		warpsimd.AndQ(d, a, a, msk)
	case OpSub:
		if in.Flags&FSat != 0 {
			return false
		}
		warpsimd.SubQ(f.r(in.D), f.r(in.A), f.r(in.B), msk)
	case OpAnd:
		warpsimd.AndQ(f.r(in.D), f.r(in.A), f.r(in.B), msk)
	case OpOr:
		warpsimd.OrQ(f.r(in.D), f.r(in.A), f.r(in.B), msk)
	case OpXor:
		warpsimd.XorQ(f.r(in.D), f.r(in.A), f.r(in.B), msk)
	case OpNot:
		d, a := f.r(in.D), f.r(in.A)
		for l := range 32 {
			d[l] = ^a[l] & msk
		}
	case OpMulLo:
		d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
		for l := range 32 {
			d[l] = (a[l] * b[l]) & msk
		}
	case OpMadLo:
		d, a, b, c := f.r(in.D), f.r(in.A), f.r(in.B), f.r(in.C)
		for l := range 32 {
			d[l] = (a[l]*b[l] + c[l]) & msk
		}
	case OpMulWide:
		d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
		switch in.T2 {
		case S32:
			warpsimd.MulWideS32(d, a, b)
		case U32:
			warpsimd.MulWideU32(d, a, b)
		default:
			return false
		}
	case OpShl:
		// A shift by the width or more is 0: the bits past the width are
		// masked off (warpsimd.ShlQ).
		warpsimd.ShlQ(f.r(in.D), f.r(in.A), f.r(in.B), msk)
	case OpShr:
		d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
		n := uint64(in.T.Bits())
		if in.T.Signed() {
			for l := range 32 {
				s := min(uint64(uint32(b[l])), n-1)
				d[l] = uint64(sext(a[l], int(n))>>s) & msk
			}
			break
		}
		warpsimd.ShrQ(d, a, b, msk)
	case OpSelp:
		d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
		p := f.preds[in.C]
		if in.Flags&FNeg2 != 0 {
			p = ^p
		}
		for l := range 32 {
			v := b[l]
			if p>>l&1 != 0 {
				v = a[l]
			}
			d[l] = v
		}
	default:
		return false
	}
	return true
}
