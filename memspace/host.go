package memspace

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
)

// The host's memory is checked, not just assumed: every hostCheckEvery
// bytes that allocations take, hostAvailable reads how much memory the host
// still has (Linux's MemAvailable) and refuses once less than hostReserve
// would be left, so that a launch that touches more than the host holds
// ends in an error naming the buffer rather than in the kernel's
// out-of-memory killer.
const (
	hostCheckEvery = 64 << 20
	hostReserve    = 256 << 20
)

var hostGuard struct {
	sync.Mutex
	since uint64 // bytes requested since the last check
	known bool   // MemAvailable can be read
	avail uint64 // at the last check
}

// hostAvailable reports whether the host can give n more bytes.
func hostAvailable(n uint64) bool {
	hostGuard.Lock()
	defer hostGuard.Unlock()
	hostGuard.since += n
	if hostGuard.since < hostCheckEvery && hostGuard.known && hostGuard.avail > hostGuard.since+hostReserve {
		return true
	}
	hostGuard.since = 0
	avail, ok := memAvailable()
	if !ok {
		hostGuard.known = false
		return true // not Linux: nothing to check
	}
	if avail < n+hostReserve {
		// Memory the Go runtime holds but no longer uses counts as taken;
		// give it back and look again before refusing.
		runtime.GC()
		debug.FreeOSMemory()
		if avail, ok = memAvailable(); !ok {
			return true
		}
	}
	hostGuard.known, hostGuard.avail = true, avail
	if avail < n+hostReserve {
		return false
	}
	hostGuard.avail -= n
	return true
}

// HostAvailable is the host memory Linux reports as available, and whether
// it could be read.
func HostAvailable() (uint64, bool) { return memAvailable() }

func memAvailable() (uint64, bool) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "MemAvailable:" {
			kb, err := strconv.ParseUint(string(f[1]), 10, 64)
			if err != nil {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}
