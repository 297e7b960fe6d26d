#include "textflag.h"
#include "lanes_amd64.h"

// runAVX2(regs unsafe.Pointer, preds *uint32, ops *RunOp, n, pc, k, max, nw int, sh unsafe.Pointer, shlast, sb int) (rk, rpc int)
//
// RunOps's loop. R8 k, R9 regs, R10 preds, R11 ops, R12 len(ops), R13 pc;
// AX the op; the kernels use BX CX DX SI DI and Y0-Y4, Y14 (the low-32-bit
// mask, for shift counts) and Y15 (the op's mask, or setp's flip). Each
// kernel is RunOp's form for 32 lanes (four steps of eight), its sources
// of a step loaded before the step's stores (a destination may be a
// source). The shared loads and stores call loadWords32AVX2 and
// storeWords32AVX2 (the frame: their arguments at 0(SP), R8-R13 saved at
// 40(SP)); sh is nil where the block's shared memory cannot take them
// (RunOps). The kinds' numbers are run.go's (TestRunKindsMatchAssembly).

#define K_COPY 1
#define K_AND 2
#define K_ADD 3
#define K_SUB 4
#define K_OR 5
#define K_XOR 6
#define K_SHL 7
#define K_SHR 8
#define K_MULWU 9
#define K_MULWS 10
#define K_SETP 14
#define K_PRED 15
#define K_BRA 16
#define K_LDSH 18
#define K_STSH 19

#define SAVE \
	MOVQ R8, 40(SP) \
	MOVQ R9, 48(SP) \
	MOVQ R10, 56(SP) \
	MOVQ R11, 64(SP) \
	MOVQ R12, 72(SP) \
	MOVQ R13, 80(SP)

#define RESTORE \
	MOVQ 40(SP), R8 \
	MOVQ 48(SP), R9 \
	MOVQ 56(SP), R10 \
	MOVQ 64(SP), R11 \
	MOVQ 72(SP), R12 \
	MOVQ 80(SP), R13

#define LOW32 \
	MOVL $0xffffffff, CX \
	VMOVQ CX, X14 \
	VPBROADCASTQ X14, Y14

// RunOp's fields: K 0, Sub 1, Cmp 2, Neg 3, D 4, A 8, B 12, C 16, M 24.

#define BIN(OP) \
	BSTEP(OP, 0, 32) \
	BSTEP(OP, 64, 96) \
	BSTEP(OP, 128, 160) \
	BSTEP(OP, 192, 224)

#define SHIFT(PRE0, PRE1, OP, POST0, POST1) \
	SSTEP(PRE0, PRE1, OP, POST0, POST1, 0, 32) \
	SSTEP(PRE0, PRE1, OP, POST0, POST1, 64, 96) \
	SSTEP(PRE0, PRE1, OP, POST0, POST1, 128, 160) \
	SSTEP(PRE0, PRE1, OP, POST0, POST1, 192, 224)

#define CSTEP(o0, o1) \
	VMOVDQU o0(SI), Y0 \
	VMOVDQU o1(SI), Y1 \
	VMOVDQU Y0, o0(DI) \
	VMOVDQU Y1, o1(DI)

// CMPSTEP: lanes sh..sh+7 of a < b into BX, of a == b into DI (cmp32AVX2's
// step: the low halves in lane order, XOR with the flip Y15).
#define CMPSTEP(o0, o1, sh) \
	VMOVDQU o0(SI), Y0 \
	VMOVDQU o1(SI), Y1 \
	VSHUFPS $0x88, Y1, Y0, Y0 \
	VPERMQ $0xD8, Y0, Y0 \
	VPXOR Y15, Y0, Y0 \
	VMOVDQU o0(DX), Y2 \
	VMOVDQU o1(DX), Y3 \
	VSHUFPS $0x88, Y3, Y2, Y2 \
	VPERMQ $0xD8, Y2, Y2 \
	VPXOR Y15, Y2, Y2 \
	VPCMPGTD Y0, Y2, Y3 \
	VPCMPEQD Y2, Y0, Y4 \
	VMOVMSKPS Y3, AX \
	VMOVMSKPS Y4, CX \
	SHLL $sh, AX \
	SHLL $sh, CX \
	ORL AX, BX \
	ORL CX, DI

// OPS3 points DI, SI, DX at the op's D, A, B and broadcasts M into Y15.
#define OPS3 \
	MOVLQSX 4(AX), DI \
	ADDQ R9, DI \
	MOVLQSX 8(AX), SI \
	ADDQ R9, SI \
	MOVLQSX 12(AX), DX \
	ADDQ R9, DX \
	VPBROADCASTQ 24(AX), Y15

TEXT ·runAVX2(SB), NOSPLIT, $88-104
	MOVQ regs+0(FP), R9
	MOVQ preds+8(FP), R10
	MOVQ ops+16(FP), R11
	MOVQ n+24(FP), R12
	MOVQ pc+32(FP), R13
	MOVQ k+40(FP), R8
	LOW32

loop:
	CMPQ R8, max+48(FP)
	JGE done
	CMPQ R13, nw+56(FP)
	JGE done
	CMPQ R13, R12
	JAE done
	MOVQ R13, AX
	SHLQ $5, AX
	ADDQ R11, AX
	MOVBLZX (AX), BX
	CMPL BX, $K_ADD
	JEQ add
	CMPL BX, $K_SETP
	JEQ setp
	CMPL BX, $K_PRED
	JEQ pred
	CMPL BX, $K_BRA
	JEQ bra
	CMPL BX, $K_STSH
	JEQ stsh
	CMPL BX, $K_LDSH
	JEQ ldsh
	CMPL BX, $K_COPY
	JEQ copy
	CMPL BX, $K_AND
	JEQ and
	CMPL BX, $K_MULWU
	JEQ mulwu
	CMPL BX, $K_SHL
	JEQ shl
	CMPL BX, $K_SHR
	JEQ shr
	CMPL BX, $K_SUB
	JEQ sub
	CMPL BX, $K_OR
	JEQ or
	CMPL BX, $K_XOR
	JEQ xor
	CMPL BX, $K_MULWS
	JEQ mulws
	JMP done // a form the caller runs

add:
	OPS3
	BIN(VPADDQ)
	JMP next
sub:
	OPS3
	BIN(VPSUBQ)
	JMP next
and:
	OPS3
	BIN(VPAND)
	JMP next
or:
	OPS3
	BIN(VPOR)
	JMP next
xor:
	OPS3
	BIN(VPXOR)
	JMP next
mulwu:
	OPS3
	BIN(VPMULUDQ)
	JMP next
mulws:
	OPS3
	BIN(VPMULDQ)
	JMP next
shl:
	OPS3
	SHIFT(NONE, NONE, VPSLLVQ, MASK0, MASK1)
	JMP next
shr:
	OPS3
	SHIFT(MASK0, MASK1, VPSRLVQ, NONE, NONE)
	JMP next
copy:
	MOVLQSX 4(AX), DI
	ADDQ R9, DI
	MOVLQSX 8(AX), SI
	ADDQ R9, SI
	CSTEP(0, 32)
	CSTEP(64, 96)
	CSTEP(128, 160)
	CSTEP(192, 224)
	JMP next

setp:
	MOVLQSX 8(AX), SI
	ADDQ R9, SI
	MOVLQSX 12(AX), DX
	ADDQ R9, DX
	MOVBLZX 1(AX), CX // signed: flip 0, else 1<<31
	XORL $1, CX
	SHLL $31, CX
	VMOVD CX, X15
	VPBROADCASTD X15, Y15
	XORL BX, BX
	XORL DI, DI
	CMPSTEP(0, 32, 0)
	CMPSTEP(64, 96, 8)
	CMPSTEP(128, 160, 16)
	CMPSTEP(192, 224, 24)
	MOVQ R13, AX
	SHLQ $5, AX
	ADDQ R11, AX
	ANDL 24(AX), BX // lt & uint32(M)
	ANDL 28(AX), DI // eq & uint32(M>>32)
	ORL DI, BX
	XORL 16(AX), BX // ^ uint32(C)
	MOVLQSX 4(AX), CX
	MOVL BX, (R10)(CX*4)
	JMP next

pred:
	MOVLQSX 8(AX), CX
	MOVL (R10)(CX*4), BX
	MOVLQSX 12(AX), CX
	MOVL (R10)(CX*4), DX
	MOVBLZX 2(AX), CX
	TESTL $1, CX
	JZ pna
	NOTL BX
pna:
	TESTL $2, CX
	JZ pnb
	NOTL DX
pnb:
	MOVBLZX 1(AX), CX
	CMPL CX, $1
	JEQ por
	JHI pxor
	ANDL DX, BX
	JMP pstore
por:
	ORL DX, BX
	JMP pstore
pxor:
	XORL DX, BX
pstore:
	MOVLQSX 4(AX), CX
	MOVL BX, (R10)(CX*4)
	JMP next

bra:
	MOVLQSX 16(AX), CX
	TESTQ CX, CX
	JS taken // no guard
	MOVL (R10)(CX*4), BX
	MOVBLZX 3(AX), CX
	TESTL CX, CX
	JZ bpos
	NOTL BX
bpos:
	CMPL BX, $-1
	JEQ taken
	TESTL BX, BX
	JNZ done // the lanes disagree: the caller's
	JMP next // none go
taken:
	MOVLQSX 8(AX), R13
	INCQ R8
	JMP loop

// The shared forms: loadShared32Regs's and storeShared32Regs's fast
// paths; where they refuse, the caller's (which refuses too, and steps).
ldsh:
	MOVQ sh+64(FP), BX
	TESTQ BX, BX
	JZ done
	MOVL 4(AX), CX
	CMPL CX, 8(AX)
	JEQ done // d == a: the caller's
	MOVLQSX 4(AX), DI
	ADDQ R9, DI
	MOVQ DI, 0(SP)
	MOVLQSX 8(AX), SI
	ADDQ R9, SI
	MOVQ SI, 8(SP)
	MOVQ BX, 16(SP)
	MOVL 24(AX), CX
	MOVQ sb+80(FP), DX
	SUBL DX, CX
	MOVL CX, 24(SP)
	MOVQ shlast+72(FP), CX
	MOVL CX, 28(SP)
	SAVE
	CALL ·loadWords32AVX2(SB)
	RESTORE
	LOW32
	MOVBLZX 32(SP), BX
	TESTL BX, BX
	JZ done
	JMP next
stsh:
	MOVQ sh+64(FP), BX
	TESTQ BX, BX
	JZ done
	MOVQ BX, 0(SP)
	MOVLQSX 8(AX), SI
	ADDQ R9, SI
	MOVQ SI, 8(SP)
	MOVLQSX 12(AX), DI
	ADDQ R9, DI
	MOVQ DI, 16(SP)
	MOVL 24(AX), CX
	MOVQ sb+80(FP), DX
	SUBL DX, CX
	MOVL CX, 24(SP)
	MOVQ shlast+72(FP), CX
	MOVL CX, 28(SP)
	SAVE
	CALL ·storeWords32AVX2(SB)
	RESTORE
	LOW32
	MOVBLZX 32(SP), BX
	TESTL BX, BX
	JZ done
	JMP next

next:
	INCQ R8
	INCQ R13
	JMP loop

done:
	VZEROUPPER
	MOVQ R8, rk+88(FP)
	MOVQ R13, rpc+96(FP)
	RET
