#include "textflag.h"

// chainIota4 is 0, 4, ... 28 (load_amd64.s's iota4, which is private to
// that file); chainNaN the GPU's canonical f32 NaN.
DATA chainIota4<>+0(SB)/4, $0
DATA chainIota4<>+4(SB)/4, $4
DATA chainIota4<>+8(SB)/4, $8
DATA chainIota4<>+12(SB)/4, $12
DATA chainIota4<>+16(SB)/4, $16
DATA chainIota4<>+20(SB)/4, $20
DATA chainIota4<>+24(SB)/4, $24
DATA chainIota4<>+28(SB)/4, $28
GLOBL chainIota4<>(SB), RODATA|NOPTR, $32
DATA chainNaN<>+0(SB)/4, $0x7fffffff
GLOBL chainNaN<>(SB), RODATA|NOPTR, $4

// Offsets in Chain (chain.go; TestChainLayout holds them to the struct).
#define CH_A1 4
#define CH_A2 8
#define CH_STEPS 32
#define ST_DELTA1 0
#define ST_DELTA2 4
#define ST_D1 8
#define ST_D2 12
#define ST_D 16
#define ST_C 20
#define ST_NEXT1 24
#define ST_NEXT2 28
#define ST_NEXTD 32
#define ST_SIZE 40

// LANES puts the eight lanes at ptr+off (the low halves of eight uint64,
// VSHUFPS and VPERMQ into lane order) in dst; tmp is clobbered.
#define LANES(ptr, off, dst, tmp) \
	VMOVDQU off(ptr), dst \
	VMOVDQU off+32(ptr), tmp \
	VSHUFPS $0x88, tmp, dst, dst \
	VPERMQ $0xD8, dst, dst

// GROUP checks the eight offsets at ptr+off plus k (aligned: Y11 holds 3s;
// at most last, unsigned; Y8 is all ones) and classes them: kind gets 1
// when they are lane 0's plus 4·lane (one load), 2 when all are lane 0's
// (one broadcast); anything else, or a failed check, jumps to bad. p gets
// mem (DX) plus lane 0's offset.
#define GROUP(ptr, off, k, last, kind, p, bad, done) \
	LANES(ptr, off, Y0, Y1) \
	VPADDD k, Y0, Y0 \
	VPMAXUD last, Y0, Y2 \
	VPCMPEQD last, Y2, Y2 \
	VPTEST Y8, Y2 \
	JCC bad \
	VPTEST Y11, Y0 \
	JNE bad \
	VMOVD X0, p \
	ADDQ DX, p \
	VPBROADCASTD X0, Y1 \
	VPADDD Y10, Y1, Y2 \
	VPCMPEQD Y0, Y2, Y2 \
	MOVL $1, kind \
	VPTEST Y8, Y2 \
	JCS done \
	VPCMPEQD Y0, Y1, Y1 \
	MOVL $2, kind \
	VPTEST Y8, Y1 \
	JCC bad \
done:

// ACC puts the eight lanes at R10+off in dst, as f32 in lane order.
#define ACC(off, dst) LANES(R10, off, dst, Y12)

// WIDEN stores the eight words of src zero-extended at R10+off.
#define WIDEN(src, xsrc, off) \
	VPMOVZXDQ xsrc, Y12 \
	VEXTRACTI128 $1, src, X13 \
	VPMOVZXDQ X13, Y13 \
	VMOVDQU Y12, off(R10) \
	VMOVDQU Y13, off+32(R10)

// STORE4 writes the four groups' results s0..s3 to the slot at d(CX)
// (regs is DI), unless it is negative or the step at next(CX), which
// overwrites it, is before the run's end (R9).
#define STORE4(d, next, s0, x0, s1, x1, s2, x2, s3, x3, skip) \
	MOVLQSX d(CX), R10 \
	TESTQ R10, R10 \
	JS skip \
	CMPL next(CX), R9 \
	JLT skip \
	SHLQ $8, R10 \
	ADDQ DI, R10 \
	WIDEN(s0, x0, 0) \
	WIDEN(s1, x1, 64) \
	WIDEN(s2, x2, 128) \
	WIDEN(s3, x3, 192) \
skip:

// FMA4 adds v1·v2 to the four sums Y0..Y3 (v1 in Y4..Y7, v2 in Y8..Y11)
// and replaces NaNs by the canonical NaN (Y15), as fmaRN32AVX2 does.
#define FMA1(acc, a, b) \
	VFMADD231PS b, a, acc \
	VCMPPS $3, acc, acc, Y12 \
	VBLENDVPS Y12, Y15, acc, acc

// STEPS is the loop over the steps with the loads LD1 (four groups' first
// loads at BX, DX, SI, R8 plus Delta1) and LD2 (at R11..R14 plus
// Delta2), each VMOVDQU (eight consecutive words) or VPBROADCASTD (one).
#define STEPS(LD1, LD2, loop, s1, s2, s3) \
loop: \
	MOVL ST_DELTA1(CX), R10 \
	LD1 (BX)(R10*1), Y4 \
	LD1 (DX)(R10*1), Y5 \
	LD1 (SI)(R10*1), Y6 \
	LD1 (R8)(R10*1), Y7 \
	MOVL ST_DELTA2(CX), R10 \
	LD2 (R11)(R10*1), Y8 \
	LD2 (R12)(R10*1), Y9 \
	LD2 (R13)(R10*1), Y10 \
	LD2 (R14)(R10*1), Y11 \
	FMA1(Y0, Y4, Y8) \
	FMA1(Y1, Y5, Y9) \
	FMA1(Y2, Y6, Y10) \
	FMA1(Y3, Y7, Y11) \
	STORE4(ST_D1, ST_NEXT1, Y4, X4, Y5, X5, Y6, X6, Y7, X7, s1) \
	STORE4(ST_D2, ST_NEXT2, Y8, X8, Y9, X9, Y10, X10, Y11, X11, s2) \
	STORE4(ST_D, ST_NEXTD, Y0, X0, Y1, X1, Y2, X2, Y3, X3, s3) \
	ADDQ $ST_SIZE, CX \
	DECL AX \
	JNZ loop \
	JMP chdone

// func ldLdFmaChainAVX2(regs *[32]uint64, ch *Chain, mem *byte, k1, k2, last1, last2 uint32, s, e int32) bool
//
// First each group of eight lanes' first offsets of each address register
// are checked (against last minus the span) and classed (GROUP); a
// failure, or registers whose four groups are not all one load or all one
// broadcast, returns false with nothing written. Then the steps run for
// the four groups at once, their sums in Y0..Y3: per step, eight loads
// (one per group and register), four fmas, and the writes (STORE4) whose
// slot no later step of the run overwrites. The sources are all read
// before the first write.
TEXT ·ldLdFmaChainAVX2(SB), NOSPLIT, $72-49
	MOVQ regs+0(FP), DI
	MOVQ ch+8(FP), CX
	MOVQ mem+16(FP), DX
	MOVL k1+24(FP), AX
	VMOVD AX, X15
	VPBROADCASTD X15, Y15
	MOVL k2+28(FP), AX
	VMOVD AX, X14
	VPBROADCASTD X14, Y14
	MOVL last1+32(FP), AX
	VMOVD AX, X13
	VPBROADCASTD X13, Y13
	MOVL last2+36(FP), AX
	VMOVD AX, X12
	VPBROADCASTD X12, Y12
	MOVL $3, AX
	VMOVD AX, X11
	VPBROADCASTD X11, Y11
	VMOVDQU chainIota4<>(SB), Y10
	VPCMPEQD Y8, Y8, Y8

	// The second register's groups: kind in R9 (the others' must match),
	// pointers at 32(SP)..56(SP).
	MOVLQSX CH_A2(CX), R10
	SHLQ $8, R10
	ADDQ DI, R10
	GROUP(R10, 0, Y14, Y12, R9, R11, chfail, chg20)
	MOVQ R11, 32(SP)
	GROUP(R10, 64, Y14, Y12, AX, R11, chfail, chg21)
	CMPL AX, R9
	JNE chfail
	MOVQ R11, 40(SP)
	GROUP(R10, 128, Y14, Y12, AX, R11, chfail, chg22)
	CMPL AX, R9
	JNE chfail
	MOVQ R11, 48(SP)
	GROUP(R10, 192, Y14, Y12, AX, R11, chfail, chg23)
	CMPL AX, R9
	JNE chfail
	MOVQ R11, 56(SP)

	// The first register's: kind in R8, pointers at 0(SP)..24(SP).
	MOVLQSX CH_A1(CX), R10
	SHLQ $8, R10
	ADDQ DI, R10
	GROUP(R10, 0, Y15, Y13, R8, R11, chfail, chg10)
	MOVQ R11, 0(SP)
	GROUP(R10, 64, Y15, Y13, AX, R11, chfail, chg11)
	CMPL AX, R8
	JNE chfail
	MOVQ R11, 8(SP)
	GROUP(R10, 128, Y15, Y13, AX, R11, chfail, chg12)
	CMPL AX, R8
	JNE chfail
	MOVQ R11, 16(SP)
	GROUP(R10, 192, Y15, Y13, AX, R11, chfail, chg13)
	CMPL AX, R8
	JNE chfail
	MOVQ R11, 24(SP)
	LEAL (R8)(R9*4), AX // the kinds: first + 4·second
	MOVQ AX, 64(SP)

	// The sums: step s's addend, four groups.
	MOVLQSX s+40(FP), AX
	IMUL3Q $ST_SIZE, AX, AX
	LEAQ CH_STEPS(CX)(AX*1), CX
	MOVLQSX ST_C(CX), R10
	SHLQ $8, R10
	ADDQ DI, R10
	ACC(0, Y0)
	ACC(64, Y1)
	ACC(128, Y2)
	ACC(192, Y3)
	VBROADCASTSS chainNaN<>(SB), Y15

	MOVL e+44(FP), R9
	MOVL R9, AX
	SUBL s+40(FP), AX
	MOVQ 0(SP), BX
	MOVQ 8(SP), DX
	MOVQ 16(SP), SI
	MOVQ 24(SP), R8
	MOVQ 32(SP), R11
	MOVQ 40(SP), R12
	MOVQ 48(SP), R13
	MOVQ 56(SP), R14
	MOVQ 64(SP), R10
	CMPL R10, $5 // 1 + 4·1: eight words from each
	JEQ chll
	CMPL R10, $9 // 1 + 4·2: eight words from the first, one from the second
	JEQ chlb
	CMPL R10, $6
	JEQ chbl
	JMP chbb

chll:
	STEPS(VMOVDQU, VMOVDQU, chll0, chll1, chll2, chll3)
chlb:
	STEPS(VMOVDQU, VPBROADCASTD, chlb0, chlb1, chlb2, chlb3)
chbl:
	STEPS(VPBROADCASTD, VMOVDQU, chbl0, chbl1, chbl2, chbl3)
chbb:
	STEPS(VPBROADCASTD, VPBROADCASTD, chbb0, chbb1, chbb2, chbb3)

chdone:
	VZEROUPPER
	MOVB $1, ret+48(FP)
	RET

chfail:
	VZEROUPPER
	MOVB $0, ret+48(FP)
	RET
