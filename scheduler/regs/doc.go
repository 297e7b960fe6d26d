// Package regs estimates the registers per thread ptxas allocates for a
// kernel, from the PTX alone: a liveness pass over the lowered code (the
// registers each instruction reads and writes, vm.InstInfo) finds the most
// 32-bit register slots live at once (64-bit values take two; constants,
// special registers and addresses nothing writes take none; a call adds
// the callee's pressure to what lives across it), and a linear map fitted
// on the corpus's ptxas -v reports, one for optimised code and one for -G
// code, turns it into a count. The occupancy calculator takes the estimate
// when the user gives no count (spec field "registers", --regs).
//
// The estimate is rough: ptxas schedules loads early and stores late, and
// often allocates up to 32 registers when fewer would do; the README gives
// the error over every corpus kernel.
//
// AcrossCalls gives, per function, the register slots live across its
// calls (what a recursive function's frame saves; package sasscost).
//
// It does not allocate registers, model spills, or run anything.
package regs
