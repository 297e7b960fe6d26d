//go:build !amd64

package warpsimd

import "unsafe"

func runAVX2(regs unsafe.Pointer, preds *uint32, ops *RunOp, n, pc, k, max, nw int, sh unsafe.Pointer, shlast, sb int) (rk, rpc int) {
	return k, pc
}
