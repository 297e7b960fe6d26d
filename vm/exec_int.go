package vm

import (
	"math/bits"
)

// execOther executes every operation the main loop does not inline.
func (w *Warp) execOther(in *Inst, f *frame, exec uint32, pc int32) error {
	if exec == 0 {
		return nil
	}
	switch in.Op {
	case OpCpAsync:
		return w.execCpAsync(in, f, exec, pc)
	case OpCpAsyncCommit:
		w.execCpAsyncCommit(exec)
	case OpCpAsyncWait:
		return w.execCpAsyncWait(in, f, exec, pc)
	case OpLdmatrix:
		return w.execLdmatrix(in, f, exec, pc)
	case OpStmatrix:
		return w.execStmatrix(in, f, exec, pc)
	case OpMovmatrix:
		return w.execMovmatrix(in, f, exec, pc)
	case OpMma:
		return w.execMma(in, f, exec, pc)
	case OpWmmaLoad:
		return w.execWmmaLoad(in, f, exec, pc)
	case OpWmmaStore:
		return w.execWmmaStore(in, f, exec, pc)
	case OpWmmaMma:
		return w.execWmmaMma(in, f, exec, pc)
	case OpMbarrier:
		return w.execMbarrier(in, f, exec, pc)
	case OpBulk:
		return w.execBulk(in, f, exec, pc)
	case OpWgmma:
		return w.execWgmma(in, f, exec, pc)
	case OpMbarPendingCount:
		execMbarPendingCount(in, f, exec)
	case OpMapa:
		w.execMapa(in, f, exec)
	case OpGetctarank:
		w.execGetctarank(in, f, exec)
	case OpVideo:
		execVideo(in, f, exec)
	case OpVideo1:
		execVideo1(in, f, exec)
	case OpBmsk, OpSzext, OpFns, OpSimd2:
		w.execBits2(in, f, exec)
	case OpSub, OpMulHi, OpMadHi, OpMadWide, OpMul24, OpMad24, OpSad, OpDiv, OpRem,
		OpAbs, OpNeg, OpMin, OpMax, OpPopc, OpClz, OpBfind, OpBrev, OpBfe, OpBfi, OpPrmt,
		OpShr, OpShf, OpAnd, OpOr, OpXor, OpNot, OpCnot, OpLop3, OpDp4a, OpDp2a:
		w.execIntOp(in, f, exec)
	case OpAddc, OpMadc:
		w.execCarry(in, f, exec)
	case OpPAnd, OpPOr, OpPXor, OpPNot, OpPMov:
		execPred(in, f, exec)
	case OpSelp:
		d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
		p := f.preds[in.C]
		if in.Flags&FNeg2 != 0 {
			p = ^p
		}
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			if p>>l&1 != 0 {
				d[l] = a[l]
			} else {
				d[l] = b[l]
			}
		}
	case OpSlct:
		execSlct(in, f, exec)
	case OpSet:
		w.execSet(in, f, exec)
	case OpPack:
		if in.T == B128 {
			pack128(in, f, exec)
			break
		}
		d := f.r(in.D)
		esz := uint(in.T.Bits()) / uint(in.Vec)
		emask := uint64(1)<<esz - 1
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			var v uint64
			for e := int(in.Vec) - 1; e >= 0; e-- {
				v = v<<esz | f.r(in.V[e])[l]&emask
			}
			d[l] = v
		}
	case OpUnpack:
		if in.T == B128 {
			unpack128(in, f, exec)
			break
		}
		a := f.r(in.A)
		esz := uint(in.T.Bits()) / uint(in.Vec)
		emask := uint64(1)<<esz - 1
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			v := a[l]
			for e := 0; e < int(in.Vec); e++ {
				f.r(in.V[e])[l] = v >> (esz * uint(e)) & emask
			}
		}
	case OpMovVec:
		msk := sizeMask(in.T)
		n := int(in.Vec)
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			var v [4]uint64
			for e := range n {
				v[e] = f.r(in.W[e])[l] & msk
			}
			for e := range n {
				f.r(in.V[e])[l] = v[e]
			}
		}
	case OpLocalAddr:
		d := f.r(in.D)
		v := f.localBase + uint64(in.Off)
		for x := exec; x != 0; x &= x - 1 {
			d[bits.TrailingZeros32(x)&31] = v
		}
	case OpClock:
		d := f.r(in.D)
		v := w.clock()
		switch in.ClockKind() {
		case clock32:
			v &= 0xffffffff
		case globaltimer, globaltimerLo, globaltimerHi:
			v *= 1000 // nanoseconds at a nominal 1 GHz
			if in.ClockKind() == globaltimerLo {
				v &= 0xffffffff
			} else if in.ClockKind() == globaltimerHi {
				v >>= 32
			}
		}
		for x := exec; x != 0; x &= x - 1 {
			d[bits.TrailingZeros32(x)&31] = v
		}
	case OpTex:
		return w.execTex(in, f, exec, pc)
	case OpTxq:
		return w.execTxq(in, f, exec, pc)
	case OpSuld, OpSust, OpSured:
		return w.execSurf(in, f, exec, pc)
	case OpSuq:
		return w.execSuq(in, f, exec, pc)
	case OpCvt:
		w.execCvt(in, f, exec)
	case OpCvtPack:
		w.execCvtPack(in, f, exec)
	case OpCvtFP8:
		w.execCvtFP8(in, f, exec)
	case OpCvtPackInt:
		n := uint(in.Imm)
		lo, hi := int64(0), int64(1)<<n-1
		if in.T == S32 {
			lo, hi = -(int64(1) << (n - 1)), int64(1)<<(n-1)-1
		}
		sat := func(v uint64) uint64 { return uint64(min(max(sext(v, 32), lo), hi)) & (1<<n - 1) }
		d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			v := sat(a[l])<<n | sat(b[l])
			if in.C != NoReg {
				v |= f.r(in.C)[l] << (2 * n)
			}
			d[l] = v & 0xffffffff
		}
	case OpCvta:
		w.execCvta(in, f, exec)
	case OpIsspacep:
		w.execIsspacep(in, f, exec)
	case OpFMulKeep:
		a, b, sa, sb := f.r(in.A), f.r(in.B), f.r(in.V[0]), f.r(in.V[1])
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			sa[l], sb[l] = a[l], b[l]
		}
		mul := *in
		mul.Op = OpFMul
		w.execFloat(&mul, f, exec)
	case OpFDivKeep:
		a, b, sa, sr := f.r(in.A), f.r(in.B), f.r(in.V[0]), f.r(in.V[1])
		ftz, full := in.Flags&FFtz != 0, in.Flags&FFull != 0
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			as, r := divParts32(uint32(a[l]), uint32(b[l]), ftz, full)
			sa[l], sr[l] = uint64(as), uint64(r)
		}
		div := *in
		div.Op = OpFDiv
		w.execFloat(&div, f, exec)
	case OpTestp, OpFDiv, OpFRcp, OpFSqrt, OpFRsqrt, OpFSin, OpFCos, OpFLg2, OpFEx2, OpFTanh,
		OpFMin, OpFMax, OpFAbs, OpFNeg, OpFCopysign:
		w.execFloat(in, f, exec)
	default:
		return w.fault(f, pc, bits.TrailingZeros32(exec), "internal error: operation "+in.Op.String()+" has no implementation")
	}
	return nil
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	if neg {
		v = -v
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// sext sign-extends the low n bits of v.
func sext(v uint64, n int) int64 {
	s := 64 - uint(n)
	return int64(v<<s) >> s
}

func (w *Warp) execIntOp(in *Inst, f *frame, exec uint32) {
	t := in.T
	n := t.Bits()
	msk := sizeMask(t)
	signed := t.Signed()
	d := f.r(in.D)
	a := f.r(in.A)
	var b, c *[32]uint64
	if in.B != NoReg {
		b = f.r(in.B)
	}
	if in.C != NoReg {
		c = f.r(in.C)
	}
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		av := a[l]
		var r uint64
		switch in.Op {
		case OpSub:
			r = av - b[l]
			if in.Flags&FSat != 0 {
				r = uint64(satS32(sext(av, 32) - sext(b[l], 32)))
			}
		case OpMulHi:
			r = mulHi(av, b[l], n, signed)
		case OpMadHi:
			r = mulHi(av, b[l], n, signed) + c[l]
			if in.Flags&FSat != 0 && t == S32 {
				r = uint64(satS32(sext(mulHi(av, b[l], n, true), 32) + sext(c[l], 32)))
			}
		case OpMadWide:
			wt := wideType(t)
			if signed {
				r = uint64(sext(av, n)*sext(b[l], n)) + c[l]
			} else {
				r = (av&msk)*(b[l]&msk) + c[l]
			}
			r &= sizeMask(wt)
			d[l] = r
			continue
		case OpMul24, OpMad24:
			var p int64
			if signed {
				p = sext(av, 24) * sext(b[l], 24)
			} else {
				p = int64((av & 0xffffff) * (b[l] & 0xffffff))
			}
			if in.Flags&FHi != 0 {
				r = uint64(p >> 16)
			} else {
				r = uint64(p)
			}
			if in.Op == OpMad24 {
				if in.Flags&FSat != 0 && t == S32 {
					r = uint64(satS32(sext(r, 32) + sext(c[l], 32)))
				} else {
					r += c[l]
				}
			}
		case OpSad:
			if signed {
				x, y := sext(av, n), sext(b[l], n)
				if x > y {
					r = uint64(x-y) + c[l]
				} else {
					r = uint64(y-x) + c[l]
				}
			} else {
				x, y := av&msk, b[l]&msk
				if x > y {
					r = x - y + c[l]
				} else {
					r = y - x + c[l]
				}
			}
		case OpDiv:
			r = intDiv(av, b[l], n, signed)
		case OpRem:
			r = intRem(av, b[l], n, signed)
		case OpAbs:
			v := sext(av, n)
			if v < 0 {
				v = -v
			}
			r = uint64(v)
		case OpNeg:
			r = -av
		case OpMin, OpMax:
			var less bool
			if signed {
				less = sext(av, n) < sext(b[l], n)
			} else {
				less = av&msk < b[l]&msk
			}
			if (in.Op == OpMin) == less {
				r = av
			} else {
				r = b[l]
			}
			if in.Flags&FRelu != 0 && sext(r, n) < 0 {
				r = 0
			}
		case OpPopc:
			r = uint64(bits.OnesCount64(av & msk))
		case OpClz:
			r = uint64(bits.LeadingZeros64(av&msk) - (64 - n))
		case OpBfind:
			r = bfind(av, n, signed, in.Flags&FShiftAmt != 0)
			d[l] = r
			continue
		case OpBrev:
			r = bits.Reverse64(av) >> (64 - uint(n))
		case OpBfe:
			r = bfe(av, b[l], c[l], n, signed)
		case OpBfi:
			r = bfi(av, b[l], c[l], f.r(in.V[0])[l], n)
		case OpPrmt:
			r = prmt(av, b[l], c[l], in.Imm)
			d[l] = r
			continue
		case OpShr:
			s := uint64(uint32(b[l]))
			if signed {
				if s >= uint64(n) {
					s = uint64(n) - 1
				}
				r = uint64(sext(av, n) >> s)
			} else if s >= uint64(n) {
				r = 0
			} else {
				r = (av & msk) >> s
			}
		case OpShf:
			r = shf(av, b[l], c[l], in.Flags&FLeft != 0, in.Flags&FClamp != 0)
		case OpAnd:
			r = av & b[l]
		case OpOr:
			r = av | b[l]
		case OpXor:
			r = av ^ b[l]
		case OpNot:
			r = ^av
		case OpCnot:
			if av&msk == 0 {
				r = 1
			}
		case OpLop3:
			r = lop3(av, b[l], c[l], uint64(in.LUT()))
			if in.BoolOp != BoolNone {
				q := f.preds[in.V[0]]
				if in.Flags&FNeg2 != 0 {
					q = ^q
				}
				var nz uint32
				if r&0xffffffff != 0 {
					nz = 1 << l
				}
				p := &f.preds[in.D2]
				*p = *p&^(1<<l) | combine(in.BoolOp, nz, q)&(1<<l)
			}
		case OpDp4a:
			r = dp4a(av, b[l], c[l], in.T == S32, in.T2 == S32)
		case OpDp2a:
			r = dp2a(av, b[l], c[l], in.T == S32, in.T2 == S32, in.Flags&FHi != 0)
		}
		d[l] = r & msk
	}
}

func mulHi(a, b uint64, n int, signed bool) uint64 {
	switch {
	case n == 64 && signed:
		hi, lo := bits.Mul64(a, b)
		_ = lo
		// signed correction
		if int64(a) < 0 {
			hi -= b
		}
		if int64(b) < 0 {
			hi -= a
		}
		return hi
	case n == 64:
		hi, _ := bits.Mul64(a, b)
		return hi
	case signed:
		return uint64(sext(a, n)*sext(b, n)) >> uint(n)
	default:
		m := uint64(1)<<uint(n) - 1
		return ((a & m) * (b & m)) >> uint(n)
	}
}

// intDiv implements div. Division by zero gives all ones (-1 for signed
// types) whatever the dividend, as the GPU does.
func intDiv(a, b uint64, n int, signed bool) uint64 {
	m := uint64(1)<<uint(n) - 1
	if n == 64 {
		m = ^uint64(0)
	}
	if signed {
		x, y := sext(a, n), sext(b, n)
		if y == 0 {
			return m
		}
		if y == -1 {
			return uint64(-x) & m
		}
		return uint64(x/y) & m
	}
	x, y := a&m, b&m
	if y == 0 {
		return m
	}
	return x / y
}

// intRem implements rem. A zero divisor gives all ones, as on the GPU.
func intRem(a, b uint64, n int, signed bool) uint64 {
	m := uint64(1)<<uint(n) - 1
	if n == 64 {
		m = ^uint64(0)
	}
	if signed {
		x, y := sext(a, n), sext(b, n)
		if y == 0 {
			return m
		}
		if y == -1 {
			return 0
		}
		return uint64(x%y) & m
	}
	x, y := a&m, b&m
	if y == 0 {
		return m
	}
	return x % y
}

func bfind(a uint64, n int, signed, shiftamt bool) uint64 {
	v := a
	if n == 32 {
		v &= 0xffffffff
	}
	if signed && sext(a, n) < 0 {
		v = ^v
		if n == 32 {
			v &= 0xffffffff
		}
	}
	if v == 0 {
		return 0xffffffff
	}
	pos := uint64(63 - bits.LeadingZeros64(v))
	if shiftamt {
		return uint64(n-1) - pos
	}
	return pos
}

// bfe extracts a bit field. For 32-bit types the position and length are
// bits [7:0] of their operands (PTX ISA); for 64-bit types the GPU uses the
// whole 32-bit operands (measured on sm_90).
func bfe(a, b, c uint64, n int, signed bool) uint64 {
	pos, ln := bfPosLen(b, c, n)
	msb := n - 1
	var sbit uint64
	if signed && ln != 0 {
		top := pos + ln - 1
		if top > msb {
			top = msb
		}
		sbit = a >> uint(top) & 1
	}
	var d uint64
	for i := 0; i < n; i++ {
		var bit uint64
		if i < ln && pos+i <= msb {
			bit = a >> uint(pos+i) & 1
		} else {
			bit = sbit
		}
		d |= bit << uint(i)
	}
	return d
}

// bfi inserts a bit field (positions as for bfe).
func bfi(a, b, c, dd uint64, n int) uint64 {
	pos, ln := bfPosLen(c, dd, n)
	msb := n - 1
	f := b
	for i := 0; i < ln && pos+i <= msb; i++ {
		bit := a >> uint(i) & 1
		f = f&^(1<<uint(pos+i)) | bit<<uint(pos+i)
	}
	return f
}

func bfPosLen(p, l uint64, n int) (int, int) {
	if n == 64 {
		return int(min(uint32(p), 128)), int(min(uint32(l), 128))
	}
	return int(p & 0xff), int(l & 0xff)
}

func prmt(a, b, c, mode uint64) uint64 {
	tmp := uint64(uint32(b))<<32 | uint64(uint32(a))
	byteOf := func(i uint64) uint64 { return tmp >> (8 * (i & 7)) & 0xff }
	var sel [4]uint64
	switch mode {
	case 0: // default: c holds four 4-bit selectors
		var r uint64
		for i := uint(0); i < 4; i++ {
			s := c >> (4 * i) & 0xf
			v := byteOf(s & 7)
			if s&8 != 0 {
				if v&0x80 != 0 {
					v = 0xff
				} else {
					v = 0
				}
			}
			r |= v << (8 * i)
		}
		return r
	case 1: // f4e: forward 4 extract
		s := c & 3
		sel = [4]uint64{s, s + 1, s + 2, s + 3}
	case 2: // b4e: backward 4 extract
		s := c & 3
		sel = [4]uint64{s, s - 1, s - 2, s - 3}
		for i := range sel {
			sel[i] &= 7
		}
	case 3: // rc8: replicate 8
		s := c & 3
		sel = [4]uint64{s, s, s, s}
	case 4: // ecl: edge clamp left
		s := c & 3
		sel = [4]uint64{s, max(s, 1), max(s, 2), 3}
	case 5: // ecr: edge clamp right
		s := c & 3
		sel = [4]uint64{0, min(s, 1), min(s, 2), s}
	case 6: // rc16: replicate 16
		s := c & 1
		sel = [4]uint64{2 * s, 2*s + 1, 2 * s, 2*s + 1}
	}
	var r uint64
	for i, s := range sel {
		r |= byteOf(s) << (8 * uint(i))
	}
	return r
}

func shf(a, b, c uint64, left, clamp bool) uint64 {
	n := uint64(uint32(c))
	if clamp {
		n = min(n, 32)
	} else {
		n &= 31
	}
	v := uint64(uint32(b))<<32 | uint64(uint32(a))
	if left {
		return (v << n) >> 32 & 0xffffffff
	}
	return (v >> n) & 0xffffffff
}

func lop3(a, b, c, lut uint64) uint64 {
	var r uint64
	for i := uint(0); i < 8; i++ {
		if lut>>i&1 == 0 {
			continue
		}
		t := ^uint64(0)
		if i&4 != 0 {
			t &= a
		} else {
			t &= ^a
		}
		if i&2 != 0 {
			t &= b
		} else {
			t &= ^b
		}
		if i&1 != 0 {
			t &= c
		} else {
			t &= ^c
		}
		r |= t
	}
	return r
}

func dp4a(a, b, c uint64, as, bs bool) uint64 {
	acc := int64(int32(c))
	for i := uint(0); i < 4; i++ {
		x := int64(a >> (8 * i) & 0xff)
		y := int64(b >> (8 * i) & 0xff)
		if as {
			x = int64(int8(x))
		}
		if bs {
			y = int64(int8(y))
		}
		acc += x * y
	}
	return uint64(uint32(acc))
}

func dp2a(a, b, c uint64, as, bs, hi bool) uint64 {
	acc := int64(int32(c))
	sh := uint(0)
	if hi {
		sh = 16
	}
	for i := uint(0); i < 2; i++ {
		x := int64(a >> (16 * i) & 0xffff)
		if as {
			x = int64(int16(x))
		}
		y := int64(b >> (sh + 8*i) & 0xff)
		if bs {
			y = int64(int8(y))
		}
		acc += x * y
	}
	return uint64(uint32(acc))
}

// execCarry implements add.cc/addc/sub.cc/subc/mad.cc/madc. The carry flag
// lives in a hidden register of the frame (register cc).
func (w *Warp) execCarry(in *Inst, f *frame, exec uint32) {
	n := in.T.Bits()
	msk := sizeMask(in.T)
	d, a, b := f.r(in.D), f.r(in.A), f.r(in.B)
	cc := f.r(ccReg)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		var cin uint64
		if in.Flags&FCCIn != 0 {
			cin = cc[l] & 1
		}
		av, bv := a[l]&msk, b[l]&msk
		var r, cout uint64
		if in.Op == OpMadc {
			var p uint64
			if Op(in.Imm) == OpMadHi {
				p = mulHi(av, bv, n, in.T.Signed()) & msk
			} else {
				p = av * bv & msk
			}
			av, bv = p, f.r(in.C)[l]&msk
			r, cout = addCarry(av, bv, cin, n)
		} else if in.Imm == 1 {
			// sub.cc: a + ~b + 1; subc: a + ~b + CC.CF. The flag left is
			// the carry out of that sum (NOT a borrow), as on the GPU.
			if in.Flags&FCCIn == 0 {
				cin = 1
			}
			r, cout = addCarry(av, ^bv&msk, cin, n)
		} else {
			r, cout = addCarry(av, bv, cin, n)
		}
		d[l] = r
		if in.Flags&FCCOut != 0 {
			cc[l] = cout
		}
	}
}

func addCarry(a, b, cin uint64, n int) (uint64, uint64) {
	if n == 64 {
		s, c := bits.Add64(a, b, cin)
		return s, c
	}
	s := a + b + cin
	return s & (1<<uint(n) - 1), s >> uint(n) & 1
}

// ccReg is the register offset of the carry flag (register 2 of every function).
const ccReg int32 = 2 * 32

func execPred(in *Inst, f *frame, exec uint32) {
	a := f.preds[in.A]
	if in.Imm&1 != 0 || (in.Op == OpPMov && in.Flags&FNeg2 != 0) {
		a = ^a
	}
	var r uint32
	switch in.Op {
	case OpPMov:
		r = a
	case OpPNot:
		r = ^a
	default:
		b := f.preds[in.B]
		if in.Imm&2 != 0 {
			b = ^b
		}
		switch in.Op {
		case OpPAnd:
			r = a & b
		case OpPOr:
			r = a | b
		default:
			r = a ^ b
		}
	}
	p := &f.preds[in.D]
	*p = *p&^exec | r&exec
}

// execBits2 implements bmsk, szext, fns and the 16x2 SIMD integer forms.
func (w *Warp) execBits2(in *Inst, f *frame, exec uint32) {
	d, a := f.r(in.D), f.r(in.A)
	b := f.r(in.B)
	clamp := in.Flags&FClamp != 0
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		av, bv := uint32(a[l]), uint32(b[l])
		var r uint32
		switch in.Op {
		case OpBmsk:
			pos, wd := av, bv
			if clamp {
				pos, wd = min(pos, 32), min(wd, 32)
			} else {
				pos, wd = pos&31, wd&31
			}
			m := uint64(1)<<wd - 1
			r = uint32(m << pos)
		case OpSzext:
			pos := bv
			if clamp {
				pos = min(pos, 32)
			} else {
				pos &= 31
			}
			switch {
			case pos == 0:
				r = 0
			case pos >= 32:
				r = av
			case in.T == S32:
				r = uint32(sext(uint64(av), int(pos)))
			default:
				r = av & (1<<pos - 1)
			}
		case OpFns:
			r = fns(av, bv, int32(f.r(in.C)[l]))
		case OpSimd2:
			r = simd2(Op(in.Imm), av, bv, in.T == S16x2, in.Flags&FRelu != 0)
		}
		d[l] = uint64(r)
	}
}

// fns finds the offset-th set bit of mask counting from base (towards the
// most significant bit for a positive offset, the least for a negative one);
// 0xffffffff when there is none.
func fns(mask, base uint32, offset int32) uint32 {
	if offset == -1<<31 {
		return 0 // measured on sm_90: the negated offset overflows
	}
	base &= 31
	if offset == 0 {
		if mask>>base&1 != 0 {
			return base
		}
		return 0xffffffff
	}
	if offset > 0 {
		n := offset
		for i := base; i < 32; i++ {
			if mask>>i&1 != 0 {
				n--
				if n == 0 {
					return i
				}
			}
		}
		return 0xffffffff
	}
	n := -offset
	for i := int(base); i >= 0; i-- {
		if mask>>uint(i)&1 != 0 {
			n--
			if n == 0 {
				return uint32(i)
			}
		}
	}
	return 0xffffffff
}

// simd2 applies an integer operation to both 16-bit halves.
func simd2(op Op, a, b uint32, signed, relu bool) uint32 {
	var r uint32
	for h := uint(0); h < 32; h += 16 {
		x, y := a>>h&0xffff, b>>h&0xffff
		var v uint32
		switch op {
		case OpAdd:
			v = x + y
		case OpSub:
			v = x - y
		case OpMin, OpMax:
			less := x < y
			if signed {
				less = int16(x) < int16(y)
			}
			if (op == OpMin) == less {
				v = x
			} else {
				v = y
			}
			if relu && int16(v) < 0 {
				v = 0
			}
		}
		r |= (v & 0xffff) << h
	}
	return r
}

// pack128 builds a .b128 register (two slots) from 2 x 64 or 4 x 32 bits.
func pack128(in *Inst, f *frame, exec uint32) {
	lo, hi := f.r(in.D), f.r(in.D+32)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if in.Vec == 2 {
			lo[l], hi[l] = f.r(in.V[0])[l], f.r(in.V[1])[l]
		} else {
			lo[l] = f.r(in.V[0])[l]&0xffffffff | f.r(in.V[1])[l]<<32
			hi[l] = f.r(in.V[2])[l]&0xffffffff | f.r(in.V[3])[l]<<32
		}
	}
}

// unpack128 splits a .b128 register into 2 x 64 or 4 x 32 bits.
func unpack128(in *Inst, f *frame, exec uint32) {
	lo, hi := f.r(in.A), f.r(in.A+32)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		a, b := lo[l], hi[l]
		if in.Vec == 2 {
			f.r(in.V[0])[l], f.r(in.V[1])[l] = a, b
		} else {
			f.r(in.V[0])[l], f.r(in.V[1])[l] = a&0xffffffff, a>>32
			f.r(in.V[2])[l], f.r(in.V[3])[l] = b&0xffffffff, b>>32
		}
	}
}

// execVideo implements the SIMD video instructions on 4 bytes or 2
// half-words, without lane masks or selectors: per lane, the operation on
// sign- or zero-extended values, then either packed (saturated when .sat)
// or, with .add, summed with c.
func execVideo(in *Inst, f *frame, exec uint32) {
	d, a, b, c := f.r(in.D), f.r(in.A), f.r(in.B), f.r(in.C)
	lanes := int(in.Vec)
	w := uint(32 / lanes)
	as, bs, ds := in.T2.Signed(), in.Flags&FNeg2 != 0, in.T.Signed()
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		var packed uint64
		sum := sext(c[l], 32)
		for i := 0; i < lanes; i++ {
			sh := uint(i) * w
			av := int64(a[l] >> sh & (1<<w - 1))
			bv := int64(b[l] >> sh & (1<<w - 1))
			if as {
				av = sext(uint64(av), int(w))
			}
			if bs {
				bv = sext(uint64(bv), int(w))
			}
			var r int64
			switch in.Imm {
			case 0:
				r = av + bv
			case 1:
				r = av - bv
			case 2:
				r = av - bv
				if r < 0 {
					r = -r
				}
			case 3:
				r = min(av, bv)
			case 4:
				r = max(av, bv)
			case 5:
				r = (av + bv + 1) >> 1
			}
			if in.Flags&FAccum != 0 {
				sum += r
				continue
			}
			if in.Flags&FSat != 0 {
				lo, hi := int64(0), int64(1)<<w-1
				if ds {
					lo, hi = -(int64(1) << (w - 1)), int64(1)<<(w-1)-1
				}
				r = min(max(r, lo), hi)
			}
			packed |= uint64(r) & (1<<w - 1) << sh
		}
		if in.Flags&FAccum != 0 {
			d[l] = uint64(uint32(sum))
		} else {
			d[l] = packed
		}
	}
}
