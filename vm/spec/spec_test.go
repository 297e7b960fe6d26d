package spec_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
	"github.com/ptxvm/ptxvm/vm/spec/npy"
)

func TestSpecRuns(t *testing.T) {
	s, err := spec.Load("testdata/spec.json")
	require.NoError(t, err)
	p, err := s.Prepare(vm.NewDevice(), nil)
	require.NoError(t, err)
	require.NoError(t, runAll(p.Launch, 0))
	out, err := p.Outputs()
	require.NoError(t, err)
	c := out["C"]
	require.Len(t, c, 256)
	for i := 0; i < 64; i++ {
		require.Equal(t, float32(i)*2.5, math.Float32frombits(binary.LittleEndian.Uint32(c[4*i:])))
	}
}

// runAll runs every block of l in order on SM 0, stopping after
// maxInst warp instructions (0: no limit).
func runAll(l *vm.Launch, maxInst int64) error {
	l.MaxInst = maxInst
	sm := l.NewSM(0)
	for i := 0; i < l.NumCTAs(); i++ {
		if err := sm.RunCTA(i); err != nil {
			return err
		}
	}
	return nil
}

// specWith writes the test spec's files into a temporary folder with the
// spec text replaced, and returns the spec path.
func specWith(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"vecadd.ptx", "A.bin", "B.bin"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	p := filepath.Join(dir, "spec.json")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestSpecErrors(t *testing.T) {
	base := func(buffers, args string) string {
		return `{"module": "vecadd.ptx", "kernel": "_Z6vecaddPfPKfS1_i", "grid": [2], "block": [32],
 "buffers": ` + buffers + `, "args": ` + args + `, "outputs": ["C"]}`
	}
	tex := func(t string) string {
		return `{"module": "vecadd.ptx", "kernel": "_Z6vecaddPfPKfS1_i", "grid": [1], "block": [1],
 "buffers": [{"name": "C", "type": "f32", "count": 64}], "textures": [` + t + `], "args": []}`
	}
	okBufs := `[{"name": "C", "type": "f32", "count": 64}, {"name": "A", "type": "f32", "count": 64, "file": "A.bin"}, {"name": "B", "type": "f32", "count": 64, "file": "B.bin"}]`
	cases := []struct {
		name, text, want string
		atPrepare        bool
	}{
		{"syntax", "{\"module\": \"vecadd.ptx\",\n \"kernel\" 5}", "invalid spec at line 2, column 11", false},
		{"unknown field", `{"module": "m", "kernel": "k", "grid": [1], "block": [1], "args": [], "blocks": 3}`, `unknown field "blocks"`, false},
		{"no kernel", `{"module": "m", "grid": [1], "block": [1], "args": []}`, `"kernel" is missing`, false},
		{"zero block", `{"module": "m", "kernel": "k", "grid": [1], "block": [0], "args": []}`, `"block" dimension 0 is zero`, false},
		{"four dims", `{"module": "m", "kernel": "k", "grid": [1,1,1,1], "block": [1], "args": []}`, `"grid" must have 1 to 3 dimensions`, false},
		{"bad type", base(`[{"name": "C", "type": "f128", "count": 64}]`, `[]`), `unknown type "f128"`, false},
		{"dup name", base(`[{"name": "C", "type": "f32", "count": 1}, {"name": "C", "type": "f32", "count": 1}]`, `[]`), `name "C" is used twice`, false},
		{"unknown arg buffer", base(okBufs, `[{"buffer": "D"}]`), `args[0]: "D" is not a buffer of this spec`, false},
		{"bad arg kind", base(okBufs, `[{"u128": 1}]`), `unknown argument kind "u128"`, false},
		{"two keys", base(okBufs, `[{"u32": 1, "s32": 2}]`), "exactly one key", false},
		{"out of range", base(okBufs, `[{"u8": 300}]`), "u8 argument 300", false},
		{"float for int", base(okBufs, `[{"u32": 1.5}]`), "u32 argument 1.5", false},
		{"bad output", `{"module": "m", "kernel": "k", "grid": [1], "block": [1], "args": [], "outputs": ["X"]}`, `output "X" is not a buffer`, false},
		{"missing file", base(`[{"name": "C", "type": "f32", "count": 64, "file": "nope.bin"}]`, `[]`), "nope.bin", true},
		{"short file", base(`[{"name": "C", "type": "f32", "count": 65, "file": "A.bin"}]`, `[]`), "file A.bin has 256 bytes; 65 × f32 needs 260", true},
		{"arg count", base(okBufs, `[{"buffer": "C"}, {"buffer": "A"}, {"buffer": "B"}]`), "kernel vecadd takes 4 parameters, the spec gives 3 arguments; the parameters are:\n  .u64 in PTX, float* in C++\n  .u64 in PTX, float const* in C++\n  .u64 in PTX, float const* in C++\n  .u32 in PTX, int in C++", true},
		{"arg size", base(okBufs, `[{"buffer": "C"}, {"buffer": "A"}, {"buffer": "B"}, {"s64": 64}]`), `args[3] (parameter 3 of vecadd, .u32 in PTX, int in C++): s64 is 64 bits; the parameter is 32 bits: write {"s32": ...}`, true},
		{"float for int", base(okBufs, `[{"buffer": "C"}, {"buffer": "A"}, {"buffer": "B"}, {"f32": 64}]`), `args[3] (parameter 3 of vecadd, .u32 in PTX, int in C++): f32 is a float; the parameter is an integer: write {"s32": ...}`, true},
		{"int too large", base(okBufs, `[{"buffer": "C"}, {"buffer": "A"}, {"buffer": "B"}, {"u32": 3000000000}]`), `args[3] (parameter 3 of vecadd, .u32 in PTX, int in C++): 3000000000 is out of range (-2147483648 to 2147483647)`, true},
		{"buffer for int", base(okBufs, `[{"buffer": "C"}, {"buffer": "A"}, {"buffer": "B"}, {"buffer": "C"}]`), `args[3] (parameter 3 of vecadd, .u32 in PTX, int in C++): a buffer's address is 64 bits; this parameter is 32 bits: give it a value, write {"s32": ...}`, true},
		{"float for pointer", base(okBufs, `[{"f64": 1}, {"buffer": "A"}, {"buffer": "B"}, {"s32": 64}]`), `args[0] (parameter 0 of vecadd, .u64 in PTX, float* in C++): f64 is a float; the parameter is an integer: write {"u64": ...}`, true},
		{"no kernel in module", `{"module": "vecadd.ptx", "kernel": "nope", "grid": [1], "block": [1], "args": []}`, "vecadd.ptx: no kernel matches \"nope\"; the module has:\n  vecadd(float*, float const*, float const*, int)  (_Z6vecaddPfPKfS1_i)", true},
		{"kernel by its C++ name", `{"module": "vecadd.ptx", "kernel": "vecadd", "grid": [1], "block": [1], "args": []}`, "kernel vecadd takes 4 parameters, the spec gives 0 arguments", true},
		{"missing module", `{"module": "none.ptx", "kernel": "k", "grid": [1], "block": [1], "args": []}`, "none.ptx", true},
		{"wrong JSON type", "{\"module\": \"m\", \"kernel\": \"k\",\n \"grid\": \"big\", \"block\": [1], \"args\": []}",
			`invalid spec at line 2, column 15: "grid" should be an array, each element a non-negative integer (32-bit), not a JSON string`, false},
		{"tensor map buffer", `{"module": "m", "kernel": "k", "grid": [1], "block": [1], "args": [], "tensor_maps": [{"name": "t", "buffer": "X", "type": "f16", "dims": [64], "box": [8]}]}`, `tensor_maps[0] (t): buffer "X" is not a buffer`, false},
		{"tensor map strides", base(okBufs[:len(okBufs)-1]+`], "tensor_maps": [{"name": "t", "buffer": "C", "type": "f32", "dims": [64, 2], "box": [8, 1]}]`, `[]`), `tensor_maps[0] (t): 0 strides for 2 dims: want 1`, false},
		{"tensor map box", base(okBufs[:len(okBufs)-1]+`], "tensor_maps": [{"name": "t", "buffer": "C", "type": "f32", "dims": [64], "box": [3]}]`, `[]`), `box[0] is 12 bytes: want a multiple of 16`, false},
		{"tensor map swizzle", base(okBufs[:len(okBufs)-1]+`], "tensor_maps": [{"name": "t", "buffer": "C", "type": "f32", "dims": [64], "box": [16], "swizzle": "32B"}]`, `[]`), `at most 32 with this swizzle`, false},
		{"tensor map arg", base(okBufs[:len(okBufs)-1]+`], "tensor_maps": [{"name": "t", "buffer": "C", "type": "f32", "dims": [64], "box": [16]}]`, `[{"buffer": "C"}, {"buffer": "A"}, {"buffer": "B"}, {"tensormap": "t"}]`), `a tensor map goes to a 128-byte parameter (.param .align 64 .b8 [128], a CUtensorMap by value) or to a pointer; this one is 4 bytes`, true},
		{"huge buffer", base(`[{"name": "C", "type": "f64", "count": 17179869184}]`, `[]`), "out of device memory", true},
		{"mip fields without levels", tex(`{"name": "t", "buffer": "C", "dims": [8, 8], "format": "f32", "mip_filter": "linear"}`),
			"mip_filter, lod_bias, min_lod and max_lod need a mipmapped texture", true},
		{"bad mip filter", tex(`{"name": "t", "buffer": "C", "dims": [4, 4], "levels": 3, "format": "f32", "mip_filter": "cubic"}`),
			`mip_filter "cubic" is not point or linear`, true},
		{"anisotropic", tex(`{"name": "t", "buffer": "C", "dims": [4, 4], "levels": 3, "format": "f32", "max_anisotropy": 16}`),
			"textures[0] (t): max_anisotropy 16: anisotropic filtering is not modelled", false},
		{"short mip levels", tex(`{"name": "t", "buffer": "C", "dims": [8, 8], "levels": 4, "format": "f32"}`),
			"× 4 level(s) needs 340 bytes; its buffer has 256", true},
		{"cube not square", tex(`{"name": "t", "buffer": "C", "dims": [4, 2], "cube": true, "format": "f32"}`),
			"a cube map needs square faces", true},
		{"normalized u16 surface", `{"module": "vecadd.ptx", "kernel": "_Z6vecaddPfPKfS1_i", "grid": [1], "block": [1],
 "buffers": [{"name": "C", "type": "u16", "count": 64}], "surfaces": [{"name": "s", "buffer": "C", "dims": [8, 8], "normalized": true}],
 "args": []}`, "normalized surfaces of u16 are not modelled", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := specWith(t, c.text)
			s, err := spec.Load(p)
			if !c.atPrepare {
				require.ErrorContains(t, err, c.want)
				return
			}
			require.NoError(t, err)
			_, err = s.Prepare(vm.NewDevice(), nil)
			require.ErrorContains(t, err, c.want)
		})
	}
}

// TestPrepareChecksDims: a spec built or changed in Go (not loaded from
// JSON) is checked when it is prepared.
func TestPrepareChecksDims(t *testing.T) {
	s, err := spec.Load("testdata/spec.json")
	require.NoError(t, err)
	s.Grid = []uint32{0, 7, 1}
	_, err = s.Prepare(vm.NewDevice(), nil)
	require.ErrorContains(t, err, `"grid" dimension 0 is zero`)
}

func TestSpecScalarArgs(t *testing.T) {
	cases := []struct {
		arg  string
		want []byte
	}{
		{`{"u32": 4294967295}`, []byte{0xff, 0xff, 0xff, 0xff}},
		{`{"s32": -2}`, []byte{0xfe, 0xff, 0xff, 0xff}},
		{`{"u64": 18446744073709551615}`, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{`{"f32": 1.5}`, []byte{0, 0, 0xc0, 0x3f}},
		{`{"f32": "0x7fc00001"}`, []byte{0x01, 0, 0xc0, 0x7f}},
		{`{"f32": "-inf"}`, []byte{0, 0, 0x80, 0xff}},
		{`{"f64": 0.1}`, binary.LittleEndian.AppendUint64(nil, math.Float64bits(0.1))},
		{`{"s8": -128}`, []byte{0x80}},
	}
	for _, c := range cases {
		t.Run(c.arg, func(t *testing.T) {
			var a spec.Arg
			require.NoError(t, a.UnmarshalJSON([]byte(c.arg)))
			b, err := spec.ArgBytes(&a)
			require.NoError(t, err)
			require.Equal(t, c.want, b)
		})
	}
}

// FuzzSpec feeds arbitrary specs through the loader, the preparation and a
// short run: any outcome but a panic or a hang is acceptable.
func FuzzSpec(f *testing.F) {
	seed, err := os.ReadFile("testdata/spec.json")
	require.NoError(f, err)
	f.Add(seed)
	f.Add([]byte(`{"module": "vecadd.ptx", "kernel": "_Z6vecaddPfPKfS1_i", "grid": [65535, 65535, 65535], "block": [1024], "args": []}`))
	f.Add([]byte(`{"module": "vecadd.ptx", "kernel": "_Z6vecaddPfPKfS1_i", "grid": [1], "block": [32], "buffers": [{"name": "C", "type": "u8", "count": 3}], "args": [{"buffer": "C"}, {"buffer": "C"}, {"buffer": "C"}, {"s32": 2147483647}], "outputs": ["C"]}`))
	f.Add([]byte(programSpec(`, "memory": "managed"`, `[{"copy": "A", "to": "device", "host_memory": "pinned"}, {"memset": "C", "value": 3}, {"prefetch": "M", "to": "device"}, `+vecaddStep+`, {"copy": "M", "to": "host"}]`)))
	dir := f.TempDir()
	for _, n := range []string{"vecadd.ptx", "A.bin", "B.bin"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		require.NoError(f, err)
		require.NoError(f, os.WriteFile(filepath.Join(dir, n), b, 0o644))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		s, err := spec.Parse(data, dir)
		if err != nil {
			return
		}
		dev := vm.NewDevice()
		dev.Mem.Limit = 64 << 20
		if s.IsProgram() {
			// A program: its memory, then each launch step prepared.
			p, err := s.PrepareMemory(dev, nil)
			if err != nil {
				return
			}
			for i := range s.Steps {
				if l, _, err := p.LaunchStep(i); err == nil {
					l.Release()
				}
			}
			return
		}
		p, err := s.Prepare(dev, nil)
		if err != nil {
			return
		}
		if p.Launch.NumCTAs() > 4096 {
			return // valid but too slow for a fuzz iteration
		}
		_ = runAll(p.Launch, 1<<16)
		_, _ = p.Outputs()
	})
}

// TestNpyAndMappedInputs: a buffer's file may be a NumPy .npy file, and a
// large input is mapped rather than read (the host holds none of it until
// the kernel writes it).
func TestNpyAndMappedInputs(t *testing.T) {
	const big = 300000 // 1.2 MB of f32: above memspace.DenseLimit
	a := make([]byte, 4*big)
	for i := 0; i < big; i++ {
		binary.LittleEndian.PutUint32(a[4*i:], math.Float32bits(float32(i)))
	}
	b := make([]byte, 4*64)
	for i := 0; i < 64; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(0.5))
	}
	hdr, err := npy.Encode("f32", 64)
	require.NoError(t, err)
	p := specWith(t, `{"module": "vecadd.ptx", "kernel": "vecadd", "grid": [2], "block": [32],
 "buffers": [{"name": "C", "type": "f32", "count": 64}, {"name": "A", "type": "f32", "count": 300000, "file": "big.bin"},
             {"name": "B", "type": "f32", "count": 64, "file": "B.npy"}],
 "args": [{"buffer": "C"}, {"buffer": "A"}, {"buffer": "B"}, {"s32": 64}], "outputs": ["C"]}`)
	dir := filepath.Dir(p)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.bin"), a, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "B.npy"), append(hdr, b...), 0o644))
	s, err := spec.Load(p)
	require.NoError(t, err)
	dev := vm.NewDevice()
	pr, err := s.Prepare(dev, nil)
	require.NoError(t, err)
	assert.Equal(t, "_Z6vecaddPfPKfS1_i", pr.Kernel)
	alloc := dev.Mem.Find(pr.Buffers["A"], 1)
	require.True(t, alloc.Sparse())
	require.NoError(t, runAll(pr.Launch, 0))
	assert.Zero(t, alloc.HostBytes(), "the mapped input is read, never copied")
	out, err := pr.Outputs()
	require.NoError(t, err)
	for i := 0; i < 64; i++ {
		require.Equal(t, float32(i)+0.5, math.Float32frombits(binary.LittleEndian.Uint32(out["C"][4*i:])))
	}

	// A .npy of the wrong type or length is refused with what it holds.
	hdr64, err := npy.Encode("f64", 32)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "B.npy"), append(hdr64, b...), 0o644))
	_, err = s.Prepare(vm.NewDevice(), nil)
	assert.ErrorContains(t, err, "buffer B: file B.npy holds float64; the buffer is f32 (NumPy float32)")
}
