#include "textflag.h"

// The GPU's canonical f32 NaN.
DATA canonNaN32<>+0(SB)/4, $0x7fffffff
GLOBL canonNaN32<>(SB), RODATA|NOPTR, $4

// func fmaRN32AVX2(d, a, b, c *[32]uint64)
//
// Eight lanes per iteration: the low halves of two ymm of four lanes are
// gathered into one ymm of eight f32 (VSHUFPS: lanes 0 1 4 5 | 2 3 6 7),
// fused, NaNs replaced by the canonical NaN, and spread back to eight
// zero-extended lanes (VUNPCKLPS/VUNPCKHPS with zero undo the order). All
// three sources are loaded before d is stored, so d may alias them.
TEXT ·fmaRN32AVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ c+24(FP), CX
	VBROADCASTSS canonNaN32<>(SB), Y15
	VPXOR Y14, Y14, Y14
	MOVQ $4, BX

loop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VSHUFPS $0x88, Y1, Y0, Y0
	VMOVDQU 0(DX), Y2
	VMOVDQU 32(DX), Y3
	VSHUFPS $0x88, Y3, Y2, Y2
	VMOVDQU 0(CX), Y4
	VMOVDQU 32(CX), Y5
	VSHUFPS $0x88, Y5, Y4, Y4
	VFMADD231PS Y2, Y0, Y4
	VCMPPS $3, Y4, Y4, Y5
	VBLENDVPS Y5, Y15, Y4, Y4
	VUNPCKLPS Y14, Y4, Y6
	VUNPCKHPS Y14, Y4, Y7
	VMOVDQU Y6, 0(DI)
	VMOVDQU Y7, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, CX
	ADDQ $64, DI
	DECQ BX
	JNZ loop
	VZEROUPPER
	RET

// func cmp32AVX2(a, b *[32]uint64, flip uint32) (lt, eq uint32)
//
// Eight lanes per iteration: the low halves gathered as in fmaRN32AVX2 and
// put back in lane order (VPERMQ), so that VMOVMSKPS gives lanes i..i+7 in
// order; a < b is b > a, a signed comparison after XOR with flip.
TEXT ·cmp32AVX2(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	MOVL flip+16(FP), AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15
	XORL R8, R8
	XORL R9, R9
	XORL CX, CX

cmploop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VSHUFPS $0x88, Y1, Y0, Y0
	VPERMQ $0xD8, Y0, Y0
	VPXOR Y15, Y0, Y0
	VMOVDQU 0(DX), Y2
	VMOVDQU 32(DX), Y3
	VSHUFPS $0x88, Y3, Y2, Y2
	VPERMQ $0xD8, Y2, Y2
	VPXOR Y15, Y2, Y2
	VPCMPGTD Y0, Y2, Y3
	VPCMPEQD Y2, Y0, Y4
	VMOVMSKPS Y3, AX
	VMOVMSKPS Y4, BX
	SHLL CX, AX
	SHLL CX, BX
	ORL AX, R8
	ORL BX, R9
	ADDQ $64, SI
	ADDQ $64, DX
	ADDL $8, CX
	CMPL CX, $32
	JNE cmploop
	VZEROUPPER
	MOVL R8, lt+24(FP)
	MOVL R9, eq+28(FP)
	RET
