package memspace

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The H100's layout (testdata/clusters, the mapa launch): rank r's shared
// memory is slot r; mapa replaces the slot.
func TestClusterAddresses(t *testing.T) {
	tests := []struct {
		a      uint64
		r      uint32
		mapped uint64
		rankOf uint32 // ClusterRank(a)
	}{
		{0x404, 0, 0x404, 0},
		{0x404, 3, 0x3000404, 0},
		{0x2000404, 0, 0x404, 2}, // a mapped address maps again
		{0x1037ffc, 15, 0xf037ffc, 1},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.mapped, ClusterAddr(tc.a, tc.r), "%#x to rank %d", tc.a, tc.r)
		assert.Equal(t, tc.rankOf, ClusterRank(tc.a), "%#x", tc.a)
		assert.Equal(t, tc.r, ClusterRank(tc.mapped), "%#x", tc.mapped)
	}
}

func TestClusterBytes(t *testing.T) {
	own, other := make([]byte, 64), make([]byte, 32)
	// The view of the block of rank 1 in a cluster of 3 whose rank 2 has exited.
	v := &View{Shared: own, SharedBase: 1 << ClusterSlotBits, Cluster: &SharedCluster{Blocks: [][]byte{other, own, nil}}}
	b, f := v.Bytes(Shared, ClusterAddr(8, 0), 4, 0)
	require.Nil(t, f)
	b[0] = 7
	assert.Equal(t, byte(7), other[8])
	b, f = v.Bytes(Generic, SharedWindow+ClusterAddr(60, 1), 4, 0)
	require.Nil(t, f)
	b[3] = 9
	assert.Equal(t, byte(9), own[63])
	for _, tc := range []struct {
		addr uint64
		why  string
	}{
		{ClusterAddr(32, 0), "outside the shared memory of the block of rank 0"},
		{ClusterAddr(0, 2), "rank 2 in the cluster has exited"},
		{ClusterAddr(0, 5), "names rank 5; the cluster has 3 blocks"},
		{ClusterAddr(100, 1), "outside shared memory (64 bytes)"},
	} {
		_, f := v.Bytes(Shared, tc.addr, 4, 3)
		require.NotNil(t, f, "%#x", tc.addr)
		assert.Contains(t, f.Reason, tc.why)
		assert.Equal(t, 3, f.Lane)
		assert.Equal(t, tc.addr, f.Addr)
	}
	_, f = (&View{Shared: own}).Bytes(Shared, ClusterAddr(0, 1), 4, 0)
	require.NotNil(t, f, "no cluster: no other slot")
}
