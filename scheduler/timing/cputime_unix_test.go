//go:build unix

package timing

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (user and system, all
// threads): on a host whose cores other processes share, a benchmark's
// CPU time moves far less with their load than its wall time.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
