package memspace

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrefetchWordsIsAHint: PrefetchWords reads through every kind of
// storage (dense, sparse pages written, sparse pages read as their initial
// contents or zeros) and past the allocation's ends without a panic or a
// change to memory or to the access.
func TestPrefetchWordsIsAHint(t *testing.T) {
	g := NewGlobalMemory()
	dense, err := g.Malloc(DenseLimit, "buffer dense")
	require.NoError(t, err)
	sparse, err := g.Malloc(4*PageSize, "buffer sparse")
	require.NoError(t, err)
	require.NoError(t, sparse.SetInit(make([]byte, PageSize+100)))
	require.NoError(t, g.CopyIn(sparse.Base+2*PageSize, []byte{1, 2, 3, 4}))
	for _, tt := range []struct {
		name  string
		h     *Allocation
		first uint64 // the first lane's offset; lanes step by 4 bytes
		d     uint64
	}{
		{"dense, in range", dense, 0, 128},
		{"dense, past the end", dense, 0, DenseLimit},
		{"dense, backwards past the start", dense, 0, ^uint64(63)},
		{"sparse, a written page", sparse, 0, 2 * PageSize},
		{"sparse, initial contents", sparse, 0, 64},
		{"sparse, past the initial contents", sparse, 0, PageSize + 4096},
		{"sparse, past the end", sparse, 0, 4 * PageSize},
		{"sparse, wraps", sparse, 0, ^uint64(3)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := &View{Global: g, hint: tt.h}
			a := &Access{Space: Global, Kind: Load, Size: 4, Mask: ^uint32(0)}
			for l := range a.Addr {
				a.Addr[l] = tt.h.Base + tt.first + uint64(4*l)
			}
			before, held := *a, g.HostBytes()
			assert.NotPanics(t, func() { v.PrefetchWords(a, tt.d) })
			assert.Equal(t, before, *a)
			assert.Equal(t, held, g.HostBytes(), "no page is taken")
			assert.Same(t, tt.h, v.hint)
		})
	}
}
