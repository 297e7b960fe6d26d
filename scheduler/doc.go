// Package scheduler places CTAs on emulated SMs of a GPU profile and runs
// them: in fast functional mode on all host cores, with identical results for
// any core count. The cycle-level timing model plugs in here.
//
// It does not interpret instructions itself: it calls package vm.
package scheduler
