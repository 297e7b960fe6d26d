package memspace

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fastWorld is two global allocations and a shared memory, filled with
// the same pseudo-random bytes whenever it is built from the same seed.
type fastWorld struct {
	v       *View
	a, b, c *Allocation // c is sparse
}

// sparseInit is the initial contents of the sparse allocation's first
// pages (shared by every world; sparse allocations never write it).
var sparseInit = func() []byte {
	rng := rand.New(rand.NewPCG(9, 9))
	b := make([]byte, PageSize+100)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}()

func newFastWorld(t *testing.T, seed uint64) *fastWorld {
	t.Helper()
	g := NewGlobalMemory()
	a, err := g.Malloc(200, "buffer A")
	require.NoError(t, err)
	b, err := g.Malloc(1000, "buffer B")
	require.NoError(t, err)
	c, err := g.Malloc(DenseLimit+2*PageSize+200, "buffer C")
	require.NoError(t, err)
	require.True(t, c.Sparse())
	require.NoError(t, c.SetInit(sparseInit))
	rng := rand.New(rand.NewPCG(seed, 1))
	sh := make([]byte, 500)
	for _, buf := range [][]byte{a.Data, b.Data, sh} {
		for i := range buf {
			buf[i] = byte(rng.Uint32())
		}
	}
	return &fastWorld{v: &View{Global: g, Shared: sh}, a: a, b: b, c: c}
}

// sparsePages are the pages of the sparse allocation accesses go to.
func (w *fastWorld) sparsePages() []uint64 { return []uint64{0, 1, 5, w.c.Size >> PageShift} }

// memory is a snapshot of the world: the dense memories, the pages of the
// sparse allocation that accesses reach, and how many of its pages exist
// (a write anywhere else would change that).
func (w *fastWorld) memory() [][]byte {
	out := [][]byte{append([]byte(nil), w.a.Data...), append([]byte(nil), w.b.Data...), append([]byte(nil), w.v.Shared...)}
	for _, pg := range w.sparsePages() {
		b := make([]byte, min(PageSize, w.c.Size-pg<<PageShift))
		if err := w.c.ReadAt(b, pg<<PageShift); err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	return append(out, []byte(fmt.Sprint(w.c.HostBytes())))
}

// randomAccess builds a warp access whose lanes are mostly valid, with
// now and then a misaligned lane, a lane past the end of an allocation, in
// the guard gap between allocations or far outside, and lanes that share
// an address.
func (w *fastWorld) randomAccess(rng *rand.Rand, kind Kind) *Access {
	a := &Access{Kind: kind, Space: Global}
	if rng.IntN(2) == 0 {
		a.Space = Shared
	}
	a.Size = []uint8{4, 8, 4, 8, 1, 2, 16}[rng.IntN(7)]
	switch rng.IntN(6) {
	case 0:
		a.Mask = ^uint32(0)
	case 1:
		a.Mask = 0
	default:
		a.Mask = rng.Uint32()
	}
	n := uint64(a.Size)
	bad := rng.IntN(4) == 0 // this access has a few bad lanes
	if a.Space == Global && rng.IntN(3) == 0 {
		// A full warp's coalesced words, as a kernel's loads and stores
		// mostly are: consecutive (or a lane permutation of them) in one
		// allocation, sometimes crossing a sparse page's end or the
		// allocation's, with the bad lanes below now and then.
		a.Mask, a.Size, n = ^uint32(0), 4, 4
		var base, size uint64
		switch rng.IntN(3) {
		case 0:
			base, size = w.a.Base, uint64(len(w.a.Data))
		case 1:
			base, size = w.b.Base, uint64(len(w.b.Data))
		default:
			pg := w.sparsePages()[rng.IntN(4)]
			base = w.c.Base + pg<<PageShift
			size = min(PageSize, w.c.End()-base)
		}
		first := base + 4*uint64(rng.IntN(int(size/4)))
		if rng.IntN(2) == 0 && size >= 128 {
			first = base + 4*uint64(rng.IntN(int(size/4)-31)) // all 32 inside
		}
		perm := rng.Perm(32)
		for l := range a.Addr {
			a.Addr[l] = first + 4*uint64(perm[l]*rng.IntN(2)+l*(1-rng.IntN(2)))
			if bad && rng.IntN(16) == 0 {
				a.Addr[l] += 2
			}
		}
		return a
	}
	for l := range a.Addr {
		var base, size uint64
		switch r := rng.IntN(3); {
		case a.Space == Shared:
			base, size = 0, uint64(len(w.v.Shared))
		case r == 0:
			base, size = w.a.Base, uint64(len(w.a.Data))
		case r == 1:
			base, size = w.b.Base, uint64(len(w.b.Data))
		default:
			// A page of the sparse allocation: the first two start with
			// its initial contents, the last runs past the end.
			pg := w.sparsePages()[rng.IntN(4)]
			base = w.c.Base + pg<<PageShift
			size = min(PageSize, w.c.End()-base)
		}
		a.Addr[l] = base + uint64(rng.IntN(int(size/n)))*n
		if l > 0 && rng.IntN(8) == 0 {
			a.Addr[l] = a.Addr[l-1] // same address as the previous lane
		}
		if bad && rng.IntN(16) == 0 {
			switch rng.IntN(5) {
			case 0:
				a.Addr[l] += 1 + uint64(rng.IntN(int(n)))%max(n-1, 1) // misaligned (for n > 1)
			case 1:
				// The last aligned address: it runs past the end when n
				// does not divide size, and is just outside when it does.
				a.Addr[l] = base + size - size%n
			case 2:
				a.Addr[l] = base + size + AllocAlign/2&^(n-1) // the guard gap
			case 3:
				a.Addr[l] = 0
			case 4:
				a.Addr[l] = base - n // just below
			}
		}
	}
	return a
}

// TestFastPathsAgreeWithGeneralPath runs random warp accesses through
// LoadScalar/StoreScalar and through Load/Store and checks that the fast
// path succeeds exactly when the general path does not fault, with the same
// results, and that a refused fast store writes nothing.
func TestFastPathsAgreeWithGeneralPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	fastOK, fastRefused := 0, 0
	for i := 0; i < 3000; i++ {
		seed := rng.Uint64()
		w1, w2 := newFastWorld(t, seed), newFastWorld(t, seed)
		require.Equal(t, w1.a.Base, w2.a.Base)
		kind := Load
		if i%2 == 1 {
			kind = Store
		}
		acc := w1.randomAccess(rng, kind)
		if rng.IntN(2) == 0 {
			// As after earlier accesses: the view remembers the allocation
			// of a lane's address (the warp-wide fast paths start there).
			w1.v.hint = w1.v.Global.Find(acc.Addr[rng.IntN(32)], 1)
		}
		name := fmt.Sprintf("access %d: %s %s of %d bytes, mask %#x, addresses %#x", i, acc.Space, acc.Kind, acc.Size, acc.Mask, acc.Addr)
		var vals [32]uint64
		for l := range vals {
			vals[l] = rng.Uint64()
		}
		if kind == Load {
			fdst := vals
			ok := w1.v.LoadScalar(acc, &fdst)
			gdst := newDst()
			f := w1.v.Load(acc, 1, false, gdst)
			if acc.Size != 4 && acc.Size != 8 {
				require.False(t, ok, name)
				continue
			}
			require.Equal(t, f == nil, ok, "%s: fast path %v, general path fault %v", name, ok, f)
			if !ok {
				fastRefused++
				continue
			}
			fastOK++
			for l := 0; l < 32; l++ {
				if acc.Mask&(1<<l) != 0 {
					require.Equal(t, gdst[0][l], fdst[l], "%s: lane %d", name, l)
				} else {
					require.Equal(t, vals[l], fdst[l], "%s: inactive lane %d written", name, l)
				}
			}
			continue
		}
		before := w1.memory()
		src := vals
		ok := w1.v.StoreScalar(acc, &src)
		if !ok {
			require.Equal(t, before, w1.memory(), "%s: a refused fast store wrote memory", name)
			// What the interpreter does next.
			_ = w1.v.Store(acc, 1, &[MaxElems][]uint64{vals[:]})
		}
		f := w2.v.Store(acc, 1, &[MaxElems][]uint64{vals[:]})
		if acc.Size == 4 || acc.Size == 8 {
			require.Equal(t, f == nil, ok, "%s: fast path %v, general path fault %v", name, ok, f)
			if ok {
				fastOK++
			} else {
				fastRefused++
			}
		} else {
			require.False(t, ok, name)
		}
		require.Equal(t, w2.memory(), w1.memory(), name)
		require.Equal(t, vals, src, "%s: the source registers changed", name)
	}
	// The generator exercises both outcomes.
	assert.Greater(t, fastOK, 500)
	assert.Greater(t, fastRefused, 100)
}

func TestFastPathsOtherSpacesAndSizes(t *testing.T) {
	w := newFastWorld(t, 1)
	var d [32]uint64
	for _, s := range []Space{Local, Const, Param, FParam, Generic, Texture} {
		a := &Access{Space: s, Size: 4, Mask: 1}
		assert.False(t, w.v.LoadScalar(a, &d), "load from %s", s)
		assert.False(t, w.v.StoreScalar(a, &d), "store to %s", s)
	}
	for _, n := range []uint8{1, 2, 16} {
		a := &Access{Space: Global, Size: n, Mask: 1}
		a.Addr[0] = w.a.Base
		assert.False(t, w.v.LoadScalar(a, &d), "%d-byte load", n)
		assert.False(t, w.v.StoreScalar(a, &d), "%d-byte store", n)
	}
}

// TestFastPathHintAcrossAllocations alternates lanes between two
// allocations, so the cached allocation changes lane by lane.
func TestFastPathHintAcrossAllocations(t *testing.T) {
	w := newFastWorld(t, 3)
	a := &Access{Space: Global, Kind: Store, Size: 8, Mask: ^uint32(0)}
	var src [32]uint64
	for l := range a.Addr {
		if l%2 == 0 {
			a.Addr[l] = w.a.Base + uint64(8*(l/2))
		} else {
			a.Addr[l] = w.b.Base + uint64(8*(l/2))
		}
		src[l] = uint64(l) * 0x0102030405060708
	}
	require.True(t, w.v.StoreScalar(a, &src))
	var dst [32]uint64
	a.Kind = Load
	require.True(t, w.v.LoadScalar(a, &dst))
	assert.Equal(t, src, dst)
	gdst := newDst()
	require.Nil(t, w.v.Load(a, 1, false, gdst))
	assert.Equal(t, src[:], gdst[0])
}
