package vm_test

import (
	"testing"

	"github.com/stretchr/testify/require"
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
