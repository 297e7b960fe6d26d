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
	assert.Equal(t, []string{"gf100", "h100", "h200"}, gpu.Names())
	for _, n := range []string{"h100", "H100", "gf100", "GF100", "h200"} {
		p, err := gpu.Lookup(n)
		require.NoError(t, err, n)
		assert.NotEmpty(t, p.Description)
	}
	_, err := gpu.Lookup("a100")
	assert.EqualError(t, err, `unknown GPU "a100" (known: gf100, h100, h200)`)
	_, err = gpu.Load("a100")
	assert.ErrorContains(t, err, `unknown GPU "a100" (known: gf100, h100, h200; or give a profile file)`)
	_, err = gpu.Load(filepath.Join(t.TempDir(), "missing.json"))
	assert.ErrorContains(t, err, "not one of gf100, h100, h200 and not a readable file")
	_, err = gpu.Lookup("")
	assert.Error(t, err)
}

// The H100 and H200 profiles' figures are the ones the driver reported on
// the GPUs the corpora were recorded on (ncu's device__attribute_* of
// every launch).
func TestProfilesAgainstDevice(t *testing.T) {
	for _, c := range []struct{ profile, table string }{
		{"h100", "../../testdata/nvcc/ncu/O3.csv"},
		{"h200", "../../testdata/h200/perf/ncu/calib.O3.csv.gz"},
	} {
		t.Run(c.profile, func(t *testing.T) { checkAgainstDevice(t, c.profile, c.table) })
	}
}

func checkAgainstDevice(t *testing.T, profile, table string) {
	ls, err := ncu.Read(table)
	require.NoError(t, err)
	require.NotEmpty(t, ls)
	d := ls[0]
	p := gpu.MustLookup(profile)
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

// The memory section of each GPU profile the hierarchy package also ships
// is that package's profile of the same name, so that the two cannot
// drift apart (the H200's is the H100's with its own L2 size, DRAM and L2
// latency: TestBase).
func TestMemoryMatchesHier(t *testing.T) {
	for _, n := range hier.ProfileNames() {
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

// A profile may hold only what differs from an embedded one ("base"):
// objects merge key by key, other values replace the base's, and a
// misspelt field is still an error.
func TestBase(t *testing.T) {
	h100, h200 := gpu.MustLookup("h100"), gpu.MustLookup("h200")
	want := gpu.MustLookup("h100")
	want.Name, want.Memory.Name = "H200", "H200"
	want.Description = h200.Description
	want.DeviceMemory = 150109880320
	want.Memory.L2.SizeBytes, want.Memory.L2.Slices = 60<<20, 96
	want.Memory.DRAM.Channels, want.Memory.DRAM.BytesPerCycle = 96, 2208
	want.Memory.Latency.L2HitNear, want.Memory.Latency.L2HitFar = 234, 265
	// The H200's L2 slices read 58 bytes a cycle, a read transaction
	// takes at least 1.17 cycles of its slice (the tags), and the fabric
	// between the partitions carries 20 sectors a cycle each way
	// (docs/timing-validation.md, "The L2 of the H200").
	want.Memory.Latency.L2ReadBytesPerCycle, want.Memory.Latency.L2ReadTxnCycles = 58, 1.17
	want.Memory.Latency.L2FabricSectorsPerCycle = 20
	assert.Equal(t, want, h200)
	assert.NotEqual(t, h100.Memory, h200.Memory)

	path := filepath.Join(t.TempDir(), "mine.json")
	load := func(text string) (*gpu.Profile, error) {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return gpu.Load(path)
	}
	p, err := load(`{"base": "h200", "name": "mine", "sms": 66, "memory": {"l2": {"size_bytes": 31457280}}}`)
	require.NoError(t, err)
	assert.Equal(t, 66, p.SMs)
	assert.Equal(t, 66, p.Memory.SMs, "the memory section's SMs are the profile's")
	assert.Equal(t, 31457280, p.Memory.L2.SizeBytes)
	assert.Equal(t, h200.Memory.L2.Slices, p.Memory.L2.Slices, "the rest of the object is the base's")
	assert.Equal(t, 2208.0, p.Memory.DRAM.BytesPerCycle, "bases chain")
	assert.Equal(t, h100.Timing, p.Timing)

	for text, msg := range map[string]string{
		`{"base": "h100", "memory": {"l2": {"sise_bytes": 1}}}`: "sise_bytes",
		`{"base": "a100"}`:    `base "a100" is not an embedded profile`,
		`{"base": 3}`:         "base: want the name",
		`{"base": "../h100"}`: "not an embedded profile",
	} {
		_, err := load(text)
		assert.ErrorContains(t, err, msg, text)
	}
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
