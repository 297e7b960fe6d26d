package memspace

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A checkpoint's rollback puts back what every kind of page held, through
// every path that writes (host copies, a warp's stores, atomics' slices),
// frees the pages written in between, and leaves writes after it alone.
func TestCheckpointRollback(t *testing.T) {
	g := NewGlobalMemory()
	dense, err := g.Malloc(4096, "buffer dense")
	require.NoError(t, err)
	sparse, err := g.Malloc(4*PageSize, "buffer sparse")
	require.NoError(t, err)
	init := bytes.Repeat([]byte{7}, 2*PageSize) // pages 0-1 from the initial contents
	require.NoError(t, sparse.SetInit(init))
	require.NoError(t, g.CopyIn(dense.Base, []byte{1, 2, 3, 4}))
	require.NoError(t, g.CopyIn(sparse.Base+PageSize+16, []byte{9, 9})) // page 1 allocated
	read := func(a *Allocation) []byte {
		b := make([]byte, a.Size)
		require.NoError(t, a.ReadAt(b, 0))
		return b
	}
	wantDense, wantSparse, held := read(dense), read(sparse), g.HostBytes()

	v := &View{Global: g}
	for _, tc := range []struct {
		name  string
		write func(t *testing.T)
	}{
		{"host copy into a dense allocation", func(t *testing.T) { require.NoError(t, g.CopyIn(dense.Base+8, []byte{5, 5, 5})) }},
		{"host copy into a page from the initial contents", func(t *testing.T) { require.NoError(t, g.CopyIn(sparse.Base+100, []byte{1})) }},
		{"host copy into an allocated page", func(t *testing.T) { require.NoError(t, g.CopyIn(sparse.Base+PageSize+16, []byte{0, 0})) }},
		{"host copy into a page of zeros", func(t *testing.T) { require.NoError(t, g.CopyIn(sparse.Base+3*PageSize, []byte{3})) }},
		{"a warp's stores over two pages", func(t *testing.T) {
			acc := &Access{Space: Global, Kind: Store, Size: 4, Mask: ^uint32(0)}
			var src [MaxElems][]uint64
			src[0] = make([]uint64, 32)
			for l := range acc.Addr {
				acc.Addr[l] = sparse.Base + PageSize - 64 + uint64(l)*4
				src[0][l] = 0xdeadbeef
			}
			require.Nil(t, v.Store(acc, 1, &src))
		}},
		{"a word through SliceW", func(t *testing.T) {
			var h *Allocation
			b, _, err := g.SliceW(sparse.Base+2*PageSize+8, 4, &h)
			require.NoError(t, err)
			copy(b, []byte{1, 2, 3, 4})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := g.Checkpoint()
			tc.write(t)
			changed := !bytes.Equal(read(dense), wantDense) || !bytes.Equal(read(sparse), wantSparse)
			assert.True(t, changed, "the write is seen before the rollback")
			c.Rollback()
			assert.Equal(t, wantDense, read(dense))
			assert.Equal(t, wantSparse, read(sparse))
			assert.Equal(t, held, g.HostBytes(), "the pages written in between are freed")
		})
	}
	// After a rollback, writes stay.
	require.NoError(t, g.CopyIn(sparse.Base+PageSize+16, []byte{4, 4}))
	got := make([]byte, 2)
	require.NoError(t, g.CopyOut(got, sparse.Base+PageSize+16))
	assert.Equal(t, []byte{4, 4}, got)
}
