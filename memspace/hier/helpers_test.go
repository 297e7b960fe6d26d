package hier

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
)

// newTest builds a functional hierarchy of profile name for a launch with
// no shared memory of its own.
func newTest(t testing.TB, name string) *Hierarchy {
	t.Helper()
	cfg, err := Profile(name)
	require.NoError(t, err)
	h, err := New(cfg, Launch{Occupancy: 8}, Functional)
	require.NoError(t, err)
	return h
}

// acc builds an access of the lanes of mask, lane l at addr(l).
func acc(space memspace.Space, kind memspace.Kind, size uint8, mask uint32, addr func(l int) uint64) *memspace.Access {
	a := &memspace.Access{Space: space, Kind: kind, Size: size, Mask: mask, Origin: memspace.Origin{Inst: 0}}
	for l := 0; l < 32; l++ {
		if mask&(1<<l) != 0 {
			a.Addr[l] = addr(l)
		}
	}
	return a
}

const all = ^uint32(0)

// base is a 256-byte aligned global address (cudaMalloc alignment).
const base = memspace.GlobalBase
