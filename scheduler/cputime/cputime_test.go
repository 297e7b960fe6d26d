package cputime_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ptxvm/ptxvm/scheduler/cputime"
)

// Spinning for a while shows in the process's CPU time on the hosts that
// read it.
func TestProcessCounts(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no CPU time read here")
	}
	start := cputime.Process()
	x := 0
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
		x++
	}
	assert.Positive(t, x)
	assert.GreaterOrEqual(t, cputime.Process()-start, 20*time.Millisecond, "50 ms of spinning")
}
