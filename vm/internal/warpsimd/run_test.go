package warpsimd

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestRunKindsMatchAssembly: the kinds run_amd64.s dispatches on keep the
// numbers it names (K_COPY ...), and RunOp the field offsets it reads.
func TestRunKindsMatchAssembly(t *testing.T) {
	require.Equal(t, []uint8{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 15, 16, 18, 19},
		[]uint8{RunCopy, RunAnd, RunAdd, RunSub, RunOr, RunXor, RunShl, RunShr, RunMulWideU32, RunMulWideS32,
			RunSetp32, RunPred, RunBra, RunLdShared32, RunStShared32})
	var o RunOp
	require.Equal(t, []uintptr{0, 1, 2, 3, 4, 8, 12, 16, 24, 32},
		[]uintptr{unsafe.Offsetof(o.K), unsafe.Offsetof(o.Sub), unsafe.Offsetof(o.Cmp), unsafe.Offsetof(o.Neg),
			unsafe.Offsetof(o.D), unsafe.Offsetof(o.A), unsafe.Offsetof(o.B), unsafe.Offsetof(o.C),
			unsafe.Offsetof(o.M), unsafe.Sizeof(o)})
}
