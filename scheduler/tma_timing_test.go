package scheduler_test

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// TestTMALatency runs the recorded bulk-copy latency benchmark (testdata/
// tma/gen/bench_tma.cu: one thread copies, then spins on the mbarrier,
// eight times, timing each with clock64) in the timing model: each copy
// must take within 15% of what the H200 measured (testdata/tma/log/
// bench_tma.txt: 355-369 cycles for 16 bytes, 495-503 for 16 KiB).
func TestTMALatency(t *testing.T) {
	for _, c := range []struct {
		file string
		gpu  float64
	}{{"bench_bulk_16.json", 362}, {"bench_bulk_16384.json", 499}} {
		sp, err := spec.Load("../testdata/tma/timing/" + c.file)
		require.NoError(t, err)
		run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{Mode: scheduler.ModeTiming}, nil)
		require.NoError(t, err)
		out := run.Outputs["cyc"]
		require.Len(t, out, 64)
		for i := 0; i < 8; i++ {
			cyc := float64(binary.LittleEndian.Uint64(out[8*i:]))
			require.InDelta(t, c.gpu, cyc, 0.15*c.gpu, "%s: copy %d took %.0f cycles", c.file, i, cyc)
		}
		run.Release()
	}
}
