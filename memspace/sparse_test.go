package memspace

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDenseAndSparse(t *testing.T) {
	g := NewGlobalMemory()
	for _, tt := range []struct {
		n      uint64
		sparse bool
	}{{1, false}, {DenseLimit, false}, {DenseLimit + 1, true}, {40 << 30, true}} {
		a, err := g.Malloc(tt.n, "a")
		require.NoError(t, err)
		assert.Equal(t, tt.sparse, a.Sparse(), "%d bytes", tt.n)
		assert.Equal(t, tt.n, a.Size)
		if tt.sparse {
			assert.Zero(t, a.HostBytes(), "a sparse allocation holds nothing until written")
		} else {
			assert.Equal(t, tt.n, a.HostBytes())
		}
	}
}

// TestSparseHugeAllocation allocates far more than the test machine's
// memory (24 GiB) and touches 28 KiB of it: host memory follows what is
// touched.
func TestSparseHugeAllocation(t *testing.T) {
	g := NewGlobalMemory()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a, err := g.Malloc(60<<30, "buffer huge")
	require.NoError(t, err)
	v := &View{Global: g}
	// 7 KiB-sized strips, 4 KiB each, scattered over the 60 GiB; one
	// strip through each path that writes.
	offsets := []uint64{0, 1 << 30, 13<<30 + 4096, 30 << 30, 45<<30 + 12345*8, 59 << 30, 60<<30 - 4096}
	var want [][]byte
	for i, off := range offsets {
		strip := make([]byte, 4096)
		for j := range strip {
			strip[j] = byte(i*31 + j)
		}
		want = append(want, strip)
		switch i % 3 {
		case 0:
			require.NoError(t, g.CopyIn(a.Base+off, strip))
		case 1: // a warp storing 8 bytes a lane, 16 times
			for k := 0; k < 4096; k += 256 {
				acc := &Access{Space: Global, Kind: Store, Size: 8, Mask: ^uint32(0)}
				var src [32]uint64
				for l := range acc.Addr {
					acc.Addr[l] = a.Base + off + uint64(k+8*l)
					src[l] = binary.LittleEndian.Uint64(strip[k+8*l:])
				}
				require.True(t, v.StoreScalar(acc, &src))
			}
		case 2: // the general path, 4 bytes a lane
			for k := 0; k < 4096; k += 128 {
				acc := &Access{Space: Global, Kind: Store, Size: 4, Mask: ^uint32(0)}
				vals := make([]uint64, 32)
				for l := range acc.Addr {
					acc.Addr[l] = a.Base + off + uint64(k+4*l)
					vals[l] = uint64(binary.LittleEndian.Uint32(strip[k+4*l:]))
				}
				require.Nil(t, v.Store(acc, 1, &[MaxElems][]uint64{vals}))
			}
		}
	}
	for i, off := range offsets {
		got := make([]byte, 4096)
		require.NoError(t, g.CopyOut(got, a.Base+off))
		assert.Equal(t, want[i], got, "strip %d", i)
		// And through a load: lane l reads word l of the strip.
		acc := &Access{Space: Global, Kind: Load, Size: 4, Mask: ^uint32(0)}
		for l := range acc.Addr {
			acc.Addr[l] = a.Base + off + uint64(4*l)
		}
		var dst [32]uint64
		require.True(t, v.LoadScalar(acc, &dst))
		for l := range dst {
			assert.Equal(t, uint64(binary.LittleEndian.Uint32(want[i][4*l:])), dst[l])
		}
	}
	// Untouched memory reads as zeros, through every path.
	zero := make([]byte, 4096)
	got := make([]byte, 4096)
	require.NoError(t, g.CopyOut(got, a.Base+20<<30))
	assert.Equal(t, zero, got)
	acc := &Access{Space: Global, Kind: Load, Size: 8, Mask: 3}
	acc.Addr[0], acc.Addr[1] = a.Base+7<<30, a.Base+50<<30-8
	var dst [32]uint64
	dst[0], dst[1] = 1, 1
	require.True(t, v.LoadScalar(acc, &dst))
	assert.Zero(t, dst[0])
	assert.Zero(t, dst[1])
	regs := newDst()
	require.Nil(t, v.Load(acc, 1, false, regs))
	assert.Zero(t, regs[0][0])

	// Each strip lies in one 64 KiB page (two strips share none).
	assert.Equal(t, uint64(len(offsets)*PageSize), a.HostBytes())
	assert.Equal(t, a.HostBytes(), g.HostBytes())
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// The page table (8 bytes per 64 KiB page: 7.5 MiB) and the pages.
	assert.Less(t, after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc), uint64(32<<20),
		"host heap grew by %d bytes", after.HeapAlloc-before.HeapAlloc)

	require.NoError(t, g.Free(a.Base))
	assert.Zero(t, g.HostBytes())
}

func TestSparseInitialContents(t *testing.T) {
	g := NewGlobalMemory()
	a, err := g.Malloc(DenseLimit+4*PageSize, "buffer in")
	require.NoError(t, err)
	init := make([]byte, 2*PageSize+1000) // page 2 is partly initialised
	for i := range init {
		init[i] = byte(i*7 + 1)
	}
	require.NoError(t, a.SetInit(init))
	// The partial page was written (padded with zeros); the whole ones
	// are read from init until written.
	assert.Equal(t, uint64(PageSize), a.HostBytes())
	want := make([]byte, a.Size)
	copy(want, init)
	got := make([]byte, a.Size)
	require.NoError(t, a.ReadAt(got, 0))
	assert.True(t, bytes.Equal(want, got), "contents after SetInit")

	// A write into page 1 keeps the rest of the page's initial bytes.
	v := &View{Global: g}
	acc := &Access{Space: Global, Kind: Store, Size: 4, Mask: 1}
	acc.Addr[0] = a.Base + PageSize + 64
	require.True(t, v.StoreScalar(acc, &[32]uint64{0xdeadbeef}))
	binary.LittleEndian.PutUint32(want[PageSize+64:], 0xdeadbeef)
	require.NoError(t, a.ReadAt(got, 0))
	assert.True(t, bytes.Equal(want, got), "contents after a store")
	assert.Equal(t, uint64(2*PageSize), a.HostBytes())
	assert.Equal(t, byte(1), init[0], "the initial contents are never written")

	// Loads see initial contents, written bytes and zeros.
	ld := &Access{Space: Global, Kind: Load, Size: 8, Mask: 0xf}
	ld.Addr[0] = a.Base + 8                // page 0: init
	ld.Addr[1] = a.Base + PageSize + 64    // page 1: written
	ld.Addr[2] = a.Base + 2*PageSize + 992 // page 2: last init bytes
	ld.Addr[3] = a.Base + 3*PageSize       // page 3: zeros
	var dst [32]uint64
	require.True(t, v.LoadScalar(ld, &dst))
	for l := 0; l < 4; l++ {
		assert.Equal(t, binary.LittleEndian.Uint64(want[ld.Addr[l]-a.Base:]), dst[l], "lane %d", l)
	}

	// Writing what is already there allocates nothing.
	require.NoError(t, a.WriteAt(init[:PageSize], 0))
	require.NoError(t, a.WriteAt(make([]byte, PageSize), 3*PageSize))
	assert.Equal(t, uint64(2*PageSize), a.HostBytes())

	var buf bytes.Buffer
	n, err := a.WriteTo(&buf)
	require.NoError(t, err)
	assert.Equal(t, int64(a.Size), n)
	assert.True(t, bytes.Equal(want, buf.Bytes()), "WriteTo")

	assert.Error(t, a.SetInit(make([]byte, a.Size+1)))
}

func TestSparseHostLimit(t *testing.T) {
	g := NewGlobalMemory()
	g.HostLimit = 2*PageSize + 100
	small, err := g.Malloc(100, "buffer small")
	require.NoError(t, err)
	a, err := g.Malloc(8<<30, "buffer big")
	require.NoError(t, err)
	v := &View{Global: g}
	acc := &Access{Space: Global, Kind: Store, Size: 8, Mask: 1}
	for i := uint64(0); i < 2; i++ {
		acc.Addr[0] = a.Base + i<<30
		require.True(t, v.StoreScalar(acc, &[32]uint64{1}))
	}
	acc.Addr[0] = a.Base + 5<<30
	assert.False(t, v.StoreScalar(acc, &[32]uint64{1}), "a store that needs a page the host cannot give")
	f := v.Store(acc, 1, &[MaxElems][]uint64{make([]uint64, 32)})
	require.NotNil(t, f)
	assert.Contains(t, f.Reason, "buffer big")
	assert.Contains(t, f.Reason, "host memory limit of 128.1 KiB")
	assert.Contains(t, f.Error(), "global access of 8 bytes")
	_, f = v.Bytes(Global, acc.Addr[0], 8, 0)
	require.NotNil(t, f, "atomics need the page too")
	assert.ErrorContains(t, g.CopyIn(acc.Addr[0], []byte{1}), "buffer big")
	// Loads need no page.
	acc.Kind = Load
	var dst [32]uint64
	assert.True(t, v.LoadScalar(acc, &dst))

	_, err = g.Malloc(DenseLimit, "buffer dense")
	require.ErrorContains(t, err, "malloc of 1048576 bytes for buffer dense: the host memory limit")
	require.NoError(t, g.Free(small.Base))
	require.NoError(t, g.Free(a.Base))
	assert.Zero(t, g.HostBytes())
}

// TestSparseConcurrentFirstWrites has many goroutines write into the same
// untouched page at once: one page is allocated and no write is lost.
func TestSparseConcurrentFirstWrites(t *testing.T) {
	g := NewGlobalMemory()
	a, err := g.Malloc(DenseLimit*4, "buffer shared")
	require.NoError(t, err)
	const n = 64
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := &View{Global: g}
			acc := &Access{Space: Global, Kind: Store, Size: 4, Mask: 1}
			acc.Addr[0] = a.Base + 3*PageSize + uint64(4*w)
			if !v.StoreScalar(acc, &[32]uint64{uint64(w + 1)}) {
				panic("store refused")
			}
		}()
	}
	wg.Wait()
	got := make([]byte, 4*n)
	require.NoError(t, a.ReadAt(got, 3*PageSize))
	for w := 0; w < n; w++ {
		assert.Equal(t, uint32(w+1), binary.LittleEndian.Uint32(got[4*w:]), "writer %d", w)
	}
	assert.Equal(t, uint64(PageSize), a.HostBytes())
}

func TestSparseAccessAcrossPages(t *testing.T) {
	g := NewGlobalMemory()
	a, err := g.Malloc(DenseLimit+PageSize, "buffer s")
	require.NoError(t, err)
	var hint *Allocation
	_, ok := g.Slice(a.Base+PageSize-4, 8, &hint)
	assert.False(t, ok, "an access that crosses a page (only a misaligned one can)")
	assert.Equal(t, "crosses a 65536-byte page of buffer s", g.Describe(a.Base+PageSize-4, 8))
	b, ok := g.Slice(a.Base+PageSize-8, 8, &hint)
	assert.True(t, ok)
	assert.Equal(t, make([]byte, 8), b)
	// Host copies may cross pages.
	src := bytes.Repeat([]byte{9}, 3*PageSize/2)
	require.NoError(t, g.CopyIn(a.Base+PageSize/2, src))
	got := make([]byte, len(src))
	require.NoError(t, g.CopyOut(got, a.Base+PageSize/2))
	assert.Equal(t, src, got)
}
