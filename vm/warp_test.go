package vm_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

func TestShuffleWaitsForItsMembermask(t *testing.T) {
	// The else-path block is laid out after the join, so the min-PC
	// scheduler runs the then-path lanes into the shuffle first: they must
	// wait there for the else-path lanes (shfl.sync semantics), or the
	// butterfly would read lanes that have not written their value yet.
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
` + prologue + `
	and.b32 	%r5, %r4, 1;
	setp.ne.s32 	%p1, %r5, 0;
	@%p1 bra 	$L__else;
	mul.lo.s32 	%r6, %r4, 10;
$L__join:
	shfl.sync.bfly.b32 	%r7, %r6, 1, 31, -1;
	st.global.u32 	[%rd2], %r7;
	ret;
$L__else:
	mul.lo.s32 	%r6, %r4, 100;
	bra.uni 	$L__join;
}`
	out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 32)})
	require.NoError(t, err)
	for i, v := range out[0] {
		j := i ^ 1
		want := uint32(j * 10)
		if j%2 == 1 {
			want = uint32(j * 100)
		}
		require.Equal(t, want, v, "lane %d", i)
	}
}

func TestWarpReductionAndBallot(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<3>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
` + prologue + `
	ld.global.u32 	%r5, [%rd2];
	shfl.sync.down.b32 	%r6|%p1, %r5, 16, 31, -1;
	add.s32 	%r5, %r5, %r6;
	shfl.sync.down.b32 	%r6, %r5, 8, 31, -1;
	add.s32 	%r5, %r5, %r6;
	shfl.sync.down.b32 	%r6, %r5, 4, 31, -1;
	add.s32 	%r5, %r5, %r6;
	shfl.sync.down.b32 	%r6, %r5, 2, 31, -1;
	add.s32 	%r5, %r5, %r6;
	shfl.sync.down.b32 	%r6, %r5, 1, 31, -1;
	add.s32 	%r5, %r5, %r6;
	shfl.sync.idx.b32 	%r7, %r5, 0, 31, -1;
	setp.gt.u32 	%p2, %r4, 20;
	vote.sync.ballot.b32 	%r8, %p2, -1;
	selp.u32 	%r9, 1, 0, %p1;
	shl.b32 	%r9, %r9, 31;
	or.b32 	%r7, %r7, %r9;
	st.global.u32 	[%rd2], %r7;
	st.global.u32 	[%rd2+128], %r8;
	ret;
}`
	in := make([]uint32, 64)
	var sum uint32
	for i := 0; i < 32; i++ {
		in[i] = uint32(i*i + 1)
		sum += in[i]
	}
	out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{in})
	require.NoError(t, err)
	for i := 0; i < 32; i++ {
		want := sum
		if i < 16 {
			want |= 1 << 31 // the first shuffle's predicate: the source lane was in range
		}
		require.Equal(t, want, out[0][i], "lane %d", i)
		require.Equal(t, uint32(0xffe00000), out[0][32+i], "ballot, lane %d", i)
	}
}

func TestAtomicsContend(t *testing.T) {
	// Every thread of 8 blocks adds its index to one global counter and
	// takes the max into another; shared-memory atomics count per block.
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	.shared .align 4 .u32 cnt;
` + prologue + `
	mov.u32 	%r9, cnt;
	atom.shared.exch.b32 	%r10, [%r9], 0;
	bar.sync 	0;
	atom.shared.add.u32 	%r10, [%r9], 1;
	bar.sync 	0;
	ld.shared.u32 	%r11, [%r9];
	red.global.add.u32 	[%rd1], %r1;
	atom.global.max.s32 	%r5, [%rd1+4], %r1;
	atom.global.inc.u32 	%r6, [%rd1+8], 1000000;
	st.global.u32 	[%rd1+12], %r11;
	ret;
}`
	out, _, err := run(t, src, "k", [3]uint32{8, 1, 1}, [3]uint32{128, 1, 1}, [][]uint32{make([]uint32, 4)})
	require.NoError(t, err)
	require.Equal(t, uint32(1023*1024/2), out[0][0])
	require.Equal(t, uint32(1023), out[0][1])
	require.Equal(t, uint32(1024), out[0][2])
	require.Equal(t, uint32(128), out[0][3])
}

func TestAtomicFaults(t *testing.T) {
	cases := []struct{ name, inst, want string }{
		{"misaligned", "atom.global.add.u32 	%r5, [%rd2+2], 1;", "misaligned address"},
		{"out of bounds", "atom.global.add.u32 	%r5, [%rd2+4096], 1;", "not inside any allocation"},
		{"local space", "atom.add.u32 	%r5, [%rd5], 1;", "atomics apply to global and shared memory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := `
.visible .entry k(.param .u64 p0)
{
	.local .align 4 .b8 	__local_depot0[8];
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	mov.u64 	%rd4, __local_depot0;
	cvta.local.u64 	%rd5, %rd4;
` + prologue + `
	` + c.inst + `
	ret;
}`
			_, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 32)})
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, "kernel k, block (0,0,0), thread (")
		})
	}
}

func TestStrictShuffleWithExitedLanes(t *testing.T) {
	// Lanes 16..31 exit, then the rest shuffle with a full member mask:
	// defined for sm_70+ (exited lanes are not waited for), a fault under
	// --strict.
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
` + prologue + `
	setp.ge.u32 	%p1, %r4, 16;
	@%p1 exit;
	shfl.sync.down.b32 	%r5, %r4, 1, 31, -1;
	st.global.u32 	[%rd2], %r5;
	ret;
}`
	out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 32)})
	require.NoError(t, err)
	require.Equal(t, uint32(15), out[0][14])
	_, _, err = runOpt(t, options{strict: true}, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 32)})
	require.ErrorContains(t, err, "membermask 0xffffffff names lanes that have exited (0xffff0000)")
}

func TestWarpSyncDeadlockIsReported(t *testing.T) {
	// Odd lanes shuffle with a full mask while even lanes wait at a
	// barrier: neither can complete.
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
` + prologue + `
	and.b32 	%r5, %r4, 1;
	setp.eq.u32 	%p1, %r5, 0;
	@%p1 bra 	$L__even;
	shfl.sync.bfly.b32 	%r6, %r4, 1, 31, -1;
	ret;
$L__even:
	bar.sync 	0;
	ret;
}`
	_, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 32)})
	require.ErrorIs(t, err, vm.ErrDeadlock)
	require.ErrorContains(t, err, "wait at a warp-synchronous instruction")
}

func TestTextureFaults(t *testing.T) {
	// A texture instruction whose handle is a global pointer, not a
	// texture object: a fault naming kernel, block, thread and PC.
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .b32 %r<8>;
	.reg .f32 %f<8>;
	.reg .b64 %rd<4>;
` + prologue + `
	mov.f32 	%f5, 0f3F000000;
	tex.2d.v4.f32.f32 	{%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5}];
	st.global.f32 	[%rd2], %f1;
	ret;
}`
	_, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 32)})
	require.ErrorContains(t, err, "is not a texture object of this device")
	require.ErrorContains(t, err, "kernel k, block (0,0,0), thread (")
	require.ErrorContains(t, err, "test.ptx:21: kernel k, block (0,0,0), thread (0,0,0), pc 9: ")

	// Texture descriptions the VM cannot honour are refused when the
	// texture is created.
	d := vm.NewDevice()
	for _, c := range []struct {
		desc vm.TextureDesc
		want string
	}{
		{vm.TextureDesc{Dims: []int{4}, Format: "f64", Data: make([]byte, 32)}, `texture format "f64" is not supported`},
		{vm.TextureDesc{Dims: []int{4}, Format: "f32", Channels: 3, Data: make([]byte, 48)}, "channels must be 1, 2 or 4"},
		{vm.TextureDesc{Dims: []int{4, 4}, Format: "f32", Data: make([]byte, 16)}, "needs 64 bytes; its buffer has 16"},
		{vm.TextureDesc{Dims: []int{4}, Format: "f32", ReadNorm: true, Data: make([]byte, 16)}, "normalized-float reads need"},
		{vm.TextureDesc{Dims: []int{4}, Format: "u32", FilterLin: true, Data: make([]byte, 16)}, "linear filtering needs"},
	} {
		_, err := d.CreateTexture(c.desc)
		require.ErrorContains(t, err, c.want)
	}
}
