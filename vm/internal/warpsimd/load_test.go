package warpsimd

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLoadWords32MatchesGo: the gathered loads give the Go loop's words,
// and refuse what it refuses: a misaligned lane, a lane one word past the
// end, an offset that wraps below zero; over groups of eight lanes that are
// scattered, consecutive words, one word, or one lane off either.
func TestLoadWords32MatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 15))
	mem := make([]byte, 4096)
	for i := range mem {
		mem[i] = byte(r.Uint32())
	}
	const base = 0x400 // the window's base: k = imm - base
	for it := range 20000 {
		var a [32]uint64
		for g := 0; g < 32; g += 8 {
			// Each group of eight lanes scattered, consecutive words
			// (one load), one word (one broadcast), or nearly either.
			w0 := r.IntN(1024 - 17) // a run of eight, one lane past it, and imm below 8 words
			for l := g; l < g+8; l++ {
				w := r.IntN(1024 - 8)
				switch it / 5 % 5 {
				case 1:
					w = w0 + l - g
				case 2:
					w = w0
				case 3, 4:
					w = w0 + (l-g)*(it/5%5-3)
					if l == g+r.IntN(8) {
						w++ // one lane breaks the run
					}
				}
				a[l] = uint64(base+4*w) | uint64(r.Uint32())<<32 // high halves ignored
			}
		}
		imm := uint32(4 * r.IntN(8))
		bad := it % 5
		lane := r.IntN(32)
		switch bad {
		case 1:
			a[lane] += 2 // misaligned
		case 2:
			a[lane] = base + 4096 - uint64(imm) // one word past the end
		case 3:
			a[lane] = base - 4 - uint64(imm) // below the base: wraps
		case 4:
			a[lane] = base + 4092 - uint64(imm) // the last word: fine
		}
		k := imm - base
		var d, g [32]uint64
		ok := LoadWords32(&d, &a, mem, k)
		okGo := loadWords32Go(&g, &a, mem, k)
		require.Equal(t, okGo, ok, "case %d", bad)
		require.Equal(t, bad == 0 || bad == 4, ok, "case %d", bad)
		if ok {
			require.Equal(t, g, d)
		}
	}
	var a, d [32]uint64
	require.False(t, LoadWords32(&d, &a, make([]byte, 3), 0), "shorter than a word")
}

// TestStoreWords32MatchesGo: where the warp is stored, the memory is what
// the Go loop (lanes in order) leaves; where it is refused, nothing is
// written; a warp the Go loop refuses is refused. Groups of eight lanes
// are consecutive words (a tile's row), overlapping other groups, or one
// lane off.
func TestStoreWords32MatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	const base = 0x400
	orig := make([]byte, 4096)
	for i := range orig {
		orig[i] = byte(i * 7)
	}
	stored := 0
	for it := range 20000 {
		var a, s [32]uint64
		for g := 0; g < 32; g += 8 {
			w0 := r.IntN(1024 - 17)
			if it%7 == 1 && g > 0 {
				w0 = int(uint32(a[g-8])-base)/4 + r.IntN(3) // overlapping the group before
			}
			for l := g; l < g+8; l++ {
				w := w0 + l - g
				if it%7 == 2 && l == g+r.IntN(8) {
					w += 1 + r.IntN(3) // breaks the run
				}
				a[l] = uint64(base+4*w) | uint64(r.Uint32())<<32
				s[l] = r.Uint64()
			}
		}
		imm := uint32(4 * r.IntN(8))
		lane := r.IntN(32)
		switch it % 7 {
		case 3:
			a[lane] += 2
		case 4:
			a[lane] = base + 4096 - uint64(imm)
		case 5:
			a[lane] = base - 4 - uint64(imm)
		}
		k := imm - base
		mem := append([]byte(nil), orig...)
		goMem := append([]byte(nil), orig...)
		ok := StoreWords32(mem, &a, &s, k)
		okGo := storeWords32Go(goMem, &a, &s, k)
		if !okGo {
			require.False(t, ok, "it %d: the Go loop refuses", it)
		}
		if ok {
			stored++
			require.Equal(t, goMem, mem, "it %d", it)
		} else {
			require.Equal(t, orig, mem, "it %d: refused but written", it)
		}
	}
	require.Greater(t, stored, 5000)
	var a, s [32]uint64
	require.False(t, StoreWords32(make([]byte, 3), &a, &s, 0), "shorter than a word")
}

// TestLoadWords32AddrMatchesSteps: the one pass writes the addresses
// AddKQ writes and loads what LoadWords32 loads from them, and refuses
// what it refuses, over the shapes of TestLoadWords32MatchesGo's groups.
func TestLoadWords32AddrMatchesSteps(t *testing.T) { checkLoadWords32Addr(t) }

func checkLoadWords32Addr(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 25))
	mem := make([]byte, 4096)
	for i := range mem {
		mem[i] = byte(r.Uint32())
	}
	const base = 0x400
	for it := range 20000 {
		var a [32]uint64
		for g := 0; g < 32; g += 8 {
			w0 := r.IntN(1024 - 17)
			for l := g; l < g+8; l++ {
				w := r.IntN(1024 - 8)
				switch it / 5 % 4 {
				case 1:
					w = w0 + l - g
				case 2:
					w = w0
				case 3:
					w = w0 + l - g
					if l == g+r.IntN(8) {
						w++
					}
				}
				a[l] = uint64(base+4*w) | uint64(r.Uint32())<<32 // high halves ignored
			}
		}
		off := uint32(4 * r.IntN(8))
		lane := r.IntN(32)
		switch it % 5 {
		case 1:
			a[lane] += 2 // misaligned
		case 2:
			a[lane] = base + 4096 - uint64(off) // one word past the end
		case 3:
			a[lane] = base - 4 - uint64(off) // below the base: wraps
		case 4:
			a[lane] = 0xffffffff // the window's sum wraps past 2^32
		}
		b := uint32(base)
		k := -b // the window's base taken away, modulo 2^32
		var d, addr, wantD, wantAddr [32]uint64
		AddKQ(&wantAddr, &a, uint64(off), 0xffffffff)
		wantOK := LoadWords32(&wantD, &wantAddr, mem, k)
		span, ok := LoadWords32Addr(&d, &addr, &a, off, mem, k)
		require.Equal(t, wantOK, ok, "iteration %d", it)
		if ok {
			require.Equal(t, wantAddr, addr, "iteration %d", it)
			require.Equal(t, wantD, d, "iteration %d", it)
			var wantSpan uint64
			for l := range wantAddr {
				wantSpan |= wantAddr[l] ^ wantAddr[0]
			}
			require.Equal(t, wantSpan, uint64(span), "iteration %d", it)
		}
	}
	var d, addr, a [32]uint64
	for _, short := range [][]byte{nil, make([]byte, 3)} {
		_, ok := LoadWords32Addr(&d, &addr, &a, 0, short, 0)
		require.False(t, ok, "shorter than a word")
	}
}
