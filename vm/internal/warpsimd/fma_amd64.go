package warpsimd

import "golang.org/x/sys/cpu"

// hasFMA: the host has the AVX2 and FMA instructions fmaRN32AVX2 uses.
// The x86 FMA instructions round once, as IEEE's fusedMultiplyAdd and the
// GPU's fma.rn.f32 do, with gradual underflow (Go leaves MXCSR at its
// default: round to nearest, no flush to zero, no denormals-are-zero); only
// a NaN result differs, and is replaced by the GPU's canonical NaN.
var hasFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// fmaRN32AVX2 is FmaRN32 eight lanes at a time (fma_amd64.s).
//
//go:noescape
func fmaRN32AVX2(d, a, b, c *[32]uint64)

// cmp32AVX2 is Cmp32 eight lanes at a time (fma_amd64.s), the values
// XORed with flip before a signed comparison.
//
//go:noescape
func cmp32AVX2(a, b *[32]uint64, flip uint32) (lt, eq uint32)

// loadWords32AVX2 is LoadWords32 eight lanes at a time with VPGATHERDD
// (load_amd64.s): each group of eight offsets is checked before its gather.
//
//go:noescape
func loadWords32AVX2(d, a *[32]uint64, mem *byte, k, last uint32) bool

// storeWords32AVX2 is StoreWords32 eight lanes at a time (load_amd64.s):
// every group is checked (in range, aligned, eight consecutive words)
// before any is stored.
//
//go:noescape
func storeWords32AVX2(mem *byte, a, s *[32]uint64, k, last uint32) bool

// ldLdFmaChainAVX2 is LdLdFmaChain eight lanes at a time (chain_amd64.s);
// last1 and last2 are the highest first offsets the two loads may take.
//
//go:noescape
func ldLdFmaChainAVX2(regs *[32]uint64, ch *Chain, mem *byte, k1, k2, last1, last2 uint32, s, e int32) bool
