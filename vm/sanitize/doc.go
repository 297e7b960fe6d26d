// Package sanitize finds what NVIDIA's compute-sanitizer finds, without a
// GPU: it runs a prepared launch on the VM with checkers attached and
// reports hazards in compute-sanitizer's terms.
//
// It owns the four tools and their shadow state:
//
//   - racecheck (race.go): shared-memory hazards (RAW, WAR, WAW) between
//     threads of a block with no barrier between them, one per byte, with
//     sm_70+ warp semantics: lanes of one warp are not implicitly
//     synchronised, a __syncwarp (bar.warp.sync) orders only its members;
//     hazards between lanes of one warp at different instructions are
//     warnings, the rest errors; atomics do not race; a write of the
//     byte's own value is no hazard (compute-sanitizer's info level).
//     global.go, with Options.Global: plain accesses of one global byte
//     from two blocks (beyond compute-sanitizer).
//   - initcheck (initcheck.go): reads (and atomics) of global memory that
//     no store of the host or the kernel wrote, per byte. A spec buffer with
//     neither "file" nor "fill" is unwritten; every other allocation was
//     written by the host. Options.Shared adds shared memory (beyond
//     compute-sanitizer, which tracks global memory only).
//   - synccheck (synccheck.go): barriers completed by threads at different
//     barrier instructions (divergent in a warp or in a block, per thread),
//     bar.warp.sync masks that leave out the executing lane, that differ
//     between the lanes synchronising together, or that name lanes waiting
//     at a CTA barrier (a hang).
//   - memcheck (memcheck.go): out-of-bounds and misaligned accesses (the
//     VM's faults, with the distance to the nearest allocation), shared
//     accesses past the block's allocation that the VM's reserved window
//     would otherwise accept, illegal instructions, traps, and the failed
//     launch.
//
// gpu_test.go holds them to compute-sanitizer's records of the planted-bug
// corpus (testdata/sanitize/gpu).
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
