// Package sanitize finds what NVIDIA's compute-sanitizer finds, without a
// GPU: it runs a prepared launch on the VM with checkers attached and
// reports hazards in compute-sanitizer's terms.
//
// It owns the four tools and their shadow state:
//
//   - racecheck (race.go): shared-memory hazards (RAW, WAR, WAW) between
//     threads of a block with no barrier between them, per byte, with
//     sm_70+ warp semantics: lanes of one warp are not implicitly
//     synchronised, a __syncwarp (bar.warp.sync) orders only its members,
//     atomics do not race, and a write of the value already written by the
//     other side is a warning.
//   - initcheck (initcheck.go): reads (and atomics) of global memory that
//     neither the host nor the kernel wrote, per byte. A spec buffer with
//     neither "file" nor "fill" is unwritten; every other allocation was
//     written by the host. Options.Shared adds shared memory (beyond
//     compute-sanitizer, which tracks global memory only).
//   - synccheck (synccheck.go): barriers completed by threads at different
//     barrier instructions (divergent in a warp or in a block), barrier
//     thread counts that are not a multiple of the warp size, bar.warp.sync
//     masks that leave out the executing lane, that differ between the
//     lanes synchronising together, or that name lanes that never arrive.
//   - memcheck (memcheck.go): out-of-bounds and misaligned accesses (the
//     VM's faults, with the distance to the nearest allocation) and shared
//     accesses past the block's allocation that the VM's reserved window
//     would otherwise accept; illegal instructions and traps.
//
// The VM attaches them the way the memory hierarchy attaches: accesses
// through vm.SM.Observer (memspace.Observer, one warp-wide access with each
// lane's address), barriers and warp syncs through vm.SM.Sync
// (vm.SyncObserver). With neither installed the interpreter pays nothing
// beyond its existing nil checks.
//
// Blocks run one after another on one SM (deterministic; a kernel whose
// blocks wait for each other is not supported). A fault ends the launch
// as it ends it on the GPU. Findings are grouped per (tool, kind,
// instruction or instruction pair) with a count of hazards; Report.WriteText
// prints them in compute-sanitizer's style, Report.JSON as one object.
package sanitize
