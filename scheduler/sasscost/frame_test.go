package sasscost

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/vm"
)

// A function's frame saves the return address, what lives across its
// calls and, in optimised code with branches, the caller's convergence
// barrier; a leaf function and a kernel save nothing.
func TestFrameSaves(t *testing.T) {
	const leaf = `.func (.param .b32 r) leaf(.param .b32 a)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [a];
	add.s32 %r2, %r1, 1;
	st.param.b32 [r], %r2;
	ret;
}
`
	const fib = `.func (.param .b32 r) fib(.param .b32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<9>;
	ld.param.u32 %r8, [n];
	setp.lt.u32 %p1, %r8, 2;
	@%p1 bra $L_done;
	add.s32 %r4, %r8, -1;
	{
	.param .b32 a0;
	st.param.b32 [a0], %r4;
	.param .b32 r0;
	call.uni (r0), fib, (a0);
	ld.param.b32 %r5, [r0];
	}
	add.s32 %r6, %r8, -2;
	{
	.param .b32 a1;
	st.param.b32 [a1], %r6;
	.param .b32 r1;
	call.uni (r1), fib, (a1);
	ld.param.b32 %r7, [r1];
	}
	add.s32 %r8, %r7, %r5;
$L_done:
	st.param.b32 [r], %r8;
	ret;
}
`
	const entry = `.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	{
	.param .b32 a;
	st.param.b32 [a], %r1;
	.param .b32 r;
	call.uni (r), fib, (a);
	ld.param.b32 %r2, [r];
	}
	{
	.param .b32 a;
	st.param.b32 [a], %r2;
	.param .b32 r;
	call.uni (r), leaf, (a);
	ld.param.b32 %r3, [r];
	}
	st.global.u32 [%rd2], %r3;
	ret;
}
`
	for _, debug := range []bool{false, true} {
		target := "sm_90"
		if debug {
			target += ", debug"
		}
		src := ".version 8.0\n.target " + target + "\n.address_size 64\n" + leaf + fib + entry
		m, err := vm.NewDevice().LoadModule("k.ptx", []byte(src))
		require.NoError(t, err)
		k, err := m.Kernel("k")
		require.NoError(t, err)
		want := map[string]int{"k": 0, "leaf": 0, "fib": 5} // R20, R21, n and fib(n-1) across the calls, B6
		if debug {
			want["fib"] = 4 // no convergence barrier in -G code
		}
		got := map[string]int{}
		for _, f := range k.Funcs {
			got[f.Name] = FrameSaves(f, debug)
		}
		assert.Equal(t, want, got, "debug %v", debug)
	}
}

// The frames agree with the registers ptxas's prologues store (STL
// [R1+...]) in the corpus's SASS: exactly or within one for optimised
// code; for -G code, which keeps variables in registers longer and whose
// SASS also calls subroutines the PTX does not (division and square-root
// slow paths), the estimate is low by 2.5 registers on average (139
// functions): the fitted cost of a -G save (g:frame.save) absorbs that.
func TestFrameSavesAgainstSASS(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/*/ptx/*.ptx")
	require.NoError(t, err)
	var n, nG int
	var errG float64
	for _, p := range paths {
		saved := sassFrameStores(t, ncu.SASSPath(p))
		if saved == nil {
			continue
		}
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		m, err := vm.NewDevice().LoadModule(p, src)
		require.NoError(t, err, "%s", filepath.Base(p))
		seen := map[string]bool{}
		for _, e := range m.EntryNames() {
			k, err := m.Kernel(e)
			require.NoError(t, err, "%s: %s", filepath.Base(p), e)
			for _, f := range k.Funcs {
				got, ok := saved[f.Name]
				if f.Entry || seen[f.Name] || !ok {
					continue
				}
				seen[f.Name] = true
				est := FrameSaves(f, k.Debug())
				if est == 0 && got == 0 {
					continue
				}
				if !k.Debug() {
					n++
					assert.InDelta(t, got, est, 1, "%s: %s", filepath.Base(p), f.Name)
					continue
				}
				nG++
				errG += float64(abs(est - got))
			}
		}
	}
	require.Positive(t, n, "no optimised function with a frame")
	require.Positive(t, nG, "no -G function with a frame")
	assert.Less(t, errG/float64(nG), 2.6, "-G frames: mean error over %d functions", nG)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

var (
	sassLabel = regexp.MustCompile(`^(\$?[\w$.]+):\s*$`)
	sassSTL   = regexp.MustCompile(`^\s*/\*[0-9a-f]+\*/\s+STL(\.64|\.128)? \[R1`)
)

// sassFrameStores returns, per function of an nvdisasm listing (named as
// in the PTX), the 32-bit registers it stores relative to the stack
// pointer; nil if there is no listing.
func sassFrameStores(t *testing.T, path string) map[string]int {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]int{}
	cur := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if m := sassLabel.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], ".") {
			cur = m[1]
			if i := strings.LastIndexByte(cur, '$'); i >= 0 {
				cur = cur[i+1:] // $kernel$function in optimised code
			}
			if _, ok := out[cur]; !ok {
				out[cur] = 0
			}
			continue
		}
		if m := sassSTL.FindStringSubmatch(l); cur != "" && m != nil {
			out[cur] += map[string]int{"": 1, ".64": 2, ".128": 4}[m[1]]
		}
	}
	require.NoError(t, sc.Err())
	return out
}
