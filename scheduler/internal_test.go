package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCTAsPerSM(t *testing.T) {
	for _, n := range []int{0, 1, 5, 131, 132, 133, 300, 1000} {
		for _, nsm := range []int{1, 15, 132} {
			want := make([]int, nsm)
			for _, sm := range Placement(n, nsm) {
				want[sm]++
			}
			assert.Equal(t, want, ctasPerSM(nsm, 1, n), "%d blocks on %d SMs", n, nsm)
		}
	}
	// Clusters of 4 on 10 SMs: two groups of 4 SMs (8, 9 idle), one
	// cluster per group and wave.
	assert.Equal(t, []int{2, 2, 2, 2, 1, 1, 1, 1, 0, 0}, ctasPerSM(10, 4, 3))
}
