package timing

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// A warp's size is whole cache lines and the fields the scan and try read
// (through mark) are on its first: Go allocates a warp in a size class of
// whole lines, so every warp starts on a line of its own.
func TestWarpLayout(t *testing.T) {
	var w warp
	assert.Zero(t, unsafe.Sizeof(w)%64, "size %d", unsafe.Sizeof(w))
	assert.LessOrEqual(t, unsafe.Offsetof(w.mark)+unsafe.Sizeof(w.mark), uintptr(64))
}

// An inst is 256 bytes: look and issue index the program by a shift.
func TestInstLayout(t *testing.T) {
	assert.Equal(t, uintptr(256), unsafe.Sizeof(inst{}))
}
