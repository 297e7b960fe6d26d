package program_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/program"
)

// TestFirstLaunchAfterCopyHeldOut holds the profile's after_transfer_us
// (what the first launch after a copy to the device pays; fitted on the
// first three recordings) to the fourth (testdata/host/hostmem4.jsonl,
// recorded after the fit): a buffer kernels had already read, copied again
// from the host, then launched three times. The first launch's excess over
// the third is the cost; at 2-64 MiB, for a reading and an in-place kernel,
// it was 0.4-4.8 µs, 2.4 on average. The same recording's copies into a
// buffer no kernel had touched since cudaMalloc cost the first launch 0.5-10
// µs more again, not growing with size: that case is not modelled
// (docs/host-memory.md), and not tested here.
func TestFirstLaunchAfterCopyHeldOut(t *testing.T) {
	_, rec, _ := readHostCorpus(t)
	want := scheduler.H100.Host.AfterTransferUS
	var sum float64
	n := 0
	for _, k := range []string{"read_coalesced", "scale"} {
		for _, mb := range []uint64{2, 8, 16, 32, 64} {
			get := func(j int) float64 {
				r, ok := rec[fmt.Sprintf("managed4/reused_copy.%s.launch%d/%d", k, j, mb<<20)]
				require.True(t, ok, "%s launch %d at %d MiB not recorded", k, j, mb)
				return r.US
			}
			d := get(1) - get(3)
			require.Less(t, math.Abs(d-want), 2.5, "%s at %d MiB: the first launch after a copy paid %.1f µs more than the third; the model, %.1f", k, mb, d, want)
			sum += d
			n++
		}
	}
	require.InDelta(t, want, sum/float64(n), 1.0, "the first launch's cost after a copy, on average over the fourth recording")
}

// TestFirstLaunchAfterPinnedCopy holds after_transfer_us to the sixth
// recording (testdata/host/hostmem6.jsonl, gen/hostmem6.cu): three launches
// after a pinned copy into a buffer in six states (new from cudaMalloc;
// copied into again after kernels read it; read one word per 64 KiB, written
// whole by a kernel, set by cudaMemset before the copy; allocated again
// where a kernel-read buffer was freed), at 4-128 MiB, a reading and an
// in-place kernel. The first launch less the third averages 1.4-3.5 µs per
// state and 2.3 over all 96, the model's 2.5; no state stands apart (a new
// buffer 2.6, a reused one 1.9: the fifth recording's 4-8 µs difference
// between them did not come back). After a pageable copy into a new buffer
// it is 6.6 on average (3.2-13.0): not modelled, as the fourth recording's
// pageable copies into reused buffers cost 2.4 (docs/host-memory.md).
func TestFirstLaunchAfterPinnedCopy(t *testing.T) {
	_, rec, _ := readHostCorpus(t)
	want := scheduler.H100.Host.AfterTransferUS
	var all float64
	n := 0
	for _, state := range []string{"fresh_copy", "reused_copy", "touched_copy", "written_copy", "realloc_copy", "memset_copy"} {
		var sum float64
		for _, k := range []string{"read_coalesced", "scale"} {
			for _, mb := range []uint64{4, 8, 16, 24, 32, 40, 64, 128} {
				get := func(j int) float64 {
					r, ok := rec[fmt.Sprintf("managed6/%s.%s.launch%d/%d", state, k, j, mb<<20)]
					require.True(t, ok, "%s %s launch %d at %d MiB not recorded", state, k, j, mb)
					return r.US
				}
				sum += get(1) - get(3)
			}
		}
		mean := sum / 16
		assert.InDelta(t, want, mean, 1.5, "%s: the first launch after a pinned copy paid %.1f µs more than the third on average; the model, %.1f", state, mean, want)
		all += sum
		n += 16
	}
	assert.InDelta(t, want, all/float64(n), 0.5, "over every state")
}

// The first launch after data arrived pays more with what arrived where the
// GPU does (docs/host-memory.md, "The first launch grows with what
// arrived"): after a pageable copy into a buffer no launch has used, and
// after a prefetch to the device; not after a pinned copy, nor after a
// pageable copy into a buffer a launch has used. The profile's growth is
// made large here so that it stands out of the kernels' own times.
func TestFirstLaunchGrowsWithWhatArrived(t *testing.T) {
	sp := hostProgram(t, `"buffers": [{"name": "x", "type": "f32", "count": 65536, "fill": {"kind": "iota", "start": 0, "step": 1}},
  {"name": "y", "type": "f32", "count": 65536}, {"name": "m", "type": "f32", "count": 65536, "memory": "managed", "fill": {"kind": "iota", "start": 0, "step": 1}}],
 "steps": [
  {"copy": "x", "to": "device"},
  {"launch": {"kernel": "scale", "grid": [256], "block": [256], "args": [{"buffer": "x"}, {"u32": 65536}, {"f32": 2}, {"f32": 1}]}},
  {"launch": {"kernel": "scale", "grid": [256], "block": [256], "args": [{"buffer": "x"}, {"u32": 65536}, {"f32": 2}, {"f32": 1}]}},
  {"copy": "x", "to": "device"},
  {"launch": {"kernel": "scale", "grid": [256], "block": [256], "args": [{"buffer": "x"}, {"u32": 65536}, {"f32": 2}, {"f32": 1}]}},
  {"copy": "y", "to": "device", "host_memory": "pinned"},
  {"launch": {"kernel": "scale", "grid": [256], "block": [256], "args": [{"buffer": "y"}, {"u32": 65536}, {"f32": 2}, {"f32": 1}]}},
  {"prefetch": "m", "to": "device"},
  {"launch": {"kernel": "scale", "grid": [256], "block": [256], "args": [{"buffer": "m"}, {"u32": 65536}, {"f32": 2}, {"f32": 1}]}}],
 "outputs": ["x"]`)
	prof := *scheduler.H100
	prof.Host.AfterPageableNew = gpu.Growth{PerMiBUS: 400, MaxUS: 1e6}
	prof.Host.AfterPrefetchGrowth = gpu.Growth{PerMiBUS: 800, MaxUS: 1e6}
	run, err := program.Execute(context.Background(), sp, &prof, scheduler.Options{Mode: scheduler.ModeTiming}, nil)
	require.NoError(t, err)
	defer run.Release()
	h := prof.Host
	plain := run.Steps[2].TimeUS // the second launch over x: nothing arrived
	require.Less(t, plain, 50.0)
	const mib = 0.25 // 65536 f32
	for _, c := range []struct {
		step  int
		extra float64
		what  string
	}{
		{1, h.AfterTransferUS + 400*mib, "a pageable copy into a buffer no launch had used"},
		{4, h.AfterTransferUS, "a pageable copy into a buffer a launch had used"},
		{6, h.AfterTransferUS, "a pinned copy"},
		{8, h.AfterPrefetchUS + 800*mib, "a prefetch"},
	} {
		assert.InDelta(t, plain+c.extra, run.Steps[c.step].TimeUS, 8, "step %d, after %s", c.step, c.what)
	}
	// The same launch with the profile as shipped: the growth is small at
	// 256 KiB and at most the profile's ceiling.
	assert.Positive(t, scheduler.H100.Host.AfterPageableNew.PerMiBUS)
	assert.Positive(t, scheduler.H100.Host.AfterPrefetchGrowth.MaxUS)
	assert.Equal(t, scheduler.H100.Host.AfterPrefetchGrowth.MaxUS, scheduler.H100.Host.AfterPrefetchGrowth.US(1<<40))
}

// TestFirstLaunchGrowthAgainstGPU holds the profile's growth of the first
// launch (after_pageable_new, after_prefetch_growth) to the GPU's first
// launch less its third, as the tests above hold after_transfer_us (the
// kernels' own difference, a cold L2, taken as 0). On the recordings it was
// fitted on (training: the sixth recording's pageable copies into new
// buffers, the third's prefetched managed memory, the seventh's
// firstlaunch group) the mean residual is within 2.5 µs and the mean
// absolute one at most 4 µs (a fixed cost alone: 4.7 and 11.0 µs off). On
// the repeat recorded before the fit (testdata/host/repeat16, held out),
// whose first launches cost more than the corpus's, the growth at least
// halves what the fixed cost alone misses by (7.5 against 14.3 µs after
// pageable copies, 6.2 against 15.3 after prefetches), and is still short
// (docs/host-memory.md, "The first launch grows with what arrived").
func TestFirstLaunchGrowthAgainstGPU(t *testing.T) {
	h := scheduler.H100.Host
	type point struct {
		mib   uint64
		extra float64 // µs, the first launch less the third
	}
	firsts := func(rec map[string]hostRecording, group, prefix string) []point {
		var out []point
		for k, r := range rec {
			if r.Group != group || !strings.HasPrefix(r.Name, prefix) || !strings.HasSuffix(r.Name, ".launch1") {
				continue
			}
			third, ok := rec[strings.TrimSuffix(k, fmt.Sprintf(".launch1/%d", r.Bytes))+fmt.Sprintf(".launch3/%d", r.Bytes)]
			require.True(t, ok, "%s has no third launch", k)
			out = append(out, point{r.Bytes >> 20, r.US - third.US})
		}
		return out
	}
	// off is the mean and the mean absolute residual of pts against the
	// fixed cost plus g.
	off := func(pts []point, fixed float64, g gpu.Growth) (mean, abs float64) {
		for _, p := range pts {
			d := p.extra - fixed - g.US(p.mib<<20)
			mean += d
			abs += math.Abs(d)
		}
		return mean / float64(len(pts)), abs / float64(len(pts))
	}
	train := readRecordings(t, filepath.Join(hostDir, "hostmem*.jsonl"))
	held := readRecordings(t, filepath.Join(hostDir, "repeat16", "*.jsonl"))
	for _, c := range []struct {
		what            string
		fixed           float64
		growth          gpu.Growth
		group1, prefix1 string
	}{
		{"a pageable copy into a new buffer", h.AfterTransferUS, h.AfterPageableNew, "managed6", "fresh_pageable."},
		{"a prefetch of new managed memory", h.AfterPrefetchUS, h.AfterPrefetchGrowth, "managed3", "prefetched."},
	} {
		flPrefix := "pageable_copy."
		if c.group1 == "managed3" {
			flPrefix = "prefetch."
		}
		trainPts := append(firsts(train, c.group1, c.prefix1), firsts(train, "firstlaunch", flPrefix)...)
		heldPts := append(firsts(held, c.group1, c.prefix1), firsts(held, "firstlaunch", flPrefix)...)
		require.GreaterOrEqual(t, len(trainPts), 19, c.what)
		require.GreaterOrEqual(t, len(heldPts), 11, c.what)
		mean, abs := off(trainPts, c.fixed, c.growth)
		assert.InDelta(t, 0, mean, 2.5, "after %s, the recordings fitted on: mean residual", c.what)
		assert.LessOrEqual(t, abs, 4.0, "after %s, the recordings fitted on: mean absolute residual", c.what)
		_, heldAbs := off(heldPts, c.fixed, c.growth)
		_, heldFixed := off(heldPts, c.fixed, gpu.Growth{})
		assert.Less(t, heldAbs, 0.6*heldFixed, "after %s, held out (repeat16): %.1f µs off with the growth, %.1f without", c.what, heldAbs, heldFixed)
		t.Logf("after %s: training %d points, mean %+.1f µs, |%.1f|; held out %d points, |%.1f| (a fixed cost alone |%.1f|)", c.what, len(trainPts), mean, abs, len(heldPts), heldAbs, heldFixed)
	}
}
