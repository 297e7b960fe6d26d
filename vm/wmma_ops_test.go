package vm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// TestWmmaMachineOps: the memory instructions and MOVM ptxas emits for a
// wmma load or store, as testdata/tensor's SASS shows them (matmul_wmma: 16
// LDG and 8 MOVM for two A and two B fragments of 16-bit row-major
// matrices from global memory, 16 STG.E.64 for four f32 accumulators;
// matmul_wmma_shared: one LDSM per 16-bit fragment from shared memory).
func TestWmmaMachineOps(t *testing.T) {
	src := `
.visible .entry k(.param .u64 g)
{
	.reg .b32 %r<9>;
	.reg .f32 %f<9>;
	.reg .b64 %rd<2>;
	.shared .align 32 .b8 sm[1024];
	ld.param.u64 %rd1, [g];
	wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], 16;
	wmma.load.b.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], 16;
	wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [sm], 16;
	wmma.load.b.sync.aligned.row.m16n16k16.shared.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [sm], 16;
	wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, 16;
	ret;
}
`
	m, err := vm.NewDevice().LoadModule("test.ptx", []byte(header+src))
	require.NoError(t, err)
	k, err := m.Kernel("k")
	require.NoError(t, err)
	var got [][2]int
	f := k.Entry
	for i := range f.Code {
		if in := &f.Code[i]; in.Op == vm.OpWmmaLoad || in.Op == vm.OpWmmaStore {
			mem, movm := in.WmmaMachineOps(len(in.RegList(f)))
			got = append(got, [2]int{mem, movm})
		}
	}
	assert.Equal(t, [][2]int{{4, 0}, {4, 4}, {1, 0}, {1, 0}, {4, 0}}, got)
}
