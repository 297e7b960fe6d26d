package scheduler_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mapwRow is one launch of hostmem9's `mapw` group.
type mapwRow struct {
	Name   string  `json:"name"`
	Bytes  int     `json:"bytes"`
	US     float64 `json:"us"`
	Kernel string  `json:"kernel"`
	Stride int     `json:"stride"`
	Window int     `json:"window_bytes"`
	Host   string  `json:"host"`
}

// TestMappedSweepsAgainstGPU holds the timing model's scattered writes to
// mapped memory to the H200's ninth host-memory recording
// (testdata/host/hostmem9.jsonl, group mapw; CUDA events, medians of 7).
// store_perm with a stride of 32 words writes one word in each of 32 lines
// a warp and sweeps the buffer 32 times: 3.2 GB/s up to 16 MiB, 2.9 at 24,
// 2.3 at 32, 2.0 at 64 and 128 on the GPU, where store_win, writing the
// same words a 2 or 8 MiB window at a time, keeps 3.2 GB/s at every size.
// The model's host keeps 22 MiB of the lines written in part
// (host_link.host_write_cache_bytes) and a partial write of a line it no
// longer holds takes write_miss_cycles on the link; both fitted on this
// recording's sweeps, so their agreement here is a training figure (the
// eighth recording's sweeps, TestMappedAccessesAgainstGPU, are the check).
// The thp rows are the same launches into host memory of 2 MiB pages (the
// GPU's times change by at most 12%); the model, which has no host pages,
// runs them as the sweeps. The default run takes the 8 MiB sweep;
// -groundtruth.full every launch (21 minutes on this 2-core machine under
// load, 2026-11-29: all 33 within 15%, from -6.4% to +12.9%, the scattered
// reads the farthest).
func TestMappedSweepsAgainstGPU(t *testing.T) {
	const mapwTol = 0.15
	rows := readHostmem[mapwRow](t, "hostmem9.jsonl", "mapw", 33)
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "host", "ptx"))
	require.NoError(t, err)
	h9 := newH200Runner(t)
	g := h9.gpu
	model := map[string]float64{} // µs by launch: the thp rows repeat the sweeps
	for _, r := range rows {
		mib := r.Bytes >> 20
		name := fmt.Sprintf("%s_%dMiB", r.Name, mib)
		if !*gtFull && name != "sweep_stride32_8MiB" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			n := r.Bytes / 4
			module, in, out, extra := "hostmem.O3.ptx", `"memory": "device"`, `"memory": "mapped"`, ""
			switch r.Kernel {
			case "copy_perm":
				in, out = out, in
			case "store_win":
				module, extra = "hostmem9.O3.ptx", fmt.Sprintf(`{"u32": %d}, `, r.Window/4)
			}
			key := fmt.Sprintf("%s/%d/%d/%d", r.Kernel, r.Bytes, r.Stride, r.Window)
			us, ok := model[key]
			if !ok {
				js := fmt.Sprintf(`{"module": %q, "kernel": %q, "grid": [%d, 1, 1], "block": [256, 1, 1],
  "buffers": [{"name": "in", "type": "f32", "count": %d, %s}, {"name": "out", "type": "f32", "count": %d, %s}],
  "args": [{"buffer": "in"}, {"buffer": "out"}, {"u32": %d}, {"u32": %d}, %s{"f32": 2.0}], "outputs": []}`,
					filepath.Join(dir, module), r.Kernel, (n+255)/256, n, in, n, out, n, r.Stride, extra)
				// CUDA events time the launch too (the profile's launch overhead).
				us = h9.run(t, name, js)["sm__cycles_elapsed.max"]/float64(g.ClockMHz) + g.Host.LaunchOverheadUS
				model[key] = us
			}
			t.Logf("%-28s model %9.1f µs, GPU %9.1f µs (%+.1f%%)", name, us, r.US, 100*(us/r.US-1))
			if reason, ok := mapwKnown[name]; ok {
				t.Logf("  known: %s", reason)
				return
			}
			assert.InEpsilon(t, r.US, us, mapwTol, "%s: µs", name)
		})
	}
}

// mapwKnown are the launches the model is not held to, with the reason.
var mapwKnown = map[string]string{}
