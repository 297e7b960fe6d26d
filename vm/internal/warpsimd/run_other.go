//go:build !amd64

package warpsimd

import "unsafe"

func runAVX2(regs unsafe.Pointer, preds *uint32, ops *RunOp, n, pc, k, max, nw int) (rk, rpc int) {
	return k, pc
}
