// Package vm lowers a parsed PTX module once into a flat, pre-decoded program
// and executes it: the semantics of every supported instruction, warps of 32
// lanes with SIMT reconvergence, CTAs with shared memory and barriers resident
// on emulated SMs, and the device API a host program uses.
//
// Files by job:
//
//   - lower*.go: lowering (names resolved, operands become register offsets,
//     labels become PCs); inst.go and types.go: the lowered instruction (Inst,
//     kept small for the interpreter); inst_info.go: what lowering computes
//     once beside it for everyone else (InstInfo: a kernel-wide id, a Class a
//     timing model can cost, the exact registers, predicates and carry flag
//     read and written, cache operators, PTX and CUDA lines);
//     lower_contract.go: the pass that fuses mul + add/sub as ptxas does
//     (the GPU's result has one rounding there).
//   - exec*.go, approx.go, fp8.go, video.go: interpretation, one switch per
//     warp instruction over lane-contiguous registers (video.go: the scalar
//     video instructions, lowered and executed as ptxas expands them).
//     fuse.go, exec_fused.go, exec_run.go: what a full warp with nothing
//     watching runs several instructions at a time (a shared-tile
//     multiply's ld+ld+fma chains; runs of arithmetic, branches and
//     32-bit loads and stores from a table built with the layout, through
//     warpsimd.RunOps); everything else, and every partial or watched
//     warp, steps.
//   - layout.go: where registers live in a frame: virtual registers that
//     are never live at once share a slot (Func.Slot), computed once per
//     kernel (and again for a timing model's reordered copy, Relayout).
//     Storage only: instructions and InstInfo keep the virtual registers.
//   - limits.go: the limits a launch runs within besides the hardware's: the
//     per-thread stack of recursive kernels (cudaLimitStackSize) and the
//     instruction budget's error, which names the loop the warp was in.
//   - sm.go, warp.go, cta.go, launch.go: the runtime. An SM keeps any number
//     of CTAs resident (Admit, Retire), runs one to completion (RunCTA, the
//     functional mode) or several together, their warps taking turns of a
//     quantum of instructions (RunCTAs, sm_together.go: what the scheduler's
//     functional run uses, so that accesses reach the Observer interleaved
//     as on the GPU), or executes one warp instruction of a warp the caller
//     picks (Step, for a timing model: Warp.State and Warp.Next say what can
//     issue). Every memory access reaches the SM's Observer once, after it is
//     validated, with its origin (SM, block, warp, instruction id).
//     probe.go: Launch.Probe runs some of a launch's blocks ahead and
//     undoes them (memory through a memspace.Checkpoint, the instruction
//     count, the budget), for a caller that needs the launch's size before
//     it runs it.
//   - cluster.go: clusters of blocks (Launch.Cluster): their shape and
//     registers, the shared::cluster window through which a block reads
//     and writes the shared memory of the others (memspace/cluster.go),
//     and barrier.cluster; RunPlaced (sm_together.go) runs a cluster's
//     blocks together on SMs of their own, from one goroutine.
//   - sync.go: the SM's SyncObserver, through which a checker (package
//     vm/sanitize) sees barrier arrivals and completions and __syncwarp
//     groups; with none installed such instructions pay one nil check.
//   - device*.go, texture_api.go: the device API (Malloc, copies, LoadModule,
//     symbols, PrepareLaunch, texture objects); texture_sample.go: texel
//     addressing and filtering as the GPU does it; texture_mip.go: levels of
//     detail, trilinear blending, cube-map projection and txq's extents;
//     surface_api.go, exec_surf.go: surface objects and suld/sust/sured/suq.
//
// Host tooling lives in subpackages: vm/spec (launch specs), vm/compare
// (typed output comparison with tolerances), vm/listing (kernel listings),
// vm/sanitize (compute-sanitizer's four checks).
//
// It does not know about cycles or caches: a caller (package scheduler)
// decides which warp issues when and supplies the clock %clock reads; memory
// hierarchy models see memspace.Access values through memspace.Observer and
// never instructions. Positioned errors are ptx.Error/ptx.ErrorList.
package vm
