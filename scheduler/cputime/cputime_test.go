package cputime_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ptxvm/ptxvm/scheduler/cputime"
)

// Spinning shows in the process's CPU time on the hosts that read it. The
// loop spins until 20 ms of CPU time are counted or 10 s of wall time
// pass: on a loaded machine 50 ms of wall time could hold less than 20 ms
// of this process's CPU (it failed so at a load average of 14 on 2
// cores), while a Process that never counts still fails, after 10 s.
func TestProcessCounts(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no CPU time read here")
	}
	start := cputime.Process()
	x := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && cputime.Process()-start < 20*time.Millisecond; {
		for range 1 << 16 {
			x++
		}
	}
	assert.Positive(t, x)
	assert.GreaterOrEqual(t, cputime.Process()-start, 20*time.Millisecond, "spinning for up to 10 s")
}
