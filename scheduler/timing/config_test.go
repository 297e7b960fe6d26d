package timing

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
)

// A profile's timing section is checked as it is resolved: each bad
// setting is an error that names its field; the H100's fields fill what a
// profile leaves zero.
func TestResolveChecksTiming(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(*gpu.Timing)
		field string // "" : valid
	}{
		{"h100 as shipped", func(*gpu.Timing) {}, ""},
		{"each scheduler", func(c *gpu.Timing) { c.Scheduler = LRR }, ""},
		{"gto", func(c *gpu.Timing) { c.Scheduler = GTO }, ""},
		{"unknown scheduler", func(c *gpu.Timing) { c.Scheduler = "fifo" }, "timing.scheduler"},
		{"shared operations in arrival order", func(c *gpu.Timing) { c.SharedOrder = Arrival }, ""},
		{"unknown shared order", func(c *gpu.Timing) { c.SharedOrder = "fifo" }, "timing.shared_order"},
		{"fetch off", func(c *gpu.Timing) { c.Fetch.LineBytes = -1 }, ""},
		{"fetch line of 64", func(c *gpu.Timing) { c.Fetch.LineBytes = 64 }, ""},
		{"fetch line not a power of two", func(c *gpu.Timing) { c.Fetch.LineBytes = 96 }, "timing.fetch.line_bytes"},
		{"fetch line too short", func(c *gpu.Timing) { c.Fetch.LineBytes = 8 }, "timing.fetch.line_bytes"},
		{"fetch line below -1", func(c *gpu.Timing) { c.Fetch.LineBytes = -2 }, "timing.fetch.line_bytes"},
		{"negative miss", func(c *gpu.Timing) { c.Fetch.MissCycles = -1 }, "timing.fetch"},
		{"negative sequential", func(c *gpu.Timing) { c.Fetch.SequentialCycles = -3 }, "timing.fetch"},
		{"window past an L2 round trip", func(c *gpu.Timing) { c.WindowCycles = 100000 }, "timing.window_cycles"},
		{"issue cycles below 1", func(c *gpu.Timing) { c.IssueCycles = 0.5 }, "timing.issue_cycles"},
		{"queue too deep", func(c *gpu.Timing) { c.LSUQueue = maxQueue + 1 }, "timing.lsu_queue"},
		{"negative barrier unit", func(c *gpu.Timing) { c.BarrierUnitCycles = -1 }, "timing.barrier_unit_cycles"},
		{"negative launch per warp", func(c *gpu.Timing) { c.CTALaunchWarpCycles = -1 }, "timing.cta_launch_warp_cycles"},
		{"negative guard", func(c *gpu.Timing) { c.GuardCycles = -1 }, "timing.guard_cycles"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := *gpu.MustLookup("h100")
			tc.set(&p.Timing)
			c, err := Resolve(&p)
			if tc.field == "" {
				require.NoError(t, err)
				assert.NotZero(t, c.Fetch.MissCycles, "the H100's fetch figures fill the section")
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.field+":")
		})
	}
	// A profile that names no fetch figures gets the H100's.
	p := *gpu.MustLookup("h100")
	p.Timing.Fetch = gpu.Fetch{}
	c, err := Resolve(&p)
	require.NoError(t, err)
	assert.Equal(t, gpu.MustLookup("h100").Timing.Fetch, c.Fetch)
}

// Without the fetch model cold code costs what warm code does, and no
// cycle is no_instruction: the model's cold pass on the fetch probe is
// the instruction cache's doing.
func TestFetchOff(t *testing.T) {
	const passes = 2
	run := func(lineBytes int) ([]uint64, *Result) {
		p := *gpu.MustLookup("h100")
		p.Timing.Fetch.LineBytes = lineBytes
		l, dev, b := schedLaunch(t, "_Z8straightILi512EEvPffiPy", 1, 32, buffer(64*4), float32(0.999), passes, buffer((passes+1)*8))
		res, err := Run(context.Background(), l, &p, Options{BlocksPerSM: 1, Workers: 1})
		require.NoError(t, err)
		clk := readLE[uint64](t, dev, b[1], passes+1)
		return []uint64{clk[1] - clk[0], clk[2] - clk[1]}, res
	}
	on, resOn := run(0)
	off, resOff := run(-1)
	assert.Greater(t, float64(on[0]), 1.5*float64(on[1]), "cold code is slow with fetch")
	assert.InDelta(t, float64(off[1]), float64(off[0]), 0.05*float64(off[1]), "and as fast as warm code without")
	assert.Equal(t, on[1], off[1], "warm code does not fetch")
	assert.NotZero(t, resOn.Stalls[NoInstruction])
	assert.Zero(t, resOff.Stalls[NoInstruction])
}
