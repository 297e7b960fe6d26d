package scheduler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// TestProfiles: the shared profiles are the embedded ones, and the H100's
// limits are those the VM checks.
func TestProfiles(t *testing.T) {
	assert.Equal(t, gpu.MustLookup("h100"), scheduler.H100)
	assert.Equal(t, gpu.MustLookup("gf100"), scheduler.GF100)
	// The H100's per-block shared memory is the limit the VM checks.
	assert.Equal(t, memspace.MaxSharedPerCTA, scheduler.H100.Launch.MaxSharedPerBlock)
	assert.Equal(t, vm.MaxThreadsPerBlock, scheduler.H100.Launch.MaxThreadsPerBlock)
	assert.Equal(t, vm.MaxGridDimX, scheduler.H100.Launch.MaxGridDim[0])
}

func TestLookupProfile(t *testing.T) {
	for name, want := range map[string]*scheduler.Profile{"h100": scheduler.H100, "H100": scheduler.H100, "gf100": scheduler.GF100, "GF100": scheduler.GF100, "Gf100": scheduler.GF100} {
		p, err := scheduler.LookupProfile(name)
		require.NoError(t, err, name)
		assert.Same(t, want, p, name)
	}
	_, err := scheduler.LookupProfile("a100")
	require.EqualError(t, err, `unknown GPU "a100" (known: gf100, h100, h200; or give a profile file)`)
	_, err = scheduler.LookupProfile("")
	require.Error(t, err)
	// A file.
	data, err := scheduler.GF100.MarshalIndent()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "fermi.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	p, err := scheduler.LookupProfile(path)
	require.NoError(t, err)
	assert.Equal(t, scheduler.GF100, p)
}

// specWith returns the matmul_tiled_ragged case's spec with its geometry
// changed, checked as a spec file is.
func specWith(t *testing.T, grid, block []uint32, dyn uint64) (*spec.Spec, error) {
	t.Helper()
	dir := filepath.Join("..", "testdata", "nvcc", "cases", "matmul_tiled_ragged", "O3")
	sp, err := spec.Load(filepath.Join(dir, "spec.json"))
	require.NoError(t, err)
	sp.Grid, sp.Block, sp.DynamicSharedBytes = grid, block, dyn
	data, err := json.Marshal(sp)
	require.NoError(t, err)
	return spec.Parse(data, dir)
}

// TestHardwareLimits checks that launches over the limits of compute
// capability 9.0 are refused with an error that names the limit, before
// anything runs, and that launches at the limits are accepted.
func TestHardwareLimits(t *testing.T) {
	tests := []struct {
		name        string
		grid, block []uint32
		dyn         uint64
		err         string
	}{
		{"ok", []uint32{7, 7}, []uint32{16, 16}, 0, ""},
		{"largest grid", []uint32{1<<31 - 1, 65535, 65535}, []uint32{16, 16}, 0, ""},
		{"largest block", []uint32{1}, []uint32{1024}, 0, ""},
		{"largest block z", []uint32{1}, []uint32{1, 16, 64}, 0, ""},
		{"most shared", []uint32{1}, []uint32{16, 16}, 227<<10 - 2048, ""},
		{"grid y", []uint32{1, 65536, 1}, []uint32{16, 16}, 0, "exceeds the limits (2147483647, 65535, 65535)"},
		{"grid z", []uint32{1, 1, 65536}, []uint32{16, 16}, 0, "exceeds the limits (2147483647, 65535, 65535)"},
		{"grid x", []uint32{1 << 31, 1, 1}, []uint32{16, 16}, 0, "exceeds the limits (2147483647, 65535, 65535)"},
		{"1025 threads", []uint32{1}, []uint32{1025}, 0, "exceeds the limits (1024, 1024, 64)"},
		{"too many threads", []uint32{1}, []uint32{64, 32}, 0, "has 2048 threads; at most 1024 are allowed"},
		{"block z", []uint32{1}, []uint32{1, 1, 65}, 0, "exceeds the limits (1024, 1024, 64)"},
		{"shared", []uint32{1}, []uint32{16, 16}, 227<<10 - 2047, "exceed the 232448-byte limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, err := specWith(t, tt.grid, tt.block, tt.dyn)
			require.NoError(t, err)
			p, err := sp.Prepare(vm.NewDevice(), nil)
			if tt.err == "" {
				require.NoError(t, err)
				assert.Equal(t, int(tt.grid[0])*int(p.Launch.Grid[1])*int(p.Launch.Grid[2]), p.Launch.NumCTAs())
				require.NoError(t, scheduler.CheckLaunch(scheduler.H100, p.Launch))
				return
			}
			require.ErrorContains(t, err, tt.err)
			assert.Contains(t, err.Error(), "kernel _Z12matmul_tiledPfPKfS1_j")
			assert.False(t, vm.IsRuntime(err), "a launch error is not a run-time error")
			// RunSpec reports it, with no result; a budget would stop
			// the launch if it ran.
			run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{MaxInst: 1 << 20}, nil)
			require.ErrorContains(t, err, tt.err)
			assert.Nil(t, run)
		})
	}
}

func TestZeroDimensionsRejected(t *testing.T) {
	for _, tt := range []struct {
		grid, block []uint32
		err         string
	}{
		{[]uint32{0, 1, 1}, []uint32{16, 16}, `"grid" dimension 0 is zero`},
		{[]uint32{1, 1, 1}, []uint32{16, 0}, `"block" dimension 1 is zero`},
		{[]uint32{}, []uint32{16}, `"grid" must have 1 to 3 dimensions`},
		{[]uint32{1, 1, 1, 1}, []uint32{16}, `"grid" must have 1 to 3 dimensions`},
	} {
		_, err := specWith(t, tt.grid, tt.block, 0)
		require.ErrorContains(t, err, tt.err, "grid %v block %v", tt.grid, tt.block)
	}
	// Through the device API.
	l, _, _ := launch(t, loopSrc, "loop", [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 4)
	for _, cfg := range []vm.LaunchConfig{
		{Grid: [3]uint32{0, 1, 1}, Block: [3]uint32{1, 1, 1}},
		{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 0}},
	} {
		_, err := l.Module.PrepareLaunch("loop", cfg, [][]byte{make([]byte, 8)})
		require.ErrorContains(t, err, "kernel loop: grid", "%+v", cfg)
		require.ErrorContains(t, err, "must have no zero dimension", "%+v", cfg)
	}
}

// TestProfileLimits: a launch that fits the H100 but not a block of the
// GF100 (48 KiB of shared memory, 65535 blocks in x) is refused on the
// GF100.
func TestProfileLimits(t *testing.T) {
	tests := []struct {
		name        string
		grid, block []uint32
		dyn         uint64
		err         string // on the GF100
	}{
		{"fits both", []uint32{7, 7}, []uint32{16, 16}, 40 << 10, ""},
		{"shared", []uint32{7, 7}, []uint32{16, 16}, 48 << 10, "exceed the GF100's 49152 bytes per block"},
		{"grid x", []uint32{65536, 1}, []uint32{16, 16}, 0, "grid (65536,1,1) exceeds the GF100's 65535 blocks in x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, gpu := range []*scheduler.Profile{scheduler.GF100, scheduler.H100} {
				sp, err := specWith(t, tt.grid, tt.block, tt.dyn)
				require.NoError(t, err)
				dev := vm.NewDevice()
				p, err := sp.Prepare(dev, nil)
				require.NoError(t, err)
				if tt.err != "" && gpu == scheduler.GF100 {
					// (A budget stops the launch quickly if it is not refused.)
					// The GF100 cannot run sm_90 PTX; asked to anyway, its
					// limits apply.
					_, err = scheduler.RunFunctional(context.Background(), p.Launch, gpu, scheduler.Options{MaxInst: 1 << 20})
					require.ErrorContains(t, err, "the module targets sm_90; the GF100 (compute capability 2.0) cannot run it")
					_, err = scheduler.RunFunctional(context.Background(), p.Launch, gpu, scheduler.Options{MaxInst: 1 << 20, AnyTarget: true})
					require.ErrorContains(t, err, tt.err)
					assert.Contains(t, err.Error(), "kernel _Z12matmul_tiledPfPKfS1_j")
					assert.Zero(t, p.Launch.InstExecuted(), "nothing ran")
					continue
				}
				if tt.grid[0] > 1000 {
					continue // fits the H100; too long to run here
				}
				_, err = scheduler.RunFunctional(context.Background(), p.Launch, gpu, scheduler.Options{AnyTarget: true})
				require.NoError(t, err, gpu.Name)
			}
		})
	}
}

// TestRunSpecErrors checks that a spec that cannot be prepared fails with
// an error (no panic) and no result.
func TestRunSpecErrors(t *testing.T) {
	tests := []struct {
		name string
		spec string
		err  string
	}{
		{"missing module", `{"module": "nope.ptx", "kernel": "k", "grid": [1], "block": [1], "args": []}`, "nope.ptx"},
		{"unknown kernel", `{"module": "../../../ptx/matmul.O3.ptx", "kernel": "k", "grid": [1], "block": [1], "args": []}`, "k"},
		{"wrong arguments", `{"module": "../../../ptx/matmul.O3.ptx", "kernel": "_Z12matmul_tiledPfPKfS1_j", "grid": [1], "block": [1], "args": [{"u32": 1}]}`, "kernel matmul_tiled takes 4 parameters, the spec gives 1 arguments"},
	}
	dir := filepath.Join("..", "testdata", "nvcc", "cases", "matmul_tiled_ragged", "O3")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.True(t, json.Valid([]byte(tt.spec)))
			sp, err := spec.Parse([]byte(tt.spec), dir)
			require.NoError(t, err)
			run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{}, nil)
			require.ErrorContains(t, err, tt.err)
			assert.Nil(t, run)
		})
	}
}

// TestCheckLaunchThreads: a block larger than an SM holds is refused; a
// profile field left zero sets no limit.
func TestCheckLaunchThreads(t *testing.T) {
	l, _, _ := launch(t, loopSrc, "loop", [3]uint32{70000, 1, 1}, [3]uint32{1024, 1, 1}, 4)
	small := &scheduler.Profile{Name: "small", SMs: 2, SM: gpu.SMLimits{MaxWarps: 16}, Launch: gpu.LaunchLimits{MaxThreadsPerBlock: 1024}}
	require.EqualError(t, scheduler.CheckLaunch(small, l), "kernel loop: block (1024,1,1) has 1024 threads; the small allows 512 per block")
	narrow := &scheduler.Profile{Name: "narrow", SMs: 2, Launch: gpu.LaunchLimits{MaxThreadsPerBlock: 256}}
	require.EqualError(t, scheduler.CheckLaunch(narrow, l), "kernel loop: block (1024,1,1) has 1024 threads; the narrow allows 256 per block")
	require.NoError(t, scheduler.CheckLaunch(&scheduler.Profile{Name: "bare", SMs: 1}, l))
	require.NoError(t, scheduler.CheckLaunch(scheduler.H100, l))
	require.ErrorContains(t, scheduler.CheckLaunch(scheduler.GF100, l), "exceeds the GF100's 65535 blocks in x")
}

func TestCheckTarget(t *testing.T) {
	sm80 := &scheduler.Profile{Name: "A100", ComputeCap: "8.0"}
	for _, c := range []struct {
		gpu     *scheduler.Profile
		targets []string
		err     string
	}{
		{scheduler.H100, []string{"sm_90"}, ""},
		{scheduler.H100, []string{"sm_90a"}, ""},
		{scheduler.H100, []string{"sm_52", "texmode_independent"}, ""},
		{scheduler.H100, []string{"sm_100"}, "the module targets sm_100; the H100 (compute capability 9.0) cannot run it: sm_100 code needs compute capability 10.0 or later"},
		{scheduler.H100, []string{"sm_100a"}, "sm_100a code runs only on compute capability 10.0"},
		{scheduler.H100, []string{"sm_90f"}, ""},
		{scheduler.H100, []string{"sm_100f"}, "sm_100f code runs only on compute capability 10.x from 10.0"},
		{scheduler.GF100, []string{"sm_90"}, "the module targets sm_90; the GF100 (compute capability 2.0) cannot run it: sm_90 code needs compute capability 9.0 or later"},
		{scheduler.GF100, []string{"sm_20"}, ""},
		{sm80, []string{"sm_90a"}, "runs only on compute capability 9.0"},
		{sm80, []string{"sm_75"}, ""},
		{scheduler.H100, nil, ""},
	} {
		t.Run(fmt.Sprintf("%s %v", c.gpu.Name, c.targets), func(t *testing.T) {
			err := scheduler.CheckTarget(c.gpu, c.targets)
			if c.err == "" {
				assert.NoError(t, err)
				return
			}
			var te *scheduler.TargetError
			require.ErrorAs(t, err, &te)
			assert.Contains(t, err.Error(), c.err)
		})
	}
}
