package fpu

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFloatConversionsTable(t *testing.T) {
	// f32 → f64: exact; .ftz flushes an f32 subnormal input; NaN payload kept.
	require.Equal(t, db(float64(float32(0.1))), F32ToF64(fb(0.1), false))
	require.Equal(t, db(0x1p-149), F32ToF64(minSub32, false))
	require.Equal(t, nz64, F32ToF64(minSub32|sign32, true))
	require.Equal(t, ninf64, F32ToF64(ninf32, false))
	require.Equal(t, uint64(0x7ff8000020000000), F32ToF64(0x7f800001, false), "sNaN payload kept, quieted")
	require.Equal(t, uint64(0xfff8000000000000), F32ToF64(0xffc00000, false))

	// f64 → f32
	third := db(1.0 / 3)
	require.Equal(t, uint32(0x3eaaaaab), F64ToF32(third, RN, false, false))
	require.Equal(t, uint32(0x3eaaaaaa), F64ToF32(third, RZ, false, false))
	require.Equal(t, uint32(0x3eaaaaab), F64ToF32(third, RP, false, false))
	require.Equal(t, uint32(0xbeaaaaab), F64ToF32(third|sign64, RM, false, false))
	require.Equal(t, inf32, F64ToF32(db(1e300), RN, false, false))
	require.Equal(t, max32, F64ToF32(db(1e300), RZ, false, false))
	require.Equal(t, max32|sign32, F64ToF32(db(-1e300), RP, false, false))
	require.Equal(t, uint32(0), F64ToF32(db(0x1p-200), RN, false, false))
	require.Equal(t, minSub32, F64ToF32(db(0x1p-200), RP, false, false))
	require.Equal(t, uint32(0x00400000), F64ToF32(db(0x1p-127), RN, false, false))
	require.Equal(t, uint32(0), F64ToF32(db(0x1p-127), RN, true, false))
	require.Equal(t, sign32, F64ToF32(db(-0x1p-127), RN, true, false))
	require.Equal(t, minNrm32, F64ToF32(db(0x1p-126-0x1p-160), RN, true, false), "rounds up to normal: not flushed")
	require.Equal(t, uint32(0x7fc00000), F64ToF32(0x7ff8000000000015, RN, false, false), "NaN: sign, leading payload, quiet")
	require.Equal(t, uint32(0xffe00000), F64ToF32(0xfff4000000000000, RZ, true, false))
	// .ftz: tiny after rounding → ±0 (cvt_rn/rp_ftz_f32_f64)
	require.Equal(t, uint32(0), F64ToF32(0x380fffffe0000000, RN, true, false))
	require.Equal(t, minNrm32, F64ToF32(0x380ffffff0000000, RN, true, false))
	require.Equal(t, uint32(0), F64ToF32(0x380fffffe0000000, RP, true, false))
	require.Equal(t, minNrm32|sign32, F64ToF32(0xb80ffffff0000000, RM, true, false))
	require.Equal(t, sign32, F64ToF32(0xb80ffffff0000000, RZ, true, false))
	require.Equal(t, uint32(0), F64ToF32(qnan64, RN, false, true), ".sat: NaN → +0")
	require.Equal(t, one32, F64ToF32(db(7), RZ, false, true))
	require.Equal(t, uint32(0), F64ToF32(db(-7), RZ, false, true))
	require.Equal(t, uint32(0x3f000000), F64ToF32(db(0.5), RZ, false, true))

	// f32 → f16
	require.Equal(t, uint16(0x3555), F32ToF16(fb(1.0/3), RN, false, false))
	require.Equal(t, uint16(0x3555), F32ToF16(fb(1.0/3), RZ, false, false))
	require.Equal(t, hMax, F32ToF16(fb(65519), RN, false, false))
	require.Equal(t, hInf, F32ToF16(fb(65520), RN, false, false)) // tie at max+half ulp → even (inf)
	require.Equal(t, hMax, F32ToF16(fb(65520), RZ, false, false))
	require.Equal(t, hInf, F32ToF16(inf32, RZ, false, false), "inf stays inf")
	require.Equal(t, hMinSb, F32ToF16(fb(0x1p-24), RN, false, false))
	require.Equal(t, uint16(0), F32ToF16(fb(0x1p-25), RN, false, false)) // tie → even 0
	require.Equal(t, hMinSb, F32ToF16(fb(0x1p-25+0x1p-40), RN, false, false))
	require.Equal(t, hMinSb, F32ToF16(minSub32, RP, false, false))
	require.Equal(t, hMinSb, F32ToF16(minSub32, RP, true, false), ".ftz is ignored by cvt.f16.f32 (cvt_rp_ftz_f16_f32)")
	require.Equal(t, CanonNaN16, F32ToF16(qnan32, RN, false, false))
	require.Equal(t, h1, F32ToF16(fb(3), RN, false, true))
	require.Equal(t, uint16(0), F32ToF16(fb(-3), RN, false, true))

	// f16 → f32, f64: exact
	require.Equal(t, fb(0x1p-24), F16ToF32(hMinSb))
	require.Equal(t, fb(65504), F16ToF32(hMax))
	require.Equal(t, ninf32, F16ToF32(hNInf))
	require.Equal(t, CanonNaN32, F16ToF32(hNaN))
	require.Equal(t, db(-0x1p-24), F16ToF64(0x8001))
	require.Equal(t, uint64(0x7ff8040000000000), F16ToF64(hNaN))

	// f64 → f16 is a single rounding (f64→f32→f16 would tie to even)
	x := db(1 + 0x1p-11 + 0x1p-40)
	require.Equal(t, uint16(0x3c01), F64ToF16(x, RN, false))
	require.Equal(t, uint16(0x3c00), F32ToF16(F64ToF32(x, RN, false, false), RN, false, false))
	require.Equal(t, hMax, F64ToF16(db(1e10), RZ, false))
	require.Equal(t, hInf, F64ToF16(db(1e10), RN, false))

	// bf16
	require.Equal(t, uint16(0x3eab), F32ToBF16(fb(1.0/3), RN, false, false))
	require.Equal(t, uint16(0x3eaa), F32ToBF16(fb(1.0/3), RZ, false, false))
	require.Equal(t, uint16(0x3f80), F32ToBF16(0x3f808000, RN, false, false)) // tie → even
	require.Equal(t, uint16(0x3f82), F32ToBF16(0x3f818000, RN, false, false)) // tie → even (up)
	require.Equal(t, bInf, F32ToBF16(max32, RN, false, false))
	require.Equal(t, bMax, F32ToBF16(max32, RZ, false, false))
	require.Equal(t, bMax, F32ToBF16(max32, RN, false, true), ".satfinite")
	require.Equal(t, bMax|0x8000, F32ToBF16(ninf32, RN, false, true), ".satfinite on -inf")
	require.Equal(t, CanonNaNBF16, F32ToBF16(qnan32, RN, false, true), ".satfinite keeps NaN")
	require.Equal(t, uint16(0), F32ToBF16(fb(-2), RN, true, false), ".relu")
	require.Equal(t, CanonNaNBF16, F32ToBF16(0xffc00000, RN, true, false), ".relu NaN")
	require.Equal(t, uint16(1), F32ToBF16(0x00010000, RN, false, false), "bf16 subnormal")
	require.Equal(t, uint32(0x3eab0000), BF16ToF32(0x3eab))
	require.Equal(t, uint32(0x7fc10000), BF16ToF32(bNaN), "cvt.f32.bf16 moves bits")
	require.Equal(t, db(1), BF16ToF64(b1))
	require.Equal(t, uint16(0x3f80), F64ToBF16(db(1+0x1p-8+0x1p-40), RZ))
	require.Equal(t, uint16(0x3f81), F64ToBF16(db(1+0x1p-8+0x1p-40), RN), "single rounding")
	require.Equal(t, uint16(0x3f80), F16ToBF16(0x3c01, RN)) // 1+2^-10: below half a bf16 ulp
	require.Equal(t, uint16(0x3f81), F16ToBF16(0x3c01, RP))
	require.Equal(t, uint16(0x0000), F16ToBF16(0, RN))
	require.Equal(t, hInf, BF16ToF16(0x4780, RN)) // 65536
	require.Equal(t, hMax, BF16ToF16(0x4780, RZ))
	require.Equal(t, uint16(0), BF16ToF16(0x0001, RN))

	// tf32: an f32 pattern with the low 13 bits zero
	require.Equal(t, uint32(0x3f802000), F32ToTF32(0x3f801000, RNA), "tie away from zero")
	require.Equal(t, uint32(0x3f800000), F32ToTF32(0x3f801000, RN), "tie to even")
	require.Equal(t, uint32(0xbf802000), F32ToTF32(0xbf801000, RNA))
	require.Equal(t, uint32(0x3f800000), F32ToTF32(0x3f801fff, RZ))
	require.Equal(t, uint32(0x3f802000), F32ToTF32(0x3f801001, RN))
	require.Equal(t, inf32, F32ToTF32(max32, RNA))
	require.Equal(t, uint32(0x7f7fe000), F32ToTF32(max32, RZ))
	require.Equal(t, uint32(0x7f7fe000), uint32(Convert(uint64(max32), F32, TF32, RNA, CvtSatFinite)))
	require.Equal(t, uint32(0x00002000), F32ToTF32(0x00001000, RNA), "subnormal tie away")
	require.Equal(t, uint32(0), uint32(Convert(uint64(fb(-1)), F32, TF32, RN, CvtRelu)))
	require.Equal(t, CanonNaNTF32, F32ToTF32(qnan32, RN))
	require.Equal(t, CanonNaNTF32, F32ToTF32(qnan32, RZ))
	require.Equal(t, qnan32&^0x1fff, F32ToTF32(qnan32, RNA), ".rna truncates a NaN")

	// Convert with the same kind: .ftz/.sat on cvt.f32.f32
	require.Equal(t, uint64(0), Convert(5, F32, F32, RN, CvtFtz))
	require.Equal(t, uint64(5), Convert(5, F32, F32, RN, 0))
	require.Equal(t, uint64(one32), Convert(uint64(fb(3)), F32, F32, RN, CvtSat))
	require.Equal(t, uint64(CanonNaN32), Convert(uint64(qnan32), F32, F32, RN, 0))
	require.Equal(t, qnan64, Convert(qnan64, F64, F64, RN, 0))
	// .sat on f64 and f16 destinations
	require.Equal(t, one64, Convert(uint64(fb(2)), F32, F64, RN, CvtSat))
	require.Equal(t, uint64(h1), Convert(db(2), F64, F16, RN, CvtSat))
	// .relu with f16 destination, -0
	require.Equal(t, uint64(0), Convert(uint64(nz32), F32, F16, RN, CvtRelu))
}

func TestFloatToIntTable(t *testing.T) {
	type row struct {
		a      uint64
		src    FloatKind
		bits   int
		signed bool
		r      Round
		ftz    bool
		want   uint64
	}
	f := func(x float32) uint64 { return uint64(fb(x)) }
	for _, c := range []row{
		{f(2.5), F32, 32, true, RN, false, 2},
		{f(3.5), F32, 32, true, RN, false, 4},
		{f(-2.5), F32, 32, true, RN, false, 0xfffffffe},
		{f(-2.5), F32, 32, true, RZ, false, 0xfffffffe},
		{f(-2.5), F32, 32, true, RM, false, 0xfffffffd},
		{f(-2.5), F32, 32, true, RP, false, 0xfffffffe},
		{f(2.5), F32, 32, true, RNA, false, 3},
		{f(-0.5), F32, 32, false, RN, false, 0},
		{f(-1), F32, 32, false, RZ, false, 0},
		{f(3e9), F32, 32, true, RZ, false, 0x7fffffff},
		{f(-3e9), F32, 32, true, RZ, false, 0x80000000},
		{f(5e9), F32, 32, false, RZ, false, 0xffffffff},
		{uint64(inf32), F32, 64, true, RZ, false, 0x7fffffffffffffff},
		{uint64(ninf32), F32, 64, true, RZ, false, 0x8000000000000000},
		{uint64(ninf32), F32, 64, false, RZ, false, 0},
		{f(300), F32, 8, true, RZ, false, 0x7f},
		{f(-300), F32, 8, true, RZ, false, 0x80},
		{f(300), F32, 8, false, RZ, false, 0xff},
		{f(-40000), F32, 16, true, RN, false, 0x8000},
		{f(1e19), F32, 64, false, RZ, false, uint64(float64(float32(1e19)))},
		{f(2e19), F32, 64, false, RZ, false, 0xffffffffffffffff},
		{f(0x1p63), F32, 64, true, RZ, false, 0x7fffffffffffffff},
		{f(-0x1p63), F32, 64, true, RZ, false, 0x8000000000000000},
		// subnormal input: .rpi gives 1 unless .ftz flushes it
		{uint64(minSub32), F32, 32, true, RP, false, 1},
		{uint64(minSub32), F32, 32, true, RP, true, 0},
		{uint64(minSub32 | sign32), F32, 32, true, RM, false, 0xffffffff},
		{uint64(minSub32 | sign32), F32, 32, true, RM, true, 0},
		// NaN: 0 unless the source is f64 or the destination is 64-bit
		{uint64(qnan32), F32, 32, true, RN, false, 0},
		{uint64(qnan32), F32, 16, false, RN, false, 0},
		{uint64(qnan32), F32, 64, true, RN, false, 0x8000000000000000},
		{uint64(qnan32), F32, 64, false, RN, false, 0x8000000000000000},
		{qnan64, F64, 32, true, RZ, false, 0x80000000},
		{qnan64, F64, 32, false, RZ, false, 0x80000000},
		{qnan64, F64, 8, true, RZ, false, 0x80},
		{qnan64, F64, 64, true, RZ, false, 0x8000000000000000},
		{uint64(hNaN), F16, 32, true, RZ, false, 0},
		{uint64(bNaN), BF16, 64, true, RZ, false, 0x8000000000000000},
		// f64, f16, bf16 sources
		{db(-1e300), F64, 64, true, RZ, false, 0x8000000000000000},
		{db(4294967295.7), F64, 32, false, RN, false, 0xffffffff},
		{db(4294967294.2), F64, 32, false, RP, false, 0xffffffff},
		{db(-2147483648.9), F64, 32, true, RZ, false, 0x80000000},
		{db(-2147483648.9), F64, 32, true, RM, false, 0x80000000},
		{uint64(hMax), F16, 16, true, RN, false, 0x7fff},
		{uint64(hMax), F16, 32, true, RN, false, 65504},
		{uint64(0xc500), F16, 8, true, RZ, false, 0xfb}, // -5
		{uint64(0x4049), BF16, 32, true, RZ, false, 3},  // 3.140625
		{uint64(0x4049), BF16, 32, true, RP, false, 4},
	} {
		require.Equalf(t, c.want, FloatToInt(c.a, c.src, c.bits, c.signed, c.r, c.ftz),
			"FloatToInt(%x %v→%v%d %v ftz=%v)", c.a, c.src, map[bool]string{true: "s", false: "u"}[c.signed], c.bits, c.r, c.ftz)
	}
}

func TestIntToFloatTable(t *testing.T) {
	require.Equal(t, uint64(0x5f800000), IntToFloat(math.MaxUint64, 64, false, F32, RN))
	require.Equal(t, uint64(0x5f7fffff), IntToFloat(math.MaxUint64, 64, false, F32, RZ))
	require.Equal(t, uint64(0xdf000000), IntToFloat(1<<63, 64, true, F32, RN))
	require.Equal(t, db(-0x1p63), IntToFloat(1<<63, 64, true, F64, RN))
	require.Equal(t, uint64(0x43f0000000000000), IntToFloat(math.MaxUint64, 64, false, F64, RN))
	require.Equal(t, uint64(0x43efffffffffffff), IntToFloat(math.MaxUint64, 64, false, F64, RZ))
	require.Equal(t, uint64(0x4b800002), IntToFloat(16777219, 32, true, F32, RP))
	require.Equal(t, uint64(0x4b800002), IntToFloat(16777219, 32, true, F32, RN)) // tie → even
	require.Equal(t, uint64(0x4b800001), IntToFloat(16777219, 32, true, F32, RZ))
	require.Equal(t, uint64(0xcb800002), IntToFloat(uint64(^uint32(16777218)), 32, true, F32, RM)) // -16777219
	require.Equal(t, uint64(0xcb800001), IntToFloat(uint64(^uint32(16777218)), 32, true, F32, RP))
	require.Equal(t, uint64(fb(-1)), IntToFloat(0xff, 8, true, F32, RN))
	require.Equal(t, uint64(fb(255)), IntToFloat(0xff, 8, false, F32, RN))
	require.Equal(t, uint64(fb(-1)), IntToFloat(0xffffffffffffffff, 32, true, F32, RN), "only the low srcBits count")
	require.Equal(t, uint64(0), IntToFloat(0, 64, true, F64, RM), "no -0 from integers")
	require.Equal(t, uint64(hInf), IntToFloat(70000, 32, false, F16, RN))
	require.Equal(t, uint64(hMax), IntToFloat(70000, 32, false, F16, RZ))
	require.Equal(t, uint64(hMax), IntToFloat(65519, 32, false, F16, RN))
	require.Equal(t, uint64(0x4780), IntToFloat(65536, 32, false, BF16, RN))
	require.Equal(t, uint64(0x4b7f), IntToFloat(16711680+65535, 32, false, BF16, RZ))
}

func TestRoundIntegral(t *testing.T) {
	require.Equal(t, fb(2), RoundInt32(fb(2.5), RN, false, false))
	require.Equal(t, fb(3), RoundInt32(fb(2.5), RNA, false, false))
	require.Equal(t, fb(-2), RoundInt32(fb(-2.5), RZ, false, false))
	require.Equal(t, fb(-3), RoundInt32(fb(-2.5), RM, false, false))
	require.Equal(t, fb(-2), RoundInt32(fb(-2.5), RP, false, false))
	require.Equal(t, nz32, RoundInt32(fb(-0.4), RN, false, false), "sign of zero kept")
	require.Equal(t, nz32, RoundInt32(fb(-0.4), RP, false, false))
	require.Equal(t, fb(-1), RoundInt32(fb(-0.4), RM, false, false))
	require.Equal(t, fb(1), RoundInt32(minSub32, RP, false, false))
	require.Equal(t, uint32(0), RoundInt32(minSub32, RP, true, false), ".ftz flushes input")
	require.Equal(t, CanonNaN32, RoundInt32(qnan32, RN, false, false))
	require.Equal(t, uint32(0), RoundInt32(qnan32, RN, false, true))
	require.Equal(t, one32, RoundInt32(fb(7.7), RN, false, true))
	require.Equal(t, uint32(0), RoundInt32(fb(-7.7), RN, false, true))
	require.Equal(t, inf32, RoundInt32(inf32, RZ, false, false))
	require.Equal(t, fb(16777216), RoundInt32(fb(16777216), RN, false, false))

	require.Equal(t, db(-3), RoundInt64(db(-2.5), RM))
	require.Equal(t, nz64, RoundInt64(db(-0.5), RN))
	require.Equal(t, qnan64, RoundInt64(qnan64, RN))
	require.Equal(t, snan64|1<<51, RoundInt64(snan64, RZ))
	require.Equal(t, db(0x1p60+256), RoundInt64(db(0x1p60+256), RZ))

	require.Equal(t, uint16(0x4000), RoundInt16(0x3e00, RN, false, false)) // 1.5 → 2
	require.Equal(t, uint16(0x3c00), RoundInt16(0x3e00, RZ, false, false))
	require.Equal(t, uint16(0x3c00), RoundInt16(0x0001, RP, false, false))
	require.Equal(t, uint16(0), RoundInt16(0x0001, RP, true, false))
	require.Equal(t, CanonNaN16, RoundInt16(hNaN, RN, false, false))
	require.Equal(t, uint16(0x4080), RoundIntBF16(0x4049, RP)) // 3.140625 → 4
	require.Equal(t, uint16(0x4040), RoundIntBF16(0x4049, RZ)) // → 3
	require.Equal(t, uint16(0x8000), RoundIntBF16(0xbe80, RN)) // -0.25 → -0
	require.Equal(t, CanonNaNBF16, RoundIntBF16(bNaN, RN))
}

var kinds = []struct {
	k FloatKind
	f tfmt
}{{F16, tF16}, {BF16, tBF16}, {F32, tF32}, {F64, tF64}}

// encode maps a reference encoding of format f to the register pattern of k.
func encode(z uint64, k FloatKind) uint64 {
	if k == TF32 {
		return z << 13
	}
	return z
}

// TestConvertRandom compares every float→float conversion in every rounding
// mode (including tf32 and RNA) with the exact reference.
func TestConvertRandom(t *testing.T) {
	g := newGen(4)
	n := iters(t, 3000)
	dsts := append(kinds[:len(kinds):len(kinds)], struct {
		k FloatKind
		f tfmt
	}{TF32, tTF32})
	for _, s := range kinds {
		for _, d := range dsts {
			for _, r := range []Round{RN, RZ, RM, RP, RNA} {
				for i := 0; i < n; i++ {
					a := g.val(s.f)
					x := ratOf(a, s.f)
					var want uint64
					if x.Sign() == 0 {
						want = encode(a>>(s.f.width-1)<<(d.f.width-1), d.k)
					} else {
						want = encode(refRound(x, d.f, r), d.k)
					}
					eq(t, want, Convert(a, s.k, d.k, r, 0), "cvt.%v.%v.%v %x", r, d.k, s.k, a)
				}
			}
		}
	}
}

// refToInt is the reference float→int: round per r, clamp to range.
func refToInt(x *big.Rat, bits int, signed bool, r Round) uint64 {
	n, rem := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int)) // truncates toward zero
	if rem.Sign() != 0 {
		twice := new(big.Int).Lsh(new(big.Int).Abs(rem), 1)
		c := twice.Cmp(x.Denom())
		away := false
		switch r {
		case RN:
			away = c > 0 || (c == 0 && n.Bit(0) == 1)
		case RNA:
			away = c >= 0
		case RM:
			away = x.Sign() < 0
		case RP:
			away = x.Sign() > 0
		}
		if away {
			n.Add(n, big.NewInt(int64(x.Sign())))
		}
	}
	lo, hi := big.NewInt(0), new(big.Int).Lsh(big.NewInt(1), uint(bits))
	if signed {
		hi.Rsh(hi, 1)
		lo.Neg(hi)
	}
	hi.Sub(hi, big.NewInt(1))
	if n.Cmp(lo) < 0 {
		n = lo
	}
	if n.Cmp(hi) > 0 {
		n = hi
	}
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1))
	return new(big.Int).And(n, mask).Uint64() // two's complement of negative n
}

func TestFloatToIntRandom(t *testing.T) {
	g := newGen(5)
	n := iters(t, 2000)
	for _, s := range kinds {
		for _, bits := range []int{8, 16, 32, 64} {
			for _, signed := range []bool{true, false} {
				for _, r := range []Round{RN, RZ, RM, RP, RNA} {
					for i := 0; i < n; i++ {
						a := g.val(s.f)
						if g.r.IntN(2) == 0 { // values near the integer range
							e := uint64(s.f.bias + g.r.IntN(bits+2) - 1)
							if e >= 1<<s.f.expBits()-1 {
								e = 1<<s.f.expBits() - 2
							}
							a = bitsOf(s.f, g.r.IntN(3) == 0, e, g.r.Uint64())
						}
						want := refToInt(ratOf(a, s.f), bits, signed, r)
						eq(t, want, FloatToInt(a, s.k, bits, signed, r, false),
							"cvt.%v %v→%v/%d %x", r, s.k, signed, bits, a)
					}
				}
			}
		}
	}
}

func TestIntToFloatRandom(t *testing.T) {
	g := newGen(6)
	n := iters(t, 2000)
	for _, d := range kinds {
		for _, bits := range []int{8, 16, 32, 64} {
			for _, signed := range []bool{true, false} {
				for _, r := range []Round{RN, RZ, RM, RP, RNA} {
					for i := 0; i < n; i++ {
						v := g.r.Uint64() >> uint(g.r.IntN(64))
						if g.r.IntN(4) == 0 {
							v = -v
						}
						m := ^uint64(0) >> uint(64-bits)
						x := new(big.Int).SetUint64(v & m)
						if signed && (v&m)>>uint(bits-1) != 0 {
							x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
						}
						want := uint64(0)
						if x.Sign() != 0 {
							want = refRound(new(big.Rat).SetInt(x), d.f, r)
						}
						eq(t, want, IntToFloat(v, bits, signed, d.k, r),
							"cvt.%v.%v.%v%d %x", r, d.k, signed, bits, v)
					}
				}
			}
		}
	}
}

func TestRoundIntegralRandom(t *testing.T) {
	g := newGen(8)
	for _, s := range kinds {
		for _, r := range []Round{RN, RZ, RM, RP, RNA} {
			for i := 0; i < iters(t, 3000); i++ {
				a := g.val(s.f)
				if g.r.IntN(2) == 0 {
					a = bitsOf(s.f, g.r.IntN(2) == 0, uint64(s.f.bias+g.r.IntN(int(s.f.mant)+2)-1), g.r.Uint64())
				}
				x := ratOf(a, s.f)
				// reference: integer rounding through refToInt with a wide range
				n := refToInt(x, 64, true, r) // all magnitudes < 2^63 here? not for large a
				var want uint64
				if x.Sign() == 0 || math.Abs(ToFloat64(a, s.k)) >= 0x1p62 {
					want = a // zero, or already integral
				} else if n == 0 {
					want = a >> (s.f.width - 1) << (s.f.width - 1) // signed zero
				} else {
					want = refRound(new(big.Rat).SetInt64(int64(n)), s.f, RN)
				}
				eq(t, want, RoundIntegral(a, s.k, r, false, false), "cvt.%vi.%v %x", r, s.k, a)
			}
		}
	}
}

func TestConvertNaNPolicy(t *testing.T) {
	// The GPU's rules (nan.go), with vectors of the conformance suite.
	for _, c := range []struct {
		a        uint64
		src, dst FloatKind
		fl       CvtFlags
		want     uint64
	}{
		// narrowing from f64: sign and leading payload kept, quiet bit set
		{0x7ff8000000000015, F64, F32, 0, 0x7fc00000},
		{0xfff0000000000001, F64, F32, 0, 0xffc00000},
		{0x7ff7ffffffffffff, F64, F32, CvtFtz, 0x7fffffff},
		{0xfff4000000000000, F64, F16, 0, 0xff00},
		{0x7ff7ffffffffffff, F64, F16, 0, 0x7fff},
		{0xfff8000000000001, F64, BF16, 0, 0xffc0},
		{0xfff4000000000000, F64, BF16, 0, 0xffe0},
		// widening to f64: payload kept, quieted; .ftz from f32: canonical
		{0x7f800001, F32, F64, 0, 0x7ff8000020000000},
		{0xffc00001, F32, F64, 0, 0xfff8000020000000},
		{0xffc00001, F32, F64, CvtFtz, 0x7fffffffe0000000},
		{0x7c01, F16, F64, 0, 0x7ff8040000000000},
		{0xff81, BF16, F64, 0, 0xfff8200000000000},
		// bf16 → f32 is a bit move, but not with .ftz
		{0xffc1, BF16, F32, 0, 0xffc10000},
		{0xffc1, BF16, F32, CvtFtz, 0x7fffffff},
		// everything else: the destination's canonical NaN
		{0xfe01, F16, F32, 0, 0x7fffffff},
		{0xff800001, F32, F32, CvtFtz, 0x7fffffff},
		{0xff800001, F32, F16, 0, 0x7fff},
		{0xffa00000, F32, BF16, CvtRelu, 0x7fff},
		{0xfe01, F16, BF16, 0, 0x7fff},
		{0xff81, BF16, F16, 0, 0x7fff},
		{0xffc00001, F32, TF32, 0, 0x7fffe000},
		{0xffc00001, F32, TF32, CvtRelu, 0x7fffe000},
		{0xffc00001, F32, E4M3, CvtSatFinite, 0x7f},
		{0xffc00001, F32, E5M2, CvtSatFinite | CvtRelu, 0x7f},
		{0xff, E4M3, F16, 0, 0x7fff},
		{0xfd, E5M2, F16, CvtRelu, 0x7fff},
		{0xffc00001, F32, F16, CvtSat, 0},
	} {
		require.Equalf(t, c.want, Convert(c.a, c.src, c.dst, RN, c.fl), "%v→%v %x", c.src, c.dst, c.a)
	}
	require.Equal(t, fmt.Sprint(F64), "f64")
	// cvt.rna.tf32.f32 works on the bit pattern (cvt_rna_tf32_f32,
	// cvt_rna_satfinite_tf32_f32).
	for _, c := range []struct {
		a    uint32
		fl   CvtFlags
		want uint32
	}{
		{0x7f800001, 0, 0x7f800000},
		{0x7fbfffff, 0, 0x7fbfe000},
		{0xffc00001, 0, 0xffc00000},
		{0x7f7ff000, 0, 0x7f800000},
		{0x7f7fe800, 0, 0x7f7fe000},
		{0x3f801000, 0, 0x3f802000},
		{0xbf801000, 0, 0xbf802000},
		{0x7fc00000, CvtSatFinite, 0x7fbfe000},
		{0x7f800001, CvtSatFinite, 0x7f7fe000},
		{0xff800000, CvtSatFinite, 0xff7fe000},
		{0x7f7ff800, CvtSatFinite, 0x7f7fe000},
	} {
		require.Equalf(t, uint64(c.want), Convert(uint64(c.a), F32, TF32, RNA, c.fl), "rna tf32 %08x", c.a)
	}
}

func TestConvertFtzF16(t *testing.T) {
	// .ftz does not flush an f32 subnormal converted to f16
	// (cvt_rp_ftz_f16_f32), but does for bf16, f32 and f64 destinations.
	require.Equal(t, uint64(0x0001), Convert(0x00000001, F32, F16, RP, CvtFtz))
	require.Equal(t, uint64(0x8001), Convert(0x807fffff, F32, F16, RM, CvtFtz))
	require.Equal(t, uint64(0), Convert(0x007fffff, F32, BF16, RP, CvtFtz))
	require.Equal(t, uint64(0x8000000000000000), Convert(0x80000001, F32, F64, RN, CvtFtz))
	require.Equal(t, uint64(0x0080), Convert(0x007fffff, F32, BF16, RP, 0))
}

func TestConvertFP8(t *testing.T) {
	// e4m3: no infinities, max 448; satfinite clamps inf and overflow.
	for _, c := range []struct {
		x    float32
		fl   CvtFlags
		want uint64
	}{
		{0, CvtSatFinite, 0x00},
		{float32(math.Copysign(0, -1)), CvtSatFinite, 0x80},
		{float32(math.Copysign(0, -1)), CvtSatFinite | CvtRelu, 0x00},
		{1, CvtSatFinite, 0x38},
		{448, CvtSatFinite, 0x7e},
		{464, CvtSatFinite, 0x7e},
		{-3547.08, CvtSatFinite, 0xfe},
		{float32(math.Inf(1)), CvtSatFinite, 0x7e},
		{float32(math.Inf(-1)), CvtSatFinite, 0xfe},
		{float32(math.Inf(-1)), CvtSatFinite | CvtRelu, 0x00},
		{0x1p-9, CvtSatFinite, 0x01},  // smallest subnormal
		{0x1p-10, CvtSatFinite, 0x00}, // tie → even
		{0x1.8p-10, CvtSatFinite, 0x01},
		{-1.0625, CvtSatFinite, 0xb8}, // 1 + 1/16: tie → even (1.0)
		{1.1875, CvtSatFinite, 0x3a},  // 1 + 3/16: tie → even (1.25)
	} {
		require.Equalf(t, c.want, Convert(uint64(math.Float32bits(c.x)), F32, E4M3, RN, c.fl), "e4m3 %g", c.x)
	}
	// e5m2: IEEE-like, max 57344 (0x7b); satfinite clamps.
	for _, c := range []struct {
		x    float32
		want uint64
	}{
		{61440, 0x7b}, {-9216, 0xf0}, {-5632, 0xee}, {34816, 0x78}, {53248, 0x7a},
		{float32(math.Inf(1)), 0x7b}, {float32(math.Inf(-1)), 0xfb}, {1, 0x3c}, {0x1p-16, 0x01},
	} {
		require.Equalf(t, c.want, Convert(uint64(math.Float32bits(c.x)), F32, E5M2, RN, CvtSatFinite), "e5m2 %g", c.x)
	}
	// widening to f16 is exact (cvt_rn_f16x2_e4m3x2, _e5m2x2)
	for b, want := range map[uint64]uint64{0x01: 0x1800, 0x08: 0x2400, 0x7e: 0x5f00, 0xfe: 0xdf00, 0x77: 0x5b80} {
		require.Equalf(t, want, Convert(b, E4M3, F16, RN, 0), "e4m3 %02x", b)
	}
	for b, want := range map[uint64]uint64{0x01: 0x0100, 0x7b: 0x7b00, 0x7c: 0x7c00, 0xfc: 0xfc00, 0x83: 0x8300} {
		require.Equalf(t, want, Convert(b, E5M2, F16, RN, 0), "e5m2 %02x", b)
	}
	require.Equal(t, uint64(0), Convert(0x81, E4M3, F16, RN, CvtRelu), ".relu: negative → +0")
	require.Equal(t, "e4m3", E4M3.String())
	require.Equal(t, "e5m2", E5M2.String())
}
