package suite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/suite"
	"github.com/ptxvm/ptxvm/vm"
)

var (
	update    = flag.Bool("update", false, "rewrite the golden ULP report of the conformance suite")
	tensorBig = flag.Bool("tensor.big", false, "also run the tensor corpus's large launches (the *_big cases, sized for the cycle model's validation)")
	appsBig   = flag.Bool("apps.big", false, "also run the application corpus's large launches that have a smaller twin (adam_big, jacobi2d_big, spmv_csr_big)")
)

// runCorpus runs every case under root and fails the test for each case
// that does not match what the GPU recorded.
func runCorpus(t *testing.T, root string) []*suite.Result {
	t.Helper()
	cases, err := suite.Find(root)
	require.NoError(t, err)
	return runCases(t, root, cases)
}

func runCases(t *testing.T, root string, cases []suite.Case) []*suite.Result {
	t.Helper()
	require.NotEmpty(t, cases, "no cases under %s", root)
	results := runOnce(cases, "")
	for _, r := range results {
		if r.Status == suite.Pass {
			continue
		}
		var b strings.Builder
		if r.Error != "" {
			b.WriteString(r.Error)
		}
		for _, c := range r.Outputs {
			if c.OK() {
				continue
			}
			fmt.Fprintf(&b, "\n  %s (%s): %d of %d elements differ%s", c.Name, c.Type, c.Differ, c.Elements, c.SizeErr)
			for _, d := range c.First {
				fmt.Fprintf(&b, "\n    [%d] got %s, want %s", d.Index, d.Got, d.Want)
			}
		}
		t.Errorf("%s: %s: %s", r.Name, r.Status, b.String())
	}
	s := suite.Summarize(results)
	t.Logf("%s: %d cases, %d pass, %d fail, %d errors", root, len(results), s.Pass, s.Fail, s.Error)
	return results
}

// runOnce runs cases in mode (scheduler.ModeFunctional, "" too, or
// scheduler.ModeTiming) with the budget every test of this package gives,
// 2^32 warp instructions, and returns their results in the order of cases.
// A case runs once in each mode per test process: the corpus tests hold
// its functional run to the GPU's outputs and TestCorpusTimingMatchesGPU
// holds its timed run to the same run (TestClusterCorpus and TestTMACorpus
// hold their timed runs to the GPU too). Concurrent tests wait for the
// cases another is running rather than run them again; a result is never
// changed once stored.
func runOnce(cases []suite.Case, mode string) []*suite.Result {
	entries := make([]*onceRun, len(cases))
	var mine []suite.Case
	var mineEntries []*onceRun
	onceMu.Lock()
	for i, c := range cases {
		k := [2]string{c.Dir, mode}
		e := onceRuns[k]
		if e == nil {
			e = &onceRun{done: make(chan struct{})}
			onceRuns[k] = e
			mine = append(mine, c)
			mineEntries = append(mineEntries, e)
		}
		entries[i] = e
	}
	onceMu.Unlock()
	// The cases this call claimed run first, in one batch, so that no
	// call waits for another while it holds cases that one waits for.
	if len(mine) > 0 {
		for i, r := range suite.Run(context.Background(), mine, suite.Options{MaxInst: 1 << 32, Mode: mode}, nil) {
			mineEntries[i].r = r
			close(mineEntries[i].done)
		}
	}
	out := make([]*suite.Result, len(cases))
	for i, e := range entries {
		<-e.done
		out[i] = e.r
	}
	return out
}

// onceRun is runOnce's result of a case in a mode, done once r is set.
type onceRun struct {
	done chan struct{}
	r    *suite.Result
}

var (
	onceMu   sync.Mutex
	onceRuns = map[[2]string]*onceRun{} // by case directory and mode
)

// TestNvccCorpus runs every kernel nvcc compiled (at -O3 and at -G) and
// compares its outputs with the GPU's, bit for bit unless the case's spec
// states a tolerance (cases through the special-function unit).
func TestNvccCorpus(t *testing.T) {
	runCorpus(t, "../../testdata/nvcc/cases")
}

// checkExact fails the test for a result that passed through a tolerance,
// and for an expected error the emulator met with another kind of error:
// an illegal instruction must be ErrIllegalInstruction's fault, a hang a
// deadlock or the instruction budget.
func checkExact(t *testing.T, results []*suite.Result) {
	t.Helper()
	for _, r := range results {
		if r.Tolerance != nil {
			t.Errorf("%s: compared with a tolerance %+v; this corpus is bit-exact", r.Name, *r.Tolerance)
		}
		switch r.ExpectedError {
		case "":
		case "cudaErrorIllegalInstruction":
			if !strings.Contains(r.Error, "illegal instruction") {
				t.Errorf("%s: the GPU raised an illegal instruction; the emulator stopped with: %s", r.Name, r.Error)
			}
		case "hang":
			if !strings.Contains(r.Error, "deadlock") && !strings.Contains(r.Error, "budget") {
				t.Errorf("%s: the GPU hung; the emulator stopped with: %s", r.Name, r.Error)
			}
		case "cudaErrorNotSupported", "cudaErrorSymbolNotFound":
			if !strings.Contains(r.Error, "the GPU refuses to load") {
				t.Errorf("%s: the driver refused the module or kernel (%s); the emulator stopped with: %s", r.Name, r.ExpectedError, r.Error)
			}
		case "cudaErrorMisalignedAddress":
			if !strings.Contains(r.Error, "misaligned") {
				t.Errorf("%s: the GPU raised a misaligned address; the emulator stopped with: %s", r.Name, r.Error)
			}
		case "cudaErrorAssert":
			if !strings.Contains(r.Error, "device-side assert triggered") {
				t.Errorf("%s: a device-side assert failed on the GPU; the emulator stopped with: %s", r.Name, r.Error)
			}
		case "cudaErrorIllegalAddress":
			if !strings.Contains(r.Error, "out of range (.trap)") {
				t.Errorf("%s: the GPU raised an illegal address (a .trap surface access); the emulator stopped with: %s", r.Name, r.Error)
			}
		default:
			t.Errorf("%s: unexpected recorded error %q", r.Name, r.ExpectedError)
		}
	}
}

// TestIssue7Conformance runs the forms recorded for issue 7 (contraction
// probes, 32-bit address wrap, carries, warp-synchronous instructions with
// diverged members, barrier misuse, hand-written PTX forms, video
// instructions), bit for bit; the launches the GPU failed (expected/ERROR)
// must fail alike.
func TestIssue7Conformance(t *testing.T) {
	t.Parallel()
	results := runCorpus(t, "../../testdata/conformance/issue7/cases")
	require.GreaterOrEqual(t, len(results), 670)
	checkExact(t, results)
}

// TestIssue24Conformance runs the forms recorded for issue 24 (cp.async,
// ldmatrix, stmatrix, movmatrix, mbarrier: testdata/conformance/gen/
// forms_issue24.py), bit for bit. Until they are recorded on the GPU
// (testdata/conformance/gen/README.md) there is nothing to compare with and
// the test is skipped.
func TestIssue24Conformance(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/conformance/issue24/cases"
	if _, err := os.Stat(root); err != nil {
		t.Skip("issue-24 forms not recorded yet: ", err)
	}
	cases, err := suite.Find(root)
	require.NoError(t, err)
	if len(cases) == 0 {
		t.Skip("issue-24 forms not recorded yet")
	}
	results := runCases(t, root, cases)
	require.GreaterOrEqual(t, len(results), 100)
	checkExact(t, results)
}

// TestClusterCorpus runs the thread-block cluster launches recorded on the
// GPU (testdata/clusters: the %cluster_* registers, distributed shared
// memory through cooperative groups and through mapa and
// ld/st/atom/red.shared::cluster, barrier.cluster, a cross-block mbarrier)
// at -O3 and -G, bit for bit, functionally and with the timing model.
func TestClusterCorpus(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/clusters/cases"
	cases, err := suite.Find(root)
	require.NoError(t, err)
	results := runCases(t, root, cases)
	require.GreaterOrEqual(t, len(results), 18)
	checkExact(t, results)
	timed := runOnce(cases, scheduler.ModeTiming)
	for _, r := range timed {
		assert.Equal(t, suite.Pass, r.Status, "%s in timing mode: %s", r.Name, r.Error)
	}
}

// TestTMACorpus runs the bulk-copy, TMA and wgmma launches recorded on the
// GPU (testdata/tma: cp.async.bulk in its four directions and reductions,
// cp.async.bulk.tensor tile loads, stores and reductions of 1 to 5
// dimensions with out-of-bounds boxes, element strides and the swizzle
// modes, wgmma.mma_async through shared-memory descriptors and registers,
// a TMA + wgmma matrix multiply) at -O3 and -G, bit for bit, functionally
// and with the timing model.
func TestTMACorpus(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/tma/cases"
	cases, err := suite.Find(root)
	require.NoError(t, err)
	results := runCases(t, root, cases)
	require.GreaterOrEqual(t, len(results), 40)
	checkExact(t, results)
	timed := runOnce(cases, scheduler.ModeTiming)
	for _, r := range timed {
		assert.Equal(t, suite.Pass, r.Status, "%s in timing mode: %s", r.Name, r.Error)
	}
}

// TestIssue24Handwritten runs the hand-written PTX forms of issue 24, item 7
// (testdata/conformance/issue24/handwritten, from
// testdata/conformance/gen/forms_handwritten24.py): vector registers used
// whole, mov.v2/.v4, vector and predicate .reg parameters, register
// expressions as values, .s64/.b64 buffer parameters; bit for bit with the
// H100. The forms ptxas 13 refused (forms.json "dropped", the modules in
// refused/) must be refused here too, with a position; the 256-bit forms,
// which the ISA gives to sm_100, were also assembled for sm_100
// (refused/*.sm100.ptx, ptxas's verdict in ptxas_probe/): the emulator
// accepts exactly those ptxas accepted.
func TestIssue24Handwritten(t *testing.T) {
	t.Parallel()
	const dir = "../../testdata/conformance/issue24/handwritten"
	results := runCorpus(t, dir+"/cases")
	require.GreaterOrEqual(t, len(results), 32)
	checkExact(t, results)
	files, err := filepath.Glob(dir + "/refused/*.ptx")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 16)
	for _, path := range files {
		name := filepath.Base(path)
		id, sm100 := strings.CutSuffix(strings.TrimSuffix(name, ".ptx"), ".sm100")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			m, err := vm.NewDevice().LoadModule(name, src)
			if err == nil {
				for _, f := range m.AST.Funcs {
					if f.Entry && err == nil {
						_, err = m.Kernel(f.Name)
					}
				}
			}
			verdict := "exit 255"
			if sm100 {
				v, rerr := os.ReadFile(filepath.Join(dir, "ptxas_probe", id+".sm100.txt"))
				require.NoError(t, rerr)
				verdict = strings.SplitN(string(v), "\n", 2)[0]
			}
			if verdict == "exit 0" {
				require.NoError(t, err, "ptxas -arch=sm_100 accepted %s", name)
				return
			}
			require.Error(t, err, "ptxas refused %s; the emulator accepts it", name)
			require.Regexp(t, `^`+regexp.QuoteMeta(name)+`:\d+:\d+: `, err.Error())
		})
	}
}

// TestSurfacesCorpus runs testdata/surfaces: the kernels of gen/surf.cu
// (suld.b/sust.b over 1D, 2D, 3D and layered arrays, every width, .clamp
// and .zero; sust.p, sured, an in-place filter, suq; layered textures), of
// gen/mip.cu (mipmapped 1D/2D/3D/cube/layered textures through tex.level,
// cube maps, tld4 on cube/a2d/acube) and of gen/q.cu (one txq/suq query per
// module, the driver's refusals as error cases), at -O3 and -G, bit for bit
// against the H200's recordings. tex.grad's cases (grad*) are
// TestSurfacesGradLOD's.
func TestSurfacesCorpus(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/surfaces/cases"
	all, err := suite.Find(root)
	require.NoError(t, err)
	var cases []suite.Case
	for _, c := range all {
		if !strings.HasPrefix(filepath.Base(filepath.Dir(c.Name)), "grad") {
			cases = append(cases, c)
		}
	}
	results := runCases(t, root, cases)
	require.GreaterOrEqual(t, len(results), 390)
	checkExact(t, results)
}

// TestSurfacesGradLOD runs the tex.grad cases of testdata/surfaces, whose
// level of detail from gradients is not bit-exact yet (vm.Texture.gradLOD):
// it holds the number of differing outputs of each case to what the model
// gives now, so that a change can only lower them.
func TestSurfacesGradLOD(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/surfaces/cases"
	all, err := suite.Find(root)
	require.NoError(t, err)
	var cases []suite.Case
	for _, c := range all {
		if strings.HasPrefix(filepath.Base(filepath.Dir(c.Name)), "grad") {
			cases = append(cases, c)
		}
	}
	results := runOnce(cases, "")
	most := map[string]int{ // differing elements at most, per case (both builds)
		"grad1d_ll": 0, "grad2d_ll": 0, "grad2d_pp": 0, "grad3d_ll": 0,
		"gradsweep1d_ll": 0, "gradsweep2d_ll": 0, "gradsweep2d_lp": 0, "gradsweep3d_ll": 0,
		"gradprobe0": 0, "gradprobe1": 0, "gradprobe2": 0, "gradprobe3": 0, "gradprobe4": 0,
		"gradprobe5": 0, "gradprobe6": 0, "gradprobe7": 0,
		"gradprobe10": 0, "gradprobe12": 0, "gradprobe14": 0, "gradprobe15": 0, "gradprobe20": 0,
		"gradprobe22": 0, "gradprobe23": 0, "grad3dprobe3": 0, "grad3dprobe4": 0,
		"gradprobe24": 0, "gradprobe25": 0, "gradprobe27": 0,
		"grad3dprobe7": 0, "grad3dprobe8": 0, "grad3dprobe10": 0,
		// recording 9: the diagonal alone (dx = dy), its sums, 3D lengths
		"gradprobe28": 0, "gradprobe29": 0, "gradprobe34": 0, "gradprobe35": 0, "gradprobe36": 0,
		"gradprobe37": 0, "gradprobe38": 0, "grad3dprobe12": 0, "grad3dprobe13": 0,
		"grad3dprobe15": 0, "grad3dprobe16": 0, "grad3dprobe17": 0, "grad3dprobe18": 0,
		// recording 10: held-out inputs (SEED=2), cube quads across an edge
		"gradprobe36_heldout": 0, "grad3dprobe18_heldout": 0, "grad3d_ll_heldout": 0,
		"gradcubeprobe0": 0, "gradcubeprobe1": 0, "gradcubeprobe2": 0,
		// cube maps: quads whose lanes fall on different faces, each lane's
		// and c's distance to the shared edge truncated to 10 bits
		// (cubeLaneGrad); recording 11: c+dx crossing onto the face of c's x
		// by shrinking c's z, from c = (0.9, y, 1) and (0.6, 0, 1)
		"gradcube_ll": 0, "gradsweepcube_ll": 0, "gradsweepcube_ll_heldout": 0,
		"gradcubeprobe3": 0, "gradcubeprobe6": 0, "gradcubeprobe8": 0,
		// recording 12 (branch h28): cube quads across an edge with a bias
		// of 6 (12: c and dx scaled by 0.7; 20: random near the edges;
		// 24: c's distance to the edge swept), 3D gradients at random
		// positions on constant levels, and held-out inputs (SEED=3)
		"gradcubeprobe12": 0, "gradcubeprobe20": 0, "gradcubeprobe24": 0, "grad3dconst_ll": 0,
		"gradcubeprobe20_heldout3": 0, "gradcube_ll_heldout3": 0, "grad3dconst_ll_heldout3": 0, "grad3d_ll_heldout3": 0,
		// recording 13 (branch h28): 3D gradients of exact powers of two at
		// random positions on 16x16x4, 64x32x8 and 8x16x64 textures; random
		// cube quads on 16 and 64 faces; and held-out inputs (SEED=6)
		"grad3dprobe19": 0, "grad3dprobe20": 0, "grad3dprobe21": 0, "gradcubeprobe25": 0, "gradcubeprobe26": 0,
		"grad3dprobe19_heldout6": 0, "grad3dprobe20_heldout6": 0, "grad3dprobe21_heldout6": 0,
		"gradcubeprobe25_heldout6": 0, "gradcubeprobe26_heldout6": 0,
	}
	require.Len(t, results, 2*len(most))
	exact := 0
	for _, r := range results {
		name := filepath.Base(filepath.Dir(r.Name))
		require.Contains(t, most, name)
		require.Len(t, r.Outputs, 1, "%s: %s", r.Name, r.Error)
		c := r.Outputs[0]
		t.Logf("%s: %d of %d differ", r.Name, c.Differ, c.Elements)
		assert.LessOrEqual(t, c.Differ, most[name], r.Name)
		if c.Differ == 0 {
			exact++
		}
	}
	t.Logf("%d of %d bit-exact", exact, len(results))
}

// TestAppsCorpus runs the application corpus (testdata/apps: benchmark and
// ML training kernels) at all four builds, -O3, -G, --use_fast_math and
// -fmad=false, bit for bit. The large launches that have a smaller twin of
// the same kernel run with -apps.big only; every build of every kernel runs
// by default.
func TestAppsCorpus(t *testing.T) {
	t.Parallel()
	const root = "../../testdata/apps/cases"
	all, err := suite.Find(root)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, c := range all {
		names[strings.Split(c.Name, "/")[1]] = true
	}
	var cases []suite.Case
	skipped := 0
	for _, c := range all {
		name := strings.Split(c.Name, "/")[1]
		if base, ok := strings.CutSuffix(name, "_big"); ok && !*appsBig && (names[base] || names[base+"_small"]) {
			skipped++
			continue
		}
		cases = append(cases, c)
	}
	results := runCases(t, root, cases)
	checkExact(t, results)
	builds := map[string]int{}
	for _, r := range results {
		if r.Status == suite.Pass {
			builds[filepath.Base(r.Name)]++
		}
	}
	for _, b := range []string{"O3", "G", "fast", "nofma"} {
		require.GreaterOrEqual(t, builds[b], 59, "build %s: every kernel", b)
	}
	t.Logf("passed by build: %v; %d large twins skipped (-apps.big runs them)", builds, skipped)
}

// TestTensorCorpus runs the tensor-core and async-copy corpora at -O3 and
// -G, bit for bit: testdata/tensor (wmma, mma.sync with ldmatrix and
// cp.async, tf32 wmma, cuda::pipeline, the __pipeline primitives,
// cuda::memcpy_async on a cuda::barrier, a cluster reduction, a failing
// assert) and testdata/tensor2 (bf16 and s8 wmma, batched 16x16 products,
// an mma.sync tf32 gemv, a cp.async stencil, a three-stage cuda::pipeline
// multiply). The large launches (*_big) run with -tensor.big only.
func TestTensorCorpus(t *testing.T) {
	for _, tc := range []struct {
		root        string
		small, full int
	}{
		{"../../testdata/tensor/cases", 20, 36}, // eight kernels' launches and the assert pair
		{"../../testdata/tensor2/cases", 12, 24},
	} {
		t.Run(filepath.Base(filepath.Dir(tc.root)), func(t *testing.T) {
			t.Parallel()
			all, err := suite.Find(tc.root)
			require.NoError(t, err)
			var cases []suite.Case
			for _, c := range all {
				if strings.HasSuffix(strings.Split(c.Name, "/")[1], "_big") && !*tensorBig {
					continue
				}
				cases = append(cases, c)
			}
			results := runCases(t, tc.root, cases)
			checkExact(t, results)
			want := tc.small
			if *tensorBig {
				want = tc.full
			}
			require.Len(t, results, want)
		})
	}
}

// TestConformance runs every instruction form of the conformance suite
// against the GPU's results, and keeps a golden report of the largest ULP
// distance seen for each approximate form.
func TestConformance(t *testing.T) {
	results := runCorpus(t, "../../testdata/conformance/cases")
	var forms struct {
		Forms []struct {
			ID     string `json:"id"`
			Family string `json:"family"`
			Approx bool   `json:"approx"`
		} `json:"forms"`
	}
	data, err := os.ReadFile("../../testdata/conformance/forms.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &forms))
	approx := map[string]bool{}
	for _, f := range forms.Forms {
		if f.Approx {
			approx[f.Family+"/"+f.ID] = true
		}
	}
	var rows []string
	for _, r := range results {
		name := strings.TrimPrefix(r.Name, "cases/")
		if !approx[name] {
			continue
		}
		var worst uint64
		var worstAbs float64
		exact := true
		for _, c := range r.Outputs {
			worst = max(worst, c.MaxULP)
			worstAbs = max(worstAbs, c.MaxAbs)
			if c.MaxULP > 0 {
				exact = false
			}
		}
		tol := "-"
		if r.Tolerance != nil {
			if b, err := json.Marshal(r.Tolerance); err == nil {
				tol = string(b)
			}
		}
		state := "bit-exact"
		if !exact {
			state = "within tolerance"
		}
		if r.Status != suite.Pass {
			state = string(r.Status)
		}
		rows = append(rows, fmt.Sprintf("%s\t%d\t%.3g\t%s\t%s", name, worst, worstAbs, tol, state))
	}
	sort.Strings(rows)
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "# Largest ULP distance from the GPU per approximate form (go test ./scheduler/suite -run Conformance -update)")
	fmt.Fprintln(tw, "form\tmax ulp\tmax abs\ttolerance\tresult")
	for _, r := range rows {
		fmt.Fprintln(tw, r)
	}
	tw.Flush()
	golden := filepath.Join("..", "..", "testdata", "conformance", "approx_ulp.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with -update to create the golden report")
	require.Equal(t, string(want), buf.String(), "approximate-instruction errors changed; inspect, then run with -update")
}
