package vm

import (
	"math"
	"math/bits"
)

// The 8-bit float formats of cvt (sm_89+): e4m3 (bias 7, no infinities,
// one NaN per sign, largest finite 448) and e5m2 (bias 15, IEEE-like with
// infinities, largest finite 57344). PTX converts to them only with
// .rn.satfinite: overflow and infinities become the largest finite value of
// the same sign, NaN becomes the NaN 0x7f.

type fp8Format struct {
	expBits, manBits int
	bias             int
	maxFinite        uint8 // bits of the largest finite magnitude
	hasInf           bool
}

var (
	fmtE4M3 = fp8Format{expBits: 4, manBits: 3, bias: 7, maxFinite: 0x7e}
	fmtE5M2 = fp8Format{expBits: 5, manBits: 2, bias: 15, maxFinite: 0x7b, hasInf: true}
)

// value decodes an fp8 pattern.
func (f fp8Format) value(b uint8) float64 {
	s := 1.0
	if b&0x80 != 0 {
		s = -1
	}
	e := int(b>>f.manBits) & (1<<f.expBits - 1)
	m := int(b) & (1<<f.manBits - 1)
	emax := 1<<f.expBits - 1
	if f.hasInf && e == emax {
		if m == 0 {
			return s * math.Inf(1)
		}
		return math.NaN()
	}
	if !f.hasInf && e == emax && m == 1<<f.manBits-1 {
		return math.NaN()
	}
	if e == 0 {
		return s * math.Ldexp(float64(m), 1-f.bias-f.manBits)
	}
	return s * math.Ldexp(float64(m|1<<f.manBits), e-f.bias-f.manBits)
}

// fromFloat rounds x to nearest even, saturating to the largest finite
// value (satfinite); relu turns negative results into +0.
func (f fp8Format) fromFloat(x float64, relu bool) uint8 {
	if x != x {
		return 0x7f
	}
	var sign uint8
	if math.Signbit(x) {
		sign = 0x80
		x = -x
	}
	if relu && sign != 0 {
		return 0
	}
	maxv := f.value(f.maxFinite)
	if x >= maxv {
		return sign | f.maxFinite
	}
	// Quantum of the binade holding x (subnormals share the smallest one).
	minExp := 1 - f.bias
	e := minExp
	if x > 0 {
		_, fe := math.Frexp(x) // x = frac * 2^fe, frac in [0.5, 1)
		e = max(fe-1, minExp)
	}
	q := math.Ldexp(1, e-f.manBits)
	n := x / q
	r := math.RoundToEven(n)
	v := r * q
	if v > maxv {
		return sign | f.maxFinite
	}
	if v == 0 {
		return sign
	}
	// Encode v.
	_, fe := math.Frexp(v)
	ee := fe - 1
	if ee < minExp { // subnormal
		m := uint8(v / math.Ldexp(1, minExp-f.manBits))
		return sign | m
	}
	m := uint8(v/math.Ldexp(1, ee-f.manBits)) & (1<<f.manBits - 1)
	return sign | uint8(ee+f.bias)<<f.manBits | m
}

// fp8Pair maps a packed-pair type to its format.
func fp8Pair(t Type) (fp8Format, bool) {
	switch t {
	case E4M3x2:
		return fmtE4M3, true
	case E5M2x2:
		return fmtE5M2, true
	}
	return fp8Format{}, false
}

// half16 converts a float64 (exactly representable or not) to f16 bits,
// rounding to nearest even; used to widen fp8 values, which are exact in f16.
func half16(x float64) uint16 {
	if x != x {
		return 0x7fff
	}
	var s uint16
	if math.Signbit(x) {
		s = 0x8000
		x = -x
	}
	if math.IsInf(x, 0) {
		return s | 0x7c00
	}
	if x == 0 {
		return s
	}
	_, fe := math.Frexp(x)
	e := fe - 1
	if e < -14 {
		return s | uint16(math.RoundToEven(x/math.Ldexp(1, -24)))
	}
	m := uint16(math.RoundToEven(x/math.Ldexp(1, e-10))) & 0x3ff
	return s | uint16(e+15)<<10 | m
}

// execCvtFP8 converts to and from the packed fp8 pairs.
func (w *Warp) execCvtFP8(in *Inst, f *frame, exec uint32) {
	d, a := f.r(in.D), f.r(in.A)
	relu := in.Flags&FRelu != 0
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if src, ok := fp8Pair(in.T2); ok { // unpack to f16x2
			v := a[l]
			lo := half16(src.value(uint8(v)))
			hi := half16(src.value(uint8(v >> 8)))
			if relu {
				lo, hi = reluHalf(lo), reluHalf(hi)
			}
			d[l] = uint64(hi)<<16 | uint64(lo)
			continue
		}
		dst, _ := fp8Pair(in.T)
		var hi, lo float64
		if in.T2 == F32 {
			hi = float64(math.Float32frombits(uint32(a[l])))
			lo = float64(math.Float32frombits(uint32(f.r(in.B)[l])))
		} else { // f16x2
			hi = halfValue(uint16(a[l] >> 16))
			lo = halfValue(uint16(a[l]))
		}
		d[l] = uint64(dst.fromFloat(hi, relu))<<8 | uint64(dst.fromFloat(lo, relu))
	}
}

// halfValue decodes f16 bits.
func halfValue(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e := int(h>>10) & 31
	m := int(h & 0x3ff)
	switch e {
	case 31:
		if m == 0 {
			return s * math.Inf(1)
		}
		return math.NaN()
	case 0:
		return s * math.Ldexp(float64(m), -24)
	}
	return s * math.Ldexp(float64(m|0x400), e-25)
}

func reluHalf(h uint16) uint16 {
	if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
		return 0x7fff // NaN
	}
	if h&0x8000 != 0 {
		return 0
	}
	return h
}
