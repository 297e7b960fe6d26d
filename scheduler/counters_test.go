package scheduler_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// counterCases are corpus cases whose counters depend on order: many
// blocks sharing L2 lines (matmuls, transposes, stencils), local memory,
// atomics, textures, several waves of blocks.
var counterCases = []string{"matmul_naive", "matmul_tiled", "transpose_naive", "transpose_padded_rect",
	"stencil_1d", "hist_global_atomic", "reduce_sum_f32", "local_array", "tex2d_clamp_linear", "grid3d", "cache_hints"}

// TestCountersSameForAnyWorkerCount: every counter of the memory hierarchy,
// totals and per instruction, is the same for 1, 2 and 8 workers, on both
// GPU profiles.
func TestCountersSameForAnyWorkerCount(t *testing.T) {
	cache := spec.NewModuleCache()
	for _, gpu := range []*scheduler.Profile{scheduler.H100, scheduler.GF100} {
		for _, name := range counterCases {
			t.Run(gpu.Name+"/"+name, func(t *testing.T) {
				sp, err := spec.Load(filepath.Join("..", "testdata", "nvcc", "cases", name, "O3", "spec.json"))
				require.NoError(t, err)
				var first *scheduler.SpecRun
				var firstTally *hier.Tally
				for _, w := range []int{1, 2, 8} {
					run, err := scheduler.RunSpec(context.Background(), sp, gpu, scheduler.Options{Workers: w, MaxInst: 1 << 30, AnyTarget: true}, cache)
					require.NoError(t, err, "workers=%d", w)
					require.NotNil(t, run.Result.Hier)
					if first == nil {
						first, firstTally = run, run.Result.Hier.Tally()
						c := run.Result.Hier.Counts()
						var sum uint64
						for _, v := range c {
							sum += v
						}
						require.NotZero(t, sum, "the launch made no counted access")
						continue
					}
					assert.Equal(t, first.Result.Hier.Counts(), run.Result.Hier.Counts(), "workers=%d", w)
					tally := run.Result.Hier.Tally()
					require.Equal(t, firstTally.Insts(), tally.Insts())
					for _, id := range tally.Insts() {
						require.Equal(t, firstTally.Inst(id), tally.Inst(id), "workers=%d, instruction %d", w, id)
					}
					assert.Equal(t, first.Metrics(), run.Metrics(), "workers=%d", w)
				}
			})
		}
	}
}

// TestNoCounters: without the hierarchy the run has no memory counters and
// the same outputs.
func TestNoCounters(t *testing.T) {
	sp, err := spec.Load(filepath.Join("..", "testdata", "nvcc", "cases", "matmul_tiled", "O3", "spec.json"))
	require.NoError(t, err)
	on, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{}, nil)
	require.NoError(t, err)
	off, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{NoCounters: true}, nil)
	require.NoError(t, err)
	assert.Nil(t, off.Result.Hier)
	assert.Equal(t, on.Outputs, off.Outputs)
	assert.Equal(t, on.Result.Stats, off.Result.Stats)
	assert.Contains(t, on.Metrics(), "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
	assert.NotContains(t, off.Metrics(), "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
}
