package vm_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// TestBlocksInteract: atomics and reductions in global memory, or at a
// generic address that may be global, make a kernel's blocks interact;
// shared and cluster-shared atomics, mbarriers and plain stores do not.
func TestBlocksInteract(t *testing.T) {
	for _, c := range []struct {
		inst string
		want bool
	}{
		{"atom.global.add.u32 %r2, [%rd1], 1;", true},
		{"red.global.add.f32 [%rd1], %f1;", true},
		{"atom.add.u32 %r2, [%rd1], 1;", true},
		{"atom.global.cas.b32 %r2, [%rd1], 0, 1;", true},
		{"atom.shared.add.u32 %r2, [%r1], 1;", false},
		{"red.shared::cluster.add.u32 [%r1], 1;", false},
		{"st.global.u32 [%rd1], %r1;", false},
		{"mbarrier.init.b64 [%rd1], 32;", false},
	} {
		k := oneInstKernel(t, header, c.inst)
		require.Equal(t, c.want, k.BlocksInteract(), c.inst)
	}
}

// TestBlocksCommunicate: what BlocksInteract finds, and the volatile and
// strong accesses and the fences through which blocks can order their
// accesses with respect to one another's, make a kernel's blocks
// communicate; plain accesses, the block's own spaces and block-scope
// fences do not. Its warps communicate through all of those, and through
// the block's own spaces and fences of any scope too, not through a
// thread's own (local) memory. An instruction in a called function counts
// too.
func TestBlocksCommunicate(t *testing.T) {
	for _, c := range []struct {
		inst         string
		blocks, warp bool
	}{
		{"st.global.u32 [%rd1], %r1;", false, false},
		{"ld.global.u32 %r2, [%rd1];", false, false},
		{"ld.global.nc.u32 %r2, [%rd1];", false, false},
		{"ld.u32 %r2, [%rd1];", false, false},
		{"ld.weak.global.u32 %r2, [%rd1];", false, false},
		{"atom.global.add.u32 %r2, [%rd1], 1;", true, true},
		{"red.global.add.f32 [%rd1], %f1;", true, true},
		{"ld.volatile.global.u32 %r2, [%rd1];", true, true},
		{"st.volatile.global.u32 [%rd1], %r1;", true, true},
		{"ld.volatile.u32 %r2, [%rd1];", true, true},
		{"ld.relaxed.gpu.global.u32 %r2, [%rd1];", true, true},
		{"ld.acquire.gpu.u32 %r2, [%rd1];", true, true},
		{"st.release.sys.global.u32 [%rd1], %r1;", true, true},
		{"ld.mmio.relaxed.sys.global.u32 %r2, [%rd1];", true, true},
		{"ld.acquire.cta.global.u32 %r2, [%rd1];", false, true},
		{"ld.volatile.shared.u32 %r2, [%r1];", false, true},
		{"st.volatile.shared::cta.u32 [%r1], %r1;", false, true},
		{"ld.volatile.local.u32 %r2, [%rd1];", false, false},
		{"membar.gl;", true, true},
		{"membar.sys;", true, true},
		{"membar.cta;", false, true},
		{"fence.acq_rel.gpu;", true, true},
		{"fence.sc.sys;", true, true},
		{"fence.sc.cta;", false, true},
		{"fence.proxy.async;", true, true},
		{"atom.shared.add.u32 %r2, [%r1], 1;", false, true},
		{"mbarrier.init.b64 [%rd1], 32;", false, true},
		{"bar.sync 0;", false, false},
		{"shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;", false, false},
		{"call f;", false, false},
		{"call g;", true, true},
	} {
		src := header + `
.func f()
{
	ret;
}
.func g()
{
	membar.gl;
	ret;
}
`
		k := oneInstKernel(t, src, c.inst)
		require.Equal(t, c.blocks, k.BlocksCommunicate(), c.inst)
		require.Equal(t, c.warp, k.WarpsCommunicate(), c.inst)
		require.False(t, k.BlocksInteract() && !k.BlocksCommunicate(), c.inst)
	}
}

// oneInstKernel loads kernel k of a module of prefix (a header and any
// functions) whose body sets %rd1 from its parameter, %r1 to 0 and %f1 to
// 1.0, then runs inst.
func oneInstKernel(t *testing.T, prefix, inst string) *vm.Kernel {
	t.Helper()
	src := prefix + `
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, 0;
	mov.f32 %f1, 0f3F800000;
	` + inst + `
	ret;
}`
	m, err := vm.NewDevice().LoadModule("t.ptx", []byte(src))
	require.NoError(t, err, inst)
	k, err := m.Kernel("k")
	require.NoError(t, err, inst)
	return k
}
