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
	case OpLocalAddr:
		d := f.r(in.D)
		v := f.localBase + uint64(in.Off)
		for x := exec; x != 0; x &= x - 1 {
			d[bits.TrailingZeros32(x)&31] = v
		}
	case OpClock:
		d := f.r(in.D)
		// A monotonic count: warp instructions executed so far stand in for
		// cycles in functional mode.
		v := w.Inst
		switch in.Imm {
		case clock32:
			v &= 0xffffffff
		case globaltimer, globaltimerLo, globaltimerHi:
			v *= 1000 // nanoseconds at a nominal 1 GHz
			if in.Imm == globaltimerLo {
				v &= 0xffffffff
			} else if in.Imm == globaltimerHi {
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
	case OpCvt:
		w.execCvt(in, f, exec)
	case OpCvtPack:
		w.execCvtPack(in, f, exec)
	case OpCvta:
		w.execCvta(in, f, exec)
	case OpIsspacep:
		w.execIsspacep(in, f, exec)
	case OpTestp, OpFDiv, OpFRcp, OpFSqrt, OpFRsqrt, OpFSin, OpFCos, OpFLg2, OpFEx2, OpFTanh,
		OpFMin, OpFMax, OpFAbs, OpFNeg, OpFCopysign:
		w.execFloat(in, f, exec)
	default:
		return w.fault(f, pc, bits.TrailingZeros32(exec), "internal error: operation "+opName(in.Op)+" has no implementation")
	}
	return nil
}

func opName(o Op) string {
	return "#" + itoa(int(o))
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
				r += c[l]
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
			r = lop3(av, b[l], c[l], in.Imm)
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

// intDiv implements div; division by zero gives what the GPU's division
// sequence gives (all ones for unsigned; -1 or 1 for signed).
func intDiv(a, b uint64, n int, signed bool) uint64 {
	m := uint64(1)<<uint(n) - 1
	if n == 64 {
		m = ^uint64(0)
	}
	if signed {
		x, y := sext(a, n), sext(b, n)
		if y == 0 {
			if x < 0 {
				return 1
			}
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

func intRem(a, b uint64, n int, signed bool) uint64 {
	m := uint64(1)<<uint(n) - 1
	if n == 64 {
		m = ^uint64(0)
	}
	if signed {
		x, y := sext(a, n), sext(b, n)
		if y == 0 {
			return uint64(x) & m
		}
		if y == -1 {
			return 0
		}
		return uint64(x%y) & m
	}
	x, y := a&m, b&m
	if y == 0 {
		return x
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

func bfe(a, b, c uint64, n int, signed bool) uint64 {
	pos := int(b & 0xff)
	ln := int(c & 0xff)
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

func bfi(a, b, c, dd uint64, n int) uint64 {
	pos := int(c & 0xff)
	ln := int(dd & 0xff)
	msb := n - 1
	f := b
	for i := 0; i < ln && pos+i <= msb; i++ {
		bit := a >> uint(i) & 1
		f = f&^(1<<uint(pos+i)) | bit<<uint(pos+i)
	}
	return f
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
		} else if in.Imm == 1 { // subtract: borrow semantics
			r = (av - bv - cin) & msk
			if bv+cin > av || (cin == 1 && bv == msk) {
				cout = 1
			}
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
