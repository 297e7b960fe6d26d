package memspace

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMallocAlignmentAndGuardGap(t *testing.T) {
	sizes := []uint64{0, 1, 3, 255, 256, 257, 511, 4096, 1 << 20, 7}
	g := NewGlobalMemory()
	var prev *Allocation
	for i, n := range sizes {
		a, err := g.Malloc(n, fmt.Sprintf("a%d", i))
		require.NoError(t, err)
		assert.Zero(t, a.Base%AllocAlign, "allocation %d (%d bytes) at %#x is not %d-byte aligned", i, n, a.Base, AllocAlign)
		assert.Equal(t, max(n, 1), uint64(len(a.Data)), "allocation %d", i)
		assert.Equal(t, make([]byte, len(a.Data)), a.Data, "allocation %d is not zeroed", i)
		if prev == nil {
			assert.Equal(t, GlobalBase, a.Base)
		} else {
			// At least one alignment unit of unmapped space between allocations.
			assert.GreaterOrEqual(t, a.Base, prev.End()+AllocAlign, "allocation %d", i)
			assert.Nil(t, g.Find(prev.End(), 1), "guard byte after allocation %d", i-1)
			assert.Nil(t, g.Find(a.Base-1, 1), "guard byte before allocation %d", i)
		}
		assert.Same(t, a, g.Find(a.Base, 1))
		assert.Same(t, a, g.Find(a.End()-1, 1))
		assert.Same(t, a, g.Find(a.Base, uint64(len(a.Data))))
		assert.Nil(t, g.Find(a.Base, uint64(len(a.Data))+1))
		prev = a
	}
	assert.Len(t, g.Allocations(), len(sizes))
}

func TestFindEdges(t *testing.T) {
	g := NewGlobalMemory()
	a, err := g.Malloc(64, "A")
	require.NoError(t, err)
	b, err := g.Malloc(64, "B")
	require.NoError(t, err)
	tests := []struct {
		name string
		addr uint64
		n    uint64
		want *Allocation
	}{
		{"null", 0, 4, nil},
		{"below the first", a.Base - 4, 4, nil},
		{"straddles the start", a.Base - 2, 4, nil},
		{"first byte", a.Base, 1, a},
		{"last word", a.End() - 8, 8, a},
		{"one past", a.End() - 7, 8, nil},
		{"guard", a.End(), 1, nil},
		{"second", b.Base + 32, 32, b},
		{"past the last", b.End(), 1, nil},
		{"huge n wraps", a.Base + 8, ^uint64(0) - 4, nil},
		{"top of the address space", ^uint64(0) - 2, 4, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Same(t, tt.want, g.Find(tt.addr, tt.n))
		})
	}
}

func TestSliceUsesAndUpdatesHint(t *testing.T) {
	g := NewGlobalMemory()
	a, err := g.Malloc(64, "A")
	require.NoError(t, err)
	b, err := g.Malloc(64, "B")
	require.NoError(t, err)
	var hint *Allocation
	s, ok := g.Slice(b.Base+4, 4, &hint)
	require.True(t, ok)
	assert.Same(t, b, hint)
	assert.Equal(t, 4, len(s))
	assert.Equal(t, 4, cap(s), "a slice must not reach past the access")
	s[0] = 0xaa
	assert.Equal(t, byte(0xaa), b.Data[4])

	// A hint that does not hold the address is replaced.
	_, ok = g.Slice(a.Base, 8, &hint)
	require.True(t, ok)
	assert.Same(t, a, hint)

	for _, tt := range []struct {
		name    string
		addr, n uint64
	}{
		{"past the end", a.End() - 4, 8},
		{"guard", a.End(), 1},
		// With the hint set to A, an n so large that off+n wraps around
		// must still be refused (not sliced out of range).
		{"wrapping n", a.Base + 8, ^uint64(0) - 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hint = a
			var s []byte
			var ok bool
			require.NotPanics(t, func() { s, ok = g.Slice(tt.addr, tt.n, &hint) })
			assert.False(t, ok)
			assert.Nil(t, s)
		})
	}
}

func TestFree(t *testing.T) {
	g := NewGlobalMemory()
	a, err := g.Malloc(100, "A")
	require.NoError(t, err)
	b, err := g.Malloc(100, "B")
	require.NoError(t, err)
	require.ErrorContains(t, g.Free(a.Base+1), "not the start of an allocation")
	require.NoError(t, g.Free(a.Base))
	assert.Nil(t, g.Find(a.Base, 1), "freed memory is not addressable")
	require.Error(t, g.Free(a.Base), "double free")
	assert.Equal(t, []*Allocation{b}, g.Allocations())
	c, err := g.Malloc(1, "C")
	require.NoError(t, err)
	assert.Greater(t, c.Base, b.End(), "addresses are not reused")
}

func TestMemoryLimit(t *testing.T) {
	t.Run("limit", func(t *testing.T) {
		g := NewGlobalMemory()
		g.Limit = 1000
		_, err := g.Malloc(600, "first")
		require.NoError(t, err)
		_, err = g.Malloc(600, "second")
		require.ErrorContains(t, err, "malloc of 600 bytes for second: out of device memory (600 of the device's 1000 bytes are allocated)")
		_, err = g.Malloc(400, "exact fit")
		require.NoError(t, err)
		_, err = g.Malloc(1, "one more")
		require.Error(t, err)
	})
	t.Run("free returns memory", func(t *testing.T) {
		g := NewGlobalMemory()
		g.Limit = 1000
		a, err := g.Malloc(1000, "all")
		require.NoError(t, err)
		require.NoError(t, g.Free(a.Base))
		_, err = g.Malloc(1000, "again")
		require.NoError(t, err)
	})
	t.Run("default limit", func(t *testing.T) {
		g := NewGlobalMemory()
		assert.Equal(t, uint64(DefaultMemoryLimit), g.Limit)
		var a *Allocation
		var err error
		require.NotPanics(t, func() { a, err = g.Malloc(DefaultMemoryLimit+1, "too big") })
		require.ErrorContains(t, err, "out of device memory")
		assert.Nil(t, a)
		assert.Empty(t, g.Allocations())
	})
	t.Run("unlimited still refuses absurd sizes", func(t *testing.T) {
		g := NewGlobalMemory()
		g.Limit = 0
		var err error
		require.NotPanics(t, func() { _, err = g.Malloc(1<<41, "absurd") })
		require.ErrorContains(t, err, "too large")
		require.NotPanics(t, func() { _, err = g.Malloc(^uint64(0), "absurd") })
		require.ErrorContains(t, err, "too large")
	})
}

func TestDescribe(t *testing.T) {
	g := NewGlobalMemory()
	a, err := g.Malloc(100, "buffer A")
	require.NoError(t, err)
	tests := []struct {
		name    string
		addr, n uint64
		want    string
	}{
		{"runs past the end", a.End() - 3, 4, fmt.Sprintf("runs past the end of buffer A [%#x, %#x) by 1 bytes", a.Base, a.End())},
		{"one byte past", a.End(), 1, fmt.Sprintf("not inside any allocation (0 bytes past the end of buffer A [%#x, %#x))", a.Base, a.End())},
		{"further past", a.End() + 20, 4, fmt.Sprintf("not inside any allocation (20 bytes past the end of buffer A [%#x, %#x))", a.Base, a.End())},
		{"null", 0, 4, "not inside any allocation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, g.Describe(tt.addr, tt.n))
		})
	}
}

func TestAtomicLockCoversTheWord(t *testing.T) {
	g := NewGlobalMemory()
	base := GlobalBase + 0x1238 // 8-byte aligned
	for k := uint64(0); k < 8; k++ {
		assert.Same(t, g.Lock(base), g.Lock(base+k), "byte %d of the word", k)
	}
	assert.NotSame(t, g.Lock(base), g.Lock(base+8), "neighbouring words share a lock")
}
