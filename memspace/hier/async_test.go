package hier

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptxvm/ptxvm/memspace"
)

// The accesses ncu does not count as the LSU's: an mbarrier operation
// (sm_90's synchronisation unit) and cp.async's shared write go to their own
// ptxvm__ counters, a warp's arrivals on one mbarrier are one update (not 32
// serialised atomics), and a bulk copy's global side goes to L2 without L1
// (testdata/tensor's pipeline_block and barrier_copy: ncu counts 16 and 0
// shared store wavefronts, 0 global load requests).
func TestAccessesOutsideTheLSU(t *testing.T) {
	h := newTest(t, "h100")
	sm := h.SM(0)
	sameWord := func(int) uint64 { return 0x400 }
	arrive := acc(memspace.Shared, memspace.Atomic, 8, all, sameWord)
	arrive.Sync = true
	sm.Observe(arrive)
	wait := acc(memspace.Shared, memspace.Load, 8, all, sameWord)
	wait.Sync = true
	sm.Observe(wait)
	cp := acc(memspace.Shared, memspace.Store, 16, all, func(l int) uint64 { return 0x800 + 16*uint64(l) })
	cp.AsyncCopy = true
	sm.Observe(cp)
	bulk := acc(memspace.Global, memspace.Load, 16, all, func(l int) uint64 { return base + 16*uint64(l) })
	bulk.Bulk = true
	sm.Observe(bulk)
	h.Drain()
	c := h.Counts()
	for _, n := range []Counter{SharedLdRequests, SharedLdWavefronts, SharedStRequests, SharedStWavefronts, SharedAtomRequests, GlobalLdRequests, GlobalLdSectors} {
		assert.Zero(t, c[n], "%s", counterInfo[n].Name)
	}
	assert.EqualValues(t, 2, c[SharedSyncRequests])
	// The arrivals: two wavefronts, one per half warp as a 64-bit store of
	// one address (32 as serialised atomics); the wait: one broadcast.
	assert.EqualValues(t, 3, c[SharedSyncWavefronts])
	assert.EqualValues(t, 1, c[SharedAsyncRequests])
	assert.EqualValues(t, 4, c[SharedAsyncWavefronts])
	assert.EqualValues(t, 1, c[BulkRdRequests])
	assert.EqualValues(t, 16, c[BulkRdSectors])
	assert.EqualValues(t, 512, c[BulkRdBytes])
	assert.EqualValues(t, 16, c[L2TexReadSectors], "the bulk read reaches L2")
}
