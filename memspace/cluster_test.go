package memspace

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClusterAddresses(t *testing.T) {
	tests := []struct {
		a        uint64
		r, own   uint32
		mapped   uint64
		rankOf   uint32 // ClusterRank(a, own)
		rankBack uint32 // ClusterRank(mapped, own)
	}{
		{0x40, 0, 2, 0x1000040, 2, 0},
		{0x40, 3, 2, 0x4000040, 2, 3},
		{0x2000040, 0, 2, 0x1000040, 1, 0}, // a mapped address maps again
		{0x37ffc, 15, 0, 0x10037ffc, 0, 15},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.mapped, ClusterAddr(tc.a, tc.r), "%#x to rank %d", tc.a, tc.r)
		assert.Equal(t, tc.rankOf, ClusterRank(tc.a, tc.own), "%#x", tc.a)
		assert.Equal(t, tc.rankBack, ClusterRank(tc.mapped, tc.own), "%#x", tc.mapped)
	}
}

func TestClusterBytes(t *testing.T) {
	own, other := make([]byte, 64), make([]byte, 32)
	v := &View{Shared: own, Cluster: &SharedCluster{Blocks: [][]byte{own, other, nil}}}
	b, f := v.Bytes(Shared, ClusterAddr(8, 1), 4, 0)
	require.Nil(t, f)
	b[0] = 7
	assert.Equal(t, byte(7), other[8])
	b, f = v.Bytes(Generic, SharedWindow+ClusterAddr(60, 0), 4, 0)
	require.Nil(t, f)
	b[3] = 9
	assert.Equal(t, byte(9), own[63])
	for _, tc := range []struct {
		addr uint64
		why  string
	}{
		{ClusterAddr(32, 1), "outside the shared memory of the block of rank 1"},
		{ClusterAddr(0, 2), "rank 2 in the cluster has exited"},
		{ClusterAddr(0, 5), "names rank 5; the cluster has 3 blocks"},
		{100, "outside shared memory (64 bytes)"},
	} {
		_, f := v.Bytes(Shared, tc.addr, 4, 3)
		require.NotNil(t, f, "%#x", tc.addr)
		assert.Contains(t, f.Reason, tc.why)
		assert.Equal(t, 3, f.Lane)
	}
	_, f = (&View{Shared: own}).Bytes(Shared, ClusterAddr(0, 0), 4, 0)
	require.NotNil(t, f, "no cluster: no window")
}
