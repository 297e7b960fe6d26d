package sasscost

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The wgmma latency fit (wgmmaLatency) against every form the H200 timed
// (testdata/tma/log: rec3 the f16 forms, rec4 the fp8 and .b1 ones; one
// block, issue + commit + wait_group 0): within 7 cycles for f16, 6 for
// fp8 with an f32 accumulator, 10 for .b1 and 11 for the one fp8 form with
// an f16 accumulator.
func TestWgmmaLatencyAgainstBench(t *testing.T) {
	line := regexp.MustCompile(`wgmma m64n(\d+)k\d+\.(\S+) ss blocks 1 reps \d+: latency \(issue\+commit\+wait\) ([\d.]+) cycles`)
	tol := map[string]float64{"f32.f16.f16": 7, "f32.e4m3.e4m3": 6, "f16.e5m2.e5m2": 11, "s32.b1.b1.and.popc": 10}
	n := 0
	for _, f := range []string{"rec3/bench_wg.txt", "rec4/bench_fp8.txt", "rec4/bench_b1.txt"} {
		b, err := os.ReadFile("../../testdata/tma/log/" + f)
		require.NoError(t, err)
		for _, m := range line.FindAllStringSubmatch(string(b), -1) {
			nn, _ := strconv.Atoi(m[1])
			got, _ := strconv.ParseFloat(m[3], 64)
			tl, ok := tol[m[2]]
			require.True(t, ok, "%s: form %s", f, m[2])
			assert.InDelta(t, got, float64(wgmmaLatency(nn)), tl, "%s: m64n%s %s", f, m[1], m[2])
			n++
		}
	}
	assert.Equal(t, 13, n, "timed forms")
}
