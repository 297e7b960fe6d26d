package scheduler_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// permRow is a launch of one of the seventh host recording's permuted
// kernels under ncu (testdata/host/ncu_hostmem7_*.csv): the buffer's size,
// the stride, and ncu's metrics by name.
type permRow struct {
	mib, stride int
	m           map[string]float64
}

// readPermNcu reads table file of testdata/host (a header row, a units
// row, then mib, state ("strideN"), kernel and the metrics), requiring the
// metrics named.
func readPermNcu(t *testing.T, file string, metrics ...string) []permRow {
	f, err := os.Open(filepath.Join("..", "testdata", "host", file))
	require.NoError(t, err)
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Greater(t, len(all), 2)
	col := map[string]int{}
	for i, h := range all[0] {
		col[h] = i
	}
	var out []permRow
	for _, x := range all[2:] {
		r := permRow{m: map[string]float64{}}
		var err error
		r.mib, err = strconv.Atoi(x[col["mib"]])
		require.NoError(t, err)
		_, err = fmt.Sscanf(x[col["state"]], "stride%d", &r.stride)
		require.NoError(t, err)
		for _, name := range metrics {
			i, ok := col[name]
			require.True(t, ok, "%s has no %s", file, name)
			r.m[name], err = strconv.ParseFloat(x[i], 64)
			require.NoError(t, err, name)
		}
		out = append(out, r)
	}
	return out
}

// permRunner runs hostmem.O3.ptx's permuted kernels (copy_perm,
// store_perm: in and out of mib MiB, consecutive threads stride words
// apart on one side) functionally on the h200 profile.
type permRunner struct {
	ptx, dir string
	cache    *spec.ModuleCache
	gpu      *gpu.Profile
}

func newPermRunner(t *testing.T) *permRunner {
	ptx, err := filepath.Abs(filepath.Join("..", "testdata", "host", "ptx", "hostmem.O3.ptx"))
	require.NoError(t, err)
	return &permRunner{ptx: ptx, dir: t.TempDir(), cache: spec.NewModuleCache(), gpu: gpu.MustLookup("h200")}
}

// run returns the launch's metrics.
func (p *permRunner) run(t *testing.T, kernel string, mib, stride int) map[string]float64 {
	n := mib << 20 / 4
	path := filepath.Join(p.dir, fmt.Sprintf("%s_%dMiB_stride%d.json", kernel, mib, stride))
	js := fmt.Sprintf(`{"module": %q, "kernel": %q, "grid": [%d, 1, 1], "block": [256, 1, 1],
  "buffers": [{"name": "in", "type": "f32", "count": %d}, {"name": "out", "type": "f32", "count": %d}],
  "args": [{"buffer": "in"}, {"buffer": "out"}, {"u32": %d}, {"u32": %d}, {"f32": 2.0}], "outputs": []}`,
		p.ptx, kernel, (n+255)/256, n, n, n, stride)
	require.NoError(t, os.WriteFile(path, []byte(js), 0o644))
	sp, err := spec.Load(path)
	require.NoError(t, err)
	run, err := scheduler.RunSpec(context.Background(), sp, p.gpu, scheduler.Options{Workers: 2, MaxInst: 1 << 36}, p.cache)
	require.NoError(t, err)
	return run.Metrics()
}
