// Package vm lowers a parsed PTX module once into a flat, pre-decoded program
// and executes it: the semantics of every supported instruction, warps of 32
// lanes with an active mask and SIMT reconvergence, CTAs with shared memory and
// barriers, and the device API (Malloc, copies, symbols, Launch) with the
// launch-spec v1 loader.
//
// It does not know about cycles: package scheduler decides when a warp runs,
// and memory accesses are handed to package memspace one warp-wide access at a
// time.
package vm
