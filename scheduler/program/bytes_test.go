package program_test

import (
	"bytes"
	"context"
	"os"
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
// device memory, with the hierarchy (and its apertures) counting. An
// output equal to the GPU's bytes (expected/NAME.bin) needs no run in
// device memory, which gives those bytes too (the corpus tests of
// scheduler/suite hold it to them); the launch runs in device memory when
// an output differs from the GPU's, has no .bin or the run fails, and the
// outputs are compared with that run's (2 of the 97 launches; until
// 2026-11-29 every launch ran in both).
func TestHostMemoryKeepsBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the nvcc corpus's -O3 launches")
	}
	specs, err := filepath.Glob("../../testdata/nvcc/cases/*/O3/spec.json")
	require.NoError(t, err)
	sort.Strings(specs)
	require.Greater(t, len(specs), 100)
	kinds := []string{spec.MemPinned, spec.MemMapped, spec.MemManaged}
	cache := spec.NewModuleCache()
	moved, asGPU := 0, 0
	for i, path := range specs {
		sp, err := spec.Load(path)
		require.NoError(t, err)
		if len(sp.Buffers) == 0 || sp.Textures != nil {
			continue // textures need device arrays
		}
		kind := kinds[i%len(kinds)]
		hsp, err := spec.Load(path)
		require.NoError(t, err)
		for j := range hsp.Buffers {
			hsp.Buffers[j].Memory = kind
		}
		host, herr := scheduler.RunSpec(context.Background(), hsp, scheduler.H100, scheduler.Options{Workers: 1}, cache)
		if herr == nil {
			host.Release()
			if sameAsGPU(filepath.Dir(path), host.Outputs) {
				asGPU++
				if m := host.Metrics(); m["ptxvm__host_link_bytes_read.sum"]+m["ptxvm__host_link_bytes_write.sum"]+m["ptxvm__managed_faults.sum"] > 0 {
					moved++
				}
				continue
			}
		}
		dev, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{Workers: 1}, cache)
		if err != nil {
			continue // a launch that faults on the GPU too
		}
		dev.Release()
		require.NoError(t, herr, "%s in %s memory", path, kind)
		for name, want := range dev.Outputs {
			assert.True(t, string(want) == string(host.Outputs[name]), "%s: output %s differs in %s memory", path, name, kind)
		}
		m := host.Metrics()
		if m["ptxvm__host_link_bytes_read.sum"]+m["ptxvm__host_link_bytes_write.sum"]+m["ptxvm__managed_faults.sum"] > 0 {
			moved++
		}
	}
	t.Logf("%d launches gave the GPU's bytes in host memory", asGPU)
	assert.Greater(t, moved, 50, "the launches' accesses reached host or managed memory")
}

// sameAsGPU says whether every output is byte for byte the GPU's
// (dir/expected/NAME.bin; false when one has no .bin).
func sameAsGPU(dir string, outs map[string][]byte) bool {
	if len(outs) == 0 {
		return false
	}
	for name, got := range outs {
		want, err := os.ReadFile(filepath.Join(dir, "expected", name+".bin"))
		if err != nil || !bytes.Equal(want, got) {
			return false
		}
	}
	return true
}
