package vm_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// runClusters prepares kernel of src with cfg and one u32 buffer per entry
// of bufs, runs each cluster's blocks together (vm.RunPlaced, one SM per
// rank) and returns the buffers afterwards.
func runClusters(t *testing.T, src, kernel string, cfg vm.LaunchConfig, bufs [][]uint32) (*vm.Launch, [][]uint32, error) {
	t.Helper()
	dev := vm.NewDevice()
	m, err := dev.LoadModule("test.ptx", []byte(header+src))
	if err != nil {
		return nil, nil, err
	}
	var addrs []uint64
	var args [][]byte
	for _, b := range bufs {
		a, err := dev.Malloc(uint64(4*len(b)), "buf")
		require.NoError(t, err)
		require.NoError(t, dev.MemcpyHtoD(a, u32bytes(b)))
		addrs = append(addrs, a)
		args = append(args, binary.LittleEndian.AppendUint64(nil, a))
	}
	l, err := m.PrepareLaunch(kernel, cfg, args)
	if err != nil {
		return nil, nil, err
	}
	l.MaxInst = 1 << 22
	k := l.ClusterSize()
	sms := make([]*vm.SM, k)
	for r := range sms {
		sms[r] = l.NewSM(r)
	}
	for ci := 0; ci < l.NumClusters(); ci++ {
		var blocks []vm.Placed
		for r, b := range l.ClusterBlocks(ci, nil) {
			blocks = append(blocks, vm.Placed{SM: sms[r], Index: b})
		}
		if err := vm.RunPlaced(blocks, 3); err != nil {
			return l, nil, err
		}
	}
	out := make([][]uint32, len(bufs))
	for i, b := range bufs {
		raw := make([]byte, 4*len(b))
		require.NoError(t, dev.MemcpyDtoH(raw, addrs[i]))
		out[i] = bytesU32(raw)
	}
	return l, out, nil
}

// clusterEntry is a kernel of one output buffer; %r1 is the global thread
// index, %rd2 its word of the output, %r4 %tid.x, %r5 %cluster_ctarank,
// %r6 %cluster_nctarank, %r7 sm's shared::cta address, %rd7 its generic one.
func clusterEntry(directives, body string) string {
	return `
.visible .entry k(.param .u64 p0)` + directives + `
{
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 8 .b8 sm[512];
	.shared .align 8 .b64 bar;
` + prologue + `
	mov.u32 	%r5, %cluster_ctarank;
	mov.u32 	%r6, %cluster_nctarank;
	mov.u32 	%r7, sm;
	cvta.shared.u64 	%rd7, sm;
` + body + `
	st.global.u32 	[%rd2], %r30;
	ret;
}`
}

func TestClusterShape(t *testing.T) {
	body := `	mov.u32 	%r30, %r6;`
	tests := []struct {
		name       string
		directives string
		grid       [3]uint32
		cluster    [3]uint32
		want       [3]uint32
		explicit   bool
		err        string
	}{
		{"no clusters", "", [3]uint32{4, 1, 1}, [3]uint32{}, [3]uint32{1, 1, 1}, false, ""},
		{"the launch's", "", [3]uint32{4, 2, 1}, [3]uint32{2, 2, 1}, [3]uint32{2, 2, 1}, true, ""},
		{"the kernel's", "\n.explicitcluster\n.reqnctapercluster 4, 1, 1", [3]uint32{8, 1, 1}, [3]uint32{}, [3]uint32{4, 1, 1}, true, ""},
		{"both, agreeing", "\n.reqnctapercluster 2", [3]uint32{8, 1, 1}, [3]uint32{2, 1, 1}, [3]uint32{2, 1, 1}, true, ""},
		{"a cluster of one named", "", [3]uint32{3, 1, 1}, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, true, ""},
		{"both, disagreeing", "\n.reqnctapercluster 2", [3]uint32{8, 1, 1}, [3]uint32{4, 1, 1}, [3]uint32{}, false, "declares clusters of (2,1,1) blocks (.reqnctapercluster); the launch asks for (4,1,1)"},
		{"explicit without a shape", "\n.explicitcluster", [3]uint32{8, 1, 1}, [3]uint32{}, [3]uint32{}, false, "must give a cluster shape"},
		{"grid not a multiple", "", [3]uint32{6, 1, 1}, [3]uint32{4, 1, 1}, [3]uint32{}, false, "grid (6,1,1) is not a multiple of the cluster (4,1,1)"},
		{"too large", "", [3]uint32{32, 1, 1}, [3]uint32{32, 1, 1}, [3]uint32{}, false, "at most 16 are allowed"},
		{"zero dimension", "", [3]uint32{4, 1, 1}, [3]uint32{2, 0, 1}, [3]uint32{}, false, "has a zero dimension"},
		{"above .maxclusterrank", "\n.maxclusterrank 2", [3]uint32{4, 1, 1}, [3]uint32{4, 1, 1}, [3]uint32{}, false, "at most 2 blocks per cluster"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := int(tc.grid[0] * tc.grid[1] * tc.grid[2] * 32)
			l, out, err := runClusters(t, clusterEntry(tc.directives, body), "k", vm.LaunchConfig{Grid: tc.grid, Block: [3]uint32{32, 1, 1}, Cluster: tc.cluster}, [][]uint32{make([]uint32, n)})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, l.Cluster)
			assert.Equal(t, tc.explicit, l.ExplicitCluster)
			for _, v := range out[0][:32*tc.grid[0]] { // the prologue's index ignores %ctaid.y and .z
				require.Equal(t, uint32(l.ClusterSize()), v)
			}
		})
	}
}

// TestClusterRegisters checks every %cluster_* register of every block of a
// 3-D grid in 3-D clusters against the PTX ISA's definitions.
func TestClusterRegisters(t *testing.T) {
	names := []string{"%clusterid.x", "%clusterid.y", "%clusterid.z", "%nclusterid.x", "%nclusterid.y", "%nclusterid.z",
		"%cluster_ctaid.x", "%cluster_ctaid.y", "%cluster_ctaid.z", "%cluster_nctaid.x", "%cluster_nctaid.y", "%cluster_nctaid.z",
		"%cluster_ctarank", "%cluster_nctarank"}
	body := `
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ctaid.y;
	mov.u32 	%r8, %ctaid.z;
	mov.u32 	%r9, %nctaid.x;
	mov.u32 	%r10, %nctaid.y;
	mad.lo.u32 	%r11, %r8, %r10, %r3;
	mad.lo.u32 	%r11, %r11, %r9, %r2;      // linear block
	mul.lo.u32 	%r11, %r11, 16;
	mul.wide.u32 	%rd3, %r11, 4;
	add.s64 	%rd4, %rd1, %rd3;
	setp.ne.u32 	%p1, %r4, 0;
	@%p1 bra 	$L_done;
`
	for i, n := range names {
		body += "\tmov.u32 \t%r20, " + n + ";\n\tst.global.u32 \t[%rd4+" + itoa(4*i) + "], %r20;\n"
	}
	body += `	mov.pred 	%p2, %is_explicit_cluster;
	selp.u32 	%r20, 1, 0, %p2;
	st.global.u32 	[%rd4+56], %r20;
$L_done:
	ret;
}`
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	ld.param.u64 	%rd1, [p0];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r4, %tid.x;
` + body
	grid, cl := [3]uint32{4, 2, 4}, [3]uint32{2, 1, 2}
	nb := int(grid[0] * grid[1] * grid[2])
	_, out, err := runClusters(t, src, "k", vm.LaunchConfig{Grid: grid, Block: [3]uint32{32, 1, 1}, Cluster: cl}, [][]uint32{make([]uint32, 16*nb)})
	require.NoError(t, err)
	for z := uint32(0); z < grid[2]; z++ {
		for y := uint32(0); y < grid[1]; y++ {
			for x := uint32(0); x < grid[0]; x++ {
				b := x + grid[0]*(y+grid[1]*z)
				id := [3]uint32{x, y, z}
				var want []uint32
				for i := 0; i < 3; i++ {
					want = append(want, id[i]/cl[i])
				}
				for i := 0; i < 3; i++ {
					want = append(want, grid[i]/cl[i])
				}
				for i := 0; i < 3; i++ {
					want = append(want, id[i]%cl[i])
				}
				want = append(want, cl[0], cl[1], cl[2])
				want = append(want, x%cl[0]+cl[0]*(y%cl[1]+cl[1]*(z%cl[2])), cl[0]*cl[1]*cl[2], 1)
				assert.Equal(t, want, out[0][16*b:16*b+15], "block %v", id)
			}
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

// TestDistributedShared runs clusters of 4 blocks of 32 threads, each
// body leaving in %r30 what the thread writes; sm holds 4*tid + rank*1000
// in every block once the cluster barrier completes (lanes 0..31, words
// 0..31), before the body.
func TestDistributedShared(t *testing.T) {
	const fill = `
	shl.b32 	%r8, %r4, 2;
	add.u32 	%r9, %r7, %r8;            // &sm[tid]
	mad.lo.u32 	%r10, %r5, 1000, %r8;
	st.shared.u32 	[%r9], %r10;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
`
	tests := []struct {
		name string
		body string
		want func(rank, tid uint32) uint32
	}{
		{"a shared variable's address: the rank's slot, from 0x400", `
	mov.u32 	%r30, sm;`, func(r, tid uint32) uint32 { return r<<24 | vm.SharedReserved }},
		{"ld.shared::cluster from the next rank", `
	add.u32 	%r11, %r5, 1;
	rem.u32 	%r11, %r11, %r6;
	mapa.shared::cluster.u32 	%r12, %r9, %r11;
	ld.shared::cluster.u32 	%r30, [%r12];
	barrier.cluster.arrive;
	barrier.cluster.wait;`, func(r, tid uint32) uint32 { return 4*tid + (r+1)%4*1000 }},
		{"st.shared::cluster to the previous rank", `
	add.u32 	%r11, %r5, 3;
	rem.u32 	%r11, %r11, %r6;
	mapa.shared::cluster.u32 	%r12, %r9, %r11;
	add.u32 	%r13, %r5, 77;
	st.shared::cluster.u32 	[%r12], %r13;
	barrier.cluster.arrive.relaxed.aligned;
	barrier.cluster.wait.aligned;
	ld.shared.u32 	%r30, [%r9];`, func(r, tid uint32) uint32 { return (r+1)%4 + 77 }},
		{"generic mapa.u64 and ld", `
	mul.wide.u32 	%rd8, %r8, 1;
	add.s64 	%rd9, %rd7, %rd8;
	mov.u32 	%r11, 2;
	mapa.u64 	%rd10, %rd9, %r11;
	ld.u32 	%r30, [%rd10];
	barrier.cluster.arrive;
	barrier.cluster.wait;`, func(r, tid uint32) uint32 { return 4*tid + 2000 }},
		{"atom.shared::cluster.add into rank 0", `
	mov.u32 	%r11, 0;
	mapa.shared::cluster.u32 	%r12, %r7, %r11;
	atom.shared::cluster.add.u32 	%r13, [%r12+256], %r4;
	red.shared::cluster.add.u32 	[%r12+260], 1;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	ld.shared::cluster.u32 	%r14, [%r12+256];
	ld.shared::cluster.u32 	%r15, [%r12+260];
	add.u32 	%r30, %r14, %r15;
	barrier.cluster.arrive;
	barrier.cluster.wait;`, func(r, tid uint32) uint32 { return 4*(31*32/2) + 128 }},
		{"getctarank of mapped, own and generic addresses", `
	mapa.shared::cluster.u32 	%r12, %r9, 3;
	getctarank.shared::cluster.u32 	%r13, %r12;
	getctarank.shared::cluster.u32 	%r14, %r9;
	mov.u32 	%r11, 1;
	mapa.u64 	%rd10, %rd7, %r11;
	getctarank.u64 	%r15, %rd10;
	mad.lo.u32 	%r30, %r13, 100, %r15;
	mad.lo.u32 	%r30, %r14, 10, %r30;`, func(r, tid uint32) uint32 { return 300 + 10*r + 1 }},
		{"isspacep: another block's shared memory is shared::cluster, not shared::cta", `
	mov.u32 	%r11, 1;
	mapa.u64 	%rd10, %rd7, %r11;
	isspacep.shared::cta 	%p1, %rd10;
	isspacep.shared::cluster 	%p2, %rd10;
	isspacep.shared 	%p3, %rd7;
	selp.u32 	%r13, 1, 0, %p1;
	selp.u32 	%r14, 10, 0, %p2;
	selp.u32 	%r15, 100, 0, %p3;
	add.u32 	%r30, %r13, %r14;
	add.u32 	%r30, %r30, %r15;`, func(r, tid uint32) uint32 {
			if r == 1 {
				return 111
			}
			return 110
		}},
		{"mbarrier arrive on the next rank's object", `
	setp.ne.u32 	%p1, %r4, 0;
	mov.u32 	%r16, bar;
	@%p1 bra 	$L_init;
	mbarrier.init.shared::cta.b64 	[%r16], 32;
$L_init:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	add.u32 	%r11, %r5, 1;
	rem.u32 	%r11, %r11, %r6;
	mapa.shared::cluster.u32 	%r12, %r9, %r11;
	st.shared::cluster.u32 	[%r12+128], %r5;
	mapa.shared::cluster.u32 	%r17, %r16, %r11;
	mbarrier.arrive.release.cluster.shared::cluster.b64 	_, [%r17];
$L_wait:
	mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 	%p2, [%r16], 0;
	@!%p2 bra 	$L_wait;
	ld.shared.u32 	%r30, [%r9+128];
	barrier.cluster.arrive;
	barrier.cluster.wait;`, func(r, tid uint32) uint32 { return (r + 3) % 4 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, out, err := runClusters(t, clusterEntry("", fill+tc.body), "k", vm.LaunchConfig{Grid: [3]uint32{8, 1, 1}, Block: [3]uint32{32, 1, 1}, Cluster: [3]uint32{4, 1, 1}}, [][]uint32{make([]uint32, 256)})
			require.NoError(t, err)
			for b := uint32(0); b < 8; b++ {
				for tid := uint32(0); tid < 32; tid++ {
					require.Equal(t, tc.want(b%4, tid), out[0][32*b+tid], "block %d thread %d", b, tid)
				}
			}
		})
	}
}

// TestClusterBarrierSplitPhases: an arrive, work, then the wait; a warp's
// lanes may be in different phases (a lane that has waited arrives again
// while another has not yet waited for the first phase).
func TestClusterBarrierSplitPhases(t *testing.T) {
	body := `
	barrier.cluster.arrive;
	shl.b32 	%r8, %r4, 2;
	add.u32 	%r9, %r7, %r8;
	st.shared.u32 	[%r9], %r5;
	barrier.cluster.wait;
	barrier.cluster.arrive;
	barrier.cluster.wait;
	xor.b32 	%r11, %r5, 1;
	mapa.shared::cluster.u32 	%r12, %r9, %r11;
	ld.shared::cluster.u32 	%r30, [%r12];
	barrier.cluster.arrive;
	barrier.cluster.wait;`
	_, out, err := runClusters(t, clusterEntry("\n.reqnctapercluster 2, 1, 1", body), "k", vm.LaunchConfig{Grid: [3]uint32{4, 1, 1}, Block: [3]uint32{64, 1, 1}}, [][]uint32{make([]uint32, 256)})
	require.NoError(t, err)
	for i, v := range out[0] {
		require.Equal(t, uint32(i/64%2^1), v, "thread %d", i)
	}
}

func TestClusterFaults(t *testing.T) {
	tests := []struct {
		name, body, err string
		is              error
	}{
		{"a rank the cluster does not have", `
	mapa.shared::cluster.u32 	%r12, %r7, 9;
	ld.shared::cluster.u32 	%r30, [%r12];`, "names rank 9; the cluster has 2 blocks", nil},
		{"a block that has exited", `
	setp.eq.u32 	%p1, %r5, 0;
	@%p1 ret;
	barrier.cluster.arrive;
	mov.u32 	%r11, 0;
	mapa.shared::cluster.u32 	%r12, %r7, %r11;
	ld.shared::cluster.u32 	%r30, [%r12];`, "the block of rank 0 in the cluster has exited", nil},
		{"past another block's shared memory", `
	mov.u32 	%r11, 1;
	mapa.shared::cluster.u32 	%r12, %r7, %r11;
	ld.shared::cluster.u32 	%r30, [%r12+4096];`, "outside the shared memory of the block of rank 1", nil},
		{"a thread that never arrives", `
	setp.eq.u32 	%p1, %r4, 5;
	@%p1 bra 	$L_skip;
	barrier.cluster.arrive;
	barrier.cluster.wait;
$L_skip:
	bar.sync 	0;
	mov.u32 	%r30, 1;`, "barrier.cluster has", vm.ErrDeadlock},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runClusters(t, clusterEntry("", tc.body), "k", vm.LaunchConfig{Grid: [3]uint32{2, 1, 1}, Block: [3]uint32{32, 1, 1}, Cluster: [3]uint32{2, 1, 1}}, [][]uint32{make([]uint32, 64)})
			require.ErrorContains(t, err, tc.err)
			if tc.is != nil {
				require.ErrorIs(t, err, tc.is)
			}
			var ft *vm.Fault
			if tc.is == nil {
				require.True(t, errors.As(err, &ft), "a positioned fault: %v", err)
				require.NotNil(t, ft.MemFault)
				assert.Equal(t, memspace.Shared, ft.MemFault.Space)
			}
		})
	}
}

func TestClusterLoweringErrors(t *testing.T) {
	tests := []struct{ name, body, err string }{
		{"barrier.cluster without arrive or wait", "\tbarrier.cluster.aligned;", "barrier.cluster needs .arrive or .wait"},
		{"barrier.cluster with operands", "\tbarrier.cluster.arrive 0;", "barrier.cluster takes no operands"},
		{"mapa of a bad type", "\tmapa.shared::cluster.b16 %r30, %r7, 1;", "mapa needs the type .u32 or .u64"},
		{"mapa in .global", "\tmapa.global.u64 %rd9, %rd7, 1;", "takes the space .shared::cluster or none"},
		{"mapa with two operands", "\tmapa.u32 %r30, %r7;", "mapa takes 3 operands, found 2"},
		{"%is_explicit_cluster as an operand", "\tselp.u32 %r30, 1, 0, %is_explicit_cluster;", "%is_explicit_cluster can only be read with mov.pred"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dev := vm.NewDevice()
			m, err := dev.LoadModule("test.ptx", []byte(header+clusterEntry("", tc.body)))
			if err == nil {
				_, err = m.Kernel("k")
			}
			require.ErrorContains(t, err, tc.err)
			require.ErrorContains(t, err, "test.ptx:", "positioned")
		})
	}
}
