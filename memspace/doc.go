// Package memspace owns the GPU address spaces (global, shared, local, const,
// param) with bounds-checked storage, generic address windows, and the
// contract between the VM and the memory-hierarchy models: Access (one
// warp-wide access with its per-lane addresses, kind, cache operator,
// eviction hints, texel footprint and origin), Outcome and Observer. The VM
// hands every validated access to the Observer installed on the SM that made
// it (vm.SM.Observer); local addresses come in the interleaved physical layout
// of local.go. The hierarchy models (coalescer, caches, banks, DRAM) live in
// memspace/hier and see only these types.
//
// Global memory is sparse above DenseLimit: an allocation's storage is
// 64 KiB pages allocated on first write, and a page never written reads as
// the allocation's initial contents or zeros, so host memory follows the
// bytes a launch touches rather than the bytes it allocates. The device's
// size caps what may be allocated (GlobalMemory.Limit); the host's free
// memory, checked as pages are taken, caps what may be touched, and running
// out of it is an error naming the buffer (HostMemoryError), never the
// operating system's out-of-memory killer. A Checkpoint records the
// contents (dense allocations copied, sparse pages copied on their first
// write after it) so that Rollback can undo what code run in between
// wrote (checkpoint.go: a launch's blocks run ahead to estimate its size).
//
// It does not decide who runs next, and it does not call observers itself.
package memspace
