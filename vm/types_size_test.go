package vm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTypeSizeTable holds Type.Size's table to the switch it replaced, for
// every value a Type can hold.
func TestTypeSizeTable(t *testing.T) {
	old := func(t Type) int {
		switch t {
		case B8, U8, S8:
			return 1
		case B16, U16, S16, F16, BF16, E4M3x2, E5M2x2:
			return 2
		case B32, U32, S32, F32, F16x2, BF16x2, TF32, U16x2, S16x2:
			return 4
		case B64, U64, S64, F64, TexRef:
			return 8
		case B128:
			return 16
		}
		return 0
	}
	for i := range 256 {
		assert.Equal(t, old(Type(i)), Type(i).Size(), "type %d (%s)", i, Type(i))
	}
}
