package fpu

import "testing"

// Benchmarks of the common paths the interpreter hits per lane. The inputs
// cycle through a small table so the compiler cannot fold them.

var (
	benchA32 = []uint32{0x3f8ccccd, 0x40490fdb, 0xbf000001, 0x3eaaaaab, 0x42f6e979, 0x3c23d70a, 0xc1200000, 0x3f7fffff}
	benchA64 = []uint64{0x3ff199999999999a, 0x400921fb54442d18, 0xbfe0000000000001, 0x3fd5555555555555,
		0x405edd2f1a9fbe77, 0x3f847ae147ae147b, 0xc024000000000000, 0x3fefffffffffffff}
	sink32 uint32
	sink64 uint64
)

func BenchmarkAdd32(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= Add32(benchA32[i&7], benchA32[(i+3)&7], RN, false, false)
	}
	sink32 = s
}

func BenchmarkAdd32RZ(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= Add32(benchA32[i&7], benchA32[(i+3)&7], RZ, false, false)
	}
	sink32 = s
}

func BenchmarkFma32(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= Fma32(benchA32[i&7], benchA32[(i+3)&7], benchA32[(i+5)&7], RN, false, false)
	}
	sink32 = s
}

func BenchmarkFma32FtzRP(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= Fma32(benchA32[i&7], benchA32[(i+3)&7], benchA32[(i+5)&7], RP, true, false)
	}
	sink32 = s
}

func BenchmarkFma64(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		s ^= Fma64(benchA64[i&7], benchA64[(i+3)&7], benchA64[(i+5)&7], RN)
	}
	sink64 = s
}

func BenchmarkFma64RM(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		s ^= Fma64(benchA64[i&7], benchA64[(i+3)&7], benchA64[(i+5)&7], RM)
	}
	sink64 = s
}

func BenchmarkF64ToF32(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= F64ToF32(benchA64[i&7], RN, false, false)
	}
	sink32 = s
}

func BenchmarkF64ToF32RZ(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= F64ToF32(benchA64[i&7], RZ, false, false)
	}
	sink32 = s
}

func BenchmarkDiv32(b *testing.B) {
	var s uint32
	for i := 0; i < b.N; i++ {
		s ^= Div32(benchA32[i&7], benchA32[(i+3)&7], RN, false)
	}
	sink32 = s
}
