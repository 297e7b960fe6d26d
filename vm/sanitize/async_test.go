package sanitize_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm/sanitize"
)

// asyncKernel wraps body in an entry of 64 threads with s (the thread's
// 4-byte slot of shared array sm), n (its neighbour's), bar (an mbarrier
// initialised to 64 arrivals before the first bar.sync) and src (the
// global input, 4 bytes per thread) set up; the body ends with the
// neighbour's value in %r9, stored to the output.
func asyncKernel(name, body string) string {
	return fmt.Sprintf(`.visible .entry %s(.param .u64 p_out, .param .u64 p_in)
{
	.reg .b32 %%r<32>;
	.reg .b64 %%rd<16>;
	.reg .pred %%p<8>;
	.shared .align 16 .b8 sm[256];
	.shared .align 8 .b64 bar;
	mov.u32 %%r0, %%tid.x;
	ld.param.u64 %%rd1, [p_out];
	cvta.to.global.u64 %%rd1, %%rd1;
	ld.param.u64 %%rd2, [p_in];
	cvta.to.global.u64 %%rd2, %%rd2;
	mul.wide.u32 %%rd3, %%r0, 4;
	add.s64 %%rd4, %%rd2, %%rd3;
	add.s64 %%rd5, %%rd1, %%rd3;
	mov.u32 %%r1, sm;
	shl.b32 %%r2, %%r0, 2;
	add.u32 %%r3, %%r1, %%r2;
	add.u32 %%r4, %%r0, 1;
	and.b32 %%r4, %%r4, 63;
	shl.b32 %%r4, %%r4, 2;
	add.u32 %%r4, %%r1, %%r4;
	mov.u32 %%r5, bar;
	setp.ne.u32 %%p1, %%r0, 0;
	@%%p1 bra $L_init;
	mbarrier.init.shared.b64 [%%r5], 64;
$L_init:
	bar.sync 0;
%s
	st.global.u32 [%%rd5], %%r9;
	ret;
}
`, name, body)
}

// TestAsyncOrdering: racecheck takes the order cp.async waits and
// mbarriers give. A cp.async's shared write happens when the wait_group,
// wait_all or mbarrier arrive-on that completes it runs; an mbarrier phase
// whose completion a thread's test_wait/try_wait saw orders the arriving
// threads' earlier accesses before the waiter's later ones. Without the
// wait the same kernels race.
func TestAsyncOrdering(t *testing.T) {
	const (
		store     = "\tld.global.u32 %r8, [%rd4];\n\tst.shared.u32 [%r3], %r8;\n"
		readNext  = "\tld.shared.u32 %r9, [%r4];\n"
		copyIn    = "\tcp.async.ca.shared.global [%r3], [%rd4], 4;\n"
		arrive    = "\tmbarrier.arrive.shared.b64 %rd6, [%r5];\n"
		waitState = "$L_w:\n\tmbarrier.try_wait.shared.b64 %p2, [%r5], %rd6;\n\t@!%p2 bra $L_w;\n"
		waitPar0  = "$L_w:\n\tmbarrier.try_wait.parity.shared.b64 %p2, [%r5], 0;\n\t@!%p2 bra $L_w;\n"
		waitPar1  = "\tmbarrier.test_wait.parity.shared.b64 %p2, [%r5], 1;\n" // passes at once: no order
	)
	tests := []struct {
		name string
		body string
		want []string // kind of each finding
	}{
		{"mbar_arrive_wait", store + arrive + waitState + readNext, nil},
		{"mbar_arrive_parity", store + arrive + waitPar0 + readNext, nil},
		{"mbar_arrive_nowait", store + arrive + readNext, []string{"RAW"}},
		{"mbar_wrong_parity", store + arrive + waitPar1 + readNext, []string{"RAW"}},
		{"mbar_reuse_war", store + arrive + waitState + readNext + "\tmbarrier.arrive.shared.b64 %rd6, [%r5];\n" + strings.ReplaceAll(waitState, "$L_w", "$L_v") + store, nil},
		{"mbar_reuse_race", store + arrive + waitState + readNext + store, []string{"WAR"}},
		{"cp_wait_all_bar", copyIn + "\tcp.async.wait_all;\n\tbar.sync 0;\n" + readNext, nil},
		{"cp_commit_wait_group_bar", copyIn + "\tcp.async.commit_group;\n\tcp.async.wait_group 0;\n\tbar.sync 0;\n" + readNext, nil},
		{"cp_bar_then_wait", copyIn + "\tbar.sync 0;\n" + readNext + "\tcp.async.wait_all;\n", []string{"WAR"}},
		{"cp_mbar_noinc", copyIn + "\tcp.async.mbarrier.arrive.noinc.shared.b64 [%r5];\n" + waitPar0 + readNext, nil},
		{"cp_mbar_noinc_nowait", copyIn + "\tcp.async.mbarrier.arrive.noinc.shared.b64 [%r5];\n\tbar.sync 0;\n" + readNext, nil},
	}
	dir := t.TempDir()
	var ptx strings.Builder
	ptx.WriteString(".version 8.5\n.target sm_90\n.address_size 64\n\n")
	for _, tt := range tests {
		ptx.WriteString(asyncKernel(tt.name, tt.body))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "async.ptx"), []byte(ptx.String()), 0o644))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specPath := filepath.Join(dir, tt.name+".json")
			spec := fmt.Sprintf(`{"module": "async.ptx", "kernel": %q, "grid": [1,1,1], "block": [64,1,1],
 "buffers": [{"name": "out", "type": "u32", "count": 64}, {"name": "in", "type": "u32", "count": 64, "fill": {"kind": "iota"}}],
 "args": [{"buffer": "out"}, {"buffer": "in"}], "outputs": ["out"]}`, tt.name)
			require.NoError(t, os.WriteFile(specPath, []byte(spec), 0o644))
			rep := sanitizeSpec(t, specPath, sanitize.Racecheck|sanitize.Synccheck|sanitize.Memcheck, false)
			require.Empty(t, rep.Failure)
			var got []string
			for _, f := range rep.Findings {
				got = append(got, f.Kind)
			}
			assert.Equal(t, tt.want, got, "%+v", summarize(rep))
		})
	}
}
