// Package warpsimd holds whole-warp lane loops over the register layout of
// package vm (a register is 32 lanes of uint64, a 32-bit value in the low
// half, the high half zero) that run several lanes per host instruction
// where the host CPU allows it (AVX2 with FMA on amd64), and the same loop
// in plain Go elsewhere. Each function computes bit for bit what the
// scalar function of package fpu it names computes on every lane; the
// tests hold the two to each other on special and random operands.
//
// It owns nothing else: no instruction decoding, no masks (callers use it
// for a full warp only), no memory.
package warpsimd
