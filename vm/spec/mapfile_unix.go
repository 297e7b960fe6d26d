//go:build unix

package spec

import (
	"os"
	"runtime"
	"syscall"

	"github.com/ptxvm/ptxvm/memspace"
)

// mapFile maps a file read-only into memory: a large input costs the host
// only the pages a launch reads (the operating system's page cache), not a
// copy. The mapping lives as long as the returned slice is reachable from
// owner.
func mapFile(path string, owner *memspace.Allocation) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return []byte{}, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return os.ReadFile(path)
	}
	runtime.AddCleanup(owner, func(b []byte) { _ = syscall.Munmap(b) }, data)
	return data, nil
}
