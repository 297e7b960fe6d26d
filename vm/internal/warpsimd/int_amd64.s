#include "textflag.h"
#include "lanes_amd64.h"

// BINQ defines func NAME(d, a, b *[32]uint64, m uint64): d[l] = (a[l] OP
// b[l]) & m, four lanes per ymm, eight lanes per iteration. All sources of
// an iteration are loaded before its stores, so d may alias a or b.
#define BINQ(NAME, OP) \
TEXT NAME(SB), NOSPLIT, $0-32 \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DX \
	VPBROADCASTQ m+24(FP), Y15 \
	MOVQ $4, BX \
binloop: \
	BSTEP(OP, 0, 32) \
	ADDQ $64, SI \
	ADDQ $64, DX \
	ADDQ $64, DI \
	DECQ BX \
	JNZ binloop \
	VZEROUPPER \
	RET

BINQ(·addQAVX2, VPADDQ)
BINQ(·subQAVX2, VPSUBQ)
BINQ(·andQAVX2, VPAND)
BINQ(·orQAVX2, VPOR)
BINQ(·xorQAVX2, VPXOR)
BINQ(·mulWideU32AVX2, VPMULUDQ)
BINQ(·mulWideS32AVX2, VPMULDQ)

// func addKQAVX2(d, a *[32]uint64, k, m uint64)
//
// d[l] = (a[l] + k) & m, eight lanes per iteration (a may be d).
TEXT ·addKQAVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	VPBROADCASTQ k+16(FP), Y14
	VPBROADCASTQ m+24(FP), Y15
	MOVQ $4, BX
addkloop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VPADDQ Y14, Y0, Y0
	VPADDQ Y14, Y1, Y1
	VPAND Y15, Y0, Y0
	VPAND Y15, Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ BX
	JNZ addkloop
	VZEROUPPER
	RET

// SHIFTQ defines func NAME(d, a, b *[32]uint64, m uint64) for shl and shr:
// the counts are b's low 32 bits (VPSLLVQ and VPSRLVQ give 0 for a count
// of 64 or more, as Go's shifts do); PRE and POST apply the mask Y15
// before (shr: the value as its type holds it) or after (shl) the shift.
#define SHIFTQ(NAME, PRE0, PRE1, OP, POST0, POST1) \
TEXT NAME(SB), NOSPLIT, $0-32 \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DX \
	VPBROADCASTQ m+24(FP), Y15 \
	MOVL $0xffffffff, AX \
	VMOVQ AX, X14 \
	VPBROADCASTQ X14, Y14 \
	MOVQ $4, BX \
shiftloop: \
	SSTEP(PRE0, PRE1, OP, POST0, POST1, 0, 32) \
	ADDQ $64, SI \
	ADDQ $64, DX \
	ADDQ $64, DI \
	DECQ BX \
	JNZ shiftloop \
	VZEROUPPER \
	RET

SHIFTQ(·shlQAVX2, NONE, NONE, VPSLLVQ, MASK0, MASK1)
SHIFTQ(·shrQAVX2, MASK0, MASK1, VPSRLVQ, NONE, NONE)
