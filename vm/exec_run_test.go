package vm_test

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// runForms are the instructions randomRun draws from: every run form
// (exec_run.go) over the registers of runKernel, and a few that are not
// (which end a run: cvt, a guarded add, a signed shr, sat).
var runForms = []string{
	"mov.b32 %r{d}, %r{a};", "mov.u64 %rd{d}, %rd{a};", "mov.f32 %f{d}, %f{a};", "mov.u16 %h{d}, %h{a};",
	"mov.b32 %r{d}, 0x7ffffff{k};", "mov.f32 %f{d}, 0f3F80000{k};",
	"add.s32 %r{d}, %r{a}, %r{b};", "add.u32 %r{d}, %r{a}, {k};", "add.s64 %rd{d}, %rd{a}, %rd{b};",
	"add.u16 %h{d}, %h{a}, %h{b};", "add.sat.s32 %r{d}, %r{a}, %r{b};",
	"sub.s32 %r{d}, %r{a}, %r{b};", "sub.u64 %rd{d}, %rd{a}, %rd{b};", "sub.s16 %h{d}, %h{a}, %h{b};",
	"and.b32 %r{d}, %r{a}, %r{b};", "or.b32 %r{d}, %r{a}, %r{b};", "xor.b64 %rd{d}, %rd{a}, %rd{b};",
	"and.b16 %h{d}, %h{a}, %h{b};", "xor.b32 %r{d}, %r{a}, 0x5555{k};",
	"shl.b32 %r{d}, %r{a}, %r{b};", "shl.b64 %rd{d}, %rd{a}, %r{b};", "shl.b32 %r{d}, %r{a}, {k};",
	"shr.u32 %r{d}, %r{a}, %r{b};", "shr.u64 %rd{d}, %rd{a}, %r{b};", "shr.s32 %r{d}, %r{a}, %r{b};",
	"shr.b32 %r{d}, %r{a}, {k};", "shl.b16 %h{d}, %h{a}, %r{b};",
	"mul.wide.u32 %rd{d}, %r{a}, %r{b};", "mul.wide.s32 %rd{d}, %r{a}, %r{b};", "mul.wide.u16 %r{d}, %h{a}, %h{b};",
	"mul.lo.s32 %r{d}, %r{a}, %r{b};", "mul.lo.u64 %rd{d}, %rd{a}, %rd{b};", "mul.lo.u16 %h{d}, %h{a}, %h{b};",
	"mad.lo.s32 %r{d}, %r{a}, %r{b}, %r{c};", "mad.lo.u64 %rd{d}, %rd{a}, %rd{b}, %rd{c};",
	"fma.rn.f32 %f{d}, %f{a}, %f{b}, %f{c};", "fma.rz.f32 %f{d}, %f{a}, %f{b}, %f{c};",
	"fma.rn.ftz.f32 %f{d}, %f{a}, %f{b}, %f{c};",
	"setp.lt.s32 %p{d}, %r{a}, %r{b};", "setp.ge.u32 %p{d}, %r{a}, %r{b};", "setp.ne.b32 %p{d}, %r{a}, %r{b};",
	"setp.eq.s32 %p{d}, %r{a}, {k};", "setp.hi.u32 %p{d}, %r{a}, %r{b};", "setp.le.s32 %p{d}, %r{a}, %r{b};",
	"setp.gt.u32 %p{d}, %r{a}, %r{b};", "setp.ls.u32 %p{d}, %r{a}, %r{b};", "setp.lt.u64 %p{d}, %rd{a}, %rd{b};",
	"setp.lt.and.s32 %p{d}, %r{a}, %r{b}, %p{c};",
	"and.pred %p{d}, %p{a}, %p{b};", "or.pred %p{d}, %p{a}, !%p{b};", "xor.pred %p{d}, !%p{a}, %p{b};",
	"not.pred %p{d}, %p{a};", "mov.pred %p{d}, %p{a};",
	"cvt.u32.u64 %r{d}, %rd{a};", "cvta.to.global.u64 %rd{d}, %rd{a};", "cvta.global.u64 %rd{d}, %rd{a};",
	"cvta.to.shared.u64 %rd{d}, %rd{a};", "@%p{c} add.s32 %r{d}, %r{a}, %r{b};",
	// memory: the lane's own input words, the block's shared words (lanes
	// overlap), a misaligned and an out-of-range access (faults)
	"ld.global.u32 %r{d}, [%rd9+{k4}];", "ld.global.f32 %f{d}, [%rd9+{k4}];", "ld.global.s32 %r{d}, [%rd9+{k4}];",
	"st.shared.u32 [%r12+{k4}], %r{a};", "ld.shared.u32 %r{d}, [%r12+{k4}];", "st.shared.f32 [%r12+{k4}], %f{a};",
	"ld.global.u32 %r{d}, [%rd9+{k}];", "ld.shared.u32 %r{d}, [%r12+4096];", "st.shared.u32 [%r12+4096], %r{a};",
	// lanes in pairs swapped: StoreWords32 refuses them, the general path stores
	"st.shared.u32 [%r13+{k4}], %r{a};", "ld.shared.u32 %r{d}, [%r13+{k4}];",
	// uniform predicates (%p6 true, %p7 false, %p5 by the parameter):
	// their branches agree across the warp
	"@%p6 bra {L};", "@%p7 bra {L};", "@!%p5 bra {L};", "bra {L};",
	// a predicate of lane values: a branch the warp may split at
	"@%p{c} bra {L};",
}

// runKernel loads eight 32-bit values a lane (in), makes the registers of
// each class from them, runs the body three times over (a counted loop: a
// run across its back branch), and stores every register (out, 40 words a
// lane). %p5 is the parameter's bit 0, %p6 true and %p7 false in every lane.
const runKernel = `
.visible .entry k(.param .u64 pout, .param .u64 pin, .param .u32 pu)
{
	.reg .b16 %%h<5>;
	.reg .b32 %%r<15>;
	.reg .b64 %%rd<12>;
	.reg .f32 %%f<5>;
	.reg .pred %%p<8>;
	.shared .align 4 .b8 sh[256];
	ld.param.u64 	%%rd8, [pout];
	ld.param.u64 	%%rd9, [pin];
	ld.param.u32 	%%r8, [pu];
	mov.u32 	%%r9, %%tid.x;
	mul.wide.u32 	%%rd10, %%r9, 32;
	add.s64 	%%rd9, %%rd9, %%rd10;
	mul.wide.u32 	%%rd10, %%r9, 160;
	add.s64 	%%rd8, %%rd8, %%rd10;
	ld.global.u32 	%%r0, [%%rd9];
	ld.global.u32 	%%r1, [%%rd9+4];
	ld.global.u32 	%%r2, [%%rd9+8];
	ld.global.u32 	%%r3, [%%rd9+12];
	ld.global.u64 	%%rd0, [%%rd9+16];
	ld.global.u64 	%%rd1, [%%rd9+24];
	mov.b32 	%%f0, %%r2;
	mov.b32 	%%f1, %%r3;
	add.f32 	%%f2, %%f0, %%f1;
	mul.f32 	%%f3, %%f0, %%f1;
	cvt.u16.u32 	%%h0, %%r0;
	cvt.u16.u32 	%%h1, %%r1;
	cvt.u16.u32 	%%h2, %%r2;
	cvt.u16.u32 	%%h3, %%r3;
	xor.b64 	%%rd2, %%rd0, %%rd1;
	add.s64 	%%rd3, %%rd0, 12345;
	mul.wide.u32 	%%rd4, %%r0, %%r1;
	add.s32 	%%r4, %%r0, %%r3;
	xor.b32 	%%r5, %%r1, %%r2;
	and.b32 	%%r6, %%r9, 3;
	and.b32 	%%r7, %%r0, 31;
	setp.lt.u32 	%%p0, %%r0, %%r1;
	setp.ne.u32 	%%p1, %%r6, 0;
	setp.gt.s32 	%%p2, %%r2, %%r3;
	setp.eq.u32 	%%p3, %%r7, 5;
	setp.lt.u32 	%%p4, %%r4, %%r5;
	and.b32 	%%r10, %%r8, 1;
	setp.ne.u32 	%%p5, %%r10, 0;
	setp.eq.u32 	%%p6, %%r10, %%r10;
	setp.ne.u32 	%%p7, %%r10, %%r10;
	mov.u32 	%%r12, sh;
	shl.b32 	%%r13, %%r9, 2;
	add.s32 	%%r12, %%r12, %%r13;
	xor.b32 	%%r13, %%r13, 4;
	mov.u32 	%%r14, sh;
	add.s32 	%%r13, %%r14, %%r13;
	mov.u32 	%%r11, 0;
$Lloop:
%s
	add.s32 	%%r11, %%r11, 1;
	setp.lt.u32 	%%p6, %%r11, 3;
	@%%p6 bra 	$Lloop;
	setp.eq.u32 	%%p6, %%r10, %%r10;
%s
	ret;
}
`

// randomRun is a body of n instructions drawn from runForms, with the
// labels its forward branches name placed after them.
func randomRun(r *rand.Rand, n int, tag string) string {
	var b strings.Builder
	labels := map[int][]string{}
	for i := range n {
		for _, l := range labels[i] {
			fmt.Fprintf(&b, "%s:\n", l)
		}
		f := runForms[r.Intn(len(runForms))]
		if strings.Contains(f, "{L}") {
			l := fmt.Sprintf("$L%s_%d", tag, i)
			at := i + 1 + r.Intn(4)
			labels[at] = append(labels[at], l)
			f = strings.ReplaceAll(f, "{L}", l)
		}
		// Registers 0-4 of each class may be written (%p 0-4: 5-7 are the
		// uniform ones); any may be read.
		rep := strings.NewReplacer("{d}", fmt.Sprint(r.Intn(5)), "{a}", fmt.Sprint(r.Intn(4)),
			"{b}", fmt.Sprint(r.Intn(4)), "{c}", fmt.Sprint(r.Intn(4)), "{k}", fmt.Sprint(r.Intn(10)),
			"{k4}", fmt.Sprint(4*r.Intn(8)))
		b.WriteString("\t" + rep.Replace(f) + "\n")
	}
	for i := n; i < n+5; i++ {
		for _, l := range labels[i] {
			fmt.Fprintf(&b, "%s:\n", l)
		}
	}
	return b.String()
}

// runStores stores every register of runKernel's classes to out.
func runStores() string {
	var b strings.Builder
	off := 0
	for i := range 5 {
		fmt.Fprintf(&b, "\tst.global.u64 [%%rd8+%d], %%rd%d;\n", off, i)
		off += 8
	}
	for i := range 4 {
		fmt.Fprintf(&b, "\tst.global.u32 [%%rd8+%d], %%r%d;\n", off, i)
		off += 4
	}
	for i := range 5 {
		fmt.Fprintf(&b, "\tst.global.u32 [%%rd8+%d], %%r%d;\n", off, i+4)
		off += 4
	}
	for i := range 5 {
		fmt.Fprintf(&b, "\tst.global.f32 [%%rd8+%d], %%f%d;\n", off, i)
		off += 4
	}
	for i := range 5 {
		fmt.Fprintf(&b, "\tcvt.u32.u16 %%r9, %%h%d;\n\tst.global.u32 [%%rd8+%d], %%r9;\n", i, off)
		off += 4
	}
	for i := range 8 {
		fmt.Fprintf(&b, "\tselp.u32 %%r9, 1, 0, %%p%d;\n\tst.global.u32 [%%rd8+%d], %%r9;\n", i, off)
		off += 4
	}
	return b.String()
}

// TestRunsMatchStepping: random programs of run forms (exec_run.go) and
// others, with uniform and divergent branches, a loop, loads, shared
// stores and faults, give the same registers, faults, instruction and
// thread-instruction counts with full-warp runs (warpsimd.RunOps and the
// Go forms, and the Go forms alone) as stepping through runFrame, for a
// full warp (runs taken) and for 31 lanes (never).
func TestRunsMatchStepping(t *testing.T) {
	r := rand.New(rand.NewSource(27))
	in := make([]uint32, 32*8)
	for i := range in {
		in[i] = r.Uint32()
		if r.Intn(4) == 0 {
			in[i] = uint32(r.Intn(70)) // shift counts under, at and past the widths
		}
		if i%8 < 2 && r.Intn(3) == 0 {
			in[i] = in[i-i%8+1-i%8] // equal operands
		}
	}
	stores := runStores()
	faults, clean := 0, 0
	for prog := range 150 {
		body := randomRun(r, 6+r.Intn(30), fmt.Sprint(prog))
		tail := randomRun(r, 4+r.Intn(10), fmt.Sprintf("t%d", prog))
		src := fmt.Sprintf(runKernel, body, tail+stores)
		for _, threads := range []uint32{32, 31} {
			for _, u := range []uint32{0, 1} {
				// Runs with warpsimd.RunOps, runs in Go alone, stepping.
				var outs [3][]uint32
				var errs [3]string
				var stats [3]vm.Stats
				for i := range 3 {
					restore := func() {}
					switch i {
					case 1:
						restore = vm.WithoutRunKernels()
					case 2:
						restore = vm.WithoutRuns()
					}
					bufs, st, err := runOpt(t, options{maxInst: 1 << 20}, src, "k", [3]uint32{1, 1, 1}, [3]uint32{threads, 1, 1},
						[][]uint32{make([]uint32, 40*32), in}, u32arg(u))
					restore()
					if err != nil {
						errs[i] = err.Error()
					} else {
						outs[i] = bufs[0]
					}
					require.NotNil(t, st, "program %d: %v\n%s", prog, err, src)
					stats[i] = *st
				}
				faults += len(errs[0])
				for i := range 2 {
					require.Equal(t, errs[2], errs[i], "program %d, %d threads, u=%d, variant %d: faults\n%s", prog, threads, u, i, src)
					require.Equal(t, outs[2], outs[i], "program %d, %d threads, u=%d, variant %d: registers\n%s", prog, threads, u, i, src)
					require.Equal(t, stats[2], stats[i], "program %d, %d threads, u=%d, variant %d: counts", prog, threads, u, i)
				}
				if errs[0] == "" {
					clean++
				}
			}
		}
	}
	// Both kinds of program ran: some fault, some do not.
	require.Positive(t, faults)
	require.Greater(t, clean, 100)
}

// TestRunsMarkedInTiledMatmul: the bundled tiled multiply's loop outside
// its chain is runs (the bounds tests and the tile's address and counter
// updates), and the frame's run table covers each marked instruction.
func TestRunsMarkedInTiledMatmul(t *testing.T) {
	src, err := os.ReadFile("../kernels/ptx/matmul.ptx")
	require.NoError(t, err)
	m, err := vm.NewDevice().LoadModule("matmul.ptx", src)
	require.NoError(t, err)
	k, err := m.Kernel("_Z12matmul_tiledPfPKfS1_j")
	require.NoError(t, err)
	marked, covered := vm.RunMarks(k.Entry)
	require.GreaterOrEqual(t, marked, 30)
	require.GreaterOrEqual(t, covered, marked)

	restore := vm.WithoutRuns()
	m2, err := vm.NewDevice().LoadModule("matmul.ptx", src)
	require.NoError(t, err)
	k2, err := m2.Kernel("_Z12matmul_tiledPfPKfS1_j")
	restore()
	require.NoError(t, err)
	marked, covered = vm.RunMarks(k2.Entry)
	require.Zero(t, marked+covered)
}
