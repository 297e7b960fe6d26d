package scheduler_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// linesRow is one launch of hostmem8's `lines` group.
type linesRow struct {
	Name    string  `json:"name"`
	US      float64 `json:"us"`
	Blocks  int     `json:"blocks"`
	Stride  int     `json:"stride"`
	Iters   int     `json:"iters"`
	Sectors float64 `json:"sectors"`
}

// TestGatherLinesAgainstGPU holds the timing model's rate of L2-resident
// gathers to the H200 (testdata/host/hostmem8.jsonl, group lines): blocks of
// 32 warps each load 32 words `stride` words apart with ld.global.cg, over
// an 8 MiB buffer the L2 holds, on 8 SMs (what an SM's L1 takes: one line a
// cycle, about 1.8 sectors a cycle), on 33 and 66 (the SMs alternate
// between the L2's partitions, so half of them read from both) and on all
// 132 (what the L2's slices give: 82 one-sector transactions a cycle, the
// h200 profile's l2_read_cycles_per_transaction; 290-330 sectors/ns in
// lines of two or four, its l2_slice_read_bytes_per_cycle). The model's
// launch time at the GPU's iterations is extrapolated from two shorter
// launches (the start and end of a launch come once: dividing a short
// launch's sectors by its whole time made the model look slower than it
// is); its rate in sectors a nanosecond must be within linesTol of the
// GPU's.
// Strides of 1 and 2 words are bound by the loop's instructions (nvcc's
// 64-bit remainder), not by memory (linesKnown); they run with
// -groundtruth.full, with the stride of 16 and the launches on 1, 33, 66
// (but the one-sector gathers there, run by default) and 264 blocks
// (2026-11-29: the 18 launches of strides 8 to 32 within 10.2%, mean
// |error| 4.0%, with runs of 16-256 iterations as now and with runs twice
// as long alike; about 75 s on 2 cores).
func TestGatherLinesAgainstGPU(t *testing.T) {
	const linesTol = 0.15
	rows := readHostmem[linesRow](t, "hostmem8.jsonl", "lines", 30)
	ptx, err := filepath.Abs(filepath.Join("..", "testdata", "host", "ptx", "hostmem8.O3.ptx"))
	require.NoError(t, err)
	h8 := newH200Runner(t)
	g := h8.gpu
	for _, r := range rows {
		_, known := linesKnown[r.Name]
		// By default strides of 8 and 32 on 8 and 132 blocks, and the
		// one-sector gathers on 66 (half the SMs: both L2 partitions'
		// slices serve them, as on the GPU, only if the SMs alternate
		// between the partitions).
		half := r.Blocks == 66 && r.Stride == 32
		full := !half && (r.Stride <= 2 || r.Stride == 16 || known || r.Blocks != 8 && r.Blocks != 132)
		if full && !*gtFull {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			// The GPU's time is the whole launch's (its start and end
			// once); the model runs a short launch and one twice as long
			// and extrapolates the difference to the GPU's iterations.
			a := 64
			switch {
			case r.Blocks < 8:
				a = 256 // one SM's loads settle later (64 made it 40% slow)
			case r.Blocks > 8:
				a = 16
			case r.Stride >= 32:
				a = 32
			}
			cycles := func(iters int) float64 {
				js := fmt.Sprintf(`{"module": %q, "kernel": "gather_lines", "grid": [%d, 1, 1], "block": [1024, 1, 1],
  "buffers": [{"name": "p", "type": "f32", "count": 2097152}, {"name": "sink", "type": "f32", "count": 1}],
  "args": [{"buffer": "p"}, {"u32": 2097152}, {"u32": %d}, {"u32": %d}, {"buffer": "sink"}], "outputs": []}`,
					ptx, r.Blocks, r.Stride, iters)
				return h8.run(t, fmt.Sprintf("%s_%d", r.Name, iters), js)["sm__cycles_elapsed.max"]
			}
			c1, c2 := cycles(a), cycles(2*a)
			whole := c1 + (c2-c1)*float64(r.Iters-a)/float64(a)
			model := r.Sectors / (whole / float64(g.ClockMHz) * 1e3)
			gpuRate := r.Sectors / (r.US * 1e3)
			t.Logf("%-24s %3d SMs: %6.1f sectors/ns (GPU %6.1f, %+.1f%%)", r.Name, min(r.Blocks, 132), model, gpuRate, 100*(model/gpuRate-1))
			if reason, ok := linesKnown[r.Name]; ok {
				t.Logf("  known: %s", reason)
				return
			}
			assert.InEpsilon(t, gpuRate, model, linesTol, "%s: sectors a nanosecond", r.Name)
		})
	}
}

// linesKnown are the launches the model is not held to, with the reason
// (measured 2026-11-29 on the h200 profile, rates as the test logs them).
var linesKnown = func() map[string]string {
	const loop = "strides of 1 and 2 words are bound by the loop's instructions (nvcc's 64-bit remainder), not by memory: the model is 34-40% slow on one SM and 17-53% fast from 8 SMs up (2 blocks an SM: +51-53%), which is its issue of this loop, not the L2"
	m := map[string]string{}
	for _, s := range []string{"1", "2"} {
		for _, b := range []string{"1", "8", "33", "66", "132", "264"} {
			m["gather_stride"+s+"_blocks"+b] = loop
		}
	}
	return m
}()

// h200Runner runs launch specs in timing mode on the h200 profile.
type h200Runner struct {
	gpu   *gpu.Profile
	cache *spec.ModuleCache
	dir   string
}

func newH200Runner(t *testing.T) *h200Runner {
	return &h200Runner{gpu: gpu.MustLookup("h200"), cache: spec.NewModuleCache(), dir: t.TempDir()}
}

// run writes spec js as name.json, runs it and returns its metrics.
func (h *h200Runner) run(t *testing.T, name, js string) map[string]float64 {
	path := filepath.Join(h.dir, name+".json")
	require.NoError(t, os.WriteFile(path, []byte(js), 0o644))
	sp, err := spec.Load(path)
	require.NoError(t, err)
	run, err := scheduler.RunSpec(context.Background(), sp, h.gpu, scheduler.Options{Workers: 2, Mode: scheduler.ModeTiming}, h.cache)
	require.NoError(t, err)
	return run.Metrics()
}

// readHostmem returns the rows of testdata/host/FILE whose group is group,
// decoded as T, and requires n of them.
func readHostmem[T any](t *testing.T, file, group string, n int) []T {
	f, err := os.Open(filepath.Join("..", "testdata", "host", file))
	require.NoError(t, err)
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var g struct {
			Group string `json:"group"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &g))
		if g.Group != group {
			continue
		}
		var r T
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		out = append(out, r)
	}
	require.NoError(t, sc.Err())
	require.Len(t, out, n)
	return out
}
