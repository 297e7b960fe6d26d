// Package warpsimd holds whole-warp lane loops over the register layout of
// package vm (a register is 32 lanes of uint64, a 32-bit value in the low
// half, the high half zero) that run several lanes per host instruction
// where the host CPU allows it (AVX2 with FMA on amd64), and the same loop
// in plain Go elsewhere. Each function computes bit for bit what the
// scalar function of package fpu it names computes on every lane; the
// tests hold the two to each other on special and random operands.
//
// RunOps (run.go, run_amd64.s) strings some of these loops together: it
// walks a table of RunOp that package vm builds from its lowered code (a
// full warp's run of arithmetic, vm/exec_run.go), dispatching each entry
// to its kernel inline in one assembly loop, and hands back the first
// entry it has no kernel for.
//
// It owns nothing else: no decoding of instructions (the table is vm's),
// no masks (callers use it for a full warp only), no memory.
package warpsimd
