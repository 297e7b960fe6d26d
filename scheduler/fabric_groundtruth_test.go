package scheduler_test

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// gtFabricKnown are the launches whose fabric sectors the model is not held
// to, with the reason (measured 2026-11-29, model over ncu).
var gtFabricKnown = map[string]string{
	"copy_perm_stride32": "one-sector reads of a 256 MiB buffer, nearly all missing: the GPU counts 17.8 M sectors from the fabric, the model 9.4 M (0.53), and 33.5 M L2 read sectors against 25.2 M: a far miss crosses the fabric twice on the GPU (the seventh host recording's readstride group counts it twice too)",
}

// TestFabricSectorsAgainstGPU holds the sectors the model sends over the
// fabric between the L2's two partitions (lts__t_sectors_srcunit_ltcfabric:
// far reads that miss their near copy, far writes, far atomics) and the
// L2's read and write sectors to what the H200 counted for the perf
// corpus's transposes, copies and store stream
// (testdata/h200/perf/l2units, ncu's per-unit L2 counters; on the GPU the
// fabric is the L2's busiest unit in most of them:
// docs/timing-validation.md, "The fabric between the L2's partitions").
// Functional mode (the counters do not depend on time); the h200 profile.
// go test runs three of the nine; -groundtruth.full all.
func TestFabricSectorsAgainstGPU(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "h200", "perf", "l2units", "l2units.csv"))
	require.NoError(t, err)
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Len(t, all, 2+9, "a header, ncu's units and nine launches")
	col := map[string]int{}
	for i, h := range all[0] {
		col[h] = i
	}
	num := func(row []string, name string) float64 {
		i, ok := col[name]
		require.True(t, ok, "l2units.csv has no %s", name)
		v, err := strconv.ParseFloat(strings.ReplaceAll(row[i], ",", ""), 64)
		require.NoError(t, err, name)
		return v
	}
	quick := map[string]bool{"store_fill_64MiB": true, "transpose_padded_2048": true, "transpose_shared_2048": true}
	h200 := gpu.MustLookup("h200")
	cache := spec.NewModuleCache()
	for _, row := range all[2:] {
		name := row[0]
		if !*gtFull && !quick[name] {
			continue
		}
		t.Run(name, func(t *testing.T) {
			sp, err := spec.Load(filepath.Join("..", "testdata", "perf", "cases", name, "O3", "spec.json"))
			require.NoError(t, err)
			run, err := scheduler.RunSpec(context.Background(), sp, h200, scheduler.Options{Workers: 2, MaxInst: 1 << 36}, cache)
			require.NoError(t, err)
			m := run.Metrics()
			for _, k := range []string{"lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum"} {
				gpu := num(row, k)
				t.Logf("%-22s %-38s model %10.0f  ncu %10.0f  (%.3f)", name, k, m[k], gpu, m[k]/gpu)
				if reason, ok := gtFabricKnown[name]; ok {
					t.Logf("  known: %s", reason)
					continue
				}
				if k == "lts__t_sectors_op_read.sum" && gpu < 0.01*num(row, "lts__t_sectors_op_write.sum") {
					continue // a store stream: a few hundred reads, not held
				}
				assert.InDelta(t, 1, m[k]/gpu, 0.10, "%s: %s, model %.0f, ncu %.0f", name, k, m[k], gpu)
			}
		})
	}
}
