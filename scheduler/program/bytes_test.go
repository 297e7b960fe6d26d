package program_test

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// Where a buffer lives changes what it costs, never what a kernel computes:
// every -O3 launch of the nvcc corpus gives the same output bytes with all
// its buffers pinned, mapped or managed (a kind per launch, in turn) as in
// device memory, with the hierarchy (and its apertures) counting.
func TestHostMemoryKeepsBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the nvcc corpus's -O3 launches twice")
	}
	specs, err := filepath.Glob("../../testdata/nvcc/cases/*/O3/spec.json")
	require.NoError(t, err)
	sort.Strings(specs)
	require.Greater(t, len(specs), 100)
	kinds := []string{spec.MemPinned, spec.MemMapped, spec.MemManaged}
	cache := spec.NewModuleCache()
	moved := 0
	for i, path := range specs {
		sp, err := spec.Load(path)
		require.NoError(t, err)
		if len(sp.Buffers) == 0 || sp.Textures != nil {
			continue // textures need device arrays
		}
		dev, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{Workers: 1}, cache)
		if err != nil {
			continue // a launch that faults on the GPU too
		}
		dev.Release()
		kind := kinds[i%len(kinds)]
		for j := range sp.Buffers {
			sp.Buffers[j].Memory = kind
		}
		host, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{Workers: 1}, cache)
		require.NoError(t, err, "%s in %s memory", path, kind)
		host.Release()
		for name, want := range dev.Outputs {
			assert.True(t, string(want) == string(host.Outputs[name]), "%s: output %s differs in %s memory", path, name, kind)
		}
		m := host.Metrics()
		if m["ptxvm__host_link_bytes_read.sum"]+m["ptxvm__host_link_bytes_write.sum"]+m["ptxvm__managed_faults.sum"] > 0 {
			moved++
		}
	}
	assert.Greater(t, moved, 50, "the launches' accesses reached host or managed memory")
}
