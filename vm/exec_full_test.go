package vm_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// fullIntKernel runs one instruction over registers loaded from the input
// (a and b 64-bit, c 32-bit, widened or cut by the instruction's type),
// guarded by %p1: thread t runs it when bit t of the mask parameter is set.
// With every bit set the warp takes the full-warp path (fullInt); with
// lane 31 off, the general one.
const fullIntKernel = `
.visible .entry k(.param .u64 pout, .param .u64 pin, .param .u32 pmask)
{
	.reg .b16 %%h<8>;
	.reg .b32 %%r<16>;
	.reg .b64 %%rd<16>;
	.reg .pred %%p<4>;
	ld.param.u64 	%%rd1, [pout];
	ld.param.u64 	%%rd2, [pin];
	ld.param.u32 	%%r9, [pmask];
	mov.u32 	%%r1, %%tid.x;
	shr.u32 	%%r10, %%r9, %%r1;
	and.b32 	%%r10, %%r10, 1;
	setp.ne.u32 	%%p1, %%r10, 0;
	and.b32 	%%r11, %%r1, 2;
	setp.ne.u32 	%%p2, %%r11, 0;
	mul.wide.u32 	%%rd3, %%r1, 24;
	add.s64 	%%rd4, %%rd2, %%rd3;
	mul.wide.u32 	%%rd5, %%r1, 8;
	add.s64 	%%rd6, %%rd1, %%rd5;
	ld.global.u64 	%%rd7, [%%rd4];
	ld.global.u64 	%%rd8, [%%rd4+8];
	ld.global.u64 	%%rd9, [%%rd4+16];
	cvt.u32.u64 	%%r2, %%rd7;
	cvt.u32.u64 	%%r3, %%rd8;
	cvt.u32.u64 	%%r4, %%rd9;
	cvt.u16.u64 	%%h2, %%rd7;
	cvt.u16.u64 	%%h3, %%rd8;
	cvt.u16.u64 	%%h4, %%rd9;
	mov.b64 	%%rd10, 0x5555aaaa5555aaaa;
	mov.b32 	%%r5, 0x5555aaaa;
	mov.b16 	%%h5, 0x55aa;
	@%%p1 %s
	cvt.u64.u16 	%%rd11, %%h5;
	cvt.u64.u32 	%%rd12, %%r5;
	add.s64 	%%rd13, %%rd10, %%rd11;
	add.s64 	%%rd13, %%rd13, %%rd12;
	st.global.u64 	[%%rd6], %%rd13;
	ret;
}
`

// TestFullWarpIntMatchesGeneral: each form fullInt runs gives what the
// general path gives, lane for lane (operands random, with shift amounts
// below, at and past the type's width).
func TestFullWarpIntMatchesGeneral(t *testing.T) {
	forms := []string{
		"mov.u16 %h5, %h2;", "mov.b32 %r5, %r2;", "mov.u64 %rd10, %rd7;",
		"sub.s16 %h5, %h2, %h3;", "sub.s32 %r5, %r2, %r3;", "sub.u64 %rd10, %rd7, %rd8;",
		"and.b16 %h5, %h2, %h3;", "and.b32 %r5, %r2, %r3;", "or.b32 %r5, %r2, %r3;", "xor.b64 %rd10, %rd7, %rd8;",
		"or.b64 %rd10, %rd7, %rd8;", "xor.b32 %r5, %r2, 1234567;", "not.b32 %r5, %r2;", "not.b64 %rd10, %rd7;", "not.b16 %h5, %h2;",
		"mul.lo.s32 %r5, %r2, %r3;", "mul.lo.u16 %h5, %h2, %h3;", "mul.lo.u64 %rd10, %rd7, %rd8;",
		"mad.lo.s32 %r5, %r2, %r3, %r4;", "mad.lo.u64 %rd10, %rd7, %rd8, %rd9;", "mad.lo.s16 %h5, %h2, %h3, %h4;",
		"mul.wide.s32 %rd10, %r2, %r3;", "mul.wide.u32 %rd10, %r2, %r3;", "mul.wide.u16 %r5, %h2, %h3;",
		"shl.b32 %r5, %r2, %r4;", "shl.b64 %rd10, %rd7, %r4;", "shl.b16 %h5, %h2, %r4;",
		"shr.u32 %r5, %r2, %r4;", "shr.s32 %r5, %r2, %r4;", "shr.u64 %rd10, %rd7, %r4;", "shr.s64 %rd10, %rd7, %r4;",
		"shr.s16 %h5, %h2, %r4;", "shr.u16 %h5, %h2, %r4;", "shr.b32 %r5, %r2, 7;",
		"selp.b32 %r5, %r2, %r3, %p2;", "selp.b64 %rd10, %rd7, %rd8, %p2;", "selp.s16 %h5, %h2, %h3, %p2;",
		"add.s64 %rd10, %rd7, %rd8;",
	}
	// setp of 32-bit integers (setp32Full), its predicate made a value.
	for _, c := range []string{"eq.s32", "ne.s32", "lt.s32", "le.s32", "gt.s32", "ge.s32", "lo.u32", "ls.u32",
		"hi.u32", "hs.u32", "lt.u32", "ge.u32", "eq.b32", "ne.b32"} {
		forms = append(forms, "setp."+c+" %p3, %r2, %r3;\n\tselp.b32 %r5, 7, 9, %p3;")
	}
	forms = append(forms, "setp.gt.s32 %p3, %r2, -5;\n\tselp.b32 %r5, 7, 9, %p3;")
	r := rand.New(rand.NewSource(11))
	in := make([]uint32, 32*6)
	for i := range in {
		in[i] = r.Uint32()
		if i%6 == 4 { // c's low word: a shift amount below, at or past the width
			in[i] = uint32(r.Intn(70))
		}
	}
	for _, form := range forms {
		t.Run(form, func(t *testing.T) {
			src := fmt.Sprintf(fullIntKernel, form)
			var outs [2][]uint32
			for i, mask := range []uint32{^uint32(0), ^uint32(0) >> 1} {
				old := make([]uint32, 64)
				bufs, _, err := runOpt(t, options{maxInst: 1 << 16}, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1},
					[][]uint32{old, in}, u32bytes([]uint32{mask}))
				require.NoError(t, err)
				outs[i] = bufs[0]
			}
			require.Equal(t, outs[1][:62], outs[0][:62], "lanes 0-30: the full warp against the general path")
		})
	}
}
