package memspace

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSpaceAndKindNames(t *testing.T) {
	for s, want := range map[Space]string{
		Global: "global", Shared: "shared", Local: "local", Const: "const", Param: "param",
		FParam: "param", Texture: "texture", Generic: "generic", numSpaces: "space(8)", 200: "space(200)",
	} {
		assert.Equal(t, want, s.String())
	}
	for k, want := range map[Kind]string{Load: "load", Store: "store", Atomic: "atomic", Reduction: "reduction", 9: "kind(9)"} {
		assert.Equal(t, want, k.String())
	}
}

// TestLimits pins the sizes the address spaces promise (compute capability
// 9.0 and cudaMalloc's alignment).
func TestLimits(t *testing.T) {
	assert.Equal(t, uint64(256), AllocAlign)
	assert.Equal(t, 64*1024, ConstBankSize)
	assert.Equal(t, 227*1024, MaxSharedPerCTA)
	assert.Equal(t, 64*1024, DefaultLocalSize)
	assert.Zero(t, GlobalBase%AllocAlign)
	// The windows are as large as the largest space they map.
	assert.GreaterOrEqual(t, WindowSize, uint64(MaxSharedPerCTA))
	assert.GreaterOrEqual(t, WindowSize, uint64(DefaultLocalSize))
	assert.GreaterOrEqual(t, LocalWindow-SharedWindow, WindowSize, "windows overlap")
}
