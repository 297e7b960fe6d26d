package spec_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// programSpec is a program over vecadd.ptx's buffers with the steps given
// (and buffer M, of the memory kind given).
func programSpec(mem, steps string) string {
	return `{"module": "vecadd.ptx",
 "buffers": [{"name": "C", "type": "f32", "count": 64}, {"name": "A", "type": "f32", "count": 64, "file": "A.bin"},
  {"name": "B", "type": "f32", "count": 64, "file": "B.bin"}, {"name": "M", "type": "f32", "count": 64` + mem + `}],
 "steps": ` + steps + `, "outputs": ["C"]}`
}

const vecaddStep = `{"launch": {"kernel": "vecadd", "grid": [2], "block": [32], "args": [{"buffer": "C"}, {"buffer": "A"}, {"buffer": "B"}, {"s32": 64}]}}`

// A program's steps are checked when it is loaded, each error naming the
// step and saying what to write instead.
func TestProgramErrors(t *testing.T) {
	for _, c := range []struct{ name, mem, steps, want string }{
		{"two kinds", "", `[{"copy": "A", "memset": "A", "to": "device"}]`, `steps[0] must have exactly one of "copy", "memset", "prefetch" and "launch"`},
		{"no kind", "", `[{}]`, `steps[0] must have exactly one of`},
		{"unknown buffer", "", `[{"copy": "X", "to": "device"}]`, `steps[0] (copy): "X" is not a buffer of this spec`},
		{"no direction", "", `[{"copy": "A"}]`, `steps[0] (copy A): "to" must be "device" or "host", not ""`},
		{"bad host memory", "", `[{"copy": "A", "to": "device", "host_memory": "locked"}]`, `"host_memory" "locked" is not one of pageable, pinned, write_combined`},
		{"memset without value", "", `[{"memset": "A"}]`, `steps[0] (memset A): "value" must be a byte value, 0 to 255`},
		{"memset too big", "", `[{"memset": "A", "value": 256}]`, `"value" must be a byte value`},
		{"value on a copy", "", `[{"copy": "A", "to": "device", "value": 1}]`, `"value" is for a memset`},
		{"prefetch of device memory", "", `[{"prefetch": "A", "to": "device"}]`, `prefetch is for managed memory; the buffer is device memory`},
		{"copy of mapped memory", `, "memory": "mapped"`, `[{"copy": "M", "to": "device"}]`, `the buffer lives in mapped host memory`},
		{"copy of managed to device", `, "memory": "managed"`, `[{"copy": "M", "to": "device"}]`, `a managed buffer moves with "prefetch"`},
		{"launch without kernel", "", `[{"launch": {"grid": [1], "block": [1], "args": []}}]`, `steps[0] (launch): "kernel" is missing`},
		{"launch bad arg", "", `[{"launch": {"kernel": "k", "grid": [1], "block": [1], "args": [{"buffer": "Z"}]}}]`, `steps[0] (launch): args[0]: "Z" is not a buffer of this spec`},
		{"unknown memory", `, "memory": "shared"`, `[` + vecaddStep + `]`, `memory "shared" is not one of device, pinned, mapped, managed`},
		{"write-combined device memory", `, "write_combined": true`, `[` + vecaddStep + `]`, `write_combined is for pinned or mapped memory, not device`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := spec.Load(specWith(t, programSpec(c.mem, c.steps)))
			require.ErrorContains(t, err, c.want)
		})
	}
	// Top-level launch fields beside steps are refused, and a program is
	// not prepared as a single launch.
	_, err := spec.Load(specWith(t, `{"module": "vecadd.ptx", "kernel": "vecadd", "grid": [1], "block": [1], "args": [], "steps": [`+vecaddStep+`]}`))
	require.ErrorContains(t, err, `gives each launch's kernel, grid, block, args and cluster in its launch step`)
	s, err := spec.Load(specWith(t, programSpec("", `[`+vecaddStep+`]`)))
	require.NoError(t, err)
	_, err = s.Prepare(vm.NewDevice(), nil)
	require.ErrorContains(t, err, "run it as a program")
}

// A program's launch steps are prepared over the buffers PrepareMemory
// made, each with its own kernel and arguments; the module is loaded once.
func TestProgramLaunchSteps(t *testing.T) {
	s, err := spec.Load(specWith(t, programSpec(`, "memory": "managed"`, `[`+vecaddStep+`, {"prefetch": "M", "to": "device"}, `+vecaddStep+`]`)))
	require.NoError(t, err)
	assert.True(t, s.IsProgram())
	assert.Equal(t, []string{"launch", "prefetch", "launch"}, []string{s.Steps[0].Kind(), s.Steps[1].Kind(), s.Steps[2].Kind()})
	assert.Equal(t, "prefetch M to device", s.Steps[1].String())
	p, err := s.PrepareMemory(vm.NewDevice(), nil)
	require.NoError(t, err)
	defer p.Device.Mem.FreeAll()
	l0, k0, err := p.LaunchStep(0)
	require.NoError(t, err)
	defer l0.Release()
	l2, k2, err := p.LaunchStep(2)
	require.NoError(t, err)
	defer l2.Release()
	assert.Equal(t, "_Z6vecaddPfPKfS1_i", k0)
	assert.Equal(t, k0, k2)
	assert.Same(t, l0.Kernel, l2.Kernel, "one module, one lowered kernel")
	_, _, err = p.LaunchStep(1)
	assert.ErrorContains(t, err, "steps[1] is not a launch")
	b, ok := s.BufferSpec("M")
	require.True(t, ok)
	assert.Equal(t, spec.MemManaged, spec.MemoryOf(b))
	assert.False(t, spec.OnHost(spec.MemManaged))
	assert.True(t, spec.OnHost(spec.MemMapped))
}
