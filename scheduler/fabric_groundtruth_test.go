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
	"copy_perm_stride32": "one-sector reads of a 64 MiB buffer, nearly all missing: the GPU counts 17.8 M sectors from the fabric, the model 9.4 M (0.53), and 33.5 M L2 read sectors against 25.2 M: a far miss crosses the fabric twice on the GPU (the seventh host recording's readstride group counts it twice too)",
	"cp_32M_s32":         "one-sector reads of 32 MiB, in and out overflowing the L2 a little: the GPU counts 3.39 M sectors from the fabric, the model 2.37 M (0.70), for its far misses as copy_perm_stride32",
}

// TestFabricSectorsAgainstGPU holds the sectors the model sends over the
// fabric between the L2's two partitions (lts__t_sectors_srcunit_ltcfabric:
// far reads that miss their near copy, far writes, far atomics) and the
// L2's read and write sectors to what the H200 counted
// (testdata/h200/perf/l2units, ncu's per-unit L2 counters): the perf
// corpus's transposes, copies and store stream (l2units.csv; on the GPU the
// fabric is the L2's busiest unit in most of them), and copy_perm at 8 and
// 32 MiB with strides of 1, 8 and 32 words (strides.csv; the tags are the
// busiest at a stride of 32): docs/timing-validation.md, "The fabric
// between the L2's partitions". The first in functional mode, within 10%;
// the strides in timing mode, within 15%; the h200 profile. go test runs five of the fifteen;
// -groundtruth.full all.
func TestFabricSectorsAgainstGPU(t *testing.T) {
	dir := filepath.Join("..", "testdata", "h200", "perf", "l2units")
	quick := map[string]bool{"store_fill_64MiB": true, "transpose_padded_2048": true, "transpose_shared_2048": true, "cp_8M_s32": true, "cp_8M_s8": true}
	h200 := gpu.MustLookup("h200")
	cache := spec.NewModuleCache()
	for _, set := range []struct {
		file string
		n    int
		spec func(name string) string
		mode string
		tol  float64
	}{
		{"l2units.csv", 9, func(name string) string {
			return filepath.Join("..", "testdata", "perf", "cases", name, "O3", "spec.json")
		}, scheduler.ModeFunctional, 0.10},
		// In timing mode: which far reads find their near copy depends on
		// the order the SMs' accesses reach the L2, and functional mode's
		// fixed order gives the strided copies 0.55-0.89 of ncu's fabric
		// sectors where timing gives 0.87-0.96.
		{"strides.csv", 6, func(name string) string { return filepath.Join(dir, "specs", name+".json") }, scheduler.ModeTiming, 0.15},
	} {
		f, err := os.Open(filepath.Join(dir, set.file))
		require.NoError(t, err)
		all, err := csv.NewReader(f).ReadAll()
		f.Close()
		require.NoError(t, err)
		require.Len(t, all, 2+set.n, "%s: a header, ncu's units and the launches", set.file)
		col := map[string]int{}
		for i, h := range all[0] {
			col[h] = i
		}
		num := func(row []string, name string) float64 {
			i, ok := col[name]
			require.True(t, ok, "%s has no %s", set.file, name)
			v, err := strconv.ParseFloat(strings.ReplaceAll(row[i], ",", ""), 64)
			require.NoError(t, err, name)
			return v
		}
		for _, row := range all[2:] {
			name := row[0]
			if !*gtFull && !quick[name] {
				continue
			}
			t.Run(name, func(t *testing.T) {
				sp, err := spec.Load(set.spec(name))
				require.NoError(t, err)
				run, err := scheduler.RunSpec(context.Background(), sp, h200, scheduler.Options{Mode: set.mode, Workers: 2, MaxInst: 1 << 36}, cache)
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
					assert.InDelta(t, 1, m[k]/gpu, set.tol, "%s: %s, model %.0f, ncu %.0f", name, k, m[k], gpu)
				}
			})
		}
	}
}
