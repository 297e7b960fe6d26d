package sanitize_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm/sanitize"
)

const recursivePTX = `.version 8.5
.target sm_90
.address_size 64

.func (.param .b32 ret) rec(.param .b32 n, .param .b32 stop)
{
	.reg .b32 %r<6>;
	.reg .pred %p<2>;
	ld.param.b32 %r1, [n];
	ld.param.b32 %r4, [stop];
	setp.ge.u32 %p1, %r1, %r4;
	mov.u32 %r3, %r1;
	@%p1 bra $L_done;
	add.u32 %r2, %r1, 1;
	{
	.param .b32 p0;
	.param .b32 p1;
	st.param.b32 [p0], %r2;
	st.param.b32 [p1], %r4;
	.param .b32 r0;
	call.uni (r0), rec, (p0, p1);
	ld.param.b32 %r3, [r0];
	}
$L_done:
	st.param.b32 [ret], %r3;
	ret;
}

.visible .entry recurse(.param .u64 p_out, .param .u32 p_depth)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p_out];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u32 %r2, [p_depth];
	{
	.param .b32 p0;
	.param .b32 p1;
	st.param.b32 [p0], 0;
	st.param.b32 [p1], %r2;
	.param .b32 r0;
	call.uni (r0), rec, (p0, p1);
	ld.param.b32 %r1, [r0];
	}
	mov.u32 %r3, %tid.x;
	mul.wide.u32 %rd2, %r3, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	ret;
}
`

// TestStackOverflow: a recursion deeper than the launch's stack is
// memcheck's "Stack overflow" record (compute-sanitizer's wording for the
// hardware exception; no GPU record of it in testdata/sanitize/gpu) and the
// launch fails; a shallow one is clean.
func TestStackOverflow(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rec.ptx"), []byte(recursivePTX), 0o644))
	tests := []struct {
		name  string
		depth int
		want  []summary
	}{
		{"shallow", 8, []summary{}},
		{"unbounded", 1 << 30, []summary{
			{"memcheck", "stack overflow", "error", []string{"rec.ptx:21"}, 1},
			{"memcheck", "launch failure", "error", []string{}, 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := `{"module": "rec.ptx", "kernel": "recurse", "grid": [1,1,1], "block": [32,1,1],
 "buffers": [{"name": "out", "type": "u32", "count": 32}],
 "args": [{"buffer": "out"}, {"u32": ` + strconv.Itoa(tt.depth) + `}], "outputs": ["out"]}`
			p := filepath.Join(dir, tt.name+".json")
			require.NoError(t, os.WriteFile(p, []byte(spec), 0o644))
			rep := sanitizeSpec(t, p, sanitize.Memcheck, false)
			got := summarize(rep)
			for i := range got {
				for j, l := range got[i].Lines {
					got[i].Lines[j] = strings.TrimPrefix(l, dir+string(filepath.Separator))
				}
			}
			assert.Equal(t, tt.want, got)
			if len(tt.want) > 0 {
				assert.Equal(t, "Stack overflow", rep.Findings[0].Title)
				assert.Contains(t, rep.Failure, "stack overflow")
			}
		})
	}
}
