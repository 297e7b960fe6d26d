package scheduler_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// TestMetricsMatchNsightCompute runs every -O3 case of the nvcc corpus and
// checks the launch figures SpecRun.Metrics reports against what Nsight
// Compute measured for the same launch on the GPU (testdata/nvcc/ncu).
func TestMetricsMatchNsightCompute(t *testing.T) {
	root := filepath.Join("..", "testdata", "nvcc")
	f, err := os.Open(filepath.Join(root, "ncu", "O3.csv"))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	byID := map[int][]string{}
	for _, r := range rows[2:] { // rows[1] holds the units
		id, err := strconv.Atoi(r[col["ID"]])
		require.NoError(t, err)
		byID[id] = r
	}

	var manifest struct {
		Cases []struct {
			Name string
			Spec map[string]string
			Ncu  map[string]struct{ Launch *int }
		}
	}
	data, err := os.ReadFile(filepath.Join(root, "manifest.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &manifest))

	metrics := []string{"launch__grid_size", "launch__block_size",
		"launch__shared_mem_per_block_dynamic", "launch__shared_mem_per_block_static"}
	cache := spec.NewModuleCache()
	checked := 0
	for _, c := range manifest.Cases {
		n, ok := c.Ncu["O3"]
		if !ok || n.Launch == nil {
			continue
		}
		row, ok := byID[*n.Launch]
		require.True(t, ok, "%s: ncu launch %d missing", c.Name, *n.Launch)
		sp, err := spec.Load(filepath.Join(root, c.Spec["O3"]))
		require.NoError(t, err, c.Name)
		run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{MaxInst: 1 << 32}, cache)
		require.NoError(t, err, c.Name)
		got := run.Metrics()
		for _, m := range metrics {
			want, err := strconv.ParseFloat(strings.ReplaceAll(row[col[m]], ",", ""), 64)
			require.NoError(t, err, "%s: %s", c.Name, m)
			require.Equal(t, want, got[m], "%s: %s", c.Name, m)
		}
		require.Equal(t, float64(run.Result.Stats.Inst), got["ptxvm__ptx_inst_executed.sum"], c.Name)
		require.Equal(t, float64(run.Result.Stats.ThreadInst), got["ptxvm__ptx_thread_inst_executed.sum"], c.Name)
		for name := range got {
			// An ncu name only for a figure checked against ncu above.
			if !strings.HasPrefix(name, "ptxvm__") {
				require.Contains(t, metrics, name, "%s is reported under an Nsight Compute name but not checked against ncu", name)
			}
		}
		checked++
	}
	require.Greater(t, checked, 100)
}
