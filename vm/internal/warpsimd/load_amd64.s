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

// LOADG reads the eight words of mem (DX) at the checked offsets in g
// (YMM, its low half x) into d at doff (DI), zero-extended: eight
// consecutive words (offsets o, o+4, ... o+28) are one load, eight equal
// offsets one broadcast, other groups one VPGATHERDD. Y3 is all ones; Y0,
// Y1 and Y2 are scratch.
#define LOADG(g, x, doff, contig, bcast, widen) \
	VMOVD x, R8 \
	VPBROADCASTD x, Y1 \
	VPADDD Y12, Y1, Y2 \
	VPCMPEQD g, Y2, Y2 \
	VPTEST Y3, Y2 \
	JCS contig \
	VPCMPEQD g, Y1, Y1 \
	VPTEST Y3, Y1 \
	JCS bcast \
	VPXOR Y0, Y0, Y0 \
	VPCMPEQD Y2, Y2, Y2 \
	VPGATHERDD Y2, (DX)(g*1), Y0 \
	JMP widen \
contig: \
	VMOVDQU (DX)(R8*1), Y0 \
	JMP widen \
bcast: \
	VPBROADCASTD (DX)(R8*1), Y0 \
widen: \
	VPMOVZXDQ X0, Y1 \
	VEXTRACTI128 $1, Y0, X2 \
	VPMOVZXDQ X2, Y2 \
	VMOVDQU Y1, doff(DI) \
	VMOVDQU Y2, doff+32(DI)

// ADDRG puts the window addresses of the eight lanes of a (SI) at aoff,
// the low halves plus off (Y11), in g (its low half x) and writes them to
// addr (R9) zero-extended. Y0 and Y1 are scratch.
#define ADDRG(aoff, g, x) \
	VMOVDQU aoff(SI), Y0 \
	VMOVDQU aoff+32(SI), Y1 \
	VSHUFPS $0x88, Y1, Y0, Y0 \
	VPERMQ $0xD8, Y0, g \
	VPADDD Y11, g, g \
	VPMOVZXDQ x, Y0 \
	VEXTRACTI128 $1, g, X1 \
	VPMOVZXDQ X1, Y1 \
	VMOVDQU Y0, aoff(R9) \
	VMOVDQU Y1, aoff+32(R9)

// func LoadWords32Addr(d, addr, a *[32]uint64, off uint32, mem []byte, k uint32) (span uint32, ok bool)
//
// Where the host has AVX2 (hasFMA) and mem is at least a word and shorter
// than 2^31 bytes, in one pass over all 32 lanes (Y4 to Y7, eight each):
// the low halves of a plus off (the 32-bit window addresses) are written
// to addr zero-extended (ADDRG) and ORed, each XORed with lane 0's, into
// span; then offset by k and checked together (each aligned and at most
// the last word's offset, unsigned); only then loaded into d (LOADG). A
// failed check returns false with addr written and d not. Elsewhere it
// is loadWords32AddrGo (a tail jump: the same arguments): Go callers
// call this directly, without a Go function's entry around it.
TEXT ·LoadWords32Addr(SB), NOSPLIT, $0-69
	CMPB ·hasFMA(SB), $0
	JEQ lageneric
	MOVQ mem_len+40(FP), CX
	CMPQ CX, $4
	JLT lageneric
	MOVQ $0x80000000, AX
	CMPQ CX, AX
	JGE lageneric
	SUBQ $4, CX // the last offset a word can start at
	MOVQ d+0(FP), DI
	MOVQ addr+8(FP), R9
	MOVQ a+16(FP), SI
	MOVQ mem_base+32(FP), DX
	MOVL k+56(FP), AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15
	VMOVD CX, X14
	VPBROADCASTD X14, Y14
	MOVL $3, AX
	VMOVD AX, X13
	VPBROADCASTD X13, Y13
	VMOVDQU ·iota4<>(SB), Y12
	MOVL off+24(FP), AX
	VMOVD AX, X11
	VPBROADCASTD X11, Y11
	ADDRG(0, Y4, X4)
	ADDRG(64, Y5, X5)
	ADDRG(128, Y6, X6)
	ADDRG(192, Y7, X7)

	// The span: every address XORed with lane 0's, ORed together.
	VPBROADCASTD X4, Y10
	VPXOR Y10, Y4, Y8
	VPXOR Y10, Y5, Y9
	VPOR Y9, Y8, Y8
	VPXOR Y10, Y6, Y9
	VPXOR Y10, Y7, Y1
	VPOR Y1, Y9, Y9
	VPOR Y9, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPOR X9, X8, X8
	VPSHUFD $0x4E, X8, X9
	VPOR X9, X8, X8
	VPSHUFD $0xB1, X8, X9
	VPOR X9, X8, X8
	VMOVD X8, AX
	MOVL AX, span+64(FP)

	// The offsets in mem, checked together: their OR has no bit of 3,
	// their unsigned maximum is at most last.
	VPADDD Y15, Y4, Y4
	VPADDD Y15, Y5, Y5
	VPADDD Y15, Y6, Y6
	VPADDD Y15, Y7, Y7
	VPOR Y5, Y4, Y8
	VPOR Y7, Y6, Y9
	VPOR Y9, Y8, Y8
	VPTEST Y13, Y8
	JNE lafail
	VPMAXUD Y5, Y4, Y8
	VPMAXUD Y7, Y6, Y9
	VPMAXUD Y9, Y8, Y8
	VPMAXUD Y14, Y8, Y8
	VPCMPEQD Y14, Y8, Y8
	VPCMPEQD Y3, Y3, Y3
	VPTEST Y3, Y8
	JCC lafail

	// Every lane's offset passed the checks, so the reads are inside mem.
	LOADG(Y4, X4, 0, c0, b0, w0)
	LOADG(Y5, X5, 64, c1, b1, w1)
	LOADG(Y6, X6, 128, c2, b2, w2)
	LOADG(Y7, X7, 192, c3, b3, w3)
	VZEROUPPER
	MOVB $1, ok+68(FP)
	RET

lafail:
	VZEROUPPER
	MOVB $0, ok+68(FP)
	RET

lageneric:
	JMP ·loadWords32AddrGo(SB)
