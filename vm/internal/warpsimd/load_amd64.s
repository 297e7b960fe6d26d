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

// LANES puts the eight lanes' 32-bit values at ptr (the low halves of
// eight uint64, VSHUFPS and VPERMQ into lane order) in Y0.
#define LANES(ptr) \
	VMOVDQU 0(ptr), Y0 \
	VMOVDQU 32(ptr), Y1 \
	VSHUFPS $0x88, Y1, Y0, Y0 \
	VPERMQ $0xD8, Y0, Y0

// CHECK adds k to the eight offsets in Y0 and jumps to bad unless each is
// aligned and at most last (max(p, last) == last, unsigned). It leaves Y3
// all ones.
#define CHECK(bad) \
	VPADDD Y15, Y0, Y0 \
	VPMAXUD Y14, Y0, Y2 \
	VPCMPEQD Y14, Y2, Y2 \
	VPCMPEQD Y3, Y3, Y3 \
	VPTEST Y3, Y2 \
	JCC bad \
	VPTEST Y13, Y0 \
	JNE bad

// OFFSETS puts the eight lanes' offsets at ptr (LANES, plus k) in Y0 and
// jumps to bad unless each is aligned and at most last (CHECK).
#define OFFSETS(ptr, bad) \
	LANES(ptr) \
	CHECK(bad)

// GATHER reads the eight words of mem (DX) at the checked offsets in Y0
// into Y4, leaving lane 0's offset in R8: eight consecutive words
// (offsets o, o+4, ... o+28: CF set by the first VPTEST) are one load,
// the code at contig; eight equal offsets one broadcast, at bcast; only
// other groups are gathered, after which it jumps to widen.
#define GATHER(contig, bcast, widen) \
	VMOVD X0, R8 \
	VPBROADCASTD X0, Y7 \
	VPADDD Y12, Y7, Y8 \
	VPCMPEQD Y0, Y8, Y8 \
	VPTEST Y3, Y8 \
	JCS contig \
	VPCMPEQD Y0, Y7, Y7 \
	VPTEST Y3, Y7 \
	JCS bcast \
	VPXOR Y4, Y4, Y4 \
	VPGATHERDD Y3, (DX)(Y0*1), Y4 \
	JMP widen

// WIDEN zero-extends the eight words in Y4 into eight uint64 at DI.
#define WIDEN \
	VPMOVZXDQ X4, Y5 \
	VEXTRACTI128 $1, Y4, X6 \
	VPMOVZXDQ X6, Y6 \
	VMOVDQU Y5, 0(DI) \
	VMOVDQU Y6, 32(DI)

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
	// Every lane's offset passed the checks, so the reads are inside mem.
	GATHER(contig, bcast, widen)

contig:
	VMOVDQU (DX)(R8*1), Y4
	JMP widen

bcast:
	VPBROADCASTD (DX)(R8*1), Y4

widen:
	WIDEN
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
// checked (CHECK) and loaded into d (GATHER, WIDEN). A failed check returns
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
	LANES(SI)
	VPADDD Y11, Y0, Y0 // the window addresses
	VPMOVZXDQ X0, Y9
	VEXTRACTI128 $1, Y0, X10
	VPMOVZXDQ X10, Y10
	VMOVDQU Y9, 0(R9)
	VMOVDQU Y10, 32(R9)
	CHECK(lafail) // their offsets in mem
	GATHER(lacontig, labcast, lawiden)

lacontig:
	VMOVDQU (DX)(R8*1), Y4
	JMP lawiden

labcast:
	VPBROADCASTD (DX)(R8*1), Y4

lawiden:
	WIDEN
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
