package vm_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// The bulk copies on a small kernel whose results the PTX ISA fixes (the
// GPU's recordings are testdata/tma, run by scheduler/suite): lane 0 copies
// 48 bytes of buffer 1 into shared memory on an mbarrier, waits, adds them
// (cp.reduce.async.bulk .add.u32) into buffer 0 and copies them again to
// buffer 0 + 64 (cp.async.bulk shared to global); then a 2D box of the
// tensor whose map is in buffer 2 lands in shared memory (out of bounds:
// zeros) and is copied to buffer 0 + 128. A box must start 16-byte
// aligned in dimension 0 (the H200 raises an illegal instruction otherwise).
func TestBulkCopies(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0, .param .u64 p1, .param .u64 p2)
{
	.reg .pred %p<4>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 128 .b8 sm[1024];
	.shared .align 8 .b64 bar;
` + prologue + `
	ld.param.u64 	%rd5, [p1];
	ld.param.u64 	%rd6, [p2];
	mov.u32 	%r10, sm;
	mov.u32 	%r11, bar;
	setp.ne.u32 	%p1, %r4, 0;
	@%p1 bra 	$L_end;
	mbarrier.init.shared::cta.b64 	[%r11], 1;
	mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r11], 48;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes 	[%r10], [%rd5], 48, [%r11];
$L_wait:
	mbarrier.try_wait.parity.shared::cta.b64 	%p2, [%r11], 0;
	@!%p2 bra 	$L_wait;
	cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 	[%rd1], [%r10], 48;
	add.s64 	%rd7, %rd1, 64;
	cp.async.bulk.global.shared::cta.bulk_group 	[%rd7], [%r10+16], 32;
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group.read 	0;
	mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r11], 128;
	mov.u32 	%r12, -4;
	mov.u32 	%r13, 1;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes 	[%r10+256], [%rd6, {%r12, %r13}], [%r11];
$L_wait2:
	mbarrier.try_wait.parity.shared::cta.b64 	%p2, [%r11], 1;
	@!%p2 bra 	$L_wait2;
	add.s64 	%rd8, %rd1, 128;
	cp.async.bulk.global.shared::cta.bulk_group 	[%rd8], [%r10+256], 128;
$L_end:
	ret;
}`
	in := make([]uint32, 64)
	for i := range in {
		in[i] = uint32(1000 + i)
	}
	out := make([]uint32, 64)
	for i := range out {
		out[i] = uint32(i)
	}
	// A 2D tensor of u32, 12 x 5 with rows of 48 bytes, over buffer 1 (its
	// address is patched in below); a box of 8 x 4 at (-4, 1).
	tm := vm.TensorMap{Rank: 2, DType: vm.TMapU32, Dims: [5]uint64{12, 5}, Strides: [5]uint64{4, 48},
		Box: [5]uint32{8, 4}, EStrides: [5]uint32{1, 1, 1, 1, 1}}
	require.Equal(t, uint64(128), tm.BoxBytes())
	mapWords := make([]uint32, 32)
	res, _, err := runBulk(t, src, [][]uint32{out, in, mapWords}, &tm)
	require.NoError(t, err)
	for i := 0; i < 12; i++ {
		require.Equal(t, uint32(i)+in[i], res[0][i], "reduced word %d", i)
	}
	for i := 0; i < 8; i++ {
		require.Equal(t, in[4+i], res[0][16+i], "copied word %d", i)
	}
	for r := 0; r < 4; r++ {
		for c := 0; c < 8; c++ {
			want := uint32(0)
			if x, y := c-4, r+1; x >= 0 && y < 5 {
				want = in[12*y+x]
			}
			require.Equal(t, want, res[0][32+8*r+c], "box element (%d, %d)", c, r)
		}
	}
}

// runBulk runs src's kernel k on one warp with bufs, after writing tm (its
// address: buffer 1's) into buffer 2.
func runBulk(t *testing.T, src string, bufs [][]uint32, tm *vm.TensorMap) ([][]uint32, *vm.Stats, error) {
	t.Helper()
	var res [][]uint32
	var st *vm.Stats
	var err error
	// Buffers are allocated in order; find buffer 1's address by a first
	// run that only stores it.
	probe := `
.visible .entry k(.param .u64 p0, .param .u64 p1, .param .u64 p2)
{
	.reg .b64 %rd<4>;
	ld.param.u64 	%rd1, [p0];
	ld.param.u64 	%rd2, [p1];
	st.global.u64 	[%rd1], %rd2;
	ret;
}`
	res, _, err = run(t, probe, "k", [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, [][]uint32{make([]uint32, 64), bufs[1], bufs[2]})
	require.NoError(t, err)
	tm.Addr = uint64(res[0][0]) | uint64(res[0][1])<<32
	enc := tm.Encode()
	for i := range bufs[2] {
		bufs[2][i] = binary.LittleEndian.Uint32(enc[4*i:])
	}
	res, st, err = run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, bufs)
	return res, st, err
}

// The tensor-map format round-trips, and its checks refuse what
// cuTensorMapEncodeTiled refuses.
func TestTensorMapEncoding(t *testing.T) {
	tm := vm.TensorMap{Addr: 0x1000, Rank: 3, DType: vm.TMapF16, Dims: [5]uint64{64, 40, 1 << 32}, Strides: [5]uint64{2, 128, 5120},
		Box: [5]uint32{64, 8, 2}, EStrides: [5]uint32{1, 2, 1, 1, 1}, Swizzle: 3, OOBNaN: true}
	enc := tm.Encode()
	got, err := vm.DecodeTensorMap(enc[:])
	require.NoError(t, err)
	require.Equal(t, tm, got)
	require.Equal(t, uint64(64*4*2*2), got.BoxBytes())
	bad := []struct {
		edit func(*vm.TensorMap)
		msg  string
	}{
		{func(m *vm.TensorMap) { m.Addr = 8 }, "multiple of 16"},
		{func(m *vm.TensorMap) { m.Box[0] = 65 }, "box[0] is 130 bytes"},
		{func(m *vm.TensorMap) { m.Swizzle = 1 }, "at most 32 with this swizzle"},
		{func(m *vm.TensorMap) { m.Strides[1] = 100 }, "strides[0] = 100"},
		{func(m *vm.TensorMap) { m.DType = vm.TMapU16 }, "NaN fill needs a floating-point"},
		{func(m *vm.TensorMap) { m.Box[1] = 257 }, "box[1] = 257"},
		{func(m *vm.TensorMap) { m.EStrides[2] = 9 }, "element_strides[2] = 9"},
	}
	for _, b := range bad {
		m := tm
		b.edit(&m)
		require.ErrorContains(t, m.Check(), b.msg)
	}
	_, err = vm.DecodeTensorMap(make([]byte, 128))
	require.ErrorContains(t, err, "not a tensor map")
}

// .multicast::cluster delivers one bulk copy to the same offset of every
// block of the CTA mask, each completing on its own mbarrier (the PTX ISA;
// not recorded on the GPU): rank 0 copies 64 bytes of buffer 1 to both
// blocks of a cluster of two, and each block writes what it received to
// its 16 words of buffer 0.
func TestBulkMulticast(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0, .param .u64 p1)
{
	.reg .pred %p<4>;
	.reg .b16 %rs<2>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<10>;
	.shared .align 128 .b8 sm[64];
	.shared .align 8 .b64 bar;
	ld.param.u64 	%rd1, [p0];
	ld.param.u64 	%rd2, [p1];
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %cluster_ctarank;
	mov.u32 	%r3, sm;
	mov.u32 	%r4, bar;
	setp.ne.u32 	%p1, %r1, 0;
	@%p1 bra 	$L_armed;
	mbarrier.init.shared::cta.b64 	[%r4], 1;
	mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r4], 64;
$L_armed:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	or.b32 	%r5, %r1, %r2;
	setp.ne.u32 	%p2, %r5, 0;
	mov.u16 	%rs1, 3;
	@!%p2 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster 	[%r3], [%rd2], 64, [%r4], %rs1;
$L_wait:
	mbarrier.try_wait.parity.shared::cta.b64 	%p3, [%r4], 0;
	@!%p3 bra 	$L_wait;
	setp.ge.u32 	%p1, %r1, 16;
	@%p1 bra 	$L_end;
	shl.b32 	%r6, %r1, 2;
	add.u32 	%r7, %r3, %r6;
	ld.shared.u32 	%r8, [%r7];
	mad.lo.u32 	%r9, %r2, 16, %r1;
	mul.wide.u32 	%rd3, %r9, 4;
	add.s64 	%rd4, %rd1, %rd3;
	st.global.u32 	[%rd4], %r8;
$L_end:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
}`
	in := make([]uint32, 16)
	for i := range in {
		in[i] = uint32(0xabc00 + i)
	}
	_, out, err := runClusters(t, src, "k", vm.LaunchConfig{Grid: [3]uint32{2, 1, 1}, Block: [3]uint32{32, 1, 1}, Cluster: [3]uint32{2, 1, 1}}, [][]uint32{make([]uint32, 32), in})
	require.NoError(t, err)
	for r := 0; r < 2; r++ {
		require.Equal(t, in, out[0][16*r:16*r+16], "block of rank %d", r)
	}
}
