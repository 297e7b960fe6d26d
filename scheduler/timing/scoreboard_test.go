package timing

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// TestScoreboardBySlot: a scoreboard kept by frame slot gives the cycles,
// stall reasons and per-instruction figures of one kept by virtual
// register, on corpus launches whose registers share slots: vector loads
// with unused elements (whose pending writes once delayed the next
// register stored in their slot: cvt_f16, cvt_bf16, black_scholes,
// gelu_f16x2), the tiled multiply's shared-memory loop, a reduction.
func TestScoreboardBySlot(t *testing.T) {
	prof := gpu.MustLookup("h100")
	for _, c := range []string{
		"nvcc/cases/cvt_f16/O3", "nvcc/cases/cvt_f16/G", "nvcc/cases/cvt_bf16/O3",
		"apps/cases/black_scholes/O3", "apps/cases/gelu_f16x2/O3",
		"nvcc/cases/matmul_tiled/O3", "nvcc/cases/reduce_sum_f32/O3",
	} {
		t.Run(c, func(t *testing.T) {
			var res [2]*Result
			for i, bySlot := range []bool{true, false} {
				scoreboardBySlot = bySlot
				sp, err := spec.Load(filepath.Join("../../testdata", c, "spec.json"))
				require.NoError(t, err)
				p, err := sp.Prepare(vm.NewDevice(), nil)
				require.NoError(t, err)
				res[i], err = Run(context.Background(), p.Launch, prof, Options{Workers: 1})
				require.NoError(t, err)
			}
			scoreboardBySlot = true
			a, b := res[0], res[1]
			require.Equal(t, b.Cycles, a.Cycles)
			require.Equal(t, b.Stalls, a.Stalls)
			require.Equal(t, b.Stats, a.Stats)
			require.Equal(t, b.Insts, a.Insts)
		})
	}
}
