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

// LANES puts the eight lanes at slot(ptr)+BX (the low halves of eight
// uint64, VSHUFPS and VPERMQ into lane order) plus k in dst; tmp is
// clobbered.
#define LANES(ptr, k, dst, tmp) \
	VMOVDQU 0(ptr)(BX*1), dst \
	VMOVDQU 32(ptr)(BX*1), tmp \
	VSHUFPS $0x88, tmp, dst, dst \
	VPERMQ $0xD8, dst, dst \
	VPADDD k, dst, dst

// CHECK jumps to bad unless every offset in v is aligned (Y11 holds 3s)
// and at most last (max(v, last) == last, unsigned; Y8 is all ones).
#define CHECK(v, last, tmp, bad) \
	VPMAXUD last, v, tmp \
	VPCMPEQD last, tmp, tmp \
	VPTEST Y8, tmp \
	JCC bad \
	VPTEST Y11, v \
	JNE bad

// KIND sets kind to 0 when the offsets v are lane 0's plus 4·lane (one
// load), 1 when all are lane 0's (one broadcast), 2 otherwise (a gather),
// and ptr to mem (DX) plus lane 0's offset.
#define KIND(v, xv, kind, ptr, t0, t1, done) \
	VMOVD xv, ptr \
	ADDQ DX, ptr \
	VPBROADCASTD xv, t0 \
	VPADDD Y10, t0, t1 \
	VPCMPEQD v, t1, t1 \
	MOVL $0, kind \
	VPTEST Y8, t1 \
	JCS done \
	VPCMPEQD v, t0, t0 \
	MOVL $1, kind \
	VPTEST Y8, t0 \
	JCS done \
	MOVL $2, kind \
done:

// LOAD puts the eight words at ptr+delta (kind 0), the word at ptr+delta
// in every lane (kind 1), or the words at mem (DX) + v + delta (kind 2)
// in dst.
#define LOAD(kind, ptr, delta, v, dst, xdst, t0, t1, bc, ga, done) \
	CMPL kind, $1 \
	JEQ bc \
	JGT ga \
	VMOVDQU (ptr)(delta*1), dst \
	JMP done \
bc: \
	VPBROADCASTD (ptr)(delta*1), dst \
	JMP done \
ga: \
	VMOVD delta, xdst \
	VPBROADCASTD xdst, t0 \
	VPADDD v, t0, t0 \
	VMOVDQU Y8, t1 \
	VPXOR dst, dst, dst \
	VPGATHERDD t1, (DX)(t0*1), dst \
done:

// STORE writes the eight words of src, zero-extended, to the group's
// lanes (BX) of the slot at off(CX) (regs is DI), unless that slot is
// negative or the step at next(CX), which overwrites it, is before the
// run's end (R9).
#define STORE(off, next, src, xsrc, skip) \
	MOVLQSX off(CX), R10 \
	TESTQ R10, R10 \
	JS skip \
	CMPL next(CX), R9 \
	JLT skip \
	SHLQ $8, R10 \
	ADDQ DI, R10 \
	VPMOVZXDQ xsrc, Y2 \
	VEXTRACTI128 $1, src, X3 \
	VPMOVZXDQ X3, Y3 \
	VMOVDQU Y2, 0(R10)(BX*1) \
	VMOVDQU Y3, 32(R10)(BX*1) \
skip:

// func ldLdFmaChainAVX2(regs *[32]uint64, ch *Chain, mem *byte, k1, k2, last1, last2 uint32, s, e int32) bool
//
// First every group of eight lanes' first offsets are checked (CHECK,
// against last minus the span); a failure returns false with nothing
// written. Then, one group of eight lanes at a time: its offsets are
// classed (KIND) once for all steps, its first addend read, and each
// step's two loads (LOAD), fma (NaNs replaced by the canonical NaN, as
// fmaRN32AVX2 does) and writes (STORE) done with the sum kept in Y6. A
// group reads A1, A2 and step s's C before it writes any of its lanes, and
// writes only its own lanes, so the writes may land in those slots.
TEXT ·ldLdFmaChainAVX2(SB), NOSPLIT, $0-49
	MOVQ regs+0(FP), DI
	MOVQ ch+8(FP), SI
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
	VBROADCASTSS chainNaN<>(SB), Y9
	VPCMPEQD Y8, Y8, Y8

	// R8, R9: the address registers' slots.
	MOVLQSX CH_A1(SI), R8
	SHLQ $8, R8
	ADDQ DI, R8
	MOVLQSX CH_A2(SI), R9
	SHLQ $8, R9
	ADDQ DI, R9

	XORQ BX, BX
chcheck:
	LANES(R8, Y15, Y0, Y1)
	CHECK(Y0, Y13, Y2, chfail)
	LANES(R9, Y14, Y0, Y1)
	CHECK(Y0, Y12, Y2, chfail)
	ADDQ $64, BX
	CMPQ BX, $256
	JNE chcheck

	// R9 from here on: e.
	MOVL e+44(FP), R9
	XORQ BX, BX
chgroup:
	// CX: &Steps[s]; AX: e - s.
	MOVLQSX s+40(FP), CX
	IMUL3Q $ST_SIZE, CX, CX
	LEAQ CH_STEPS(SI)(CX*1), CX
	MOVL R9, AX
	SUBL s+40(FP), AX
	MOVLQSX CH_A1(SI), R8
	SHLQ $8, R8
	ADDQ DI, R8
	LANES(R8, Y15, Y4, Y0)
	MOVLQSX CH_A2(SI), R8
	SHLQ $8, R8
	ADDQ DI, R8
	LANES(R8, Y14, Y5, Y0)
	KIND(Y4, X4, R11, R12, Y0, Y1, chk1)
	KIND(Y5, X5, R13, R14, Y0, Y1, chk2)
	MOVLQSX ST_C(CX), R10
	SHLQ $8, R10
	ADDQ DI, R10
	VMOVDQU 0(R10)(BX*1), Y6
	VMOVDQU 32(R10)(BX*1), Y0
	VSHUFPS $0x88, Y0, Y6, Y6
	VPERMQ $0xD8, Y6, Y6

chstep:
	MOVL ST_DELTA1(CX), R10
	LOAD(R11, R12, R10, Y4, Y0, X0, Y2, Y3, chbc1, chga1, chld1)
	MOVL ST_DELTA2(CX), R10
	LOAD(R13, R14, R10, Y5, Y1, X1, Y2, Y3, chbc2, chga2, chld2)
	VFMADD231PS Y1, Y0, Y6
	VCMPPS $3, Y6, Y6, Y2
	VBLENDVPS Y2, Y9, Y6, Y6
	STORE(ST_D1, ST_NEXT1, Y0, X0, chs1)
	STORE(ST_D2, ST_NEXT2, Y1, X1, chs2)
	STORE(ST_D, ST_NEXTD, Y6, X6, chs3)
	ADDQ $ST_SIZE, CX
	DECL AX
	JNZ chstep

	ADDQ $64, BX
	CMPQ BX, $256
	JNE chgroup
	VZEROUPPER
	MOVB $1, ret+48(FP)
	RET

chfail:
	VZEROUPPER
	MOVB $0, ret+48(FP)
	RET
