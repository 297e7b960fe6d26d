package listing_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/listing"
)

func TestKernel(t *testing.T) {
	src, err := os.ReadFile("../../testdata/nvcc/ptx/matmul.O3.ptx")
	require.NoError(t, err)
	m, err := vm.NewDevice().LoadModule("matmul.O3.ptx", src)
	require.NoError(t, err)
	ki, err := listing.Kernel(m, "_Z12matmul_tiledPfPKfS1_j")
	require.NoError(t, err)
	assert.Len(t, ki.Params, 4)
	assert.EqualValues(t, 28, ki.ParamBytes, "three pointers and a u32")
	assert.EqualValues(t, 24, ki.Params[3].Offset)
	assert.EqualValues(t, 2*16*16*4, ki.SharedStatic, "two 16×16 f32 tiles")
	assert.Empty(t, ki.Callees)
	assert.Positive(t, ki.Instructions)
	// The listing scans tokens; lowering the kernel agrees on the layout.
	k, err := m.Kernel(ki.Name)
	require.NoError(t, err)
	assert.Equal(t, k.SharedStatic, ki.SharedStatic)
	assert.Equal(t, k.ParamSize, ki.ParamBytes)

	_, err = listing.Kernel(m, "nope")
	assert.ErrorContains(t, err, `no kernel named "nope" (entries: _Z12matmul_naivePfPKfS1_j`)
}
