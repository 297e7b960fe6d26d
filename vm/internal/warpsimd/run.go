package warpsimd

import "unsafe"

// Run kinds: the forms of RunOp.K. Package vm builds the table (its
// exec_run.go says what each form is and which instructions take it);
// RunOps executes the forms it has a kernel for and returns at the first
// other one, which vm runs itself.
const (
	RunNone       uint8 = iota
	RunCopy             // *D = *A
	RunAnd              // D = A & B & M (also mov of fewer than 64 bits: B = A)
	RunAdd              // D = (A + B) & M
	RunSub              // D = (A - B) & M
	RunOr               // D = (A | B) & M
	RunXor              // D = (A ^ B) & M
	RunShl              // D = (A << uint32(B)) & M
	RunShr              // D = (A & M) >> uint32(B)
	RunMulWideU32       // D = uint32(A) * uint32(B) (M all ones)
	RunMulWideS32       // D = int32(A) * int32(B) (M all ones)
	RunMulLo
	RunMadLo
	RunFma32
	// RunSetp32: predicate D = (lt & uint32(M) | eq & uint32(M>>32)) ^
	// uint32(C), lt and eq the lanes where uint32(A) < uint32(B) and ==,
	// signed order when Sub is 1.
	RunSetp32
	// RunPred: predicate D = (pA ^ xa) op (pB ^ xb), op and (Sub 0), or
	// (1), xor (2); xa all ones when Cmp bit 0 is set, xb when bit 1 is.
	RunPred
	// RunBra: the predicate C (all lanes when C < 0), complemented when
	// Neg is 1: all lanes go to A, none go on; lanes that disagree end
	// the run at the branch.
	RunBra
	RunLdGlobal32
	RunLdShared32 // d = the words at uint32(A) + uint32(M) of shared memory (LoadWords32)
	RunStShared32 // the words at uint32(A) + uint32(M) of shared memory = B (StoreWords32)
	RunKinds      // the number of kinds
)

// RunOp is one instruction of a run: its form, and its operands as the
// byte offsets of register operands from the register file's start (slot
// × 256) or as predicate indexes, checked by whoever built the table.
type RunOp struct {
	K, Sub, Cmp, Neg uint8
	D, A, B, C       int32
	M                uint64
}

// RunOps executes the run from ops[pc] for a full warp over the register
// file at regs (every offset of the table within it) and the predicates
// preds (every index within it), counting from k: it stops when k reaches
// max, pc reaches nw or leaves ops, at a branch whose lanes disagree, or at
// a form it has no kernel for, and returns k and pc there. The shared
// loads and stores read and write sh, the block's shared memory at the
// shared window's address sb, as LoadWords32 and StoreWords32 do for
// uint32(off) - uint32(sb), where sb + len(sh) stays within 2^32; where
// one refuses, RunOps stops before it (a load may have written some lanes
// of its destination). Where the host has no AVX2 it executes nothing.
func RunOps(regs unsafe.Pointer, preds []uint32, ops []RunOp, pc int32, k, max int, nw int32, sh []byte, sb uint64) (int, int32) {
	if !hasFMA || len(ops) == 0 || len(preds) == 0 {
		return k, pc
	}
	var shp unsafe.Pointer
	if len(sh) >= 4 && uint64(len(sh)) < 1<<31 && sb+uint64(len(sh)) <= 1<<32 {
		shp = unsafe.Pointer(&sh[0])
	}
	rk, rpc := runAVX2(regs, &preds[0], &ops[0], len(ops), int(pc), k, max, int(nw), shp, len(sh)-4, int(sb))
	return rk, int32(rpc)
}
