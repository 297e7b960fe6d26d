package gpu_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
)

func TestNames(t *testing.T) {
	assert.Equal(t, []string{"gf100", "h100"}, gpu.Names())
	for _, n := range []string{"h100", "H100", "gf100", "GF100"} {
		p, err := gpu.Lookup(n)
		require.NoError(t, err, n)
		assert.NotEmpty(t, p.Description)
	}
	_, err := gpu.Lookup("a100")
	assert.EqualError(t, err, `unknown GPU "a100" (known: gf100, h100)`)
	_, err = gpu.Load("a100")
	assert.ErrorContains(t, err, `unknown GPU "a100" (known: gf100, h100; or give a profile file)`)
	_, err = gpu.Load(filepath.Join(t.TempDir(), "missing.json"))
	assert.ErrorContains(t, err, "not one of gf100, h100 and not a readable file")
	_, err = gpu.Lookup("")
	assert.Error(t, err)
}

// The H100 profile's figures are the ones the driver reported on the GPU
// the corpora were recorded on (ncu's device__attribute_* of every launch).
func TestH100AgainstDevice(t *testing.T) {
	ls, err := ncu.Read("../../testdata/nvcc/ncu/O3.csv")
	require.NoError(t, err)
	require.NotEmpty(t, ls)
	d := ls[0]
	p := gpu.MustLookup("h100")
	attr := func(name string) int { return d.Int("device__attribute_" + name) }
	assert.Equal(t, attr("multiprocessor_count"), p.SMs)
	assert.Equal(t, attr("max_gpu_frequency_khz")/1000, p.ClockMHz)
	assert.Equal(t, attr("compute_capability_major"), 9)
	assert.Equal(t, "9.0", p.ComputeCap)
	assert.EqualValues(t, d.Int("device__attribute_total_memory"), p.DeviceMemory)
	assert.Equal(t, attr("max_warps_per_multiprocessor"), p.SM.MaxWarps)
	assert.Equal(t, attr("max_blocks_per_multiprocessor"), p.SM.MaxBlocks)
	assert.Equal(t, attr("max_registers_per_multiprocessor"), p.SM.Registers)
	assert.Equal(t, attr("max_registers_per_thread"), p.SM.MaxRegsPerThread)
	assert.Equal(t, attr("num_schedulers_per_multiprocessor"), p.SM.SubPartitions)
	assert.Equal(t, attr("max_shared_memory_per_multiprocessor"), p.SM.Shared)
	assert.Equal(t, attr("max_shared_memory_per_block_optin"), p.Launch.MaxSharedPerBlock)
	assert.Equal(t, attr("reserved_shared_memory_per_block"), p.Memory.L1.ReservedSharedPerCTA)
	assert.Equal(t, attr("max_threads_per_block"), p.Launch.MaxThreadsPerBlock)
	assert.Equal(t, [3]int{attr("max_block_dim_x"), attr("max_block_dim_y"), attr("max_block_dim_z")}, p.Launch.MaxBlockDim)
	assert.Equal(t, [3]int{attr("max_grid_dim_x"), attr("max_grid_dim_y"), attr("max_grid_dim_z")}, p.Launch.MaxGridDim)
	assert.Equal(t, attr("total_constant_memory"), p.Launch.ConstBytes)
	assert.Equal(t, attr("l2_cache_size"), p.Memory.L2.SizeBytes)
	assert.Equal(t, attr("l2s_count"), p.Memory.L2.Slices)
	assert.Equal(t, attr("warp_size"), 32)
}

// The GF100 profile holds the figures of the source texts (compute
// capability 2.0, GTX 480).
func TestGF100(t *testing.T) {
	p := gpu.MustLookup("gf100")
	assert.Equal(t, "2.0", p.ComputeCap)
	assert.Equal(t, 15, p.SMs)
	assert.Equal(t, 48, p.SM.MaxWarps)
	assert.Equal(t, 8, p.SM.MaxBlocks)
	assert.Equal(t, 32768, p.SM.Registers)
	assert.Equal(t, 63, p.SM.MaxRegsPerThread)
	assert.Equal(t, 48<<10, p.SM.Shared)
	assert.Equal(t, 768<<10, p.Memory.L2.SizeBytes)
	assert.Equal(t, 65535, p.Launch.MaxGridDim[0])
	assert.Equal(t, hier.RulesFermi, p.Memory.Coalescing)
}

// The memory section of each GPU profile is the hierarchy package's
// profile of the same name, so that the two cannot drift apart.
func TestMemoryMatchesHier(t *testing.T) {
	for _, n := range gpu.Names() {
		p := gpu.MustLookup(n)
		c, err := hier.Profile(n)
		require.NoError(t, err)
		assert.Equal(t, *c, p.Memory, n)
	}
}

// A profile round-trips through its file format, and a user's copy with
// another L1 size, line size or bank count loads without recompiling.
func TestFile(t *testing.T) {
	p := gpu.MustLookup("h100")
	p.Name = "h100-big-l1"
	p.Memory.Name = p.Name
	p.Memory.Shared.Banks = 64
	p.Memory.LineBytes = 64
	p.Memory.L1.UnifiedBytes = 512 << 10
	data, err := p.MarshalIndent()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "mine.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	got, err := gpu.Load(path)
	require.NoError(t, err)
	assert.Equal(t, p, got)

	require.NoError(t, os.WriteFile(path, []byte(`{"name": "x", "sms": 1, "no_such_field": 3}`), 0o644))
	_, err = gpu.Load(path)
	assert.ErrorContains(t, err, "no_such_field")
}

func TestValidate(t *testing.T) {
	mod := func(f func(p *gpu.Profile)) *gpu.Profile {
		p := gpu.MustLookup("h100")
		f(p)
		return p
	}
	cases := []struct {
		name string
		p    *gpu.Profile
		want string
	}{
		{"no name", mod(func(p *gpu.Profile) { p.Name = "" }), "name"},
		{"compute capability", mod(func(p *gpu.Profile) { p.ComputeCap = "nine" }), "compute_capability"},
		{"no SMs", mod(func(p *gpu.Profile) { p.SMs = 0 }), "sms"},
		{"warps", mod(func(p *gpu.Profile) { p.SM.MaxWarps = 62 }), "sm.max_warps"},
		{"register parts", mod(func(p *gpu.Profile) { p.SM.RegisterFileParts = 3 }), "sm.registers"},
		{"block larger than SM", mod(func(p *gpu.Profile) { p.Launch.MaxThreadsPerBlock = 4096 }), "max_threads_per_block"},
		{"shared per block", mod(func(p *gpu.Profile) { p.Launch.MaxSharedPerBlock = 300 << 10 }), "max_shared_per_block"},
		{"memory SMs", mod(func(p *gpu.Profile) { p.Memory.SMs = 7 }), "memory.sms"},
		{"memory", mod(func(p *gpu.Profile) { p.Memory.Shared.Banks = 33 }), "shared.banks"},
		{"largest carveout", mod(func(p *gpu.Profile) { p.SM.Shared = 240 << 10 }), "sm.shared_bytes"},
		{"barriers", mod(func(p *gpu.Profile) { p.SM.Barriers = -1 }), "sm.barriers"},
		{"device memory", mod(func(p *gpu.Profile) { p.DeviceMemory = 0 }), "device_memory_bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.ErrorContains(t, c.p.Validate(), c.want)
		})
	}
}
