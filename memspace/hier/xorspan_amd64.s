#include "textflag.h"

// func xorSpanAVX2(x *[32]uint64) uint64
//
// Lane 0's address in every lane of Y0; the 32 addresses XORed with it
// eight vectors at a time, ORed in two chains, then across the vector.
TEXT ·xorSpanAVX2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	VPBROADCASTQ 0(SI), Y0
	VPXOR 0(SI), Y0, Y1
	VPXOR 32(SI), Y0, Y2
	VPXOR 64(SI), Y0, Y3
	VPXOR 96(SI), Y0, Y4
	VPOR Y3, Y1, Y1
	VPOR Y4, Y2, Y2
	VPXOR 128(SI), Y0, Y3
	VPXOR 160(SI), Y0, Y4
	VPOR Y3, Y1, Y1
	VPOR Y4, Y2, Y2
	VPXOR 192(SI), Y0, Y3
	VPXOR 224(SI), Y0, Y4
	VPOR Y3, Y1, Y1
	VPOR Y4, Y2, Y2
	VPOR Y2, Y1, Y1
	VEXTRACTI128 $1, Y1, X2
	VPOR X2, X1, X1
	VPSHUFD $0x4E, X1, X2
	VPOR X2, X1, X1
	VMOVQ X1, AX
	VZEROUPPER
	MOVQ AX, ret+8(FP)
	RET
