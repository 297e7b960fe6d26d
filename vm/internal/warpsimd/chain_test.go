package warpsimd

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestChainLayout: the offsets chain_amd64.s reads Chain at.
func TestChainLayout(t *testing.T) {
	var c Chain
	require.Equal(t, []uintptr{0, 4, 8, 32, 40},
		[]uintptr{unsafe.Offsetof(c.N), unsafe.Offsetof(c.A1), unsafe.Offsetof(c.A2),
			unsafe.Offsetof(c.Steps), unsafe.Sizeof(c.Steps[0])})
	var s ChainStep
	require.Equal(t, []uintptr{0, 4, 8, 12, 16, 20, 24, 28, 32},
		[]uintptr{unsafe.Offsetof(s.Delta1), unsafe.Offsetof(s.Delta2), unsafe.Offsetof(s.D1),
			unsafe.Offsetof(s.D2), unsafe.Offsetof(s.D), unsafe.Offsetof(s.C),
			unsafe.Offsetof(s.Next1), unsafe.Offsetof(s.Next2), unsafe.Offsetof(s.NextD)})
}

// chainRef is what the instructions of steps s to e-1 compute one by one
// (LoadWords32, LoadWords32, FmaRN32), every result written, with the
// sources read before the first step; ok is false where one of the loads
// refuses.
func chainRef(regs [][32]uint64, ch *Chain, mem []byte, k1, k2 uint32, s, e int) bool {
	a1, a2, acc := regs[ch.A1], regs[ch.A2], regs[ch.Steps[s].C]
	for j := s; j < e; j++ {
		s := &ch.Steps[j]
		var v1, v2 [32]uint64
		if !loadWords32Go(&v1, &a1, mem, k1+s.Delta1) || !loadWords32Go(&v2, &a2, mem, k2+s.Delta2) {
			return false
		}
		if s.Swap != 0 {
			fmaRN32Go(&acc, &v2, &v1, &acc)
		} else {
			fmaRN32Go(&acc, &v1, &v2, &acc)
		}
		if s.D1 >= 0 {
			regs[s.D1] = v1
		}
		if s.D2 >= 0 {
			regs[s.D2] = v2
		}
		if s.D >= 0 {
			regs[s.D] = acc
		}
	}
	return true
}

// TestLdLdFmaChainMatchesSteps: the chain (AVX2 where the host has it, and
// the Go loop) writes what the steps one by one write, and refuses exactly
// where one of their loads would (a misaligned lane, a word past the end,
// an offset below the window's base), having written nothing; over address
// registers whose groups of eight lanes read consecutive words, one word
// or scattered ones, destinations that share slots with each other and
// with the sources, and words from the FMA tests' special values. With
// AVX2 it also refuses, having written nothing, a register whose four
// groups are not all consecutive words or all one word.
func TestLdLdFmaChainMatchesSteps(t *testing.T) {
	if !hasFMA {
		t.Log("no AVX2/FMA on this host: only the Go loop is checked")
	}
	r := rand.New(rand.NewPCG(27, 28))
	const size, base, nslots = 2048, 0x400, 10
	mem := make([]byte, size)
	for i := 0; i < size; i += 4 {
		var w uint32
		switch r.IntN(4) {
		case 0:
			w = special[r.IntN(len(special))]
		case 1:
			w = uint32(r.IntN(2))<<31 | uint32(110+r.IntN(40))<<23 | r.Uint32()&0x7fffff
		default:
			w = r.Uint32()
		}
		binary.LittleEndian.PutUint32(mem[i:], w)
	}
	addrs := func(a *[32]uint64, span uint32) {
		words := (size - int(span)) / 4 // first words that leave room for the span
		all := r.IntN(8)                // mostly one kind for all four groups, as chain_amd64.s wants
		for g := 0; g < 32; g += 8 {
			w0 := r.IntN(words - 8)
			kind := all % 2
			switch all {
			case 6:
				kind = 2 // scattered
			case 7:
				kind = r.IntN(3)
			}
			for l := g; l < g+8; l++ {
				w := r.IntN(words)
				switch kind {
				case 0:
					w = w0 + l - g // a row
				case 1:
					w = w0 // one word
				}
				a[l] = uint64(base+4*w) | uint64(r.Uint32())<<32
			}
		}
	}
	refused, notOneKind := 0, 0
	for it := range 30000 {
		ch := Chain{N: int32(1 + r.IntN(MaxChain))}
		slot := func() int32 { return int32(r.IntN(nslots)) }
		ch.A1, ch.A2 = slot(), slot()
		for j := range ch.N {
			s := &ch.Steps[j]
			s.Delta1, s.Delta2 = uint32(4*r.IntN(64)), uint32(4*r.IntN(16))
			s.Swap = int32(r.IntN(2))
			s.D1, s.D2, s.D, s.C = slot(), slot(), slot(), slot()
			if r.IntN(8) == 0 {
				s.D2 = -1
			}
		}
		z := r.IntN(int(ch.N)) // the lowest offsets are one step's (as the builder makes them)
		ch.Steps[z].Delta1, ch.Steps[z].Delta2 = 0, 0
		ch.Link()
		ch.MaxSlot = nslots - 1
		// A run of the whole chain or of part of it.
		s, e := 0, int(ch.N)
		if it%2 == 1 {
			s = r.IntN(int(ch.N))
			e = s + 1 + r.IntN(int(ch.N)-s)
		}
		regs := make([][32]uint64, nslots)
		for i := range regs {
			for l := range 32 {
				regs[i][l] = r.Uint64()
			}
		}
		imm1, imm2 := uint32(4*r.IntN(4)), uint32(4*r.IntN(4))
		k1, k2 := imm1-base, imm2-base
		var a1, a2 [32]uint64
		addrs(&a1, ch.Span1+imm1)
		addrs(&a2, ch.Span2+imm2)
		// A near-cancelling first addend in some lanes.
		var c [32]uint64
		for l := range 32 {
			c[l] = r.Uint64() & 0xffffffff
			p1 := uint32(a1[l]) + k1 + ch.Steps[s].Delta1
			p2 := uint32(a2[l]) + k2 + ch.Steps[s].Delta2
			if it%3 == 0 && p1 < size-3 && p2 < size-3 {
				x := math.Float32frombits(binary.LittleEndian.Uint32(mem[p1:]))
				y := math.Float32frombits(binary.LittleEndian.Uint32(mem[p2:]))
				c[l] = uint64(math.Float32bits(float32(-float64(x)*float64(y))) ^ uint32(r.IntN(4)))
			}
		}
		bad := it % 6
		lane := r.IntN(32)
		aa := &a1
		if r.IntN(2) == 0 {
			aa = &a2
		}
		switch bad {
		case 1:
			aa[lane] += 2 // misaligned
		case 2:
			aa[lane] = base + size // past the end at the first step already
		case 3:
			aa[lane] = base - 4 // below the base: wraps
		case 4:
			aa[lane] = base + size - uint64(ch.Span1+imm1) // the farthest step's word is past the end
		}
		regs[ch.Steps[s].C], regs[ch.A1], regs[ch.A2] = c, a1, a2
		if ch.A2 == ch.A1 {
			regs[ch.A2] = a1
		}
		// Only a run of the whole chain refuses exactly where a load would;
		// a part refuses where any step of the chain would.
		okAll := chainRef(append([][32]uint64(nil), regs...), &ch, mem, k1, k2, 0, int(ch.N))
		want := append([][32]uint64(nil), regs...)
		okWant := chainRef(want, &ch, mem, k1, k2, s, e)
		if !okAll {
			want = append(want[:0], regs...)
			refused++
		} else {
			require.True(t, okWant)
		}
		got := append([][32]uint64(nil), regs...)
		ok := LdLdFmaChain(got, &ch, mem, k1, k2, s, e)
		if hasFMA && okAll && !(oneKind(&regs[ch.A1], k1) && oneKind(&regs[ch.A2], k2)) {
			require.False(t, ok, "iteration %d: AVX2 takes groups of one kind only", it)
			eqRegs(t, regs, got, "iteration %d: refused, nothing written", it)
			notOneKind++
		} else {
			same(t, okAll, ok, "iteration %d (case %d)", it, bad)
			eqRegs(t, want, got, "iteration %d (case %d)", it, bad)
		}
		gotGo := append([][32]uint64(nil), regs...)
		okGo := ldLdFmaChainGo(gotGo, &ch, mem, k1, k2, s, e)
		same(t, okAll, okGo, "Go loop, iteration %d (case %d)", it, bad)
		eqRegs(t, want, gotGo, "Go loop, iteration %d (case %d)", it, bad)
	}
	require.Greater(t, refused, 3000)
	t.Logf("refused where a load would %d, else refused as not of one kind %d", refused, notOneKind)
	if hasFMA {
		require.Greater(t, notOneKind, 1000)
	}
}

// oneKind reports whether the offsets uint32(a[l]) + k of the four groups
// of eight lanes are all eight consecutive words or all one word.
func oneKind(a *[32]uint64, k uint32) bool {
	kinds := 0
	for g := 0; g < 32; g += 8 {
		row, one := true, true
		for l := g; l < g+8; l++ {
			p, p0 := uint32(a[l])+k, uint32(a[g])+k
			row = row && p == p0+uint32(4*(l-g))
			one = one && p == p0
		}
		switch {
		case row:
			kinds |= 1
		case one:
			kinds |= 2
		default:
			return false
		}
	}
	return kinds != 3
}

// TestLdLdFmaChainRefuses: a chain that names a slot past the register
// file, no steps or too many, or spans more than the memory is refused
// before anything is read.
func TestLdLdFmaChainRefuses(t *testing.T) {
	regs := make([][32]uint64, 4)
	mem := make([]byte, 64)
	ok := Chain{N: 2, A1: 0, A2: 1, MaxSlot: 3, Steps: [MaxChain]ChainStep{{C: 2, D1: -1, D2: -1, D: 3}, {C: 3, D1: -1, D2: -1, D: 3}}}
	ok.Link()
	require.True(t, LdLdFmaChain(regs, &ok, mem, 0, 0, 0, 2))
	require.True(t, LdLdFmaChain(regs, &ok, mem, 0, 0, 1, 2))
	for name, change := range map[string]func(c *Chain){
		"slot past the file": func(c *Chain) { c.MaxSlot = 4 },
		"negative slot":      func(c *Chain) { c.MaxSlot = -1 },
		"no steps":           func(c *Chain) { c.N = 0 },
		"too many steps":     func(c *Chain) { c.N = MaxChain + 1 },
		"span past memory":   func(c *Chain) { c.Span1 = 64 },
	} {
		c := ok
		change(&c)
		require.False(t, LdLdFmaChain(regs, &c, mem, 0, 0, 0, 1), name)
	}
	require.False(t, LdLdFmaChain(regs, &ok, mem[:3], 0, 0, 0, 1), "memory shorter than a word")
	for _, se := range [][2]int{{-1, 1}, {1, 1}, {0, 3}, {2, 3}} {
		require.False(t, LdLdFmaChain(regs, &ok, mem, 0, 0, se[0], se[1]), "steps %d to %d", se[0], se[1]-1)
	}
}

// BenchmarkLdLdFmaChain: a tiled multiply's 16 steps over 16×16 tiles
// (the first register a row of B per half-warp, the second one word of A
// per half-warp), as one chain, as the steps one by one (LoadWords32,
// LoadWords32, FmaRN32: vm's FuseLdLdFma), and as the Go loop.
func BenchmarkLdLdFmaChain(b *testing.B) {
	const base = 0x400
	mem := make([]byte, 2048)
	for i := 0; i < len(mem); i += 4 {
		binary.LittleEndian.PutUint32(mem[i:], math.Float32bits(float32(i%97)/7))
	}
	regs := make([][32]uint64, 8)
	for l := range 32 {
		regs[0][l] = uint64(base + 4*(l%16))         // B: a row
		regs[1][l] = uint64(base + 1024 + 64*(l/16)) // A: one word per half-warp
	}
	ch := Chain{N: 16, A1: 0, A2: 1}
	for j := range 16 {
		ch.Steps[j] = ChainStep{Delta1: uint32(64 * j), Delta2: uint32(4 * j), D1: 3, D2: 4, D: int32(5 + j%2), C: 2}
		if j > 0 {
			ch.Steps[j].C = ch.Steps[j-1].D // the sums alternate between two slots
		}
	}
	ch.Link()
	k := uint32(1<<32 - base)
	b.Run("chain", func(b *testing.B) {
		for b.Loop() {
			if !LdLdFmaChain(regs, &ch, mem, k, k, 0, 16) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("steps", func(b *testing.B) {
		for b.Loop() {
			for j := range 16 {
				s := &ch.Steps[j]
				LoadWords32(&regs[s.D1], &regs[0], mem, k+s.Delta1)
				LoadWords32(&regs[s.D2], &regs[1], mem, k+s.Delta2)
				FmaRN32(&regs[s.D], &regs[s.D1], &regs[s.D2], &regs[s.C])
			}
		}
	})
	b.Run("lanes", func(b *testing.B) {
		for b.Loop() {
			ldLdFmaChainGo(regs, &ch, mem, k, k, 0, 16)
		}
	})
}

// same and eqRegs are require.Equal for the randomized loops: they compare
// first and call require, with the same arguments, only when the check
// fails (require's t.Helper and testify's reflection on every iteration
// took about a third of the package's CPU).
func same[T comparable](t *testing.T, want, got T, msgAndArgs ...any) {
	if want != got {
		t.Helper()
		require.Equal(t, want, got, msgAndArgs...)
	}
}

func eqRegs(t *testing.T, want, got [][32]uint64, msgAndArgs ...any) {
	if !slices.Equal(want, got) {
		t.Helper()
		require.Equal(t, want, got, msgAndArgs...)
	}
}
