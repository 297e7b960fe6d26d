package timing

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCeilCycMatchesCeil holds the cycle loop's conversions equal to the
// library's where the loop uses them: cycles and free times from 0 to
// below 2^63.
func TestCeilCycMatchesCeil(t *testing.T) {
	for _, f := range []float64{0, 0.25, 1, 1.5, 2.999999, 3, 1e9 + 0.5, 1 << 52, 1<<52 + 1, 1<<53 + 2, 1 << 62, math.Nextafter(1<<63, 0)} {
		require.Equal(t, uint64(math.Ceil(f)), ceilCyc(f), "%v", f)
	}
	for _, c := range []uint64{0, 1, 1000, 1<<53 + 1, 1<<63 - 1} {
		require.Equal(t, float64(c), fcyc(c), "%d", c)
	}
}
