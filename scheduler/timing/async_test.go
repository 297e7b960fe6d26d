package timing

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// cp.async groups: wait_group N waits for the groups committed before the
// N most recent, wait_all for every copy (the open group's too); a group's
// copy whose load is in flight (never) holds its waiters until it lands.
// (Waiting for every copy was matmul_mma_cpasync_big's +74%: its double
// buffer never overlapped.)
func TestAsyncGroups(t *testing.T) {
	var w warp
	commit := &inst{asyncCommit: true}
	wait := func(keep int32) *inst { return &inst{asyncWait: true, asyncKeep: keep} }

	w.async = 100 // group 0's copies land at 100
	w.asyncBook(commit)
	w.async = never // group 1's copy is still loading
	w.asyncBook(commit)
	w.async = 300 // an open group
	assert.EqualValues(t, 100, w.asyncDue(1), "wait_group 1: group 0 only")
	assert.EqualValues(t, uint64(never), w.asyncDue(0), "wait_group 0: group 1 too")
	assert.EqualValues(t, uint64(never), w.asyncDue(-1), "wait_all")

	w.asyncBook(wait(1))
	assert.EqualValues(t, 0, w.asyncDue(1), "group 0 waited for: nothing more at wait_group 1")
	w.asyncLanded(1, 250)
	assert.EqualValues(t, 250, w.asyncDue(0))
	assert.EqualValues(t, 300, w.asyncDue(-1), "wait_all waits for the open group")
	w.asyncBook(wait(-1))
	assert.EqualValues(t, 0, w.asyncDue(-1))

	// Past asyncRing outstanding groups the oldest count as landed.
	for i := 0; i < asyncRing+3; i++ {
		w.async = uint64(1000 + i)
		w.asyncBook(commit)
	}
	assert.EqualValues(t, 1000+asyncRing+2, w.asyncDue(0))
	assert.EqualValues(t, asyncRing, w.asyncSeq-w.asyncDone)
}
