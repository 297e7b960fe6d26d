package warpsimd

import "unsafe"

// runAVX2 is RunOps's loop (run_amd64.s).
//
//go:noescape
func runAVX2(regs unsafe.Pointer, preds *uint32, ops *RunOp, n, pc, k, max, nw int, sh unsafe.Pointer, shlast, sb int) (rk, rpc int)
