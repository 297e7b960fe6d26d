#include "textflag.h"

// func loadWords32AVX2(d, a *[32]uint64, mem *byte, k, last uint32) bool
//
// Per group of eight lanes: the offsets (low halves of a, VSHUFPS and
// VPERMQ into lane order, plus k) are checked — aligned, and at most last
// (max(p, last) == last, unsigned) — and only then gathered from mem; the
// words are zero-extended into d. A failed check returns false at once.
TEXT ·loadWords32AVX2(SB), NOSPLIT, $0-33
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ mem+16(FP), DX
	MOVL k+24(FP), AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15
	MOVL last+28(FP), AX
	VMOVD AX, X14
	VPBROADCASTD X14, Y14
	MOVL $3, AX
	VMOVD AX, X13
	VPBROADCASTD X13, Y13
	MOVQ $4, BX

ldloop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VSHUFPS $0x88, Y1, Y0, Y0
	VPERMQ $0xD8, Y0, Y0
	VPADDD Y15, Y0, Y0
	VPMAXUD Y14, Y0, Y2
	VPCMPEQD Y14, Y2, Y2
	VPCMPEQD Y3, Y3, Y3
	VPTEST Y3, Y2
	JCC fail // CF = 0: some lane's offset is past last
	VPTEST Y13, Y0
	JNE fail // ZF = 0: some lane's offset is misaligned
	VPCMPEQD Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPGATHERDD Y3, (DX)(Y0*1), Y4
	VPMOVZXDQ X4, Y5
	VEXTRACTI128 $1, Y4, X6
	VPMOVZXDQ X6, Y6
	VMOVDQU Y5, 0(DI)
	VMOVDQU Y6, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ BX
	JNZ ldloop
	VZEROUPPER
	MOVB $1, ret+32(FP)
	RET

fail:
	VZEROUPPER
	MOVB $0, ret+32(FP)
	RET
