package timing

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
)

// In either order of the data path (timing.shared_order) a global load
// waits for the shared-memory operations that reached the path before it:
// four warps, one per sub-partition, issue six shared loads each, meet at
// a barrier (which no load crosses) and then issue a global load, with the
// path slowed to 8 cycles a wavefront. The shared loads hold the path for
// 4·6·8 = 192 cycles, of which the barrier covers some, so the global
// loads' results come at least three quarters of that later than with no
// shared loads ahead of them (182 cycles), and as late in round robin as
// in arrival order. (Letting global accesses pass the pooled shared ones made the
// tiled matmul at 512 18% fast against the H100.)
func TestGlobalLoadQueuesBehindSharedOps(t *testing.T) {
	const warps, loads, dataCycles = 4, 6, 8
	kernel := func(loads int) string {
		var b strings.Builder
		for i := range loads {
			fmt.Fprintf(&b, "\tld.shared.u32 %%r%d, [s+%d];\n", 4+i, 4*i)
		}
		return outKernel(`	mov.u32 %r1, %tid.x;
	mov.u64 %rd3, %clock64;
`+b.String()+`	bar.sync 0;
	ld.global.u32 %r2, [%rd2+4096];
	add.s32 %r3, %r2, 1;
	mov.u64 %rd4, %clock64;
	sub.s64 %rd5, %rd4, %rd3;
	shr.u32 %r1, %r1, 5;
	mul.wide.u32 %rd6, %r1, 8;
	add.s64 %rd6, %rd2, %rd6;
	st.global.u64 [%rd6], %rd5;
	st.global.u32 [%rd2+8192], %r3;
	ret;
`, ".shared .align 4 .b32 s[32];")
	}
	// last is the latest of the warps' cycles from their first clock read
	// to the global load's use.
	last := func(order string, loads int) uint64 {
		prof := *gpu.MustLookup("h100")
		prof.Timing.DataCycles = dataCycles
		prof.Timing.SharedOrder = order
		// Without the DRAM's spread of latencies, which depends on the
		// cycle a read reaches it, the difference is the data path's alone.
		prof.Memory.Latency.DRAMJitter = 0
		l, dev, buf := ptxLaunch(t, kernel(loads), 1, 32*warps, 8192+4)
		_, err := Run(context.Background(), l, &prof, Options{BlocksPerSM: 1, Workers: 1})
		require.NoError(t, err)
		var m uint64
		for _, d := range readLE[uint64](t, dev, buf, warps) {
			m = max(m, d)
		}
		return m
	}
	for _, order := range []string{Arrival, RoundRobin} {
		none, six := last(order, 0), last(order, loads)
		t.Logf("%s: %d cycles to the global load's use with no shared loads ahead, %d with %d", order, none, six, warps*loads)
		assert.GreaterOrEqual(t, six, none+warps*loads*dataCycles*3/4, "%s: the global load waits for the shared ones", order)
	}
	assert.InDelta(t, float64(last(Arrival, loads)), float64(last(RoundRobin, loads)), 8, "as late in either order")
}
