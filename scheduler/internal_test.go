package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

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
