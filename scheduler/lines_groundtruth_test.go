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
	"github.com/ptxvm/ptxvm/scheduler/timing"
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
// cycle, about 1.8 sectors a cycle) and on all 132 (what the L2's slices
// give: 82 one-sector transactions a cycle, 146 sectors a cycle in lines of
// two or four; the model's slices give 32 bytes a cycle whatever the
// transaction, which the H100's transposes want: linesKnown). The model runs fewer iterations than the GPU did (the rate
// is steady after the first few) and its rate, in sectors a nanosecond
// without the profile's launch cycles, must be within linesTol of the
// GPU's. Strides of 1 and 2 words are bound by the loop's instructions
// (nvcc's 64-bit remainder), not by memory; they run with
// -groundtruth.full, with the stride of 16, the known differences and the
// launches on 1, 33, 66 and 264 blocks (about 90 s on 2 cores).
func TestGatherLinesAgainstGPU(t *testing.T) {
	const linesTol = 0.15
	rows := readHostmem[linesRow](t, "hostmem8.jsonl", "lines", 30)
	ptx, err := filepath.Abs(filepath.Join("..", "testdata", "host", "ptx", "hostmem8.O3.ptx"))
	require.NoError(t, err)
	h8 := newH200Runner(t)
	g := h8.gpu
	tc, err := timing.Resolve(g)
	require.NoError(t, err)
	for _, r := range rows {
		_, known := linesKnown[r.Name]
		full := r.Stride <= 2 || r.Stride == 16 || known || r.Blocks != 8 && r.Blocks != 132
		if full && !*gtFull {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			// Enough loads for the rate to settle: a line a load takes
			// longest to fill the pipes.
			iters := 512
			switch {
			case r.Blocks > 8:
				iters = 32
			case r.Stride >= 32:
				iters = 128
			}
			js := fmt.Sprintf(`{"module": %q, "kernel": "gather_lines", "grid": [%d, 1, 1], "block": [1024, 1, 1],
  "buffers": [{"name": "p", "type": "f32", "count": 2097152}, {"name": "sink", "type": "f32", "count": 1}],
  "args": [{"buffer": "p"}, {"u32": 2097152}, {"u32": %d}, {"u32": %d}, {"buffer": "sink"}], "outputs": []}`,
				ptx, r.Blocks, r.Stride, iters)
			m := h8.run(t, r.Name, js)
			cycles := m["sm__cycles_elapsed.max"] - float64(tc.LaunchCycles)
			sectors := r.Sectors * float64(iters) / float64(r.Iters)
			model := sectors / (cycles / float64(g.ClockMHz) * 1e3)
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
var linesKnown = map[string]string{
	"gather_stride8_blocks132":  "the slices read 32 bytes a cycle in the model (170 sectors/ns against the GPU's 289): slices at 55 bytes a cycle for reads and at least 1.17 cycles a read transaction fit this group on 8-132 SMs, but made the H100's padded transposes (TestSliceBoundTransposeAgainstGPU) 11-12% fast and adam_big 7-11% fast (docs/timing-validation.md, \"Gathers from the L2\")",
	"gather_stride16_blocks132": "as gather_stride8_blocks132 (170 sectors/ns against 291)",
}

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
