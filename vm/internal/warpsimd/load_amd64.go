package warpsimd

// LoadWords32Addr is AddKQ(addr, a, off, 0xffffffff) and then
// LoadWords32(d, addr, mem, k) in one pass: a full warp's
// ld.shared.b32 [a+off] whose addresses an observer is given, with k =
// -base of the window. It also returns the addresses' span: the OR over
// the lanes of each one's XORed with lane 0's (the bits in which they
// differ; a hierarchy's bank model needs it). It reports false where
// LoadWords32 would, addr and d then possibly written in part (the caller
// computes the addresses again). d must be neither a nor addr.
// (load_amd64.s: one pass with AVX2.)
//
//go:noescape
func LoadWords32Addr(d, addr, a *[32]uint64, off uint32, mem []byte, k uint32) (span uint32, ok bool)
