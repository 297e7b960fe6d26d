// Steps of eight lanes shared by int_amd64.s and run_amd64.s: SI and DX
// point at the sources a and b, DI at the destination d, o0 and o1 are the
// byte offsets of the step's two groups of four lanes. All sources of a
// step are loaded before its stores, so d may alias a or b.

// BSTEP: d = (a OP b) & Y15.
#define BSTEP(OP, o0, o1) \
	VMOVDQU o0(SI), Y0 \
	VMOVDQU o1(SI), Y1 \
	VMOVDQU o0(DX), Y2 \
	VMOVDQU o1(DX), Y3 \
	OP Y2, Y0, Y0 \
	OP Y3, Y1, Y1 \
	VPAND Y15, Y0, Y0 \
	VPAND Y15, Y1, Y1 \
	VMOVDQU Y0, o0(DI) \
	VMOVDQU Y1, o1(DI)

// SSTEP: a shift by b's low 32 bits (Y14 holds 0xffffffff in each
// quadword); PRE and POST apply the type's mask (MASK0, MASK1, or NONE)
// before or after it.
#define SSTEP(PRE0, PRE1, OP, POST0, POST1, o0, o1) \
	VMOVDQU o0(SI), Y0 \
	VMOVDQU o1(SI), Y1 \
	VMOVDQU o0(DX), Y2 \
	VMOVDQU o1(DX), Y3 \
	VPAND Y14, Y2, Y2 \
	VPAND Y14, Y3, Y3 \
	PRE0 \
	PRE1 \
	OP Y2, Y0, Y0 \
	OP Y3, Y1, Y1 \
	POST0 \
	POST1 \
	VMOVDQU Y0, o0(DI) \
	VMOVDQU Y1, o1(DI)

#define MASK0 VPAND Y15, Y0, Y0
#define MASK1 VPAND Y15, Y1, Y1
#define NONE
