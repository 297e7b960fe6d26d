#include "textflag.h"

// iota4 is 0, 4, ... 28: the offsets of eight consecutive words.
DATA ·iota4<>+0(SB)/4, $0
DATA ·iota4<>+4(SB)/4, $4
DATA ·iota4<>+8(SB)/4, $8
DATA ·iota4<>+12(SB)/4, $12
DATA ·iota4<>+16(SB)/4, $16
DATA ·iota4<>+20(SB)/4, $20
DATA ·iota4<>+24(SB)/4, $24
DATA ·iota4<>+28(SB)/4, $28
GLOBL ·iota4<>(SB), RODATA|NOPTR, $32

// SETUP broadcasts k (Y15), last (Y14), the alignment mask 3 (Y13) and
// iota4 (Y12) from the arguments at kOff and lastOff.
#define SETUP(kOff, lastOff) \
	MOVL kOff(FP), AX \
	VMOVD AX, X15 \
	VPBROADCASTD X15, Y15 \
	MOVL lastOff(FP), AX \
	VMOVD AX, X14 \
	VPBROADCASTD X14, Y14 \
	MOVL $3, AX \
	VMOVD AX, X13 \
	VPBROADCASTD X13, Y13 \
	VMOVDQU ·iota4<>(SB), Y12

// OFFSETS puts the eight lanes' offsets at ptr (the low halves of eight
// uint64, VSHUFPS and VPERMQ into lane order, plus k) in Y0 and jumps to
// bad unless each is aligned and at most last (max(p, last) == last,
// unsigned). It leaves Y3 all ones.
#define OFFSETS(ptr, bad) \
	VMOVDQU 0(ptr), Y0 \
	VMOVDQU 32(ptr), Y1 \
	VSHUFPS $0x88, Y1, Y0, Y0 \
	VPERMQ $0xD8, Y0, Y0 \
	VPADDD Y15, Y0, Y0 \
	VPMAXUD Y14, Y0, Y2 \
	VPCMPEQD Y14, Y2, Y2 \
	VPCMPEQD Y3, Y3, Y3 \
	VPTEST Y3, Y2 \
	JCC bad \
	VPTEST Y13, Y0 \
	JNE bad

// func loadWords32AVX2(d, a *[32]uint64, mem *byte, k, last uint32) bool
//
// Per group of eight lanes: the offsets are checked (OFFSETS) and only
// then read from mem; the words are zero-extended into d. A failed check
// returns false at once.
TEXT ·loadWords32AVX2(SB), NOSPLIT, $0-33
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ mem+16(FP), DX
	SETUP(k+24, last+28)
	MOVQ $4, BX

ldloop:
	OFFSETS(SI, fail)
	// Lane 0's offset, in R8 and in every lane of Y7. Eight consecutive
	// words (offsets o, o+4, ... o+28) are one load, eight equal offsets
	// one broadcast; only other groups are gathered. Every lane's offset
	// passed the checks above, so both read inside mem.
	VMOVD X0, R8
	VPBROADCASTD X0, Y7
	VPADDD Y12, Y7, Y8
	VPCMPEQD Y0, Y8, Y8
	VPTEST Y3, Y8
	JCS contig // CF = 1: every lane is lane 0's offset + 4·lane
	VPCMPEQD Y0, Y7, Y7
	VPTEST Y3, Y7
	JCS bcast // CF = 1: every lane reads lane 0's word
	VPXOR Y4, Y4, Y4
	VPGATHERDD Y3, (DX)(Y0*1), Y4
	JMP widen

contig:
	VMOVDQU (DX)(R8*1), Y4
	JMP widen

bcast:
	VPBROADCASTD (DX)(R8*1), Y4

widen:
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

// func storeWords32AVX2(mem *byte, a, s *[32]uint64, k, last uint32) bool
//
// First pass: each group of eight lanes' offsets checked (OFFSETS) and
// eight consecutive words; any failure
// returns false with nothing written. Second pass: each group's low halves
// of s (VSHUFPS and VPERMQ into lane order) stored with one VMOVDQU at
// its lane 0's offset.
TEXT ·storeWords32AVX2(SB), NOSPLIT, $0-33
	MOVQ mem+0(FP), DX
	MOVQ a+8(FP), SI
	MOVQ s+16(FP), DI
	SETUP(k+24, last+28)
	MOVQ SI, R9
	MOVQ $4, BX

stcheck:
	OFFSETS(R9, stfail)
	VPBROADCASTD X0, Y7
	VPADDD Y12, Y7, Y8
	VPCMPEQD Y0, Y8, Y8
	VPTEST Y3, Y8
	JCC stfail // the group's words are not consecutive
	ADDQ $64, R9
	DECQ BX
	JNZ stcheck

	MOVQ $4, BX

ststore:
	MOVL 0(SI), R8
	ADDL k+24(FP), R8
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VSHUFPS $0x88, Y1, Y0, Y0
	VPERMQ $0xD8, Y0, Y0
	VMOVDQU Y0, (DX)(R8*1)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ BX
	JNZ ststore
	VZEROUPPER
	MOVB $1, ret+32(FP)
	RET

stfail:
	VZEROUPPER
	MOVB $0, ret+32(FP)
	RET

// func loadWords32AddrAVX2(d, addr, a *[32]uint64, off uint32, mem *byte, k, last uint32) bool
//
// loadWords32AVX2 with the addresses computed on the way: per group of
// eight lanes, the low halves of a plus off (the 32-bit window
// addresses) are written to addr zero-extended, then offset by k,
// checked (as OFFSETS does) and loaded into d. A failed check returns
// false at once, the groups before it written to addr and d.
TEXT ·loadWords32AddrAVX2(SB), NOSPLIT, $0-49
	MOVQ d+0(FP), DI
	MOVQ addr+8(FP), R9
	MOVQ a+16(FP), SI
	MOVQ mem+32(FP), DX
	SETUP(k+40, last+44)
	MOVL off+24(FP), AX
	VMOVD AX, X11
	VPBROADCASTD X11, Y11
	MOVQ $4, BX

laloop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VSHUFPS $0x88, Y1, Y0, Y0
	VPERMQ $0xD8, Y0, Y0
	VPADDD Y11, Y0, Y0 // the window addresses
	VPMOVZXDQ X0, Y9
	VEXTRACTI128 $1, Y0, X10
	VPMOVZXDQ X10, Y10
	VMOVDQU Y9, 0(R9)
	VMOVDQU Y10, 32(R9)
	VPADDD Y15, Y0, Y0 // their offsets in mem
	VPMAXUD Y14, Y0, Y2
	VPCMPEQD Y14, Y2, Y2
	VPCMPEQD Y3, Y3, Y3
	VPTEST Y3, Y2
	JCC lafail
	VPTEST Y13, Y0
	JNE lafail
	VMOVD X0, R8
	VPBROADCASTD X0, Y7
	VPADDD Y12, Y7, Y8
	VPCMPEQD Y0, Y8, Y8
	VPTEST Y3, Y8
	JCS lacontig
	VPCMPEQD Y0, Y7, Y7
	VPTEST Y3, Y7
	JCS labcast
	VPXOR Y4, Y4, Y4
	VPGATHERDD Y3, (DX)(Y0*1), Y4
	JMP lawiden

lacontig:
	VMOVDQU (DX)(R8*1), Y4
	JMP lawiden

labcast:
	VPBROADCASTD (DX)(R8*1), Y4

lawiden:
	VPMOVZXDQ X4, Y5
	VEXTRACTI128 $1, Y4, X6
	VPMOVZXDQ X6, Y6
	VMOVDQU Y5, 0(DI)
	VMOVDQU Y6, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R9
	DECQ BX
	JNZ laloop
	VZEROUPPER
	MOVB $1, ret+48(FP)
	RET

lafail:
	VZEROUPPER
	MOVB $0, ret+48(FP)
	RET
