// Package memspace owns the GPU address spaces (global, shared, local, const,
// param) with bounds-checked storage, and the warp-wide access type through
// which every memory instruction reaches them. The memory-hierarchy models
// (coalescer, caches, banks, DRAM) and their counters plug in here.
//
// It does not decide who runs next.
package memspace
