package scheduler_test

import (
	"context"
	"encoding/csv"
	"fmt"
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

// TestStridedReadsAgainstGPU holds the L2 and DRAM traffic of strided
// reads to the H200 (testdata/host/ncu_hostmem7_readstride.csv, ncu with
// its cache flush): copy_perm reads a buffer permuted, consecutive threads
// `stride` words apart, and writes it coalesced. With a stride of 8 or 32
// words each lane reads its own sector, and the sector's other words are
// read by later passes over the buffer: once the buffer and its copy no
// longer fit in the L2, each pass reads its sectors from DRAM again, in
// 64-byte units (a stride of 32 words reads 16 bytes from DRAM per byte of
// the buffer at 64 MiB, on the GPU and in the model). The model, with the
// H200's profile, must be within gtPartialTol of ncu's DRAM bytes read and
// written (per buffer byte) and of the L2 sectors L1 requests (per sector
// of the buffer), but for the launches of gtStrideKnown. The default run
// takes the 8 MiB launches; -groundtruth.full all of them (about 40 s on 2
// cores).
func TestStridedReadsAgainstGPU(t *testing.T) {
	rows := readStrideNcu(t)
	h200 := gpu.MustLookup("h200")
	dir := t.TempDir()
	ptx, err := filepath.Abs(filepath.Join("..", "testdata", "host", "ptx", "hostmem.O3.ptx"))
	require.NoError(t, err)
	cache := spec.NewModuleCache()
	for _, r := range rows {
		name := fmt.Sprintf("%dMiB_stride%d", r.mib, r.stride)
		if !*gtFull && r.mib > 8 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			n := r.mib << 20 / 4
			path := filepath.Join(dir, name+".json")
			js := fmt.Sprintf(`{"module": %q, "kernel": "copy_perm", "grid": [%d, 1, 1], "block": [256, 1, 1],
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
			s := b / 32
			rd, wr := m["dram__bytes_read.sum"]/b, m["dram__bytes_write.sum"]/b
			l2 := m["lts__t_sectors_srcunit_tex_op_read.sum"] / s
			grd, gwr, gl2 := r.read/b, r.write/b, r.l2read/s
			t.Logf("%-16s DRAM read %.2f (ncu %.2f), write %.2f (ncu %.2f) bytes per buffer byte; L2 read sectors %.2f (ncu %.2f) per buffer sector", name, rd, grd, wr, gwr, l2, gl2)
			if reason, ok := gtStrideKnown[name]; ok {
				t.Logf("  known: %s", reason)
				return
			}
			assert.InDelta(t, grd, rd, gtPartialTol*max(1, grd), "%s: DRAM read bytes per buffer byte", name)
			assert.InDelta(t, gwr, wr, gtPartialTol*max(1, gwr), "%s: DRAM write bytes per buffer byte", name)
			assert.InDelta(t, gl2, l2, gtPartialTol*gl2, "%s: L2 read sectors per buffer sector", name)
		})
	}
}

// gtStrideKnown are the launches where the model is not held to ncu, with
// the reason (measured 2026-11-29, the model against ncu, per buffer byte).
var gtStrideKnown = map[string]string{
	"32MiB_stride2":  "in and out (64 MiB) just overflow the 60 MiB L2: the GPU reads 1.95 bytes a byte, the model 1.71 (it keeps more of the first pass for the second)",
	"32MiB_stride8":  "as 32MiB_stride2: the GPU reads 2.06, the model 1.57; writes 0.86 against 0.57",
	"32MiB_stride32": "the GPU reads 2.25, the model 3.39: the GPU's L2 keeps more of a pass's single sectors than the model's LRU does when the working set just overflows it",
}

type strideRow struct {
	mib, stride         int
	read, write, l2read float64
}

// readStrideNcu reads ncu_hostmem7_readstride.csv (a header row, a units
// row, then mib, state ("strideN"), kernel and the metrics).
func readStrideNcu(t *testing.T) []strideRow {
	f, err := os.Open(filepath.Join("..", "testdata", "host", "ncu_hostmem7_readstride.csv"))
	require.NoError(t, err)
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Greater(t, len(all), 2)
	col := map[string]int{}
	for i, h := range all[0] {
		col[h] = i
	}
	num := func(x []string, name string) float64 {
		i, ok := col[name]
		require.True(t, ok, "no column %s", name)
		v, err := strconv.ParseFloat(x[i], 64)
		require.NoError(t, err, name)
		return v
	}
	var out []strideRow
	for _, x := range all[2:] {
		var r strideRow
		var err error
		r.mib, err = strconv.Atoi(x[col["mib"]])
		require.NoError(t, err)
		_, err = fmt.Sscanf(x[col["state"]], "stride%d", &r.stride)
		require.NoError(t, err)
		r.read = num(x, "dram__bytes_read.sum")
		r.write = num(x, "dram__bytes_write.sum")
		r.l2read = num(x, "lts__t_sectors_srcunit_tex_op_read.sum")
		out = append(out, r)
	}
	require.Len(t, out, 12)
	return out
}
