package memspace

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWords32MatchesLanes holds words32 (AVX2 where the host has it) to the
// lane loop on random warps: rows of consecutive words, words shared by
// lanes, scattered words, and lanes misaligned, just inside and just past
// either end of the memory, or below its base.
func TestWords32MatchesLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	mem := make([]byte, 4096+12)
	for i := range mem {
		mem[i] = byte(r.Uint32())
	}
	const base = 0x7000_0000_0040
	last := uint64(len(mem) - 4)
	for i := range 50000 {
		var a Access
		start := uint64(r.IntN(len(mem)/4)) * 4
		for l := range a.Addr {
			var o uint64
			switch i % 4 {
			case 0: // rows of 4 to 32 consecutive words
				row := 4 << r.IntN(4)
				o = start + uint64(l%row)*4 + uint64(l/row)*256
			case 1: // one word per group of lanes
				o = start + uint64(l/8)*64
			default:
				o = uint64(r.IntN(len(mem)/4)) * 4
			}
			a.Addr[l] = base + o
		}
		if r.IntN(3) == 0 { // one bad lane (lane 0 in one case of 8)
			l := r.IntN(32)
			if r.IntN(8) == 0 {
				l = 0
			}
			switch r.IntN(5) {
			case 0:
				a.Addr[l] |= 1 + uint64(r.IntN(3))
			case 1:
				a.Addr[l] = base + last + 4
			case 2:
				a.Addr[l] = base - 4
			case 3:
				a.Addr[l] = base + last // the last word: valid
			default:
				a.Addr[l] = base + last + 1<<63
			}
		}
		var want, got, viaAlloc [32]uint64
		okWant := words32Go(&want, &a.Addr, mem, base, last)
		ok := words32(&got, &a, mem, base)
		require.Equal(t, okWant, ok, "case %d: %x", i, a.Addr)
		// loadWords32's test of the first lane before words32 answers
		// the same.
		okAlloc := loadWords32(&Allocation{Base: base, Size: uint64(len(mem)), Data: mem}, &a, &viaAlloc)
		require.Equal(t, okWant, okAlloc, "case %d: %x", i, a.Addr)
		if ok {
			require.Equal(t, want, got, "case %d: %x", i, a.Addr)
			require.Equal(t, want, viaAlloc, "case %d: %x", i, a.Addr)
		}
	}
}
