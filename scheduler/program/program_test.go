package program_test

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/program"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// hostProgram writes a program over testdata/host's kernels to a temporary
// folder and loads it.
func hostProgram(t *testing.T, text string) *spec.Spec {
	t.Helper()
	ptx, err := filepath.Abs(filepath.Join(hostDir, "ptx", "hostmem.O3.ptx"))
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "spec.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"module": "`+ptx+`", `+text+`}`), 0o644))
	sp, err := spec.Load(p)
	require.NoError(t, err)
	return sp
}

const n = 65536 // elements: 256 KiB of f32, 4 managed pages of 64 KiB

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// Steps run in order over the same bytes: a memset sets them, a copy moves
// none, a kernel sees what the steps before it left; outputs are read
// after the last step.
func TestProgramSteps(t *testing.T) {
	sp := hostProgram(t, `"buffers": [{"name": "x", "type": "f32", "count": 65536, "fill": {"kind": "iota", "start": 0, "step": 1}}],
 "steps": [
  {"copy": "x", "to": "device", "host_memory": "pinned"},
  {"launch": {"kernel": "scale", "grid": [256], "block": [256], "args": [{"buffer": "x"}, {"u32": 65536}, {"f32": 2}, {"f32": 1}]}},
  {"memset": "x", "value": 0},
  {"launch": {"kernel": "scale", "grid": [256], "block": [256], "args": [{"buffer": "x"}, {"u32": 65536}, {"f32": 3}, {"f32": 5}]}},
  {"copy": "x", "to": "host"}],
 "outputs": ["x"]`)
	for _, mode := range []string{scheduler.ModeFunctional, scheduler.ModeTiming} {
		t.Run(mode, func(t *testing.T) {
			run, err := program.Execute(context.Background(), sp, scheduler.H100, scheduler.Options{Mode: mode}, nil)
			require.NoError(t, err)
			defer run.Release()
			x := f32s(run.Outputs["x"])
			require.Len(t, x, n)
			assert.Equal(t, float32(5), x[0], "0·3+5: the memset cleared 2i+1")
			assert.Equal(t, float32(5), x[n-1])
			require.Len(t, run.Steps, 5)
			kinds := []string{}
			for _, s := range run.Steps {
				kinds = append(kinds, s.Kind)
			}
			assert.Equal(t, []string{"copy", "launch", "memset", "launch", "copy"}, kinds)
			assert.Equal(t, "pinned", run.Steps[0].HostMemory)
			assert.Equal(t, "pageable", run.Steps[4].HostMemory, "the default host memory")
			assert.Equal(t, uint64(4*n), run.Steps[0].Bytes)
			assert.Equal(t, program.EngineCopy, run.Steps[0].Engine)
			assert.Equal(t, program.EngineSMs, run.Steps[1].Engine)
			assert.True(t, run.Steps[0].Timed, "copies are timed in both modes")
			assert.Equal(t, mode == scheduler.ModeTiming, run.Steps[1].Timed, "launches in timing mode")
			assert.Equal(t, mode == scheduler.ModeTiming, run.Timed)
			sum := 0.0
			for i, s := range run.Steps {
				assert.InDelta(t, sum, s.StartUS, 1e-9, "step %d starts where the one before ended", i)
				sum += s.TimeUS
			}
			assert.InDelta(t, sum, run.TimeUS, 1e-9)
			assert.Greater(t, run.Steps[4].TimeUS, run.Steps[0].TimeUS, "a pageable copy is slower than a pinned one")
			assert.NotEmpty(t, run.Steps[1].Metrics["launch__grid_size"])
		})
	}
}

// Managed memory moves as the GPU moves it: a kernel's first touch
// migrates what the host wrote (and makes what nobody touched, moving
// nothing), a second touch is free, the host's touch brings it back, a
// prefetch moves only what is not already there.
func TestProgramManagedResidency(t *testing.T) {
	sp := hostProgram(t, `"buffers": [{"name": "m", "type": "f32", "count": 65536, "memory": "managed", "fill": {"kind": "iota", "start": 0, "step": 1}},
  {"name": "fresh", "type": "f32", "count": 65536, "memory": "managed"}, {"name": "d", "type": "f32", "count": 65536}],
 "steps": [
  {"launch": {"kernel": "copy_perm", "grid": [256], "block": [256], "args": [{"buffer": "m"}, {"buffer": "fresh"}, {"u32": 65536}, {"u32": 1}, {"f32": 2}]}},
  {"launch": {"kernel": "copy_perm", "grid": [256], "block": [256], "args": [{"buffer": "m"}, {"buffer": "d"}, {"u32": 65536}, {"u32": 1}, {"f32": 2}]}},
  {"copy": "m", "to": "host"},
  {"prefetch": "m", "to": "device"},
  {"prefetch": "m", "to": "device"}],
 "outputs": ["fresh"]`)
	run, err := program.Execute(context.Background(), sp, scheduler.H100, scheduler.Options{Mode: scheduler.ModeTiming}, nil)
	require.NoError(t, err)
	defer run.Release()
	page := uint64(scheduler.H100.Memory.HostLink.MigrateBytes)
	pages := uint64(4*n) / page
	first, second := run.Steps[0], run.Steps[1]
	assert.Equal(t, uint64(2), first.Faults, "one fault per buffer: the driver's prefetch brings its other pages")
	assert.Less(t, uint64(1), pages)
	assert.Equal(t, uint64(4*n), first.Migrated, "only the host's data moves; the fresh buffer is made on the device")
	assert.Zero(t, second.Faults)
	assert.Zero(t, second.Migrated)
	assert.Greater(t, first.TimeUS, 10*second.TimeUS, "the first touch waits for the migration")
	assert.Equal(t, uint64(4*n), run.Steps[2].Bytes, "the host's touch brings it all back")
	assert.Equal(t, program.EngineHost, run.Steps[2].Engine)
	assert.Equal(t, uint64(4*n), run.Steps[3].Bytes)
	assert.Zero(t, run.Steps[4].Bytes, "already on the device")
	assert.Equal(t, uint64(4*n), run.Resident("m"))
	assert.Equal(t, uint64(4*n), run.Resident("fresh"))
	x := f32s(run.Outputs["fresh"])
	assert.Equal(t, float32(2*12345), x[12345], "managed memory holds the same bytes")
	d := run.Diagnose()
	require.NotEmpty(t, d)
	assert.Contains(t, d[0], "migrate it during the kernel")
	assert.Contains(t, d[0], "a prefetch to the device before it")
}

// A kernel over mapped memory takes its bytes over the host link: a
// coalesced read fetches each sector once, a strided one a sector per
// element, and both are slower than the same kernel over device memory;
// the diagnosis says so.
func TestProgramMappedMemory(t *testing.T) {
	run1 := func(mem string, stride int) *program.Run {
		sp := hostProgram(t, `"buffers": [{"name": "src", "type": "f32", "count": 65536, "fill": {"kind": "iota", "start": 0, "step": 1}`+mem+`},
  {"name": "dst", "type": "f32", "count": 65536}],
 "steps": [{"launch": {"kernel": "copy_perm", "grid": [256], "block": [256], "args": [{"buffer": "src"}, {"buffer": "dst"}, {"u32": 65536}, {"u32": `+map[int]string{1: "1", 32: "32"}[stride]+`}, {"f32": 2}]}}],
 "outputs": ["dst"]`)
		run, err := program.Execute(context.Background(), sp, scheduler.H100, scheduler.Options{Mode: scheduler.ModeTiming}, nil)
		require.NoError(t, err)
		t.Cleanup(run.Release)
		return run
	}
	dev, coal, strided := run1("", 1), run1(`, "memory": "mapped"`, 1), run1(`, "memory": "mapped"`, 32)
	assert.Equal(t, dev.Outputs["dst"], coal.Outputs["dst"], "the same bytes wherever the buffer lives")
	m := func(r *program.Run, name string) float64 { return r.Steps[0].Metrics[name] }
	assert.Zero(t, m(dev, "ptxvm__host_link_bytes_read.sum"))
	assert.Equal(t, float64(4*n), m(coal, "ptxvm__host_link_bytes_read.sum"), "each sector once")
	assert.Equal(t, float64(32*n), m(strided, "ptxvm__host_link_bytes_read.sum"), "a 32 B sector per 4 B element")
	assert.Greater(t, m(coal, "lts__t_sectors_aperture_sysmem_op_read.sum"), float64(4*n/32), "near and far lookups")
	assert.Zero(t, m(coal, "lts__t_sectors_aperture_sysmem_op_write.sum"))
	assert.Greater(t, coal.TimeUS, 1.5*dev.TimeUS)
	assert.Greater(t, strided.TimeUS, 4*coal.TimeUS)
	d := strided.Diagnose()
	require.NotEmpty(t, d)
	assert.Contains(t, d[0], "of mapped or pinned memory over the host link")
	assert.Contains(t, d[0], "coalesce the accesses or copy the buffer to the device first")
}

// A module's .global .attribute(.managed) variable is managed memory: the
// first launch that touches it faults (its pages are made on the device,
// or migrated when the spec writes it first), in a single launch as in a
// program.
func TestManagedVariables(t *testing.T) {
	ptx, err := filepath.Abs("testdata/managed_var.ptx")
	require.NoError(t, err)
	for _, c := range []struct {
		name, symbols string
		migrated      uint64
	}{
		{"untouched", "", 0},
		{"written by the host", `, "symbols": [{"name": "mvar", "type": "f32", "count": 65536, "fill": {"kind": "const", "value": 2}}]`, 4 * n},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "spec.json")
			require.NoError(t, os.WriteFile(p, []byte(`{"module": "`+ptx+`", "kernel": "touch", "grid": [256], "block": [256],
 "buffers": [{"name": "out", "type": "f32", "count": 65536}], "args": [{"buffer": "out"}], "outputs": ["out"]`+c.symbols+`}`), 0o644))
			sp, err := spec.Load(p)
			require.NoError(t, err)
			run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{Mode: scheduler.ModeTiming}, nil)
			require.NoError(t, err)
			defer run.Release()
			m := run.Metrics()
			assert.Equal(t, float64(1), m["ptxvm__managed_faults.sum"], "one fault: the prefetch brings the rest of its 256 KiB")
			assert.Equal(t, float64(c.migrated), m["ptxvm__managed_bytes_migrated_htod.sum"])
			out := f32s(run.Outputs["out"])
			want := float32(1)
			if c.migrated > 0 {
				want = 3
			}
			assert.Equal(t, want, out[777])
		})
	}
}

// The L2 between the steps of a program, as the H200 showed it
// (testdata/host/hostmem7.jsonl, group l2after, and its ncu counters): a
// kernel finds in the L2 what the kernel before it left there and what a
// memset wrote; a copy from the host leaves none of the buffer it fills
// (the next read missed 98-100% of its sectors at every size), and drops
// what an earlier kernel had left of it.
func TestProgramL2BetweenSteps(t *testing.T) {
	scale := `{"launch": {"kernel": "scale", "grid": [256], "block": [256], "args": [{"buffer": "x"}, {"u32": 65536}, {"f32": 2}, {"f32": 1}]}}`
	copyIn := `{"copy": "x", "to": "device", "host_memory": "pinned"}`
	hitRate := func(memory string, steps ...string) float64 {
		sp := hostProgram(t, `"buffers": [{"name": "x", "type": "f32", "count": 65536`+memory+`}], "steps": [`+strings.Join(append(steps, scale), ",")+`]`)
		run, err := program.Execute(context.Background(), sp, scheduler.H100, scheduler.Options{}, nil)
		require.NoError(t, err)
		defer run.Release()
		m := run.Steps[len(run.Steps)-1].Metrics
		return m["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] / m["lts__t_sectors_srcunit_tex_op_read.sum"]
	}
	const managed = `, "memory": "managed"`
	cold := hitRate("")
	assert.Less(t, cold, 0.05, "a clean L2")
	// A managed buffer the host wrote: the first launch faults it in.
	coldManaged := hitRate(managed)
	assert.Less(t, coldManaged, 0.05, "a clean L2")
	for _, c := range []struct {
		name, memory string
		steps        []string
		warm         float64 // the least hit rate; 0: none of the buffer
	}{
		{"after a pinned copy", "", []string{copyIn}, 0},
		{"after a kernel", "", []string{scale}, 0.9},
		// A memset's lines are at their home slices only: the SMs of the
		// other partition miss their near copies (the H200: 75% hits).
		{"after a memset", "", []string{`{"memset": "x", "value": 0}`}, 0.45},
		{"after a kernel, then a copy", "", []string{scale, copyIn}, 0},
		{"after a copy, then a kernel", "", []string{copyIn, scale}, 0.9},
		{"managed, after a kernel", managed, []string{scale}, 0.9},
		// Not recorded: a managed buffer's pages leaving for the host
		// take their lines out of the L2.
		{"managed, after a kernel, then the host reads it", managed, []string{scale, `{"copy": "x", "to": "host"}`}, 0},
		{"managed, after a kernel, then a prefetch to the host", managed, []string{scale, `{"prefetch": "x", "to": "host"}`}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := hitRate(c.memory, c.steps...)
			if c.warm > 0 {
				assert.Greater(t, got, c.warm, "the 256 KiB stay in the L2")
			} else {
				want := cold
				if c.memory != "" {
					want = coldManaged
				}
				assert.InDelta(t, want, got, 0.01, "none of the buffer in the L2")
			}
		})
	}
}

// The source texts' table gives the GF100's mapped memory ≈8 GB/s one way:
// a coalesced read of mapped memory on the GF100 profile runs at that.
func TestGF100MappedMemoryAsTheTextsSay(t *testing.T) {
	sp, err := spec.Load(filepath.Join(hostDir, "cases", "read_mapped_coalesced_1M", "spec.json"))
	require.NoError(t, err)
	run, err := program.Execute(context.Background(), sp, scheduler.GF100, scheduler.Options{Mode: scheduler.ModeTiming, AnyTarget: true}, nil)
	require.NoError(t, err)
	defer run.Release()
	s := run.Steps[0]
	gbs := s.Metrics["ptxvm__host_link_bytes_read.sum"] / (s.TimeUS * 1e3)
	assert.InDelta(t, 8, gbs, 1, "%.2f GB/s", gbs)
}
