package vm_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// TestDeviceBytes: a launch's device memory is what its device allocated
// (the sampler keeps the whole L2 for a launch whose memory fits in it):
// two buffers of 1 and 3 MiB, a module symbol, the constant bank and the
// parameters.
func TestDeviceBytes(t *testing.T) {
	dev := vm.NewDevice()
	m, err := dev.LoadModule("t.ptx", []byte(header+`
.global .align 4 .b8 table[4096];
.visible .entry k(.param .u64 p)
{
	ret;
}`))
	require.NoError(t, err)
	a, err := dev.Malloc(1<<20, "a")
	require.NoError(t, err)
	_, err = dev.Malloc(3<<20, "b")
	require.NoError(t, err)
	l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}},
		[][]byte{binary.LittleEndian.AppendUint64(nil, a)})
	require.NoError(t, err)
	n := l.DeviceBytes()
	require.GreaterOrEqual(t, n, uint64(4<<20+4096))
	require.Less(t, n, uint64(4<<20+128<<10), "only the buffers, the symbol, the 64 KiB constant bank and the parameters")
}
