package timing_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// maxCycleTestInst bounds the launches TestCyclesAgainstGPU runs (ncu's
// smsp__inst_executed.sum), to keep it to seconds; `go run
// ./scheduler/timing/calibrate cycles` runs them all.
const maxCycleTestInst = 300000

// cycleTestAlso are launches past that size the test runs too: the far
// writes of the naive transpose and of strided stores, which a change to
// the L2 partitions' queueing moves first.
var cycleTestAlso = map[string]bool{
	"perf/calib.O3/transpose_naive_1024":      true,
	"perf/access.O3/store_fill_stride8_32MiB": true,
	"perf/access.O3/store_fill_stride2_32MiB": true,
}

// timedGPULaunch runs an ncu-profiled corpus launch in timing mode with
// the register count ncu reported. A launch is run once per test process:
// several tests hold the same run to different figures of the GPU's (the
// transposes at 1024 on the H100: TestCyclesAgainstGPU,
// TestSliceBoundTransposeAgainstGPU, TestColdParametersStallAsOnH100 and
// TestStallLinesMatchGPU), and a timed run gives the same result every
// time (cmd/ptxrun's TestTimingWorkersIdentical, scheduler's
// TestCountersSameForAnyWorkerCount), so the later ones read the first
// one's result; none of them changes it.
//
// A launch is known by what it runs, not by where its spec lies: the H200
// corpus's specs and modules are copies of the H100's, so
// TestH200AgainstGPU's run of the naive transpose at 1024 on the H100
// profile is TestCyclesAgainstGPU's.
func timedGPULaunch(t *testing.T, l *ncu.Launch, prof *gpu.Profile) *scheduler.Result {
	t.Helper()
	key := fmt.Sprintf("%s|%s|%d", launchIdentity(l.SpecPath()), prof.Name, l.Int("launch__registers_per_thread"))
	timedRunsMu.Lock()
	e := timedRuns[key]
	if e == nil {
		e = &timedRun{}
		timedRuns[key] = e
	}
	timedRunsMu.Unlock()
	e.once.Do(func() {
		sp, err := spec.Load(l.SpecPath())
		if err != nil {
			e.err = err
			return
		}
		p, err := sp.Prepare(vm.NewDevice(), nil)
		if err != nil {
			e.err = err
			return
		}
		defer p.Launch.Release()
		e.res, e.err = scheduler.RunTimed(context.Background(), p.Launch, prof, scheduler.Options{Registers: l.Int("launch__registers_per_thread")})
	})
	require.NoError(t, e.err, l.Name())
	return e.res
}

// launchIdentity is a spec's SHA-256 with its module's, when the spec
// reads no file but its module (nothing else can differ between two
// copies); otherwise its cleaned path.
func launchIdentity(path string) string {
	sp, err := spec.Load(path)
	if err != nil || len(sp.Textures) > 0 || len(sp.Surfaces) > 0 || len(sp.Steps) > 0 {
		return filepath.Clean(path)
	}
	for _, b := range append(append([]spec.Buffer(nil), sp.Buffers...), sp.Symbols...) {
		if b.File != "" {
			return filepath.Clean(path)
		}
	}
	mod := sp.Module
	if !filepath.IsAbs(mod) {
		mod = filepath.Join(sp.Dir, mod)
	}
	h := sha256.New()
	for _, f := range []string{path, mod} {
		data, err := os.ReadFile(f)
		if err != nil {
			return filepath.Clean(path)
		}
		fmt.Fprintf(h, "%d:", len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// timedRun is timedGPULaunch's result for one launch, profile and
// register count.
type timedRun struct {
	once sync.Once
	res  *scheduler.Result
	err  error
}

var (
	timedRunsMu sync.Mutex
	timedRuns   = map[string]*timedRun{}
)

// calibLaunches returns the first measurement of each named launch of the
// calib.O3 ncu table, in the table's order, and fails if one is missing.
func calibLaunches(t *testing.T, names ...string) []*ncu.Launch {
	t.Helper()
	return tableLaunches(t, "../../testdata/perf/ncu/calib.O3.csv.gz", names...)
}

// tableLaunches is calibLaunches for any ncu table.
func tableLaunches(t *testing.T, table string, names ...string) []*ncu.Launch {
	t.Helper()
	ls, err := ncu.Read(table)
	require.NoError(t, err)
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []*ncu.Launch
	for _, l := range ls {
		if want[l.Case] && l.Repeat == 0 {
			delete(want, l.Case)
			out = append(out, l)
		}
	}
	require.Empty(t, want, "launches not in the table")
	return out
}

// The model's cycles against the H100's (sm__cycles_elapsed.max) on the
// corpus launches of at least 30,000 GPU cycles and at most
// maxCycleTestInst machine instructions: the cycle error (MAPE) of the
// optimised and the debug builds stays at most what the calibration
// reached (README, "Calibration and error") plus a few points, so that a
// change to the hierarchy or the cycle loop that throws the model off
// fails here rather than in the next calibration run.
func TestCyclesAgainstGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	ls, err := ncu.ReadAll("../../testdata")
	require.NoError(t, err)
	prof := gpu.MustLookup("h100")
	errs := map[string][]float64{}
	type worst struct {
		name string
		e    float64
	}
	var all []worst
	for _, l := range ls {
		real, ok := l.Value("sm__cycles_elapsed.max")
		n, ok2 := l.Value("smsp__inst_executed.sum")
		if !ok || !ok2 || real < 30000 || n > maxCycleTestInst && !cycleTestAlso[l.Name()] || l.Table == "repeat.O3" || l.Repeat > 0 {
			continue
		}
		res := timedGPULaunch(t, l, prof)
		e := (float64(res.Timing.Cycles) - real) / real
		build := "optimised"
		if strings.HasSuffix(l.Table, "G") {
			build = "debug"
		}
		errs[build] = append(errs[build], math.Abs(e))
		all = append(all, worst{l.Name(), e})
	}
	sort.Slice(all, func(i, j int) bool { return math.Abs(all[i].e) > math.Abs(all[j].e) })
	for _, w := range all[:min(5, len(all))] {
		t.Logf("largest: %s %+.0f%%", w.name, 100*w.e)
	}
	// What the calibration reached on these launches (18.8% optimised,
	// 9.7% debug), and about 3 points more: the most each may reach.
	bound := map[string]float64{"optimised": 0.21, "debug": 0.13}
	for build, es := range errs {
		var sum float64
		for _, e := range es {
			sum += e
		}
		mape := sum / float64(len(es))
		t.Logf("%s: %d launches, cycle MAPE %.1f%%", build, len(es), 100*mape)
		assert.LessOrEqual(t, mape, bound[build], "%s builds' cycle MAPE against the H100", build)
	}
	require.Len(t, errs, 2, "both builds are tested")
}

// The H200 profile (the H100's with the H200's 60 MiB L2 in 96 slices,
// its DRAM bandwidth and its L2 latency, all from microbenchmarks and the
// driver's attributes, and its L2's read rates from ncu's L2 units; only
// the fabric's rate was chosen on the corpora) against the perf corpus
// recorded on the H200 (testdata/h200): a working set of 32 or 40 MiB
// that the H100's L2 loses and the H200's keeps, and the naive transpose,
// bound by its slices, come within 7% on the H200 profile (+1.2%, +6.4%,
// +2.2% on 2026-11-29; +1.7%, +4.9%, +5.1% before the L2's read rates and
// the SMs' alternation between the partitions), where the H100's is off
// by 17-30% (docs/timing-validation.md, "Another GPU").
//
// The H100 profile's miss is held on the transpose (TestCyclesAgainstGPU's
// run of it) and on the 32 MiB working set, the nearer miss (+17.0% on
// 2026-11-29); -h200.all runs the 40 MiB one on the H100 profile too
// (+30.0%; 2 to 2.5 s of CPU more).
func TestH200AgainstGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	h100, h200 := gpu.MustLookup("h100"), gpu.MustLookup("h200")
	ls := append(tableLaunches(t, "../../testdata/h200/perf/ncu/access.O3.csv.gz", "l2_ws_32MiB", "l2_ws_40MiB"),
		tableLaunches(t, "../../testdata/h200/perf/ncu/calib.O3.csv.gz", "transpose_naive_1024")...)
	for _, l := range ls {
		real, ok := l.Value("sm__cycles_elapsed.max")
		require.True(t, ok)
		on200 := float64(timedGPULaunch(t, l, h200).Timing.Cycles)
		assert.InEpsilon(t, real, on200, 0.07, "%s on the H200 profile", l.Case)
		if l.Case == "l2_ws_40MiB" && !*h200All {
			t.Logf("%s: H200 %.0f cycles; model %+.1f%% with the H200 profile", l.Case, real, 100*(on200/real-1))
			continue
		}
		on100 := float64(timedGPULaunch(t, l, h100).Timing.Cycles)
		t.Logf("%s: H200 %.0f cycles; model %+.1f%% with the H200 profile, %+.1f%% with the H100's", l.Case, real, 100*(on200/real-1), 100*(on100/real-1))
		assert.Greater(t, math.Abs(on100/real-1), 0.15, "%s: the H100 profile misses the H200", l.Case)
	}
}

var h200All = flag.Bool("h200.all", false, "TestH200AgainstGPU runs the 40 MiB working set on the H100 profile too (by default the H100 profile's miss of the H200 is held on the 32 MiB one and the naive transpose)")

// The padded transpose is bound by the L2 slices on the H100 from 2048 up
// (ncu: 74 to 78 of the 80 slices' sectors a cycle, far writes counted at
// both slices): at 2048 (under 30,000 cycles, so not in
// TestCyclesAgainstGPU) its cycles come within 8% of the GPU's. With far
// writes charged at the home slice only, the model ran it 12% fast. At
// 1024, one wave whose blocks all start at once, it comes within 10%
// (−7.9%) since every warp of an SM's first blocks waits for the kernel's
// parameters (TestColdParametersStallAsOnH100); before, only the warp that
// missed the constant cache did and the model was 11.8% fast. The naive
// transpose at 1024, bound by its byte-masked writes' merges at the home
// slices (l2_partial_write_cycles, fitted on the naive transposes and the
// strided store fills: 2.325), comes within 5% (+2.6%; +7.2% at the 2.5
// before the fit).
func TestSliceBoundTransposeAgainstGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	prof := gpu.MustLookup("h100")
	bound := map[string]float64{"transpose_padded_1024": 0.10, "transpose_padded_2048": 0.08, "transpose_naive_1024": 0.05}
	for _, l := range calibLaunches(t, "transpose_padded_1024", "transpose_padded_2048", "transpose_naive_1024") {
		real, ok := l.Value("sm__cycles_elapsed.max")
		require.True(t, ok)
		res := timedGPULaunch(t, l, prof)
		assert.InEpsilon(t, real, float64(res.Timing.Cycles), bound[l.Case], "%s: %.0f GPU cycles, %d in the model", l.Case, real, res.Timing.Cycles)
	}
}

// In a one-wave launch every warp of an SM's first blocks waits for the
// kernel's parameters: ptxas reads them as constant operands (ULDC,
// c[0x0][...]), which hold a warp at issue while its SM's constant cache
// misses, and the first miss of an SM's blocks is everyone's (the H100
// starts six of an SM's first eight blocks within 33 cycles: the burst
// probe). The transposes at 1024 show it in ncu's imc_miss (1.0, 1.4 and
// 1.2 warp-cycles per instruction for the naive, padded and shared ones;
// 0.2 at 2048, four waves); the model's is within 50% of each (1.3, 0.8
// and 0.8). Before, a parameter load that missed did not hold the warp and
// only the warp whose miss fetched the line waited for it: 0 imc_miss.
func TestColdParametersStallAsOnH100(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	prof := gpu.MustLookup("h100")
	metric := timing.ImcMiss.Metric()
	for _, l := range calibLaunches(t, "transpose_naive_1024", "transpose_padded_1024", "transpose_shared_1024") {
		gpuStall, ok := l.Value(metric)
		require.True(t, ok)
		res := timedGPULaunch(t, l, prof)
		got := res.Timing.Metrics()[metric]
		t.Logf("%s: imc_miss %.2f per issue (H100 %.2f)", l.Case, got, gpuStall)
		assert.InEpsilon(t, gpuStall, got, 0.5, "%s: warp-cycles waiting for the parameters per issued instruction", l.Case)
	}
}

// The reductions' reads alone keep the H100's DRAM 60 to 80% busy, and
// their warps wait on them about as long per instruction as on the GPU:
// long_scoreboard within 15% of ncu's figure for the calibration's 32M
// launch (reduce_shfl 20.2, reduce_shared 10.3 warp-cycles per issued
// instruction), run here at an eighth of its blocks (8,448, eight waves;
// the ratio is the streaming's steady state). With the DRAM latency's
// growth charged on all the traffic (dram_load_cycles 150, no write term)
// the model gave 26.7 and 13.0 here, 27.8 and 13.2 on the full launches.
func TestReadStreamsWaitAsOnH100(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	prof := gpu.MustLookup("h100")
	const stall = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
	for _, l := range calibLaunches(t, "reduce_shfl_32M", "reduce_shared_32M") {
		gpuStall, ok := l.Value(stall)
		require.True(t, ok)
		sp, err := spec.Load(l.SpecPath())
		require.NoError(t, err)
		// An eighth of the blocks: out and in shrink with the grid, n
		// with in.
		const blocks = 8448
		require.Equal(t, "u32", sp.Buffers[1].Type)
		sp.Grid[0] = blocks
		sp.Buffers[0].Count = blocks
		sp.Buffers[1].Count = blocks * 512
		sp.Args[2].Value = json.Number(strconv.Itoa(blocks * 512))
		p, err := sp.Prepare(vm.NewDevice(), nil)
		require.NoError(t, err)
		res, err := scheduler.RunTimed(context.Background(), p.Launch, prof, scheduler.Options{Registers: l.Int("launch__registers_per_thread")})
		p.Launch.Release()
		require.NoError(t, err, l.Name())
		got := res.Timing.Metrics()[stall]
		t.Logf("%s: long_scoreboard %.2f per issue (H100 %.2f), %d cycles", l.Case, got, gpuStall, res.Timing.Cycles)
		assert.InEpsilon(t, gpuStall, got, 0.15, "%s: warp-cycles waiting on global loads per issued instruction", l.Case)
	}
}
