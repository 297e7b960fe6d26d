package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCTAID(t *testing.T) {
	tests := []struct {
		grid [3]uint32
		i    int
		want [3]uint32
	}{
		{[3]uint32{4, 3, 2}, 0, [3]uint32{0, 0, 0}},
		{[3]uint32{4, 3, 2}, 5, [3]uint32{1, 1, 0}},
		{[3]uint32{4, 3, 2}, 23, [3]uint32{3, 2, 1}},
		{[3]uint32{1, 1, 7}, 6, [3]uint32{0, 0, 6}},
		// Beyond 2^32 blocks the index must not be truncated to 32 bits.
		{[3]uint32{1<<31 - 1, 65535, 65535}, 1 << 32, [3]uint32{2, 2, 0}},
		{[3]uint32{1<<31 - 1, 65535, 65535}, (1<<31-1)*65535*65535 - 1, [3]uint32{1<<31 - 2, 65534, 65534}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ctaID(tt.grid, tt.i), "block %d of %v", tt.i, tt.grid)
	}
}

func TestCTAsOn(t *testing.T) {
	for _, n := range []int{0, 1, 5, 131, 132, 133, 300, 1000} {
		for _, nsm := range []int{1, 15, 132} {
			want := make([]int, nsm)
			for _, sm := range Placement(n, nsm) {
				want[sm]++
			}
			got := make([]int, nsm)
			for sm := range got {
				got[sm] = ctasOn(sm, nsm, n)
			}
			assert.Equal(t, want, got, "%d blocks on %d SMs", n, nsm)
		}
	}
}
