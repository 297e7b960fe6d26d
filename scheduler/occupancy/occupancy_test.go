package occupancy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/occupancy"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

const testdata = "../../testdata"

func corpus(t *testing.T) []*ncu.Launch {
	t.Helper()
	ls, err := ncu.ReadAll(testdata)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(ls), 222, "the nvcc corpus's O3 and G tables")
	return ls
}

func input(l *ncu.Launch, carveout bool) occupancy.Input {
	in := occupancy.Input{
		Threads:   l.Int("launch__block_size"),
		Registers: l.Int("launch__registers_per_thread"),
		Shared:    l.Int("launch__shared_mem_per_block_static") + l.Int("launch__shared_mem_per_block_dynamic"),
		Barriers:  l.Int("launch__barrier_count"),
		Blocks:    l.Int("launch__grid_size"),
	}
	if carveout {
		in.Carveout = l.Int("launch__shared_mem_config_size")
	}
	return in
}

// TestAgainstNcu: given ncu's register count (and the carveout the driver
// chose), every occupancy figure equals ncu's for every launch of every
// corpus under testdata.
func TestAgainstNcu(t *testing.T) {
	h100 := gpu.MustLookup("h100")
	n := 0
	for _, l := range corpus(t) {
		r, err := occupancy.Compute(h100, input(l, true))
		require.NoError(t, err, l.Name())
		want := func(m string) float64 {
			v, ok := l.Value(m)
			require.True(t, ok, "%s: %s", l.Name(), m)
			return v
		}
		for _, m := range r.Metrics() {
			if m.Name == "launch__waves_per_multiprocessor" {
				// ncu prints two decimals.
				assert.InDelta(t, want(m.Name), m.Value, 0.005+1e-9, "%s: %s", l.Name(), m.Name)
				continue
			}
			assert.InDelta(t, want(m.Name), m.Value, 0.005, "%s: %s", l.Name(), m.Name)
		}
		n++
	}
	t.Logf("%d launches: every occupancy figure equals ncu's", n)
}

// TestCarveoutPrediction: the carveout the package predicts when none is
// given, against the one the driver chose. The rule
// (hier.Config.CarveoutFor) reproduces 221 of the nvcc corpus's 222
// launches (generic_ptr at -G is the miss); the other corpora are reported.
func TestCarveoutPrediction(t *testing.T) {
	h100 := gpu.MustLookup("h100")
	hit := map[string][2]int{}
	for _, l := range corpus(t) {
		r, err := occupancy.Compute(h100, input(l, false))
		require.NoError(t, err, l.Name())
		c := hit[l.Corpus]
		c[1]++
		if r.Carveout == l.Int("launch__shared_mem_config_size") {
			c[0]++
			assert.Equal(t, l.Int("launch__occupancy_limit_shared_mem"), r.LimitShared, l.Name())
			pct, _ := l.Value("sm__maximum_warps_per_active_cycle_pct")
			assert.InDelta(t, pct, r.Pct, 0.005, l.Name())
		} else {
			t.Logf("%s: carveout %d KiB predicted, the driver chose %d KiB", l.Name(), r.Carveout>>10, l.Int("launch__shared_mem_config_size")>>10)
		}
		hit[l.Corpus] = c
	}
	for corpus, c := range hit {
		t.Logf("%s: carveout predicted for %d of %d launches", corpus, c[0], c[1])
	}
	assert.GreaterOrEqual(t, hit["nvcc"][0], 221)
}

// TestBarriers: the barrier count read from the PTX equals ncu's
// launch__barrier_count (ptxas's) for every launch of the nvcc corpus.
func TestBarriers(t *testing.T) {
	cache := map[string]*vm.Module{}
	for _, l := range corpus(t) {
		if l.Corpus != "nvcc" {
			continue
		}
		sp, err := spec.Load(l.SpecPath())
		require.NoError(t, err, l.Name())
		path := filepath.Join(sp.Dir, sp.Module)
		m, ok := cache[path]
		if !ok {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			m, err = vm.NewDevice().LoadModule(path, src)
			require.NoError(t, err)
			cache[path] = m
		}
		k, err := m.Kernel(sp.Kernel)
		require.NoError(t, err, l.Name())
		assert.Equal(t, l.Int("launch__barrier_count"), occupancy.Barriers(k), l.Name())
	}
}

// TestTextbook: the source texts' occupancy questions, on both profiles.
func TestTextbook(t *testing.T) {
	h100, gf100 := gpu.MustLookup("h100"), gpu.MustLookup("gf100")
	tests := []struct {
		name    string
		p       *gpu.Profile
		in      occupancy.Input
		blocks  int
		pct     float64
		limiter string
	}{
		// Fermi: 48 warps, 8 blocks, 32 Ki registers allocated per warp in
		// 64s, 48 KiB of shared memory.
		{"fermi 256 threads, 20 regs", gf100, occupancy.Input{Threads: 256, Registers: 20}, 6, 100, "warps"},
		{"fermi 256 threads, 21 regs", gf100, occupancy.Input{Threads: 256, Registers: 21}, 5, 5 * 8 * 100.0 / 48, "registers"},
		{"fermi 128 threads, 12 KiB shared", gf100, occupancy.Input{Threads: 128, Registers: 16, Shared: 12 << 10}, 4, 4 * 4 * 100.0 / 48, "shared memory"},
		{"fermi 64 threads", gf100, occupancy.Input{Threads: 64, Registers: 16}, 8, 8 * 2 * 100.0 / 48, "blocks"},
		// H100: 64 warps, 32 blocks, 64 Ki registers in four parts.
		{"h100 256 threads, 32 regs", h100, occupancy.Input{Threads: 256, Registers: 32}, 8, 100, "registers"},
		{"h100 256 threads, 33 regs", h100, occupancy.Input{Threads: 256, Registers: 33}, 6, 75, "registers"},
		{"h100 1024 threads, 64 regs", h100, occupancy.Input{Threads: 1024, Registers: 64}, 1, 50, "registers"},
		{"h100 3 barriers", h100, occupancy.Input{Threads: 32, Registers: 16, Barriers: 3}, 21, 21 * 100.0 / 64, "barriers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := occupancy.Compute(tt.p, tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.blocks, r.BlocksPerSM)
			assert.InDelta(t, tt.pct, r.Pct, 1e-9)
			assert.Contains(t, r.Limiters(), tt.limiter)
		})
	}
}

func TestRefused(t *testing.T) {
	h100 := gpu.MustLookup("h100")
	for _, in := range []occupancy.Input{
		{Threads: 0},
		{Threads: 1025},
		{Threads: 256, Registers: 256},
		{Threads: 1024, Registers: 65},
		{Threads: 32, Shared: 228 << 10},
	} {
		_, err := occupancy.Compute(h100, in)
		assert.Error(t, err, "%+v", in)
	}
}
