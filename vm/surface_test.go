package vm_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/ptx"
	"github.com/ptxvm/ptxvm/vm"
)

// surfKernel loads from surface s at (x, y) (x in bytes) with one suld
// form into out[tid] and stores tid+1 with one sust form at (wx, y).
const surfKernel = `
.visible .entry k(.param .u64 out, .param .u64 s, .param .u64 xs, .param .u64 ys, .param .u64 wxs)
{
	.reg .b32 %%r<12>;
	.reg .b64 %%rd<12>;
	ld.param.u64 	%%rd1, [out];
	ld.param.u64 	%%rd2, [s];
	ld.param.u64 	%%rd3, [xs];
	ld.param.u64 	%%rd4, [ys];
	ld.param.u64 	%%rd5, [wxs];
	mov.u32 	%%r1, %%tid.x;
	mul.wide.u32 	%%rd6, %%r1, 4;
	add.s64 	%%rd7, %%rd3, %%rd6;
	ld.global.u32 	%%r2, [%%rd7];
	add.s64 	%%rd8, %%rd4, %%rd6;
	ld.global.u32 	%%r3, [%%rd8];
	add.s64 	%%rd9, %%rd5, %%rd6;
	ld.global.u32 	%%r4, [%%rd9];
	%s
	add.s64 	%%rd10, %%rd1, %%rd6;
	st.global.u32 	[%%rd10], %%r5;
	add.u32 	%%r6, %%r1, 1;
	%s
	ret;
}`

// TestSurfaceLoadStore runs suld.b/sust.b over a 4x3 surface of u32 with
// each boundary mode, in range and out of it.
func TestSurfaceLoadStore(t *testing.T) {
	const w, h = 4, 3
	xs := []uint32{0, 4, 12, 16, 0xfffffffc, 8, 4, 0} // bytes; 16 and -4 out of range
	ys := []uint32{0, 1, 2, 0, 1, 3, 2, 0xffffffff}   // 3 and -1 out of range
	wxs := []uint32{4, 8, 12, 16, 0xfffffff0, 0, 8, 0}
	tests := []struct {
		name      string
		ld, st    string
		out       []uint32
		surf      []uint32 // the surface afterwards
		wantError string
	}{
		{name: "clamp",
			ld: "suld.b.2d.b32.clamp {%r5}, [%rd2, {%r2, %r3}];", st: "sust.b.2d.b32.clamp [%rd2, {%r4, %r3}], {%r6};",
			out:  []uint32{100, 105, 111, 103, 104, 110, 109, 100},
			surf: []uint32{8, 1, 102, 4, 5, 105, 2, 107, 6, 109, 7, 3}},
		{name: "zero",
			ld: "suld.b.2d.b32.zero {%r5}, [%rd2, {%r2, %r3}];", st: "sust.b.2d.b32.zero [%rd2, {%r4, %r3}], {%r6};",
			out:  []uint32{100, 105, 111, 0, 0, 0, 109, 0},
			surf: []uint32{100, 1, 102, 103, 104, 105, 2, 107, 108, 109, 7, 3}},
		{name: "trap",
			ld: "suld.b.2d.b32.trap {%r5}, [%rd2, {%r2, %r3}];", st: "",
			wantError: "surface access out of range (.trap): x (bytes) = 16"},
		{name: "misaligned",
			ld: "suld.b.2d.b32.zero {%r5}, [%rd2, {%r1, %r3}];", st: "",
			wantError: "misaligned surface access: x = 1 bytes is not a multiple of the 4-byte access"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dev := vm.NewDevice()
			m, err := dev.LoadModule("t.ptx", []byte(header+fmt.Sprintf(surfKernel, tt.ld, tt.st)))
			require.NoError(t, err)
			img := make([]uint32, w*h)
			for i := range img {
				img[i] = uint32(100 + i)
			}
			base := devBuf(t, dev, img)
			s, err := dev.CreateSurface(vm.SurfaceDesc{Dims: []int{w, h}, Format: "u32", Base: base})
			require.NoError(t, err)
			out := devBuf(t, dev, make([]uint32, 8))
			args := [][]byte{u64arg(out), u64arg(s), u64arg(devBuf(t, dev, xs)), u64arg(devBuf(t, dev, ys)), u64arg(devBuf(t, dev, wxs))}
			l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{8, 1, 1}}, args)
			require.NoError(t, err)
			_, err = runAll(l, options{maxInst: 1 << 20})
			if tt.wantError != "" {
				require.ErrorContains(t, err, tt.wantError)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.out, readU32(t, dev, out, 8), "loaded")
			require.Equal(t, tt.surf, readU32(t, dev, base, w*h), "the surface afterwards")
		})
	}
}

// TestSurfaceForms checks the vector, 3D and layered forms and suq.
func TestSurfaceForms(t *testing.T) {
	// A 2x2x2 surface of 4-byte elements (u8 x 4) holding 0..31.
	src := `
.visible .entry k(.param .u64 out, .param .u64 s, .param .u64 a)
{
	.reg .b16 %rs<8>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<8>;
	ld.param.u64 	%rd1, [out];
	ld.param.u64 	%rd2, [s];
	ld.param.u64 	%rd3, [a];
	mov.u32 	%r1, 4;
	mov.u32 	%r2, 1;
	suld.b.3d.v4.b8.clamp {%rs1, %rs2, %rs3, %rs4}, [%rd2, {%r1, %r2, %r2, %r2}];
	cvt.u32.u16 	%r3, %rs4;
	st.global.u32 	[%rd1], %r3;
	mov.u32 	%r11, 8;
	suld.b.3d.v2.b32.zero {%r4, %r5}, [%rd2, {%r11, %r2, %r2, %r2}];
	st.global.u32 	[%rd1+4], %r4;
	suq.width.b32 	%r6, [%rd2];
	suq.depth.b32 	%r7, [%rd2];
	st.global.u32 	[%rd1+8], %r6;
	st.global.u32 	[%rd1+12], %r7;
	suld.b.a2d.b32.clamp {%r8}, [%rd3, {%r2, %r1, %r2, %r2}];
	st.global.u32 	[%rd1+16], %r8;
	suq.depth.b32 	%r9, [%rd3];
	st.global.u32 	[%rd1+20], %r9;
	mov.u32 	%r10, 0x01020304;
	mov.u32 	%r12, 0;
	sust.b.a1d.b32.zero [%rd3, {%r2, %r12}], {%r10};
	sured.b.add.2d.u32.zero [%rd3, {%r1, %r2}], %r2;
	ret;
}`
	dev := vm.NewDevice()
	m, err := dev.LoadModule("t.ptx", []byte(header+src))
	require.NoError(t, err)
	b := make([]byte, 32)
	for i := range b {
		b[i] = byte(i)
	}
	base, err := dev.Malloc(32, "s")
	require.NoError(t, err)
	require.NoError(t, dev.MemcpyHtoD(base, b))
	s, err := dev.CreateSurface(vm.SurfaceDesc{Dims: []int{2, 2, 2}, Format: "u8", Channels: 4, Base: base})
	require.NoError(t, err)
	// A layered 2D surface: 2 layers of 2x2 u32 (0..7).
	lay := devBuf(t, dev, []uint32{0, 1, 2, 3, 4, 5, 6, 7})
	a, err := dev.CreateSurface(vm.SurfaceDesc{Dims: []int{2, 2}, Layers: 2, Format: "u32", Base: lay})
	require.NoError(t, err)
	out := devBuf(t, dev, make([]uint32, 6))
	l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1}}, [][]byte{u64arg(out), u64arg(s), u64arg(a)})
	require.NoError(t, err)
	_, err = runAll(l, options{maxInst: 1 << 20})
	require.NoError(t, err)
	// (x=4 bytes: element 1, y=1, z=1) is element 7: bytes 28..31; a
	// v2.b32 read at x=4 bytes of an 8-byte row is out of range (zero).
	// The layered read: layer 1, x=4 bytes, y=1: element 3 of layer 1 (7).
	// suq.depth of a 2D layered surface is its layer count (recorded).
	require.Equal(t, []uint32{31, 0, 2, 2, 7, 2}, readU32(t, dev, out, 6))
	require.Equal(t, []uint32{0, 1, 2, 4, 0x01020304, 5, 6, 7}, readU32(t, dev, lay, 8), "sured added 1 to layer 0's (1, 1); sust.b.a1d wrote layer 1's (0, 0)")
}

// TestRefusedSuqModule checks that a module holding a refused suq query
// does not load, its other kernels included, as on the GPU.
func TestRefusedSuqModule(t *testing.T) {
	src := ".visible .entry ok() { ret; }\n.visible .entry q(.param .u64 s)\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n" +
		"ld.param.u64 %rd1, [s];\n// suq.array_size in a comment is fine\n\tsuq.array_size.b32 %r1, [%rd1];\nret;\n}"
	_, err := vm.NewDevice().LoadModule("t.ptx", []byte(header+src))
	require.ErrorContains(t, err, "suq.array_size: the GPU refuses to load a module")
	require.ErrorContains(t, err, "t.ptx:")
	var pe *ptx.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, strings.Count(header, "\n")+8, pe.Pos.Line)
	require.True(t, vm.IsLoad(err))
}

// TestSurfaceLoweringErrors checks that malformed surface instructions are
// rejected when the module is loaded.
func TestSurfaceLoweringErrors(t *testing.T) {
	tests := []struct{ inst, want string }{
		{"suld.b.2d.b32.clamp {%r1}, [%rd1, {%r1}];", "2 coordinates"},
		{"suld.p.2d.b32.clamp {%r1}, [%rd1, {%r1, %r1}];", "suld.p is not supported"},
		{"suld.b.cube.b32.clamp {%r1}, [%rd1, {%r1, %r1}];", "geometry"},
		{"suld.b.2d.v4.b64.clamp {%rd1, %rd1, %rd1, %rd1}, [%rd1, {%r1, %r1}];", ".v2 of .b64"},
		{"sust.p.2d.b16.zero [%rd1, {%r1, %r1}], %r1;", "sust.p stores .b32"},
		{"sured.b.and.2d.u32.zero [%rd1, {%r1, %r1}], %r1;", ".and and .or take .b32"},
		{"suq.pitch.b32 %r1, [%rd1];", "suq needs a query"},
		{"suq.channel_data_type.b32 %r1, [%rd1];", "suq.channel_data_type: the GPU refuses to load a module"},
		{"suq.channel_order.b32 %r1, [%rd1];", "suq.channel_order: the GPU refuses"},
		{"suq.array_size.b32 %r1, [%rd1];", "suq.array_size: the GPU refuses"},
		{"suq.memory_layout.b32 %r1, [%rd1];", "suq.memory_layout: the GPU refuses"},
		{"suld.2d.b32.clamp {%r1}, [%rd1, {%r1, %r1}];", "needs .b"},
		// txq: the driver refuses a kernel holding any query but the sizes.
		{"txq.num_mipmap_levels.b32 %r1, [%rd1];", "txq.num_mipmap_levels: the GPU refuses to load a kernel"},
		{"txq.filter_mode.b32 %r1, [%rd1];", "txq.filter_mode: the GPU refuses"},
		{"txq.force_unnormalized_coords.b32 %r1, [%rd1];", "txq.force_unnormalized_coords: the GPU refuses"},
		{"txq.channel_order.b32 %r1, [%rd1];", "txq.channel_order: the GPU refuses"},
		// tex's mipmap and cube forms.
		{"tex.grad.2d.v4.f32.f32 {%f1, %f1, %f1, %f1}, [%rd1, {%f1, %f1}], {%f1}, {%f1, %f1};", "two gradient vectors of 2 elements"},
		{"tex.level.2d.v4.f32.f32 {%f1, %f1, %f1, %f1}, [%rd1, {%f1, %f1}];", "tex.level takes"},
		{"tex.level.2d.v4.f32.s32 {%f1, %f1, %f1, %f1}, [%rd1, {%r1, %r1}], %f1;", "take .f32 coordinates"},
		{"tld4.r.1d.v4.f32.f32 {%f1, %f1, %f1, %f1}, [%rd1, {%f1}];", "tld4 takes .2d, .a2d, .cube or .acube"},
		{"tex.grad.cube.v4.f32.f32 {%f1, %f1, %f1, %f1}, [%rd1, {%f1, %f1, %f1, %f1}], {%f1, %f1}, {%f1, %f1, %f1, %f1};", "two gradient vectors of 3 elements"},
		{"tld4.level.r.2d.v4.f32.f32 {%f1, %f1, %f1, %f1}, [%rd1, {%f1, %f1}], %f1;", "tld4 takes"},
	}
	for _, tt := range tests {
		t.Run(tt.inst, func(t *testing.T) {
			src := ".visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<4>;\n" + tt.inst + "\nret;\n}"
			m, err := vm.NewDevice().LoadModule("t.ptx", []byte(header+src))
			if err == nil {
				_, err = m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1}}, nil)
			}
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// TestCreateSurfaceChecks checks the descriptor's validation.
func TestCreateSurfaceChecks(t *testing.T) {
	dev := vm.NewDevice()
	base, err := dev.Malloc(64, "s")
	require.NoError(t, err)
	tests := []struct {
		desc vm.SurfaceDesc
		want string
	}{
		{vm.SurfaceDesc{Dims: []int{4}, Format: "f64", Base: base}, "format"},
		{vm.SurfaceDesc{Dims: []int{4}, Format: "u8", Channels: 3, Base: base}, "channels"},
		{vm.SurfaceDesc{Dims: []int{}, Format: "u8", Base: base}, "dims"},
		{vm.SurfaceDesc{Dims: []int{4, 4, 4}, Format: "u8", Layers: 2, Base: base}, "layers"},
		{vm.SurfaceDesc{Dims: []int{17}, Format: "u32", Base: base}, "needs 68 bytes"},
		{vm.SurfaceDesc{Dims: []int{2}, Format: "u64", Channels: 4, Base: base}, "too large"},
	}
	for _, tt := range tests {
		_, err := dev.CreateSurface(tt.desc)
		require.ErrorContains(t, err, tt.want)
	}
}

func devBuf(t *testing.T, dev *vm.Device, v []uint32) uint64 {
	t.Helper()
	a, err := dev.Malloc(uint64(4*len(v)), "buf")
	require.NoError(t, err)
	require.NoError(t, dev.MemcpyHtoD(a, u32bytes(v)))
	return a
}

func readU32(t *testing.T, dev *vm.Device, a uint64, n int) []uint32 {
	t.Helper()
	raw := make([]byte, 4*n)
	require.NoError(t, dev.MemcpyDtoH(raw, a))
	return bytesU32(raw)
}

// TestSurfaceOddShapes runs forms whose access is wider than the surface's
// element or row: they fault or read zero, never panic.
func TestSurfaceOddShapes(t *testing.T) {
	for _, inst := range []string{
		"suld.b.1d.v4.b32.clamp {%r1, %r2, %r3, %r4}, [%rd1, {%r5}];",
		"suld.b.1d.v4.b32.zero {%r1, %r2, %r3, %r4}, [%rd1, {%r5}];",
		"sured.p.add.1d.b64.clamp [%rd1, {%r5}], %rd2;",
		"sust.p.1d.v4.b32.clamp [%rd1, {%r5}], {%r1, %r2, %r3, %r4};",
		"suld.b.a2d.b32.clamp {%r1}, [%rd1, {%r5, %r5, %r5, %r5}];",
	} {
		t.Run(inst, func(t *testing.T) {
			src := ".visible .entry k(.param .u64 s)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [s];\nmov.u32 %r5, 0xfffffff0;\n" + inst + "\nret;\n}"
			dev := vm.NewDevice()
			m, err := dev.LoadModule("t.ptx", []byte(header+src))
			require.NoError(t, err)
			base, err := dev.Malloc(4, "s")
			require.NoError(t, err)
			s, err := dev.CreateSurface(vm.SurfaceDesc{Dims: []int{1}, Format: "u32", Base: base})
			require.NoError(t, err)
			l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}}, [][]byte{u64arg(s)})
			require.NoError(t, err)
			_, _ = runAll(l, options{maxInst: 1 << 20}) // an error or not; no panic
		})
	}
}
