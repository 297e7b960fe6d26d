package vm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// assertPTX is what nvcc emits for assert(x != 5) in thread x (abridged):
// the strings in .global, the call of the runtime's __assertfail.
const assertPTX = `
.extern .func __assertfail(.param .b64 message, .param .b64 file, .param .b32 line, .param .b64 function, .param .b64 charSize);
.global .align 1 .b8 $str[7] = {120, 32, 33, 61, 32, 53, 0};
.global .align 1 .b8 $str$1[5] = {107, 46, 99, 117, 0};
.global .align 1 .b8 $fn[2] = {107, 0};

.visible .entry k(.param .u64 pout)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<8>;
	.reg .pred %p<2>;
	mov.u32 	%r1, %tid.x;
	setp.ne.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L_ok;
	mov.u64 	%rd1, $str;
	cvta.global.u64 	%rd2, %rd1;
	mov.u64 	%rd3, $str$1;
	cvta.global.u64 	%rd4, %rd3;
	mov.u64 	%rd5, $fn;
	cvta.global.u64 	%rd6, %rd5;
	{
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd2;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd4;
	.param .b32 param2;
	st.param.b32 	[param2+0], 12;
	.param .b64 param3;
	st.param.b64 	[param3+0], %rd6;
	.param .b64 param4;
	st.param.b64 	[param4+0], 1;
	call.uni __assertfail, (param0, param1, param2, param3, param4);
	}
$L_ok:
	ld.param.u64 	%rd7, [pout];
	cvta.to.global.u64 	%rd7, %rd7;
	st.global.u32 	[%rd7], %r1;
	ret;
}
`

// TestAssertFail: a failing device-side assert stops the launch with the
// GPU's message (the recorded case is testdata/tensor's assert_fails, where
// the GPU reported cudaErrorAssert); a passing one lets it finish.
func TestAssertFail(t *testing.T) {
	for _, tc := range []struct {
		name string
		when string // what %r2 (the failing thread) is
		fail bool
	}{
		{"fails in thread 5", "mov.u32 %r2, 5;", true},
		{"holds", "mov.u32 %r2, 99;", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(assertPTX, "%tid.x;", "%tid.x;\n\t"+tc.when, 1)
			_, _, err := runOpt(t, options{maxInst: 1 << 16}, src, "k", [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, [][]uint32{{0}})
			if !tc.fail {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, vm.ErrAssert), "%v", err)
			var ft *vm.Fault
			require.ErrorAs(t, err, &ft)
			assert.Equal(t, [3]uint32{5, 0, 0}, ft.Thread)
			assert.Contains(t, err.Error(), "device-side assert triggered: k.cu:12: k: Assertion `x != 5` failed.")
		})
	}
}
