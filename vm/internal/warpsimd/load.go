package warpsimd

import "encoding/binary"

// LoadWords32 loads, for all 32 lanes, the little-endian 32-bit word at
// offset uint32(a[l]) + k (modulo 2^32) of mem into d[l], zero-extended:
// a full warp's ld.{shared,...}.b32 [a+imm] with k = imm - the window's
// base. It reports false, having written some lanes of d or none, when an
// offset is not a multiple of 4 or a word would end past mem; the caller
// then takes its general path (so d must not be a). mem must be shorter
// than 2^31 bytes.
func LoadWords32(d, a *[32]uint64, mem []byte, k uint32) bool {
	if len(mem) < 4 || uint64(len(mem)) >= 1<<31 {
		return false
	}
	if hasFMA {
		return loadWords32AVX2(d, a, &mem[0], k, uint32(len(mem)-4))
	}
	return loadWords32Go(d, a, mem, k)
}

func loadWords32Go(d, a *[32]uint64, mem []byte, k uint32) bool {
	last := uint32(len(mem) - 4) // the highest offset a word can start at
	for l := range 32 {
		p := uint32(a[l]) + k
		if p&3 != 0 || p > last {
			return false
		}
		d[l] = uint64(binary.LittleEndian.Uint32(mem[p : p+4]))
	}
	return true
}

// loadWords32AddrGo is LoadWords32Addr in two passes, where the one-pass
// form does not apply.
func loadWords32AddrGo(d, addr, a *[32]uint64, off uint32, mem []byte, k uint32) (span uint32, ok bool) {
	AddKQ(addr, a, uint64(off), 0xffffffff)
	for l := range addr {
		span |= uint32(addr[l] ^ addr[0])
	}
	return span, LoadWords32(d, addr, mem, k)
}

// StoreWords32 stores, for all 32 lanes, the low 32 bits of s[l] as a
// little-endian word at offset uint32(a[l]) + k (modulo 2^32) of mem: a
// full warp's st.{shared,...}.b32 [a+imm]. It reports false, having
// written nothing, when an offset is not a multiple of 4 or a word would
// end past mem, and also whenever it cannot store the warp in one pass:
// with AVX2, unless each group of eight lanes writes eight consecutive
// words (a row of a tile). The caller then takes its general path. mem
// must be shorter than 2^31 bytes.
func StoreWords32(mem []byte, a, s *[32]uint64, k uint32) bool {
	if len(mem) < 4 || uint64(len(mem)) >= 1<<31 {
		return false
	}
	if hasFMA {
		return storeWords32AVX2(&mem[0], a, s, k, uint32(len(mem)-4))
	}
	return storeWords32Go(mem, a, s, k)
}

func storeWords32Go(mem []byte, a, s *[32]uint64, k uint32) bool {
	last := uint32(len(mem) - 4)
	for l := range 32 {
		if p := uint32(a[l]) + k; p&3 != 0 || p > last {
			return false
		}
	}
	for l := range 32 { // in lane order: of two lanes at one word, the higher one's stays
		p := uint32(a[l]) + k
		binary.LittleEndian.PutUint32(mem[p:p+4], uint32(s[l]))
	}
	return true
}
