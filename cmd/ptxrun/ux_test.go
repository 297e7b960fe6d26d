package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/ptxvm/ptxvm/vm/spec/npy"
)

var vecaddPTX = filepath.Join("..", "..", "vm", "spec", "testdata", "vecadd.ptx")
var matmulPTX = filepath.Join("..", "..", "kernels", "ptx", "matmul.ptx")

// TestInterruptedMidRun cancels a launch that never ends, as Ctrl-C does:
// ptxrun says so and exits 130.
func TestInterruptedMidRun(t *testing.T) {
	dir := writeFiles(t, map[string]string{"k.ptx": fixturePTX, "spec.json": sp(map[string]any{"kernel": "spin", "args": []any{map[string]any{"buffer": "out"}}})})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	r := ptxrunCtx(t, ctx, "run", filepath.Join(dir, "spec.json"), "--max-inst", "0")
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, exitInterrupted, r.code)
	assert.Equal(t, "ptxrun: interrupted\n", r.stderr)
	assert.Empty(t, r.stdout)
}

// openPTY returns the two ends of a pseudo-terminal: what is written to
// the second (a terminal) is read from the first.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	require.NoError(t, err)
	require.NoError(t, unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0))
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

func fastProgress(t *testing.T) {
	d, e := progressDelay, progressEvery
	progressDelay, progressEvery = 0, 5*time.Millisecond
	t.Cleanup(func() { progressDelay, progressEvery = d, e })
}

// TestProgressOnATerminal runs a launch with stderr on a real
// pseudo-terminal: the progress line shows blocks done of the total, a
// rate and an ETA, and is erased at the end.
func TestProgressOnATerminal(t *testing.T) {
	master, slave := openPTY(t)
	assert.True(t, isTerminal(slave))
	fastProgress(t)
	var got bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(&got, master) // until the master is closed
	}()
	var out bytes.Buffer
	code := doMain(context.Background(), []string{"run", matmulPTX, "--kernel", "matmul_naive", "--grid", "16,16", "--block", "16,16",
		"--arg", "C=f32[65536]", "--arg", "A=f32[65536]:rand", "--arg", "B=f32[65536]:rand", "--arg", "n=u32:256", "--workers", "1"}, &out, slave)
	require.Equal(t, exitOK, code)
	time.Sleep(50 * time.Millisecond)
	slave.Close()
	master.Close()
	wg.Wait()
	s := got.String()
	assert.Regexp(t, `\rblocks \d+/256 \(\d+%\), [\d.]+k? blocks/s, ETA [\dmsh.]+\x1b\[K`, s)
	assert.True(t, strings.HasSuffix(s, "\r\x1b[K"), "the line is erased at the end: %q", s[max(0, len(s)-40):])
	assert.Contains(t, out.String(), "matmul_naive(float*, float const*, float const*, unsigned int)")
}

func TestNoProgressWhenNotATerminal(t *testing.T) {
	fastProgress(t)
	r := ptxrun(t, "run", matmulPTX, "--kernel", "matmul_naive", "--grid", "16,16", "--block", "16,16",
		"--arg", "C=f32[65536]", "--arg", "A=f32[65536]:rand", "--arg", "B=f32[65536]:rand", "--arg", "n=u32:256")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	devnull, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer devnull.Close()
	assert.False(t, isTerminal(devnull), "a character device that is not a terminal")
}

func TestProgressLine(t *testing.T) {
	var done atomic.Uint64
	p := &progress{unit: "blocks", total: 5000, done: &done}
	assert.Equal(t, "blocks 0/5000 (0%), starting", p.line(0, time.Second))
	assert.Equal(t, "blocks 1200/5000 (24%), 400 blocks/s, ETA 9.5s", p.line(1200, 3*time.Second))
	assert.Equal(t, "blocks 5000/5000 (100%), 50k blocks/s, ETA 0s", p.line(5000, 100*time.Millisecond))
	p.total = 1 << 31
	assert.Equal(t, "blocks 100/2147483648 (0%), 1.0 blocks/s, ETA 596523h12m0s", p.line(100, 100*time.Second))
}

// TestListMalformedModule: every error, the first ten and a count, and a
// non-zero exit.
func TestListMalformedModule(t *testing.T) {
	var b strings.Builder
	b.WriteString(".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k()\n{\n")
	for i := 0; i < 13; i++ {
		b.WriteString("\tadd.s32 %r1, , 1;\n") // an operand is missing on each line
	}
	b.WriteString("\tret;\n}\n")
	dir := writeFiles(t, map[string]string{"bad.ptx": b.String()})
	r := ptxrun(t, filepath.Join(dir, "bad.ptx"))
	assert.Equal(t, exitUsage, r.code)
	assert.Empty(t, r.stdout, "no listing of a module that does not parse")
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	require.Len(t, lines, 11, r.stderr)
	for i := 0; i < 10; i++ {
		assert.Contains(t, lines[i], fmt.Sprintf("bad.ptx:%d:", 7+i))
	}
	assert.Equal(t, "and 3 more errors", lines[10])

	// --headers lists from the declarations alone, bodies unchecked.
	r = ptxrun(t, filepath.Join(dir, "bad.ptx"), "--headers")
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "1 kernel(s)")
}

func f32At(b []byte, i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])) }

// TestQuickLaunch runs vecadd from the command line, writes the outputs
// as .npy, saves the launch as a spec and runs that to the same bytes.
func TestQuickLaunch(t *testing.T) {
	dir := t.TempDir()
	bvals := make([]byte, 4*100)
	for i := 0; i < 100; i++ {
		binary.LittleEndian.PutUint32(bvals[4*i:], math.Float32bits(float32(2*i)))
	}
	h, err := npy.Encode("f32", 100)
	require.NoError(t, err)
	bnpy := filepath.Join(dir, "B.npy")
	require.NoError(t, os.WriteFile(bnpy, append(h, bvals...), 0o644))
	out := filepath.Join(dir, "out")
	saved := filepath.Join(dir, "specs", "vecadd.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(saved), 0o755))
	r := ptxrun(t, "run", vecaddPTX, "--kernel", "vecadd", "--grid", "1", "--block", "128",
		"--arg", "C=f32[100]", "--arg", "A=f32[100]:iota(1,0.5)", "--arg", "B="+bnpy, "--arg", "n=s32:100",
		"--out", out, "--npy", "--save-spec", saved)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "vecadd(float*, float const*, float const*, int)  (_Z6vecaddPfPKfS1_i)")
	data, err := os.ReadFile(filepath.Join(out, "C.npy"))
	require.NoError(t, err, "the only buffer given no contents is the output")
	hdr, err := npy.Parse(data)
	require.NoError(t, err)
	require.NoError(t, hdr.Check("C.npy", "f32", 100))
	c := data[hdr.DataOffset:]
	for i := 0; i < 100; i++ {
		require.Equal(t, float32(1+0.5*float64(i))+float32(2*i), f32At(c, i), "C[%d]", i)
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Len(t, entries, 1)

	// The saved spec, from another folder, runs the same launch.
	text, err := os.ReadFile(saved)
	require.NoError(t, err)
	assert.Contains(t, string(text), `"file": "../B.npy"`)
	assert.Contains(t, string(text), `"kind": "iota"`)
	out2 := filepath.Join(dir, "out2")
	r = ptxrun(t, "run", saved, "--out", out2)
	require.Equal(t, exitOK, r.code, r.stderr)
	raw, err := os.ReadFile(filepath.Join(out2, "C.bin"))
	require.NoError(t, err)
	assert.Equal(t, c, raw)
}

func TestQuickLaunchErrors(t *testing.T) {
	base := []string{"run", vecaddPTX, "--grid", "1", "--block", "32"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--arg", "C=f32[4]"}, "a quick launch needs --kernel"},
		{[]string{"--kernel", "vecadd", "--arg", "C=f32[4"}, "--arg C=f32[4: want TYPE[COUNT], such as f32[1024]"},
		{[]string{"--kernel", "vecadd", "--arg", "C=f31[4]"}, `unknown type "f31"`},
		{[]string{"--kernel", "vecadd", "--arg", "C=f32[0]"}, `count "0" is not a positive number`},
		{[]string{"--kernel", "vecadd", "--arg", "f32[4]"}, "a buffer needs a name"},
		{[]string{"--kernel", "vecadd", "--arg", "n=u32"}, "want NAME=TYPE[COUNT][:INIT]"},
		{[]string{"--kernel", "vecadd", "--arg", "n=u32:x"}, `u32 argument "x"`},
		{[]string{"--kernel", "vecadd", "--arg", "C=f32[4]:rand(1)"}, "rand takes (LO,HI) or (LO,HI,SEED)"},
		{[]string{"--kernel", "vecadd", "--arg", "C=f32[4]:nofile.bin"}, `contents "nofile.bin": not rand, iota, a number or a file`},
		{[]string{"--kernel", "vecadd", "--arg", "C=f32[4]", "--arg", "C=f32[4]"}, "buffer C is given twice"},
		{[]string{"--kernel", "vecadd", "--arg", "C=f32[4]", "--arg", "A=f32[4]", "--arg", "B=f32[4]", "--arg", "n=u32:4294967295"},
			"--arg 4 (parameter 3 of vecadd, .u32 in PTX, int in C++): 4294967295 is out of range (-2147483648 to 2147483647)"},
		{[]string{"--kernel", "vecadd", "--arg", "C=f32[4]", "--arg", "A=f32[4]", "--arg", "B=f32[4]", "--arg", "n=f32:4"},
			"f32 is a float; the parameter is an integer: write --arg s32:VALUE"},
		{[]string{"--kernel", "vecadd", "--arg", "C=f32[4]"}, "kernel vecadd takes 4 parameters, the launch gives 1 --arg values"},
		{[]string{"--kernel", "nosuch", "--arg", "C=f32[4]"}, `no kernel matches "nosuch"`},
		{[]string{"--kernel", "vecadd", "--grid", "0", "--arg", "C=f32[4]"}, `--grid "0": "0" is not a positive size`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := ptxrun(t, append(base, c.args...)...)
			assert.Equal(t, exitUsage, r.code)
			assert.Contains(t, r.stderr, c.want)
		})
	}
	// Quick-launch flags make no sense with a spec.
	r := ptxrun(t, "run", filepath.Join(casesDir, "collatz", "O3", "spec.json"), "--grid", "4")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "-grid is for a quick launch of a PTX file")
}

// TestBudgetAdvice tells a grid that is simply large from a kernel that
// does not end.
func TestBudgetAdvice(t *testing.T) {
	dir := writeFiles(t, map[string]string{"k.ptx": fixturePTX,
		"big.json":  sp(map[string]any{"grid": []int{4000, 1, 1}, "block": []int{32, 1, 1}}),
		"spin.json": sp(map[string]any{"kernel": "spin", "args": []any{map[string]any{"buffer": "out"}}}),
	})
	r := ptxrun(t, "run", filepath.Join(dir, "big.json"), "--max-inst", "5000", "--workers", "1")
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stderr, "instruction budget exhausted")
	assert.Regexp(t, `The grid is large: \d+ of its 4000 blocks finished, about \d+ warp instructions each, so the launch needs about [\d.e+]+\. Raise -max-inst to at least \d+`, r.stderr)

	r = ptxrun(t, "run", filepath.Join(dir, "spin.json"), "--max-inst", "100000")
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stderr, "No block of the 1 finished within the budget: a block runs more than 100000 warp instructions (a loop that does not end?)")
	// The message names the loop: spin's PTX lines.
	first, last := lineOf(fixturePTX, "add.s32 \t%r1, %r1, 1;"), lineOf(fixturePTX, "bra.uni \t$L_loop;")
	assert.Regexp(t, fmt.Sprintf(`warp \d of that block was in the loop of %s:%d-%d`, regexp.QuoteMeta(filepath.Join(dir, "k.ptx")), first, last), r.stderr)
}

func TestBudgetAdviceText(t *testing.T) {
	assert.Contains(t, budgetAdvice(100, 99, 1000), "99 of the 100 blocks finished; the rest ran past the budget")
	assert.Contains(t, budgetAdvice(1<<31-1, 1000, 1<<32), "The grid is large: 1000 of its 2147483647 blocks finished")
}

func TestHelpSpec(t *testing.T) {
	r := ptxrun(t, "help", "spec")
	require.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "docs/launch-spec.md")
	for _, field := range []string{`"module"`, `"kernel"`, `"grid"`, `"block"`, `"dynamic_shared_bytes"`, `"buffers"`, `"symbols"`, `"textures"`, `"args"`, `"outputs"`, `"tolerance"`, `"fill"`} {
		assert.Contains(t, r.stdout, field)
	}
	r = ptxrun(t, "help")
	assert.Contains(t, r.stdout, "ptxrun help spec")
}

// TestTestExplainsTolerance: a case that passes only through its
// tolerance says how many elements differ and why they were allowed.
func TestTestExplainsTolerance(t *testing.T) {
	r := ptxrun(t, "test", filepath.Join(casesDir, "f64_arith"))
	require.Equal(t, exitOK, r.code, r.stdout)
	assert.Regexp(t, `PASS  f64_arith/G, through its tolerance:\n\s+\w+ \(f64\): \d+ of \d+ elements differ bit for bit, allowed by the tolerance: \d+ NaN where the GPU gave another NaN\n`, r.stdout)
	assert.Regexp(t, `2 cases: 2 passed \(2 through their tolerance\), 0 failed, 0 errors`, r.stdout)
	// A bit-exact case says nothing without -v.
	r = ptxrun(t, "test", filepath.Join(casesDir, "collatz"))
	require.Equal(t, exitOK, r.code, r.stdout)
	assert.NotContains(t, r.stdout, "PASS")
}

func TestTestRefusesTarget(t *testing.T) {
	r := ptxrun(t, "test", filepath.Join(casesDir, "collatz"), "--gpu", "gf100")
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stdout, "the module targets sm_90; the GF100 (compute capability 2.0) cannot run it")
	r = ptxrun(t, "test", filepath.Join(casesDir, "collatz"), "--gpu", "gf100", "--any-target")
	assert.Equal(t, exitOK, r.code, r.stdout)
}

// TestDocsExample runs the worked example of docs/launch-spec.md, from its
// spec and as the quick launch the page shows, and checks the output
// against the formula of rowscale.cu.
func TestDocsExample(t *testing.T) {
	ex := filepath.Join("..", "..", "docs", "example")
	dir := t.TempDir()
	r := ptxrun(t, "run", filepath.Join(ex, "spec.json"), "--out", filepath.Join(dir, "a"))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "rowscale(float*, float const*, float const*, float, int, int)  (_Z8rowscalePfPKfS1_fii)")
	assert.Contains(t, r.stdout, "PTX warp instructions    32760\nPTX thread instructions  1022320\n", "the figures the page shows")
	got, err := os.ReadFile(filepath.Join(dir, "a", "out.bin"))
	require.NoError(t, err)
	require.Len(t, got, 4*30000)
	for r := 0; r < 100; r++ {
		for c := 0; c < 300; c++ {
			want := float32(r*300+c)*(0.5*float32(r)) + 1 // exact: no rounding to differ on
			require.Equal(t, want, f32At(got, r*300+c), "out[%d][%d]", r, c)
		}
	}
	spec := filepath.Join(dir, "saved.json")
	r = ptxrun(t, "run", filepath.Join(ex, "rowscale.ptx"), "--kernel", "rowscale", "--grid", "10,13", "--block", "32,8",
		"--arg", "out=f32[30000]", "--arg", "in=f32[30000]:iota", "--arg", "scale=f32[100]:iota(0,0.5)",
		"--arg", "bias=f32:1", "--arg", "rows=s32:100", "--arg", "cols=s32:300", "--out", filepath.Join(dir, "b"), "--save-spec", spec)
	require.Equal(t, exitOK, r.code, r.stderr)
	again, err := os.ReadFile(filepath.Join(dir, "b", "out.bin"))
	require.NoError(t, err)
	assert.Equal(t, got, again)
	_, err = os.Stat(spec)
	assert.NoError(t, err)
}

// TestTestProgressOnATerminal: ptxrun test counts cases on the terminal,
// and lines it prints are not mixed with the progress line.
func TestTestProgressOnATerminal(t *testing.T) {
	master, slave := openPTY(t)
	fastProgress(t)
	var got bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(&got, master)
	}()
	var out bytes.Buffer
	code := doMain(context.Background(), []string{"test", filepath.Join(casesDir, "f64_arith"), filepath.Join(casesDir, "collatz"), "--workers", "1"}, &out, slave)
	require.Equal(t, exitOK, code, out.String())
	time.Sleep(50 * time.Millisecond)
	slave.Close()
	master.Close()
	wg.Wait()
	assert.Regexp(t, `\rcases \d/4 \(\d+%\)`, got.String())
	assert.Contains(t, out.String(), "4 cases: 4 passed (2 through their tolerance)")
}

// TestRunHugeBuffer: a launch that allocates 40 GiB, more than the test
// machine has, and writes 28 KiB of it, holds a few hundred KiB of host
// memory, and says so beside the setup time.
func TestRunHugeBuffer(t *testing.T) {
	r := ptxrun(t, "run", filepath.Join(nvccDir, "ptx", "memspace.O3.ptx"), "--kernel", "saxpy_grid_stride", "--grid", "8", "--block", "128",
		"--arg", "y=f32[10737418240]", "--arg", "x=f32[7168]:1", "--arg", "a=f32:2.5", "--arg", "n=u32:7168", "--outputs", "x")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `setup\s+[\d.]+[µm]?s \(module, buffers, arguments; device memory held: \d+(\.\d)? KiB\)`, r.stdout)
}

// TestStackOverflow: a recursion that never ends stops at the stack the
// launch gives a thread, which the spec's stack_bytes and --stack-bytes set.
func TestStackOverflow(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "vm", "limits_test.go"))
	require.NoError(t, err)
	// The PTX of vm's stack test, between its backquotes.
	text := string(src)
	start := strings.Index(text, "const recurseSrc = `") + len("const recurseSrc = `")
	ptxSrc := ".version 8.0\n.target sm_90\n.address_size 64\n" + text[start:start+strings.Index(text[start:], "`")]
	spec := func(depth, stack int) string {
		return fmt.Sprintf(`{"module": "rec.ptx", "kernel": "k", "grid": [1], "block": [32], "stack_bytes": %d,
 "buffers": [{"name": "out", "type": "u32", "count": 1}], "args": [{"buffer": "out"}, {"u32": %d}], "outputs": ["out"]}`, stack, depth)
	}
	dir := writeFiles(t, map[string]string{"rec.ptx": ptxSrc, "deep.json": spec(1<<30, 0), "raised.json": spec(200, 4096), "deep_raised.json": spec(1<<30, 4096)})
	r := ptxrun(t, "run", filepath.Join(dir, "deep.json"))
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stderr, "kernel k (in down), block (0,0,0), thread (0,0,0), pc 8, source rec.cu:4:12: stack overflow: 65 nested calls need about 1040 bytes of stack per thread, more than the launch's 1024")
	r = ptxrun(t, "run", filepath.Join(dir, "raised.json"))
	assert.Equal(t, exitOK, r.code, r.stderr)
	r = ptxrun(t, "run", filepath.Join(dir, "deep_raised.json"))
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stderr, "257 nested calls need about 4112 bytes of stack per thread, more than the launch's 4096")
	r = ptxrun(t, "run", filepath.Join(dir, "deep_raised.json"), "--stack-bytes", "2048")
	assert.Contains(t, r.stderr, "129 nested calls need about 2064 bytes")
	r = ptxrun(t, "run", filepath.Join(dir, "raised.json"), "--stack-bytes", "1000000")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "stack_bytes 1000000 is more than this emulator gives a thread (65536)")
}
