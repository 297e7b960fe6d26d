package scheduler_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm"
)

// clusterRingSrc: clusters of 4 blocks; each thread stores into the next
// rank's shared memory through the shared::cluster window and, after the
// cluster barrier, writes what the previous rank stored (its linear index
// times 3 plus that rank). 100 KB of shared memory per block holds the
// H100 to two blocks an SM, so the launch's 160 clusters take three waves
// of 66 (33 groups of 4 SMs).
const clusterRingSrc = `
.visible .entry ring(.param .u64 p0)
.explicitcluster
.reqnctapercluster 4, 1, 1
{
	.reg .b32 %r<20>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b8 big[100000];
	ld.param.u64 	%rd1, [p0];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	mov.u32 	%r5, %cluster_ctarank;
	mov.u32 	%r6, %cluster_nctarank;
	add.u32 	%r7, %r5, 1;
	rem.u32 	%r7, %r7, %r6;
	mov.u32 	%r8, big;
	shl.b32 	%r9, %r3, 2;
	add.u32 	%r10, %r8, %r9;
	mapa.shared::cluster.u32 	%r11, %r10, %r7;
	mad.lo.u32 	%r12, %r4, 3, %r5;
	st.shared::cluster.u32 	[%r11], %r12;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	ld.shared.u32 	%r13, [%r10];
	mul.wide.u32 	%rd2, %r4, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.u32 	[%rd3], %r13;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
}`

// TestClusters runs a clustered launch functionally and with the timing
// model, on several workers: the same outputs, every block run once, and a
// cluster's blocks on the SMs of one group.
func TestClusters(t *testing.T) {
	const blocks, threads = 640, 64
	want := make([]uint32, blocks*threads)
	for b := 0; b < blocks; b++ {
		prev := b/4*4 + (b+3)%4
		for t := 0; t < threads; t++ {
			want[b*threads+t] = uint32((prev*threads+t)*3 + prev%4)
		}
	}
	for _, mode := range []string{scheduler.ModeFunctional, scheduler.ModeTiming} {
		for _, w := range []int{1, 2, 3} {
			l, dev, buf := launch(t, clusterRingSrc, "ring", [3]uint32{blocks, 1, 1}, [3]uint32{threads, 1, 1}, 4*blocks*threads)
			require.Equal(t, [3]uint32{4, 1, 1}, l.Cluster)
			res, err := scheduler.Run(context.Background(), l, scheduler.H100, scheduler.Options{Mode: mode, Workers: w})
			require.NoError(t, err, "%s, %d workers", mode, w)
			assert.Equal(t, want, readU32s(t, dev, buf, blocks*threads), "%s, %d workers", mode, w)
			assert.Equal(t, uint64(blocks), res.Stats.CTAs)
			total := 0
			for sm, n := range res.CTAsPerSM {
				total += n
				assert.Equal(t, res.CTAsPerSM[sm/4*4], n, "SM %d: the SMs of a group run as many blocks", sm)
			}
			assert.Equal(t, blocks, total)
		}
	}
}

// TestClusterDeadlockIsReported: a block that exits does not hold up the
// cluster barrier; a thread that never arrives (it waits at bar.sync for
// its block's threads held at barrier.cluster.wait) is a deadlock.
func TestClusterDeadlockIsReported(t *testing.T) {
	src := `
.visible .entry hang(.param .u64 p0)
.reqnctapercluster 2, 1, 1
{
	.reg .pred %p1;
	.reg .b32 %r<4>;
	mov.u32 	%r1, %cluster_ctarank;
	setp.eq.u32 	%p1, %r1, 1;
	@%p1 ret;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ret;
}`
	for _, mode := range []string{scheduler.ModeFunctional, scheduler.ModeTiming} {
		l, _, _ := launch(t, src, "hang", [3]uint32{4, 1, 1}, [3]uint32{32, 1, 1}, 4)
		_, err := scheduler.Run(context.Background(), l, scheduler.H100, scheduler.Options{Mode: mode})
		// The block of rank 1 exits: the barrier completes without it.
		require.NoError(t, err, mode)
	}
	src2 := `
.visible .entry hang(.param .u64 p0)
.reqnctapercluster 2, 1, 1
{
	.reg .pred %p1;
	.reg .b32 %r<4>;
	mov.u32 	%r1, %tid.x;
	setp.eq.u32 	%p1, %r1, 5;
	@%p1 bra 	$L_skip;
	barrier.cluster.arrive;
	barrier.cluster.wait;
$L_skip:
	bar.sync 	0;
	ret;
}`
	for _, mode := range []string{scheduler.ModeFunctional, scheduler.ModeTiming} {
		l, _, _ := launch(t, src2, "hang", [3]uint32{4, 1, 1}, [3]uint32{32, 1, 1}, 4)
		_, err := scheduler.Run(context.Background(), l, scheduler.H100, scheduler.Options{Mode: mode})
		require.Error(t, err, mode)
		assert.ErrorIs(t, err, vm.ErrDeadlock, mode)
	}
}
