#include "textflag.h"

// iota4q is 0, 4, 8, 12 as four uint64: the offsets of four consecutive
// words from the first.
DATA ·iota4q<>+0(SB)/8, $0
DATA ·iota4q<>+8(SB)/8, $4
DATA ·iota4q<>+16(SB)/8, $8
DATA ·iota4q<>+24(SB)/8, $12
GLOBL ·iota4q<>(SB), RODATA|NOPTR, $32

// func words32AVX2(dst, addr *[32]uint64, mem *byte, base, last uint64) bool
//
// Four lanes per iteration: the addresses are checked (aligned; the offset
// from base at most last, unsigned: compared signed after flipping the top
// bit), then four consecutive words are one zero-extending load and other
// groups a gather. A failed check returns false at once, the lanes before
// the group written.
TEXT ·words32AVX2(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ addr+8(FP), SI
	MOVQ mem+16(FP), DX
	MOVQ base+24(FP), AX
	VMOVQ AX, X15
	VPBROADCASTQ X15, Y15
	MOVQ $0x8000000000000000, AX
	VMOVQ AX, X12
	VPBROADCASTQ X12, Y12
	MOVQ last+32(FP), AX
	VMOVQ AX, X14
	VPBROADCASTQ X14, Y14
	VPXOR Y12, Y14, Y14
	MOVQ $3, AX
	VMOVQ AX, X13
	VPBROADCASTQ X13, Y13
	VMOVDQU ·iota4q<>(SB), Y11
	MOVQ $8, BX

loop:
	VMOVDQU (SI), Y0
	VPTEST Y13, Y0
	JNE fail
	VPSUBQ Y15, Y0, Y1
	VPXOR Y12, Y1, Y2
	VPCMPGTQ Y14, Y2, Y2
	VPTEST Y2, Y2
	JNE fail
	VMOVQ X1, R8
	VPBROADCASTQ X1, Y3
	VPADDQ Y11, Y3, Y3
	VPCMPEQQ Y1, Y3, Y3
	VPMOVMSKB Y3, AX
	CMPL AX, $0xffffffff
	JNE gather
	VPMOVZXDQ (DX)(R8*1), Y4
	JMP store

gather:
	VPCMPEQD X5, X5, X5
	VPXOR X4, X4, X4
	VPGATHERQD X5, (DX)(Y1*1), X4
	VPMOVZXDQ X4, Y4

store:
	VMOVDQU Y4, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ BX
	JNZ loop
	VZEROUPPER
	MOVB $1, ret+40(FP)
	RET

fail:
	VZEROUPPER
	MOVB $0, ret+40(FP)
	RET
