package vm_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// Warp-synchronous instructions whose member mask names lanes that are
// elsewhere, as sm_90 ran them (testdata/conformance/issue7, warpdiv and
// barerr). Each kernel stores one value per lane; 0xDEADBEEF marks lanes
// that did not execute the instruction.
func TestWarpSyncDivergedMembers(t *testing.T) {
	const dead = 0xDEADBEEF
	body := func(shape string) string {
		return `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<4>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
` + prologue + `
	mov.u32 	%r8, 0xDEADBEEF;
	and.b32 	%r5, %r4, 3;
	setp.ne.u32 	%p2, %r5, 0;
` + shape + `
	st.global.u32 	[%rd2], %r8;
	ret;
}`
	}
	tests := []struct {
		name, shape string
		want        func(lane int) uint32
	}{
		// Lane 0 branches around and exits: the others vote among
		// themselves (every 4th lane has a false predicate: lanes 4, 8...).
		{"one lane away", `
	setp.eq.u32 	%p1, %r4, 0;
	@%p1 bra 	$L_skip;
	vote.sync.ballot.b32 	%r8, %p2, 0xffffffff;
$L_skip:`, func(l int) uint32 {
			if l == 0 {
				return dead
			}
			return 0xeeeeeeee
		}},
		// Lanes 16-31 exit first: ballot over lanes 0-15.
		{"exited", `
	setp.ge.u32 	%p1, %r4, 16;
	@%p1 exit;
	vote.sync.ballot.b32 	%r8, %p2, 0xffffffff;`, func(l int) uint32 { return 0xeeee }},
		// The two halves execute the same instruction at two PCs: one
		// collective (WARPSYNC.COLLECTIVE).
		{"split", `
	setp.ge.u32 	%p1, %r4, 16;
	@%p1 bra 	$L_else;
	vote.sync.ballot.b32 	%r8, %p2, 0xffffffff;
	bra.uni 	$L_join;
$L_else:
	vote.sync.ballot.b32 	%r8, %p2, 0xffffffff;
$L_join:`, func(l int) uint32 { return 0xeeeeeeee }},
		// Lanes naming different masks form separate groups.
		{"mask mismatch", `
	mov.u32 	%r6, 0xffffffff;
	setp.lt.u32 	%p1, %r4, 16;
	@%p1 mov.u32 	%r6, 0x0000ffff;
	vote.sync.ballot.b32 	%r8, %p2, %r6;`, func(l int) uint32 {
			if l < 16 {
				return 0xeeee
			}
			return 0xeeee0000
		}},
		// shfl from a lane that exited reads 0.
		{"shfl from an exited lane", `
	setp.ge.u32 	%p1, %r4, 16;
	@%p1 exit;
	shfl.sync.down.b32 	%r8, %r1, 1, 0x1f, 0xffffffff;`, func(l int) uint32 {
			if l == 15 {
				return 0
			}
			return uint32(l + 1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := run(t, body(tt.shape), "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 32)})
			require.NoError(t, err)
			for l, v := range out[0] {
				want := tt.want(l)
				if tt.name == "exited" || tt.name == "shfl from an exited lane" {
					if l >= 16 {
						want = 0 // never stored
					}
				}
				require.Equalf(t, want, v, "lane %d", l)
			}
		})
	}
}

// TestIllegalInstructions checks the launches the GPU stops with
// cudaErrorIllegalInstruction: a barrier count that is not a multiple of
// the warp size, and bar.warp.sync with a mask that leaves out its lane.
func TestIllegalInstructions(t *testing.T) {
	kernel := func(code string) string {
		return `
.visible .entry k(.param .u64 p0)
{
	.reg .pred %p<4>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<4>;
` + prologue + `
` + code + `
	st.global.u32 	[%rd2], %r1;
	ret;
}`
	}
	tests := []struct{ name, code, msg string }{
		{"bar.sync 48", "mov.u32 %r5, 48;\n\tsetp.ge.u32 %p1, %r1, 64;\n\t@%p1 bra $L_out;\n\tbar.sync 1, %r5;\n$L_out:",
			"illegal instruction: barrier 1 with a thread count of 48, not a multiple of the warp size (32)"},
		{"bar.arrive 40", "mov.u32 %r5, 40;\n\tbar.arrive 1, %r5;", "thread count of 40"},
		{"bar.red 16", "mov.u32 %r5, 16;\n\tsetp.ne.u32 %p2, %r1, 0;\n\tbar.red.popc.u32 %r6, 1, %r5, %p2;", "thread count of 16"},
		{"bar.warp.sync leaving its lane out", "mov.u32 %r5, 0xffffffff;\n\tsetp.eq.u32 %p1, %r4, 0;\n\t@%p1 mov.u32 %r5, 0xfffffffe;\n\tbar.warp.sync %r5;",
			"illegal instruction: bar.warp.sync with membermask 0xfffffffe, which leaves out lane 0 that executes it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := run(t, kernel(tt.code), "k", [3]uint32{1, 1, 1}, [3]uint32{128, 1, 1}, [][]uint32{make([]uint32, 128)})
			require.ErrorIs(t, err, vm.ErrIllegalInstruction)
			require.ErrorContains(t, err, tt.msg)
			var f *vm.Fault
			require.ErrorAs(t, err, &f)
			require.Equal(t, "k", f.Kernel)
			require.NotZero(t, f.PTXLine)
		})
	}
	// Masks that differ between lanes but include each lane are not
	// illegal; an immediate count ptxas refuses is a lowering error.
	_, _, err := run(t, kernel("shl.b32 %r5, 1, %r4;\n\tor.b32 %r5, %r5, 1;\n\tbar.warp.sync %r5;"), "k",
		[3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{make([]uint32, 32)})
	require.NoError(t, err)
	_, _, err = run(t, kernel("bar.sync 1, 48;"), "k", [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, [][]uint32{make([]uint32, 64)})
	require.ErrorContains(t, err, "bar: thread count 48 is not a multiple of the warp size (32)")
}

// TestAddressWrapAndCarry covers two small semantics sm_90 showed
// (testdata/conformance/issue7, addr and carry): [r+imm] in a 32-bit
// window is a 32-bit sum, and sub.cc leaves the carry of a + ~b + 1.
func TestAddressWrapAndCarry(t *testing.T) {
	src := `
.visible .entry k(.param .u64 p0)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 s[32];
` + prologue + `
	mov.u32 	%r5, s;
	shl.b32 	%r6, %r4, 2;
	add.u32 	%r7, %r5, %r6;
	st.shared.u32 	[%r7], %r4;
	add.u32 	%r8, %r7, -64;
	ld.shared.u32 	%r9, [%r8+68];
	sub.cc.u32 	%r10, %r4, 5;
	addc.u32 	%r11, 0, 0;
	shl.b32 	%r11, %r11, 16;
	add.u32 	%r9, %r9, %r11;
	st.global.u32 	[%rd2], %r9;
	ret;
}`
	out, _, err := run(t, src, "k", [3]uint32{1, 1, 1}, [3]uint32{31, 1, 1}, [][]uint32{make([]uint32, 31)})
	require.NoError(t, err)
	for l, v := range out[0][:30] {
		carry := uint32(0)
		if l >= 5 { // a + ~5 + 1 carries out when a >= 5 (no borrow)
			carry = 1
		}
		require.Equalf(t, uint32(l+1)+carry<<16, v, "lane %d", l)
	}
}
