// Package scheduler places CTAs on the emulated SMs of a GPU profile and runs
// them: in fast functional mode on all host cores (one vm.SM per worker, which
// runs each block to completion with vm.SM.RunCTA), with identical results
// for any core count. A cycle-level timing model drives the same vm.SM one
// warp instruction at a time (vm.SM.Step). Run counters are named as Nsight
// Compute names them only where they mean what ncu means (SpecRun.Metrics).
//
// The functional run counts memory traffic by default: it builds the GPU's
// memory hierarchy (memspace/hier) for the launch, installs SM i's side of
// it as the vm.Observer of whatever worker runs SM i, and runs the grid in
// waves (every SM gets as many blocks as the occupancy lets it hold; SM s
// takes blocks s, s+SMs, ...). After each wave, with no SM running, the
// hierarchy's L2 traffic is drained in its fixed order, so every counter,
// hit rates and DRAM bytes included, is the same for any number of workers.
// Options.NoCounters runs the bare interpreter; with nothing watching, an
// SM then runs its blocks of a wave one after another instead of
// interleaved, unless the kernel's blocks can synchronise with one another
// (vm.Kernel.BlocksCommunicate), and its warps take longer turns
// (LongQuantum) unless they can synchronise other than at barriers
// (vm.Kernel.WarpsCommunicate). The bytes of every kernel whose blocks and
// warps do not race are those of a counted run.
//
// GPU profiles are data (package scheduler/gpu: JSON files embedded in the
// binary, or a user's file); theoretical occupancy and its limiters come
// from package scheduler/occupancy (LaunchOccupancy).
//
// It does not interpret instructions itself (it calls package vm) or model
// caches (memspace/hier).
package scheduler
