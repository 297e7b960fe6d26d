//go:build !amd64

package warpsimd

const hasFMA = false

func fmaRN32AVX2(d, a, b, c *[32]uint64) { fmaRN32Go(d, a, b, c) }

func cmp32AVX2(a, b *[32]uint64, flip uint32) (lt, eq uint32) { return cmp32Go(a, b, flip == 0) }

func loadWords32AVX2(d, a *[32]uint64, mem *byte, k, last uint32) bool  { return false }
func storeWords32AVX2(mem *byte, a, s *[32]uint64, k, last uint32) bool { return false }

func ldLdFmaChainAVX2(regs *[32]uint64, ch *Chain, mem *byte, k1, k2, last1, last2 uint32, s, e int32) bool {
	return false
}
