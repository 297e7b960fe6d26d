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
// through a 13-bit one, groups=2 two sums of 16 products in turn, zero
// products whose exponents count in the alignment), and NaN, infinity,
// overflow and subnormal results. The whole recordings run in go test
// ./scheduler/suite -run TMACorpus.
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
		{"rec4 e4m3_f32 narrow: RN to 13 bits fails", false, false, false, "bcb6b1a8ae2fc7afacba3546c44239b03ec53ebdc7c1413ebf3e2e45b74128bc", "47aabdc62dbab4b32b2ebd3734c6342c432ec5b23b40c6c42baab636b8c4baaf", 0xc175690e, 0xc2573400},
		{"rec4 e4m3_f32 narrow: two halves of 16 fail", false, false, false, "bcb6b1a8ae2fc7afacba3546c44239b03ec53ebdc7c1413ebf3e2e45b74128bc", "bac2ad2cadb52cb832b8362bbc314640b3bb3b37bf404130afb837bb3a3946b9", 0xbeb827ff, 0x41d0a400},
		{"rec4 e4m3_f32 narrow: 14 bits kept fail", false, false, false, "bcb6b1a8ae2fc7afacba3546c44239b03ec53ebdc7c1413ebf3e2e45b74128bc", "bac2ad2cadb52cb832b8362bbc314640b3bb3b37bf404130afb837bb3a3946b9", 0xbeb827ff, 0x41d0a400},
		{"rec4 e4m3_f32 sub: subnormal c truncated", false, false, false, "8900898d830b0b8a0e02030883040c8c860a8c830f0982890607098d000c8805", "9308829604858c85150e878792869496008893928d8b8b88900c9210138f9782", 0x803a7d0b, 0x3b030000},
		{"rec4 e4m3_f32 special: NaN", false, false, false, "42b7b036b0aabe3f38282a3dc535312934aaacc447acbeb1c04137c1be4600a8", "3da93932b645ba34a933ad4142af80a8bd2b3c3e7ec0b1c737ae31b245b23b43", 0xffffffff, 0x7fffffff},
		{"rec4 e4m3_f32 special: infinity", false, false, false, "2d3a382cb4acbfaa3f3aa83fb0a9433b293fb1403035a82c3caab4ad3937c1bf", "47b4ab41c4b136b42abdbf412ac73da92939ab2dc3b4ad3e3ca9a8b5c4b6a92c", 0x7f800000, 0x7f800000},
		{"rec4 e4m3_f32 zerobig: zero products in the alignment fail", false, false, false, "33804047bf0039c2ba8042463800c7313d8034b9bb00bc3f3c802d3dbb00c0bc", "2efba82a30fa38a947edb13e41f3be3dc4f6b5bbc76841b5297c47be36e8b4b0", 0xbedbe7db, 0x40f52000},
		{"rec4 e5m2_f32 narrow: 14 bits kept fail", true, true, false, "40c338383ac0b7b6c03638354139373cbc3ebb36bdbe3842c3c0bf34b635b9b8", "39b4373e35be3539bbc3b8c035c23d384343bb3ebf413cc3bebc43c1c0bd423b", 0x3eceb497, 0xc081f800},
		{"rec4 e5m2_f32 narrow: RN to 13 bits fails", true, true, false, "40c338383ac0b7b6c03638354139373cbc3ebb36bdbe3842c3c0bf34b635b9b8", "353dbab5373cc3c335413437b9b53a41bfbf41ba363c3838423741c0b93bb4c3", 0x40ece7e3, 0xc1375c00},
		{"rec4 e5m2_f32 narrow: two halves of 16 fail", true, true, false, "bc383e37393ebdc3c1b5b9c33e404141b43a433e43bbbc34c2383fbf3f38bf38", "393dbd3cc1b9b439bcb83ebe3d3c3e3dc2c33ac2c036b5c0b7bab9b4bbb8c335", 0xbfa6abf0, 0x4083d800},
		{"rec4 e5m2_f32 sub: subnormal c truncated", true, true, false, "0687050087878203070607878604040381800106850106040002068600078281", "8805010088838781010705028388008381028087060b0207808884880201058a", 0x80171cec, 0x32640000},
		{"rec4 e5m2_f32 special: NaN", true, true, false, "3b37b8b941bc43bab8373d7b41bbbb3935bc4134b63c3e38b734b5ba36b6b940", "36b8b538c2c340c3babe3dba36b6b542ff3ac1bc3cb63b37bd40bcbcc23a373d", 0x41429978, 0x7fffffff},
		{"rec4 e5m2_f32 special: infinity", true, true, false, "3b37b8b941bc43bab8373d7b41bbbb3935bc4134b63c3e38b734b5ba36b6b940", "bc40c241b9b9b638bc7bbfb7b7354037bd3c3d3eb73d3cba3bc101c13a41c034", 0xff800000, 0xff800000},
		{"rec4 e5m2_f32 zerobig: zero products in the alignment fail", true, true, false, "b6b6b780c1c1b800b5ba3980be3f3400bb3f3b8036ba3800b53f3c803aba3d00", "b9c3b8f836b7b5fbb943b674b8b83875b837c3f6b535387bb53fbdf540b5bf74", 0xbf152f67, 0xbfd61400},
		{"rec4 e4m3_f16 narrow: two halves of 16 fail", false, false, true, "b4b3b4a9bdbd35b8c1b9b547af422ec22c2cadb2bcb8acab333b2f363a2c4529", "b4b544c5352d38453d2d34b9453f28b0c13bbf4637c5bdc5a9302b333dbbc342", 0x401b, 0xc952},
		{"rec4 e4m3_f16 narrow: f16 through 13 bits fails", false, false, true, "4346beb541294337a8c72d3e2b41bf4039af3c46a9a82b3a2bbcacacb0afb9c1", "bbb5aab3c2be2e333f31c74436c441bd31b144c6bcb8c647473b3c2aacaa333b", 0xbe51, 0xcff5},
		{"rec4 e4m3_f16 narrow: 14 bits kept fail", false, false, true, "2dbf32aca935adb52eb732afa930bdbac536c42b3d472bb53eaf2d45283dabb0", "47c5c2c44728ac3839473fb8ba3145bfc63ba8b932a9a9463f37c5c1b1c7bc32", 0x353b, 0x3726},
		{"rec4 e4m3_f16 special: NaN", false, false, true, "42392fb633c74238443428b22fb53db1ba3a2eacbba93b38b334303e41be3a45", "3f45383a4042c135c5c53d28b0c0c429c02d44b97fb6b245292b3a2dbb28442b", 0x8000, 0x7fff},
		{"rec4 e4m3_f16 f16sub: subnormal", false, false, true, "96079c110e12841a1c95181f87059f0e0a18010f99019f808592991584161c0d", "8c8908088e0397079f1c171a9695850e9c048e171b1d8b050b9f1998170b1a98", 0x0, 0x300},
		{"rec4 e4m3_f16 f16ovf: overflow", false, false, true, "75f46760fa6c7efd69e47df1f476796c75ed756a7b636df77d70e264eef0fe62", "c744c8c0d7d4d6bdc6b84f4bc5cecfbfcd42d54db83d4ebebb3f4d3c4fd245ba", 0xfb55, 0xfc00},
		{"rec4 e5m2_f16 narrow: two halves of 16 fail", true, true, true, "34ba3f344342c0c2b434b7bbba3f3d42c13a39b7c3bc41c1b7413f3543bdb83d", "3bc342394137c0c13b41b8beb5b6babc42b8bd41b4c1bf3734bf3442bbb94343", 0xc62d, 0x469b},
		{"rec4 e5m2_f16 narrow: f16 through 13 bits fails", true, true, true, "3537b4403c3b3bbc39ba3541c2bcb73ebfb73e34bb403bbc353eb73fc03a3c38", "3a403ebac2c339423bb6c3423dbf37b640bf38b8c2b63cb538be35c3423541bd", 0xb6a2, 0xcc21},
		{"rec4 e5m2_f16 narrow: 14 bits kept fail", true, true, true, "bd4143b93bb7373540b7433fb63b36bbc2b63bbc353d3e383e3eb7c335bec338", "35b4b43f374342c2424336b734bc3bbbbf42bac1bf3ec2393cb5353bc2c03cb7", 0xb675, 0x343c},
		{"rec4 e5m2_f16 special: NaN", true, true, true, "b63e373bb54039b4b4bb3935bf3a3bbab87dbab7397d43b4ba37b7b7b4be7d3e", "bd353a3434c0bd37bf3abbbfbabc43c2b9bb3f3c3abb34423943bc413ffcb935", 0x4511, 0x7fff},
		{"rec4 e5m2_f16 f16sub: subnormal", true, true, true, "840d9012100e8683050a0285898a0c0c0b05880a0b118e0c9307038c058d020b", "8d8793130209048a110b8d010f8c110b0a038c93900b0f0c040d0e0b8f890c0e", 0x0, 0x15},
		{"rec4 e5m2_f16 f16ovf: overflow", true, true, true, "eb64625e675cdd6ae465df5f5c6560e5666bdde261dc5d65e0e9646b5f6b675d", "3f40c2c03fbe49c4cb4b43c8c4c9c6cbc745cbc1c3474b463ec6ca4b4abdc23d", 0x0, 0x7c00},
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
