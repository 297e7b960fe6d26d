package scheduler_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// TestPartialWritesAgainstGPU holds the L2's partly written sectors to the
// H200 (testdata/host/ncu_hostmem7_partial.csv, ncu with its cache flush):
// store_perm reads a buffer coalesced and writes it permuted, consecutive
// threads `stride` words apart, so that each 32-byte sector is written 4
// bytes (stride 8, 32) or 16 bytes (stride 2) at a time and completed only
// by later passes over the buffer. A sector evicted before it is complete
// is read from DRAM and written back (read-modify-write): DRAM reads beyond
// the input's one byte per byte are those reads. The model, with the
// H200's profile, must be within gtPartialTol (of the buffer's bytes) of
// ncu's DRAM bytes read and written, but for the launches of
// gtPartialKnown. The default run takes the 4 MiB launches (the writes
// complete every sector in the L2: no read); -groundtruth.full all of them
// (2 minutes on 2 cores).
func TestPartialWritesAgainstGPU(t *testing.T) {
	rows := readPartialNcu(t)
	h200 := gpu.MustLookup("h200")
	dir := t.TempDir()
	ptx, err := filepath.Abs(filepath.Join("..", "testdata", "host", "ptx", "hostmem.O3.ptx"))
	require.NoError(t, err)
	cache := spec.NewModuleCache()
	for _, r := range rows {
		name := fmt.Sprintf("%dMiB_stride%d", r.mib, r.stride)
		if !*gtFull && r.mib > 4 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			n := r.mib << 20 / 4
			path := filepath.Join(dir, name+".json")
			js := fmt.Sprintf(`{"module": %q, "kernel": "store_perm", "grid": [%d, 1, 1], "block": [256, 1, 1],
  "buffers": [{"name": "in", "type": "f32", "count": %d}, {"name": "out", "type": "f32", "count": %d}],
  "args": [{"buffer": "in"}, {"buffer": "out"}, {"u32": %d}, {"u32": %d}, {"f32": 2.0}], "outputs": []}`,
				ptx, (n+255)/256, n, n, n, r.stride)
			require.NoError(t, os.WriteFile(path, []byte(js), 0o644))
			sp, err := spec.Load(path)
			require.NoError(t, err)
			run, err := scheduler.RunSpec(context.Background(), sp, h200, scheduler.Options{Workers: 2, MaxInst: 1 << 36}, cache)
			require.NoError(t, err)
			m := run.Metrics()
			b := float64(r.mib << 20)
			rd, wr := m["dram__bytes_read.sum"]/b, m["dram__bytes_write.sum"]/b
			grd, gwr := r.read/b, r.write/b
			t.Logf("%-18s DRAM read %.2f (ncu %.2f), write %.2f (ncu %.2f) bytes per buffer byte", name, rd, grd, wr, gwr)
			if reason, ok := gtPartialKnown[name]; ok {
				t.Logf("  known: %s", reason)
				return
			}
			assert.InDelta(t, grd, rd, gtPartialTol*max(1, grd), "%s: DRAM read bytes per buffer byte", name)
			assert.InDelta(t, gwr, wr, gtPartialTol*max(1, gwr), "%s: DRAM write bytes per buffer byte", name)
		})
	}
}

// gtPartialTol is the tolerance of TestPartialWritesAgainstGPU, in bytes
// per buffer byte (of the larger of 1 and ncu's figure): 10%.
const gtPartialTol = 0.10

// gtPartialKnown are the launches where the model is not held to ncu,
// with the reason (measured 2026-11-29, model read/write against ncu's, per
// buffer byte).
var gtPartialKnown = map[string]string{
	"16MiB_stride2":  "the GPU evicts partly written lines long before its L2 is full (in and out are 32 MiB of a 60 MiB L2; whole lines, stride 1, stay): read 1.73, write 0.77; ours keep them, 1.04 and 0.04",
	"16MiB_stride8":  "as 16MiB_stride2: ncu 1.76 and 0.83, ours 1.02 and 0.02",
	"16MiB_stride32": "as 16MiB_stride2: ncu 1.75 and 0.84, ours 1.01 and 0.02",
	"32MiB_stride2":  "reads within tolerance (1.98 against 1.94); writes 0.99 against 1.12 (the GPU's earlier eviction of partly written lines, as at 16 MiB)",
	"32MiB_stride8":  "ours read 3.67 where the GPU reads 1.91 (writes 2.67 against 2.42): the GPU's evicted sectors are more often complete (fewer reads than writes), its replacement order not the model's",
	"32MiB_stride32": "as 32MiB_stride8: read 3.04 against 1.89, write 2.10 against 2.24",
	"64MiB_stride2":  "read 2.58 against 2.89, write 1.58 against 1.91 (the earlier eviction of partly written lines)",
	"64MiB_stride32": "read 8.76 against 5.56 (write 7.76 against 7.55): as 32MiB_stride32, the GPU's evicted sectors are more often complete",
}

type partialRow struct {
	mib, stride int
	read, write float64
}

// readPartialNcu reads ncu_hostmem7_partial.csv (a header row, a units
// row, then mib, state ("strideN"), kernel and the metrics).
func readPartialNcu(t *testing.T) []partialRow {
	f, err := os.Open(filepath.Join("..", "testdata", "host", "ncu_hostmem7_partial.csv"))
	require.NoError(t, err)
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Greater(t, len(all), 2)
	col := map[string]int{}
	for i, h := range all[0] {
		col[h] = i
	}
	var out []partialRow
	for _, x := range all[2:] {
		var r partialRow
		var err error
		r.mib, err = strconv.Atoi(x[col["mib"]])
		require.NoError(t, err)
		_, err = fmt.Sscanf(x[col["state"]], "stride%d", &r.stride)
		require.NoError(t, err)
		r.read, err = strconv.ParseFloat(x[col["dram__bytes_read.sum"]], 64)
		require.NoError(t, err)
		r.write, err = strconv.ParseFloat(x[col["dram__bytes_write.sum"]], 64)
		require.NoError(t, err)
		require.False(t, math.IsNaN(r.read+r.write))
		out = append(out, r)
	}
	return out
}
