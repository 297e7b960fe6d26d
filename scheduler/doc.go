// Package scheduler places CTAs on the emulated SMs of a GPU profile and runs
// them: in fast functional mode on all host cores (one vm.SM per worker, which
// runs each block to completion with vm.SM.RunCTA), with identical results
// for any core count. A cycle-level timing model drives the same vm.SM one
// warp instruction at a time (vm.SM.Step) and wires the SMs to the memory
// hierarchy (memspace/hier) through vm.SM.Observer. Run counters are named
// as Nsight Compute names them only where they mean what ncu means
// (SpecRun.Metrics).
//
// GPU profiles are data (package scheduler/gpu: JSON files embedded in the
// binary, or a user's file); theoretical occupancy and its limiters come
// from package scheduler/occupancy (LaunchOccupancy).
//
// It does not interpret instructions itself: it calls package vm.
package scheduler
