// Package vm lowers a parsed PTX module once into a flat, pre-decoded program
// and executes it: the semantics of every supported instruction, warps of 32
// lanes with SIMT reconvergence, CTAs with shared memory and barriers, and the
// device API a host program uses.
//
// Files by job:
//
//   - lower*.go: lowering (names resolved, operands become register offsets,
//     labels become PCs); inst.go and types.go: the lowered instruction.
//   - exec*.go, approx.go, fp8.go: interpretation, one switch per warp
//     instruction over lane-contiguous registers.
//   - warp.go, cta.go, launch.go: the runtime: warps, call frames, CTAs,
//     barriers, launches and the runner that executes CTAs.
//   - device*.go, texture_api.go: the device API (Malloc, copies, LoadModule,
//     symbols, PrepareLaunch, texture objects); texture_sample.go: texel
//     addressing and filtering as the GPU does it.
//
// Host tooling lives in subpackages: vm/spec (launch specs), vm/compare
// (typed output comparison with tolerances), vm/listing (kernel listings).
//
// It does not know about cycles or caches: package scheduler decides when a
// warp runs, and memory accesses are handed to package memspace one warp-wide
// access at a time. Positioned errors are ptx.Error/ptx.ErrorList.
package vm
