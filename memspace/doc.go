// Package memspace owns the GPU address spaces (global, shared, local, const,
// param) with bounds-checked storage, and the warp-wide access type through
// which every memory instruction reaches them. The memory-hierarchy models
// (coalescer, caches, banks, DRAM) and their counters plug in here.
//
// Global memory is sparse above DenseLimit: an allocation's storage is
// 64 KiB pages allocated on first write, and a page never written reads as
// the allocation's initial contents or zeros, so host memory follows the
// bytes a launch touches rather than the bytes it allocates. The device's
// size caps what may be allocated (GlobalMemory.Limit); the host's free
// memory, checked as pages are taken, caps what may be touched, and running
// out of it is an error naming the buffer (HostMemoryError), never the
// operating system's out-of-memory killer.
//
// It does not decide who runs next.
package memspace
