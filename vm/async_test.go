package vm_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// The asynchronous copies, matrix instructions and mbarriers on small
// kernels whose results the PTX ISA fixes (the GPU's results are in
// testdata/conformance/issue24, run by scheduler/suite): one warp, buffer 0
// the output (one word per lane), buffer 1 an input.
func TestAsyncAndMatrix(t *testing.T) {
	const head = `
.visible .entry k(.param .u64 p0, .param .u64 p1)
{
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 16 .b8 sm[1024];
	.shared .align 8 .b64 bar;
` + prologue + `
	ld.param.u64 	%rd5, [p1];
	cvta.to.global.u64 	%rd5, %rd5;
	mov.u32 	%r10, sm;
	mov.u32 	%r11, bar;
	shl.b32 	%r12, %r4, 4;
	add.u32 	%r13, %r10, %r12;          // sm + 16 * lane
	mov.u32 	%r14, 0x77777777;
	st.shared.v4.u32 	[%r13], {%r14, %r14, %r14, %r14};
	mul.wide.u32 	%rd6, %r4, 16;
	add.s64 	%rd7, %rd5, %rd6;          // in + 16 * lane
`
	in := make([]uint32, 128)
	for i := range in {
		in[i] = uint32(0x01020304 * (i + 1))
	}
	tests := []struct {
		name string
		body string
		want func(lane int) uint32
	}{
		{"cp.async lands at the wait, not before", `
	cp.async.ca.shared.global 	[%r13], [%rd7], 16;
	ld.shared.u32 	%r20, [%r13];
	cp.async.commit_group;
	cp.async.wait_group 	0;
	ld.shared.u32 	%r21, [%r13];
	xor.b32 	%r30, %r20, %r21;`, func(l int) uint32 { return 0x77777777 ^ in[4*l] }},
		{"src-size zero-fills the rest", `
	cp.async.ca.shared.global 	[%r13], [%rd7], 8, 5;
	cp.async.wait_all;
	ld.shared.v2.u32 	{%r20, %r21}, [%r13];
	xor.b32 	%r30, %r20, %r21;`, func(l int) uint32 { return in[4*l] ^ in[4*l+1]&0xff }},
		{"ignore-src copies zeros", `
	setp.ne.u32 	%p1, %r4, 0;
	cp.async.cg.shared.global 	[%r13], [%rd7], 16, %p1;
	cp.async.wait_all;
	ld.shared.u32 	%r30, [%r13+12];`, func(l int) uint32 {
			if l == 0 {
				return in[3]
			}
			return 0
		}},
		{"wait_group 1 completes the older group", `
	cp.async.cg.shared.global 	[%r13], [%rd7], 16;
	cp.async.commit_group;
	cp.async.ca.shared.global 	[%r13+4], [%rd7+8], 4;
	cp.async.commit_group;
	cp.async.wait_group 	1;
	ld.shared.u32 	%r20, [%r13+4];
	cp.async.wait_group 	0;
	ld.shared.u32 	%r21, [%r13+4];
	sub.u32 	%r30, %r21, %r20;`, func(l int) uint32 { return in[4*l+2] - in[4*l+1] }},
		{"mbarrier phases, states and pending counts", `
	setp.ne.u32 	%p1, %r4, 0;
	@%p1 bra 	$L_x;
	mbarrier.init.shared.b64 	[%r11], 3;
	mbarrier.arrive.shared.b64 	%rd10, [%r11];
	mbarrier.test_wait.shared.b64 	%p2, [%r11], %rd10;
	mbarrier.arrive.shared::cta.b64 	%rd11, [%r11], 2;
	mbarrier.test_wait.shared.b64 	%p3, [%r11], %rd10;
	mbarrier.test_wait.parity.shared.b64 	%p4, [%r11], 0;
	mbarrier.test_wait.parity.shared.b64 	%p5, [%r11], 1;
	mbarrier.pending_count.b64 	%r20, %rd11;
	selp.u32 	%r21, 1, 0, %p2;
	selp.u32 	%r22, 2, 0, %p3;
	selp.u32 	%r23, 4, 0, %p4;
	selp.u32 	%r24, 8, 0, %p5;
	or.b32 	%r30, %r21, %r22;
	or.b32 	%r30, %r30, %r23;
	or.b32 	%r30, %r30, %r24;
	shl.b32 	%r20, %r20, 8;
	or.b32 	%r30, %r30, %r20;
$L_x:`, func(l int) uint32 {
			if l == 0 {
				return 2 | 4 | 2<<8 // not done, then done; parity 0 done, 1 not; state of the 2nd arrive: 2 pending before it
			}
			return 0
		}},
		{"expect_tx holds the phase until complete_tx", `
	setp.ne.u32 	%p1, %r4, 0;
	@%p1 bra 	$L_x;
	mbarrier.init.shared.b64 	[%r11], 1;
	mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 	%rd10, [%r11], 64;
	mbarrier.test_wait.parity.shared.b64 	%p2, [%r11], 0;
	mbarrier.complete_tx.relaxed.cta.shared::cta.b64 	[%r11], 64;
	mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 	%p3, [%r11], 0, 100;
	selp.u32 	%r21, 1, 0, %p2;
	selp.u32 	%r22, 2, 0, %p3;
	or.b32 	%r30, %r21, %r22;
$L_x:`, func(l int) uint32 {
			if l == 0 {
				return 2
			}
			return 0
		}},
		{"cp.async.mbarrier.arrive.noinc completes the copies and arrives", `
	setp.ne.u32 	%p1, %r4, 0;
	@%p1 bra 	$L_i;
	mbarrier.init.shared.b64 	[%r11], 32;
$L_i:
	bar.sync 	0;
	cp.async.cg.shared.global 	[%r13], [%rd7], 16;
	cp.async.mbarrier.arrive.noinc.shared.b64 	[%r11];
$L_w:
	mbarrier.try_wait.parity.shared.b64 	%p2, [%r11], 0;
	@!%p2 bra 	$L_w;
	xor.b32 	%r15, %r12, 16;
	add.u32 	%r15, %r10, %r15;
	ld.shared.u32 	%r30, [%r15];`, func(l int) uint32 { return in[4*(l^1)] }},
		{"ldmatrix.x1 fragment", `
	shl.b32 	%r17, %r12, 16;
	or.b32 	%r17, %r17, %r12;
	st.shared.v4.u32 	[%r13], {%r17, %r17, %r17, %r17};
	add.u32 	%r16, %r12, 1;
	st.shared.u16 	[%r13+2], %r16;
	bar.sync 	0;
	ldmatrix.sync.aligned.m8n8.x1.shared.b16 	{%r30}, [%r13];`, func(l int) uint32 {
			// row r (from lane r) holds 16r in every element but 16r+1 in element 1
			r, c := l/4, 2*(l%4)
			lo, hi := 16*r, 16*r
			if c == 0 {
				hi++
			}
			return uint32(lo | hi<<16)
		}},
		{"ldmatrix.x1.trans fragment", `
	shl.b32 	%r17, %r12, 16;
	or.b32 	%r17, %r17, %r12;
	st.shared.v4.u32 	[%r13], {%r17, %r17, %r17, %r17};
	add.u32 	%r16, %r12, 1;
	st.shared.u16 	[%r13+2], %r16;
	bar.sync 	0;
	ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 	{%r30}, [%r13];`, func(l int) uint32 {
			// lane l: M[2q][g], M[2q+1][g] with g = l/4, q = l%4
			g, q := l/4, l%4
			e := func(r, c int) int {
				if c == 1 {
					return 16*r + 1
				}
				return 16 * r
			}
			return uint32(e(2*q, g) | e(2*q+1, g)<<16)
		}},
		{"movmatrix twice is the identity", `
	ld.global.u32 	%r20, [%rd7];
	movmatrix.sync.aligned.m8n8.trans.b16 	%r21, %r20;
	movmatrix.sync.aligned.m8n8.trans.b16 	%r22, %r21;
	sub.u32 	%r30, %r22, %r20;`, func(l int) uint32 { return 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + tt.body + `
	st.global.u32 	[%rd2], %r30;
	ret;
}`
			out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 32), in})
			require.NoError(t, err)
			for l := 0; l < 32; l++ {
				require.Equalf(t, tt.want(l), out[0][l], "lane %d: %#x", l, out[0][l])
			}
		})
	}
}

// Malformed forms of the new instructions are positioned errors.
func TestAsyncAndMatrixErrors(t *testing.T) {
	tests := []struct{ inst, msg string }{
		{"cp.async.ca.shared.global [%r1], [%rd1], 3;", "cp-size must be 4, 8 or 16"},
		{"cp.async.cg.shared.global [%r1], [%rd1], 8;", "cp.async.cg copies 16 bytes"},
		{"cp.async.shared.global [%r1], [%rd1], 4;", "needs .ca or .cg"},
		{"cp.async.ca.global.shared [%r1], [%rd1], 4, 2, 1;", "takes [dst], [src]"},
		{"cp.async.wait_group %r1;", "one non-negative integer constant"},
		{"cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r2}], [%r1], {%rs1};", "only the tile mode"},
		{"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 16;", "takes 4 operands"},
		{"cp.async.bulk.global.shared::cta.bulk_group.multicast::cluster [%rd1], [%r1], 16, %r2;", ".multicast::cluster applies to"},
		{"cp.reduce.async.bulk.global.shared::cta.bulk_group.u32 [%rd1], [%r1], 16;", "needs an operation"},
		{"cp.reduce.async.bulk.global.shared::cta.bulk_group.cas.b32 [%rd1], [%r1], 16;", "needs an operation"},
		{"cp.async.bulk.global.global.bulk_group [%rd1], [%rd1], 16;", "unsupported instruction cp.async.bulk.global.global.bulk_group"},
		{"cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint;", "cache"},
		{"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1}], [%r1];", "takes 2 coordinates"},
		{"cp.async.bulk.wait_group %r1;", "one non-negative integer constant"},
		{"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%r1, %r2, %r3, %r0}, %rd1, %rd2, 1, 1, 1, 0, 0;", "takes 6 operands"},
		{"wgmma.mma_async.sync.aligned.m64n8k16.f32.e5m2.e4m3 {%r1, %r2, %r3, %r0}, %rd1, %rd2, 1, 1, 1;", "is not a shape of .e5m2"},
		{"wgmma.mma_async.sync.aligned.m64n8k32.s32.e4m3.e4m3 {%r1, %r2, %r3, %r0}, %rd1, %rd2, 1, 1, 1;", "accumulator type does not go"},
		{"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.f16 {%r1, %r2, %r3, %r0}, %rd1, %rd2, 1, 1, 1;", "unsupported multiplicand types"},
		{"wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1 {%r1, %r2, %r3, %r0}, %rd1, %rd2, 1;", "needs .and.popc"},
		{"wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.xor.popc {%r1, %r2, %r3, %r0}, %rd1, %rd2, 1;", "needs .and.popc"},
		{"wgmma.mma_async.sync.aligned.m64n40k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r0}, %rd1, %rd2, 1;", "is not a shape of .b1"},
		{"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r1, %r2, %r3}, %rd1, %rd2, 1, 1, 1, 0, 0;", "d needs 4 registers"},
		{"wgmma.mma_async.sync.aligned.m64n8k8.f32.f16.f16 {%r1, %r2, %r3, %r0}, %rd1, %rd2, 1, 1, 1, 0, 0;", "is not a shape of .f16"},
		{"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r1, %r2, %r3, %r0}, %rd1, %rd2, 1, 2, 1, 0, 0;", "imm-scale-a is 1 or -1"},
		{"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r1, %r2, %r3, %r0}, %rd1, %rd2, 1, 1, 1, 0;", "takes 8 operands"},
		{"wgmma.fence.sync.aligned.bogus;", "unsupported modifier on wgmma"},
		{"wgmma.commit_group.sync.aligned.u32;", "unsupported modifier on wgmma"},
		{"wgmma.mma_async.sync.aligned.m64n16k16x.f32.f16.f16 {%r1, %r2, %r3, %r0, %r1, %r2, %r3, %r0}, %rd1, %rd2, 1, 1, 1, 0, 0;", "needs a shape"},
		{"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%r1, %r2, %r3, %r0}, %rd1, %rd2, %r1, 0, 1, 1, 1, 0, 0;", "sparse"},
		{"wgmma.fence.aligned;", "needs .sync.aligned"},
		{"ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r1];", "only the .m8n8 shape"},
		{"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1}, [%r1];", "needs 2 registers"},
		{"ldmatrix.sync.m8n8.x1.shared.b16 {%r1}, [%r1];", "needs .sync.aligned"},
		{"stmatrix.sync.aligned.m8n8.x1.global.b16 [%rd1], {%r1};", "accesses .shared memory"},
		{"movmatrix.sync.aligned.m8n8.b16 %r1, %r2;", "needs .trans"},
		{"mbarrier.frob.shared.b64 [%r1];", "unsupported instruction mbarrier.frob"},
		{"mbarrier.arrive.shared.b32 %rd1, [%r1];", "needs the type .b64"},
		{"mbarrier.init.shared.b64 [%r1];", "takes 2 operands"},
		{"mbarrier.test_wait.shared.b64 %r1, [%r1], %rd1;", "destination must be a predicate"},
	}
	for _, tt := range tests {
		t.Run(tt.inst, func(t *testing.T) {
			src := `
.visible .entry k(.param .u64 p0)
{
	.reg .b16 %rs<4>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	` + tt.inst + `
	ret;
}`
			_, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, nil)
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.msg)
			require.Contains(t, err.Error(), "test.ptx:")
		})
	}
}

// The mbarrier object and the states arrive returns, bit for bit as the
// H100 lays them out (testdata/conformance/issue24, docs/semantics.md):
// 2^20-expected in bits 1-20, the tx-count negated in bits 21-41,
// 2^20-pending in bits 43-62, the phase in bit 63; a state is the object's
// upper half from before the arrive. Lane 0 runs the body, which leaves a
// 64-bit value in %rd19; the test reads its low and high words.
func TestMbarrierLayout(t *testing.T) {
	const head = `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 8 .b64 sm[4];
	.shared .align 8 .b64 bar;
` + prologue + `
	mov.u32 	%r10, sm;
	mov.u32 	%r11, bar;
	setp.ne.u32 	%p1, %r4, 0;
	@%p1 bra 	$L_x;
`
	const tail = `
	st.shared.b64 	[%r10], %rd19;
$L_x:
	bar.sync 	0;
	and.b32 	%r12, %r4, 1;
	shl.b32 	%r12, %r12, 2;
	add.u32 	%r12, %r10, %r12;
	ld.shared.u32 	%r30, [%r12];
	st.global.u32 	[%rd2], %r30;
	ret;
}`
	tests := []struct {
		name     string
		body     string
		lo, hi   uint32
		recorded string // where the GPU's value is
	}{
		{"init 3", `
	mbarrier.init.shared.b64 	[%r11], 3;
	ld.shared.b64 	%rd19, [%r11];`, 0x001ffffa, 0x7fffe800, "mbarrier.init's SASS: (2^20-3)<<43 | (2^20-3)<<1"},
		{"init 2, one arrival, inval writes the object back", `
	mbarrier.init.shared.b64 	[%r11], 2;
	mbarrier.arrive.shared.b64 	%rd10, [%r11];
	mbarrier.inval.shared.b64 	[%r11];
	ld.shared.b64 	%rd19, [%r11];`, 0x001ffffc, 0x7ffff800, "mbar_seq_inval w[0]"},
		{"state of the first arrive on init 3", `
	mbarrier.init.shared.b64 	[%r11], 3;
	mbarrier.arrive.shared.b64 	%rd19, [%r11];`, 0, 0x7fffe800, "mbar_seq_count3 st[0]"},
		{"state after a completed phase: parity 1, pending reloaded", `
	mbarrier.init.shared.b64 	[%r11], 3;
	mbarrier.arrive.shared.b64 	%rd10, [%r11];
	mbarrier.arrive.shared::cta.b64 	%rd11, [%r11], 2;
	mbarrier.arrive.shared.b64 	%rd19, [%r11];`, 0, 0xffffe800, "mbar_seq_count3 st[2]"},
		{"state with 32 tx outstanding: the tx-count's top bits", `
	mbarrier.init.shared.b64 	[%r11], 1;
	mbarrier.expect_tx.relaxed.cta.shared::cta.b64 	[%r11], 64;
	mbarrier.complete_tx.relaxed.cta.shared::cta.b64 	[%r11], 32;
	mbarrier.arrive.shared.b64 	%rd19, [%r11];`, 0, 0x7ffffbff, "mbar_seq_tx st[0]"},
		{"state with the tx-count negative", `
	mbarrier.init.shared.b64 	[%r11], 2;
	mbarrier.complete_tx.relaxed.cta.shared::cta.b64 	[%r11], 16;
	mbarrier.arrive.shared.b64 	%rd19, [%r11];`, 0, 0x7ffff000, "mbar_seq_negtx st[0]"},
		{"arrive_drop lowers the next phase's count", `
	mbarrier.init.shared.b64 	[%r11], 3;
	mbarrier.arrive_drop.shared.b64 	%rd10, [%r11];
	mbarrier.arrive.shared.b64 	%rd11, [%r11];
	mbarrier.arrive.shared.b64 	%rd12, [%r11];
	mbarrier.arrive.shared.b64 	%rd19, [%r11];`, 0, 0xfffff000, "mbar_seq_drop st[3]"},
		{"the largest count", `
	mbarrier.init.shared.b64 	[%r11], 1048575;
	mbarrier.arrive.shared::cta.b64 	%rd19, [%r11], 1048574;`, 0, 0x00000800, "mbar_seq_max st[0]"},
		{"pending_count of the largest count", `
	mbarrier.init.shared.b64 	[%r11], 1048575;
	mbarrier.arrive.shared::cta.b64 	%rd10, [%r11], 1048574;
	mbarrier.pending_count.b64 	%r20, %rd10;
	cvt.u64.u32 	%rd19, %r20;`, 0xfffff, 0, "mbar_seq_max o[2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := run(t, head+tt.body+tail, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 32)})
			require.NoError(t, err)
			require.Equalf(t, [2]uint32{tt.lo, tt.hi}, [2]uint32{out[0][0], out[0][1]}, "%#x (the GPU's: %s)", out[0][:2], tt.recorded)
		})
	}
}

// A warp's lanes arriving on one object arrive as one operation: every lane
// gets the state from before the warp's arrival (the H100, mbar_warp_arrive:
// init 40, 32 lanes arrive, each state says 40 pending, then 8 lanes of
// another warp each get 8 pending and complete the phase).
func TestMbarrierWarpArrive(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 8 .b64 bar;
` + prologue + `
	mov.u32 	%r11, bar;
	setp.ne.u32 	%p1, %r4, 0;
	@%p1 bra 	$L_i;
	mbarrier.init.shared.b64 	[%r11], 40;
$L_i:
	bar.sync 	0;
	setp.ge.u32 	%p2, %r4, 32;
	@%p2 bra 	$L_a;
	mbarrier.arrive.shared.b64 	%rd10, [%r11];
$L_a:
	bar.sync 	0;
	setp.lt.u32 	%p3, %r4, 32;
	setp.ge.u32 	%p4, %r4, 40;
	or.pred 	%p3, %p3, %p4;
	@%p3 bra 	$L_b;
	mbarrier.arrive.shared.b64 	%rd10, [%r11];
$L_b:
	bar.sync 	0;
	mov.u32 	%r30, 0;
	setp.ge.u32 	%p5, %r4, 40;
	@%p5 bra 	$L_x;
	mbarrier.pending_count.b64 	%r20, %rd10;
	mbarrier.test_wait.shared.b64 	%p6, [%r11], %rd10;
	selp.u32 	%r21, 0x80000000, 0, %p6;
	mov.b64 	{%r22, %r23}, %rd10;
	xor.b32 	%r23, %r23, %r22;          // the low half is zero
	shr.u32 	%r23, %r23, 11;
	shl.b32 	%r23, %r23, 8;             // 2^20 - pending, above the count
	or.b32 	%r30, %r20, %r21;
	or.b32 	%r30, %r30, %r23;
$L_x:
	st.global.u32 	[%rd2], %r30;
	ret;
}`
	out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, [][]uint32{make([]uint32, 64)})
	require.NoError(t, err)
	tests := []struct {
		name    string
		lanes   [2]int
		pending uint32
	}{
		{"warp 0: all 32 lanes see 40 pending", [2]int{0, 32}, 40},
		{"warp 1, lanes 0-7: all see 8 pending", [2]int{32, 40}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			field := (1<<20 - tt.pending) & 0xfffff
			want := 0x80000000 | field<<8 | tt.pending // phase done, state's count field, pending_count
			for l := tt.lanes[0]; l < tt.lanes[1]; l++ {
				require.Equalf(t, want, out[0][l], "thread %d: %#x", l, out[0][l])
			}
		})
	}
	require.Zero(t, out[0][40])
}

// The arrive-on of cp.async.mbarrier.arrive(.noinc) is asynchronous: it
// lands after the warp's next instruction (on the H100 a test_wait.parity 0
// right after a .noinc arrival that completes the phase reads false, and a
// test_wait.parity 1 after that reads false too: mbar_sp_cp_async_arrive_cta
// and _generic), also when that instruction stops the warp (bar.sync, exit),
// and the same whether the block runs in slices or an instruction at a time
// (SM.Step, round robin). Without .noinc the instruction expects one tx at
// once and the arrive-on completes it. Two warps; thread 0 runs the
// arrivals; %r30 is each thread's result.
func TestCpAsyncMbarrierArriveLandsLate(t *testing.T) {
	const head = `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 8 .b64 bar;
` + prologue + `
	mov.u32 	%r11, bar;
	mov.u32 	%r30, 0;
	setp.ne.u32 	%p1, %r4, 0;
	@%p1 bra 	$L_i;
	mbarrier.init.shared.b64 	[%r11], 1;
$L_i:
	bar.sync 	0;
`
	const tail = `
$L_x:
	st.global.u32 	[%rd2], %r30;
	ret;
}`
	// warp 1 waits for phase 0 to complete; thread 0 arrives, then bar.sync
	waitFor := `
	setp.lt.u32 	%p2, %r4, 32;
	@%p2 bra 	$L_a;
$L_w:
	mbarrier.try_wait.parity.shared.b64 	%p3, [%r11], 0;
	@!%p3 bra 	$L_w;
	selp.u32 	%r30, 1, 0, %p3;
	bra.uni 	$L_b;
$L_a:
	@!%p1 cp.async.mbarrier.arrive.noinc.shared.b64 	[%r11];
$L_b:
	bar.sync 	0;`
	tests := []struct {
		name string
		body string
		want [2]uint32 // thread 0's and thread 32's
	}{
		{"noinc: the next test_wait sees the phase before, the one after it the phase after", `
	@%p1 bra 	$L_x;
	cp.async.mbarrier.arrive.noinc.shared.b64 	[%r11];
	mbarrier.test_wait.parity.shared.b64 	%p4, [%r11], 0;
	mbarrier.test_wait.parity.shared.b64 	%p5, [%r11], 1;
	selp.u32 	%r30, 1, 0, %p4;
	selp.u32 	%r31, 2, 0, %p5;
	or.b32 	%r30, %r30, %r31;`, [2]uint32{0, 0}},
		{"noinc through a generic address", `
	@%p1 bra 	$L_x;
	cvt.u64.u32 	%rd10, %r11;
	cvta.shared.u64 	%rd10, %rd10;
	cp.async.mbarrier.arrive.noinc.b64 	[%rd10];
	mbarrier.test_wait.parity.shared.b64 	%p4, [%r11], 0;
	mbarrier.test_wait.parity.shared.b64 	%p5, [%r11], 1;
	selp.u32 	%r30, 1, 0, %p4;
	selp.u32 	%r31, 2, 0, %p5;
	or.b32 	%r30, %r30, %r31;`, [2]uint32{0, 0}},
		{"noinc: landed after one instruction more", `
	@%p1 bra 	$L_x;
	cp.async.mbarrier.arrive.noinc.shared.b64 	[%r11];
	mov.u32 	%r31, 7;
	mbarrier.test_wait.parity.shared.b64 	%p4, [%r11], 0;
	selp.u32 	%r30, 1, 0, %p4;`, [2]uint32{1, 0}},
		{"without noinc: an arrive right after sees one tx outstanding and cannot complete the phase", `
	@%p1 bra 	$L_x;
	cp.async.mbarrier.arrive.shared.b64 	[%r11];
	mbarrier.arrive.shared.b64 	%rd10, [%r11];
	mbarrier.test_wait.parity.shared.b64 	%p4, [%r11], 0;
	mov.b64 	{%r31, %r30}, %rd10;`, [2]uint32{0x7ffffbff, 0}},
		{"without noinc: the phase completes once the arrive-on lands", `
	@%p1 bra 	$L_x;
	cp.async.mbarrier.arrive.shared.b64 	[%r11];
	mbarrier.arrive.shared.b64 	%rd10, [%r11];
	mbarrier.test_wait.parity.shared.b64 	%p4, [%r11], 0;
	selp.u32 	%r30, 1, 0, %p4;`, [2]uint32{1, 0}},
		{"noinc: lands when bar.sync holds the warp", waitFor, [2]uint32{0, 1}},
		{"noinc: lands when the warp exits", `
	setp.lt.u32 	%p2, %r4, 32;
	@%p2 bra 	$L_a;
$L_w:
	mbarrier.try_wait.parity.shared.b64 	%p3, [%r11], 0;
	@!%p3 bra 	$L_w;
	selp.u32 	%r30, 1, 0, %p3;
	bra.uni 	$L_x;
$L_a:
	@%p1 exit;
	cp.async.mbarrier.arrive.noinc.shared.b64 	[%r11];
	exit;`, [2]uint32{0, 1}},
	}
	for _, tt := range tests {
		src := head + tt.body + tail
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, [][]uint32{make([]uint32, 64)})
			require.NoError(t, err)
			require.Equalf(t, tt.want, [2]uint32{out[0][0], out[0][32]}, "%#x %#x", out[0][0], out[0][32])
		})
		t.Run(tt.name+" (stepped)", func(t *testing.T) {
			dev := vm.NewDevice()
			m, err := dev.LoadModule("test.ptx", []byte(header+src))
			require.NoError(t, err)
			a, err := dev.Malloc(4*64, "out")
			require.NoError(t, err)
			require.NoError(t, dev.MemcpyHtoD(a, make([]byte, 4*64)))
			l, err := m.PrepareLaunch("k", vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{64, 1, 1}},
				[][]byte{binary.LittleEndian.AppendUint64(nil, a)})
			require.NoError(t, err)
			l.MaxInst = 1 << 20
			sm := l.NewSM(0)
			c, err := sm.Admit(0)
			require.NoError(t, err)
			next := 0
			stepCTA(t, sm, c, func(ready []*vm.Warp) *vm.Warp { next++; return ready[next%len(ready)] })
			raw := make([]byte, 4*64)
			require.NoError(t, dev.MemcpyDtoH(raw, a))
			got := bytesU32(raw)
			require.Equalf(t, tt.want, [2]uint32{got[0], got[32]}, "%#x %#x", got[0], got[32])
		})
	}
}
