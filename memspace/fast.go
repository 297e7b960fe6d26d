package memspace

import (
	"encoding/binary"
	"math/bits"
)

// The fast paths below move 4- or 8-byte scalars for shared and global
// accesses, the bulk of what kernels do. Each returns false, having written
// nothing outside dst, when any lane's access is not plainly valid; the
// caller then takes the general path (Load/Store), which reports the fault.

// LoadScalar loads a.Size (4 or 8) bytes per lane of a.Mask into dst,
// zero-extended.
func (v *View) LoadScalar(a *Access, dst *[32]uint64) bool {
	n := uint64(a.Size)
	if n != 4 && n != 8 {
		return false
	}
	switch a.Space {
	case Shared:
		sh := v.Shared
		lim := uint64(len(sh))
		if a.Mask == ^uint32(0) && n == 4 {
			return v.loadShared32Warp(a, dst)
		}
		for x := a.Mask; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			p := a.Addr[l] - v.SharedBase
			if p&(n-1) != 0 || p >= lim || lim-p < n {
				return false
			}
			if n == 4 {
				dst[l] = uint64(binary.LittleEndian.Uint32(sh[p:]))
			} else {
				dst[l] = binary.LittleEndian.Uint64(sh[p:])
			}
		}
		return true
	case Global:
		if a.Mask == ^uint32(0) && n == 4 {
			if loadWords32(v.hint, a, dst) || pageWords32(v.hint, a, dst) {
				return true
			}
			if loadWords32(v.hint2, a, dst) || pageWords32(v.hint2, a, dst) {
				v.hint, v.hint2 = v.hint2, v.hint
				return true
			}
		}
		h := v.hint
		for x := a.Mask; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			p := a.Addr[l]
			if p&(n-1) != 0 {
				return false
			}
			// Dense allocations first, as before sparse ones existed: a
			// sparse one has no Data and fails this test.
			if h != nil && p-h.Base < uint64(len(h.Data)) && uint64(len(h.Data))-(p-h.Base) >= n {
				b := h.Data[p-h.Base:]
				if n == 4 {
					dst[l] = uint64(binary.LittleEndian.Uint32(b))
				} else {
					dst[l] = binary.LittleEndian.Uint64(b)
				}
				continue
			}
			if h == nil || p-h.Base >= h.Size || h.Size-(p-h.Base) < n {
				if h = v.Global.Find(p, n); h == nil {
					return false
				}
			}
			if h.Data != nil {
				b := h.Data[p-h.Base:]
				if n == 4 {
					dst[l] = uint64(binary.LittleEndian.Uint32(b))
				} else {
					dst[l] = binary.LittleEndian.Uint64(b)
				}
				continue
			}
			dst[l] = h.load(p-h.Base, n)
		}
		if h != v.hint {
			v.hint, v.hint2 = h, v.hint
		}
		return true
	}
	return false
}

// loadWords32 is LoadScalar of 4 bytes for all 32 lanes when every lane's
// word lies in the dense allocation h: a counted loop with one check per
// lane, no mask walk and no search. It returns false (dst may hold some
// lanes' values) when h is nil or sparse or a lane's word is misaligned or
// outside h.
func loadWords32(h *Allocation, a *Access, dst *[32]uint64) bool {
	if h == nil || len(h.Data) < 4 || a.Addr[0]-h.Base > uint64(len(h.Data)-4) {
		// The first lane's word is not in h, which words32 would find
		// (a tile's loads alternate between two allocations, the hints).
		return false
	}
	return words32(dst, a, h.Data, h.Base)
}

// words32 loads, for all 32 lanes, the little-endian word at a.Addr[l] -
// base of mem into dst[l], zero-extended, when every lane's address is a
// multiple of 4 and its word lies in mem; else it returns false, having
// written some lanes or none. With AVX2 four lanes at a time
// (words32AVX2: four consecutive words are one load, others a gather);
// TestWords32MatchesLanes holds the two forms equal.
func words32(dst *[32]uint64, a *Access, mem []byte, base uint64) bool {
	if len(mem) < 4 {
		return false
	}
	last := uint64(len(mem) - 4) // the highest offset a word can start at
	if hasAVX2 {
		return words32AVX2(dst, &a.Addr, &mem[0], base, last)
	}
	return words32Go(dst, &a.Addr, mem, base, last)
}

func words32Go(dst, addr *[32]uint64, mem []byte, base, last uint64) bool {
	for l, p := range addr {
		o := p - base
		if p&3 != 0 || o > last {
			return false
		}
		dst[l] = uint64(binary.LittleEndian.Uint32(mem[o : o+4]))
	}
	return true
}

// zeroPage is what a page of a sparse allocation never written and past
// its initial contents holds.
var zeroPage page

// pageBounds returns, for sparse allocation h, the offset in h of the page
// that a's first lane falls in and the highest offset in that page a word
// can start at (the page may run past h's end); ok is false when h is dense
// or nil or the first lane is outside h.
func pageBounds(h *Allocation, a *Access) (start, last uint64, ok bool) {
	if h == nil || h.Data != nil {
		return 0, 0, false
	}
	off := a.Addr[0] - h.Base
	if off >= h.Size {
		return 0, 0, false
	}
	start = off &^ pageMask
	end := min(start+PageSize, h.Size)
	if end-start < 4 {
		return 0, 0, false
	}
	return start, end - start - 4, true
}

// pageWords32 is loadWords32 for a sparse allocation h, when every lane's
// word lies in the page of the first lane's: one check per lane, no page
// look-up per lane. A page never written reads as h's initial contents or
// zeros (one only partly covered by them takes the general path).
func pageWords32(h *Allocation, a *Access, dst *[32]uint64) bool {
	start, last, ok := pageBounds(h, a)
	if !ok {
		return false
	}
	var pg []byte
	switch p := h.pages[start>>PageShift].Load(); {
	case p != nil:
		pg = p[:]
	case uint64(len(h.init)) >= start+last+4:
		pg = h.init[start : start+last+4]
	case uint64(len(h.init)) <= start:
		pg = zeroPage[:]
	default:
		return false
	}
	return words32(dst, a, pg[:last+4], h.Base+start)
}

// storeWords32 is StoreScalar of 4 bytes to global memory for all 32 lanes
// when every lane's word lies in allocation h (dense), or in one page of it
// (sparse): every lane is checked before anything is written or a page is
// allocated.
func storeWords32(h *Allocation, a *Access, src *[32]uint64) bool {
	if h == nil {
		return false
	}
	var base, last uint64
	if h.Data != nil {
		if len(h.Data) < 4 {
			return false
		}
		base, last = h.Base, uint64(len(h.Data)-4)
	} else {
		start, l, ok := pageBounds(h, a)
		if !ok {
			return false
		}
		base, last = h.Base+start, l
	}
	for _, p := range &a.Addr {
		if p&3 != 0 || p-base > last {
			return false
		}
	}
	dst := h.Data
	if dst == nil {
		p, err := h.pageFor(base - h.Base) // no host memory: the general path reports it
		if err != nil {
			return false
		}
		dst = p[:]
	}
	for l, p := range &a.Addr {
		o := p - base
		binary.LittleEndian.PutUint32(dst[o:o+4], uint32(src[l]))
	}
	return true
}

// loadShared32Warp is LoadScalar of 4 bytes from shared memory for all 32
// lanes: a counted loop, without the walk over the mask's bits.
func (v *View) loadShared32Warp(a *Access, dst *[32]uint64) bool {
	sh, base := v.Shared, v.SharedBase
	if len(sh) < 4 {
		return false
	}
	last := uint64(len(sh) - 4) // the highest offset a word can start at
	for l, addr := range &a.Addr {
		p := addr - base
		if p&3 != 0 || p > last {
			return false
		}
		dst[l] = uint64(binary.LittleEndian.Uint32(sh[p : p+4]))
	}
	return true
}

// LoadShared32Regs is a full warp's 4-byte shared load from the 32-bit
// addresses uint32(base[l]) + off (the shared window wraps at 32 bits, as
// [r+imm] does): LoadScalar without the addresses written out first. It
// returns false when some lane's access is not plainly valid; dst may
// then hold some lanes' values, base is as it was (when dst is base, every
// lane is checked before any is written), and the caller's general path
// loads them all again or faults.
//
// Measured on the tiled matmul (paired runs): checking each lane as it
// loads is faster than a branch-free check of all lanes before the loads
// (98 against 110 ms per multiply), the branch being always predicted; one
// comparison against the last valid offset and a 4-byte slice, which
// leaves the word's read no bounds check of its own, took 8% more off.
func (v *View) LoadShared32Regs(base *[32]uint64, off uint32, dst *[32]uint64) bool {
	sh, sb := v.Shared, v.SharedBase
	if dst != base && len(sh) >= 4 {
		last := uint64(len(sh) - 4) // the highest offset a word can start at
		for l, r := range base {
			p := uint64(uint32(r)+off) - sb
			if p&3 != 0 || p > last {
				return false
			}
			dst[l] = uint64(binary.LittleEndian.Uint32(sh[p : p+4]))
		}
		return true
	}
	var or, hi uint64
	for _, r := range base {
		p := uint64(uint32(r)+off) - sb
		or |= p
		hi = max(hi, p)
	}
	if or&3 != 0 || hi >= uint64(len(sh)) || uint64(len(sh))-hi < 4 {
		return false
	}
	for l, r := range base {
		dst[l] = uint64(binary.LittleEndian.Uint32(sh[uint64(uint32(r)+off)-sb:]))
	}
	return true
}

// StoreScalar stores the low a.Size (4 or 8) bytes of src per lane. Lanes
// are checked before anything is written.
func (v *View) StoreScalar(a *Access, src *[32]uint64) bool {
	n := uint64(a.Size)
	if n != 4 && n != 8 {
		return false
	}
	switch a.Space {
	case Shared:
		lim := uint64(len(v.Shared))
		base := v.SharedBase
		for x := a.Mask; x != 0; x &= x - 1 {
			p := a.Addr[bits.TrailingZeros32(x)&31] - base
			if p&(n-1) != 0 || p >= lim || lim-p < n {
				return false
			}
		}
		sh := v.Shared
		for x := a.Mask; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			if n == 4 {
				binary.LittleEndian.PutUint32(sh[a.Addr[l]-base:], uint32(src[l]))
			} else {
				binary.LittleEndian.PutUint64(sh[a.Addr[l]-base:], src[l])
			}
		}
		return true
	case Global:
		if a.Mask == ^uint32(0) && n == 4 {
			if storeWords32(v.hint, a, src) {
				return true
			}
			// The allocation of the first lane's word, where the hint is
			// another (a kernel's loads from its inputs set it).
			if h := v.Global.Find(a.Addr[0], n); h != nil && h != v.hint && storeWords32(h, a, src) {
				v.hint, v.hint2 = h, v.hint
				return true
			}
		}
		h := v.hint
		dense := true
		for x := a.Mask; x != 0; x &= x - 1 {
			p := a.Addr[bits.TrailingZeros32(x)&31]
			if p&(n-1) != 0 {
				return false
			}
			if h == nil || p-h.Base >= h.Size || h.Size-(p-h.Base) < n {
				if h = v.Global.Find(p, n); h == nil {
					return false
				}
			}
			if h.Data == nil {
				dense = false
			}
		}
		if !dense {
			// Every lane is valid: allocate the sparse allocations' pages
			// before anything is written. When the host has no memory for
			// one, the general path reports the fault.
			for x := a.Mask; x != 0; x &= x - 1 {
				p := a.Addr[bits.TrailingZeros32(x)&31]
				if p-h.Base >= h.Size || h.Size-(p-h.Base) < n {
					h = v.Global.Find(p, n)
				}
				if h.Data == nil {
					if _, err := h.pageFor(p - h.Base); err != nil {
						return false
					}
				}
			}
		}
		if dense {
			for x := a.Mask; x != 0; x &= x - 1 {
				l := bits.TrailingZeros32(x) & 31
				p := a.Addr[l]
				if p-h.Base >= uint64(len(h.Data)) || uint64(len(h.Data))-(p-h.Base) < n {
					h = v.Global.Find(p, n)
				}
				if n == 4 {
					binary.LittleEndian.PutUint32(h.Data[p-h.Base:], uint32(src[l]))
				} else {
					binary.LittleEndian.PutUint64(h.Data[p-h.Base:], src[l])
				}
			}
			v.hint = h
			return true
		}
		for x := a.Mask; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			p := a.Addr[l]
			if p-h.Base >= h.Size || h.Size-(p-h.Base) < n {
				h = v.Global.Find(p, n)
			}
			var b []byte
			if h.Data != nil {
				b = h.Data[p-h.Base:]
			} else {
				off := p - h.Base
				b = h.pages[off>>PageShift].Load()[off&pageMask:]
			}
			if n == 4 {
				binary.LittleEndian.PutUint32(b, uint32(src[l]))
			} else {
				binary.LittleEndian.PutUint64(b, src[l])
			}
		}
		v.hint = h
		return true
	}
	return false
}
