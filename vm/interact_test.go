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
		src := header + `
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, 0;
	mov.f32 %f1, 0f3F800000;
	` + c.inst + `
	ret;
}`
		m, err := vm.NewDevice().LoadModule("t.ptx", []byte(src))
		require.NoError(t, err, c.inst)
		k, err := m.Kernel("k")
		require.NoError(t, err, c.inst)
		require.Equal(t, c.want, k.BlocksInteract(), c.inst)
	}
}
