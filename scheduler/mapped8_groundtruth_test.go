package scheduler_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mapped8Row is one launch of hostmem8's `mapped8` group.
type mapped8Row struct {
	Name   string  `json:"name"`
	Bytes  int     `json:"bytes"`
	US     float64 `json:"us"`
	Kernel string  `json:"kernel"`
	Stride int     `json:"stride"`
}

// TestMappedAccessesAgainstGPU holds the timing model's kernels over mapped
// (zero-copy) host memory to the H200's eighth host-memory recording
// (testdata/host/hostmem8.jsonl, group mapped8; CUDA events, medians of 7):
// store_perm writing mapped memory with strides of 1, 2, 8 and 32 words at
// 4-128 MiB, and copy_perm reading it with strides of 1 and 32 at 1-16 MiB.
// A line written in part in several runs of bytes (strides 2 and 8) leaves
// one packet a run (host_link.write_run_cycles): 1.99 GB/s at every size on
// the GPU, where one word a line (stride 32) runs at 3.1 GB/s up to 16 MiB
// and slower beyond (host_link.host_write_cache_bytes, fitted on the ninth
// recording: these are its held-out check).
// Times must be within mapped8Tol of the GPU's but for mapped8Known. The
// default run takes the 4 MiB writes; -groundtruth.full every launch
// (tens of minutes on 2 cores: the large strided writes are slow to run).
func TestMappedAccessesAgainstGPU(t *testing.T) {
	const mapped8Tol = 0.15
	rows := readHostmem[mapped8Row](t, "hostmem8.jsonl", "mapped8", 54)
	ptx, err := filepath.Abs(filepath.Join("..", "testdata", "host", "ptx", "hostmem.O3.ptx"))
	require.NoError(t, err)
	h8 := newH200Runner(t)
	g := h8.gpu
	for _, r := range rows {
		mib := r.Bytes >> 20
		name := fmt.Sprintf("%s_%dMiB", r.Name, mib)
		if !*gtFull && (mib != 4 || r.Kernel != "store_perm") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			n := r.Bytes / 4
			in, out := `"memory": "device"`, `"memory": "mapped"`
			if r.Kernel == "copy_perm" {
				in, out = out, in
			}
			js := fmt.Sprintf(`{"module": %q, "kernel": %q, "grid": [%d, 1, 1], "block": [256, 1, 1],
  "buffers": [{"name": "in", "type": "f32", "count": %d, %s}, {"name": "out", "type": "f32", "count": %d, %s}],
  "args": [{"buffer": "in"}, {"buffer": "out"}, {"u32": %d}, {"u32": %d}, {"f32": 2.0}], "outputs": []}`,
				ptx, r.Kernel, (n+255)/256, n, in, n, out, n, r.Stride)
			// CUDA events time the launch too (the profile's launch overhead).
			us := h8.run(t, name, js)["sm__cycles_elapsed.max"]/float64(g.ClockMHz) + g.Host.LaunchOverheadUS
			t.Logf("%-28s model %9.1f µs, GPU %9.1f µs (%+.1f%%)", name, us, r.US, 100*(us/r.US-1))
			if reason, ok := mapped8Known[name]; ok {
				t.Logf("  known: %s", reason)
				return
			}
			assert.InEpsilon(t, r.US, us, mapped8Tol, "%s: µs", name)
		})
	}
}

// slowSweep is why the one-word-a-line writes past 16 MiB are known
// misses; the model's figure against this run's and the first run's follows.
const slowSweep = "the GPU's one-word-a-line posted writes slow from 16 MiB on, by how much depending on the day (this recording's host lost 2.7 ns a word at 64-128 MiB, the ninth's 2.0); the model's host write cache (22 MiB, a miss 3.98 cycles) is fitted on the ninth recording (TestMappedSweepsAgainstGPU, within 4%)"

// mapped8Known are the launches the model is not held to, with the reason.
var mapped8Known = map[string]string{
	"read_mapped_stride32_3MiB":    "the model (1,258 µs) is fast against both runs of this recording (1,536 µs here, 1,737 a minute before: repeats/hostmem8_run1.jsonl); scattered mapped reads move by up to 18% between runs and 35% between recordings",
	"read_mapped_stride32_4MiB":    "three runs of this read took 1,935 µs (here), 2,251 (a minute before) and 1,455 (the first recording, hostmem.jsonl); the model, 1,622, lies between them",
	"write_mapped_stride32_16MiB":  slowSweep + " (-26%, the first run +0%)",
	"write_mapped_stride32_24MiB":  slowSweep + " (-31%, the first run -20%)",
	"write_mapped_stride32_32MiB":  slowSweep + " (-19%, the first run -11%)",
	"write_mapped_stride32_48MiB":  slowSweep + " (-22%, the first run -10%)",
	"write_mapped_stride32_64MiB":  slowSweep + " (-25%, the first run -19%)",
	"write_mapped_stride32_96MiB":  slowSweep + " (-26%, the first run -24%)",
	"write_mapped_stride32_128MiB": slowSweep + " (-25%, the first run -26%)",
}
