package fpu

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

// Elements of the fp8 wgmma recordings (testdata/tma: rec3 the third
// recording's cases e4m3_f32 and e5m2e4m3_f16, B negated there as the
// kernel's imm-scale-b -1 did; rec4 the fourth's x_* cases), each one that
// a rejected alternative of DotFP8WG's rule gets wrong (the alternative
// named: keep = bits kept below the alignment exponent, out = fraction
// bits of the f32 result, outmode=rn rounding the result to nearest,
// edef=lead aligning on each term's leading bit, f16via=13 an f16 result
// through a 13-bit one, groups=2 two sums of 16 products in turn). The
// whole recordings run in go test ./scheduler/suite -run TMACorpus.
func TestDotFP8WGRecorded(t *testing.T) {
	tests := []struct {
		name        string
		a5, b5, f16 bool
		a, b        string // 32 fp8 values, k = 0 first
		c, want     uint32
	}{
		{"rec3 e4m3_f32 k0: keep=14 fails", false, false, false, "36b33637373337b030b3313636b0b032b3b2b7b3b53035b73435b1b7b535b437", "33b03330b433b1b735b534b63130b3b4b4b03233b53031b134b7b7b233b5b135", 0xbffae216, 0x40431000},
		{"rec3 e4m3_f32 k0: keep=12 fails", false, false, false, "36b33637373337b030b3313636b0b032b3b2b7b3b53035b73435b1b7b535b437", "35b3b333b1b633b7b6b13735b1b13137b73231b7b7b73337b6323432b032b6b2", 0xbfbbcf7b, 0x3f993400},
		{"rec3 e4m3_f32 k0: out=14 fails", false, false, false, "36b33637373337b030b3313636b0b032b3b2b7b3b53035b73435b1b7b535b437", "b136b6b1b636b43236b4b1b6b636b2b5b335b034b232b633b7b5b2363232b3b1", 0xbe957ad9, 0xc0fcd400},
		{"rec3 e4m3_f32 k0: outmode=rn fails", false, false, false, "36b33637373337b030b3313636b0b032b3b2b7b3b53035b73435b1b7b535b437", "37b1373535b73036353537b131b530b2b337b4b2b6b732b530363732b23530b5", 0x3f8d1984, 0x40d6e400},
		{"rec3 e4m3_f32 k0: edef=lead fails", false, false, false, "33b531b5b337b737b330b5b6b3b4b7b73235b532b73034b030b2b0b0b7353536", "b3b6b1b5b0b3b2b235b731b4373734b4b1b6b631b73030b1b13131b4b63533b1", 0xbe332877, 0x3f393400},
		{"rec3 e4m3_f32 k0: groups=2, split=half fails", false, false, false, "33b531b5b337b737b330b5b6b3b4b7b73235b532b73034b030b2b0b0b7353536", "36b5b3b4b0b3b4b2353637b0b6b7b5b4b23036b335333030b7333230b430b731", 0xbe488ab8, 0x3fb1ec00},
		{"rec3 e5m2e4m3_f16 k0: groups=2, split=half fails", true, false, true, "3ebb3e3f3f3b3fb838bb393e3eb8b83abbbabfbbbd383dbf3c3db9bfbd3dbc3f", "b0b4b4b6b7333431b7303737b030b4b532b0313632b4b130b0b6b3b3b331b4b2", 0xbfd3, 0xc821},
		{"rec3 e5m2e4m3_f16 k0: f16via=13 fails", true, false, true, "bd3dbc38be3abfbbbabf39bc3bbb3ab93abbb8babcbeb83c3e3fbd3b3abe3c39", "b5b335b7b73330353531b4b033b6b637b3b1b4333232b4b432b137b037b53134", 0xb189, 0xc269},
		{"rec3 e5m2e4m3_f16 k2: keep=12 fails", true, false, true, "1b545f950f0753113d58432db45ec293463ba9d00b437aa7a7511c1d202213f4", "88ed4c0042bc46ef8c488858bf2fb8455a5141602c5510110586fc8caa812012", 0x5d7b, 0xe93d},
		{"rec3 e5m2e4m3_f16 k2: keep=14 fails", true, false, true, "1b545f950f0753113d58432db45ec293463ba9d00b437aa7a7511c1d202213f4", "4ab09f3138c2a0dc7c821bf2725406c29c7a2b4907de30e345851ea77a3085bc", 0xfaa5, 0xdc90},
		{"rec3 e5m2e4m3_f16 k2: edef=lead fails", true, false, true, "d5e4cb1652d43c9f33ca8865d1e7b1175d6f9c426658b2c6a93ee4823efb75f5", "01f81511492ed071e45b866c0a0a328d2d6fda963a661324472466f974322d67", 0x1, 0xfb36},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ab, err := hex.DecodeString(tt.a)
			require.NoError(t, err)
			bb, err := hex.DecodeString(tt.b)
			require.NoError(t, err)
			a, b := make([]uint32, len(ab)), make([]uint32, len(bb))
			for k := range ab {
				a[k], b[k] = uint32(ab[k]), uint32(bb[k])
			}
			require.Equal(t, tt.want, DotFP8WG(tt.a5, tt.b5, a, b, tt.c, tt.f16), "got %#x", DotFP8WG(tt.a5, tt.b5, a, b, tt.c, tt.f16))
		})
	}
}
