package scheduler_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// TestBulkCopyTraffic: a bulk copy's reads reach L2 and DRAM
// (testdata/tensor's barrier_copy at -O3: cuda::memcpy_async on a
// cuda::barrier, a cp.async.bulk of 4 KiB per tile on sm_90). Its DRAM
// reads are within 10% of ncu's, and none of it is LSU traffic, as ncu
// counts none. Before the bulk copies went through the hierarchy the
// launch read 64 bytes from DRAM.
func TestBulkCopyTraffic(t *testing.T) {
	all, err := ncu.ReadAll(filepath.Join("..", "testdata"))
	require.NoError(t, err)
	var l *ncu.Launch
	for _, x := range all {
		if x.Corpus == "tensor" && x.Case == "barrier_copy" && x.Variant == "O3" && x.Repeat == 0 {
			l = x
		}
	}
	require.NotNil(t, l)
	sp, err := spec.Load(l.SpecPath())
	require.NoError(t, err)
	run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{MaxInst: 1 << 30}, nil)
	require.NoError(t, err)
	m := run.Metrics()
	assert.EqualValues(t, 16384*4, m["ptxvm__bulk_bytes_read.sum"], "the input, once")
	gpu, ok := l.Value("dram__bytes_read.sum")
	require.True(t, ok)
	assert.InEpsilon(t, gpu, m["dram__bytes_read.sum"], 0.10, "DRAM bytes read: ncu %v", gpu)
	gld, _ := l.Value("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
	assert.Equal(t, gld, m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"])
}
