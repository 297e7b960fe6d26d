package timing

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
)

// The mechanism probes of issue 23 (testdata/perf/gen/micro/mech.h:
// atomics.cu, mlp.cu, dramscale.cu, pipes.cu, icache.cu), recorded on the
// H100 by sched.sh into testdata/perf/micro/sched/<probe>.{jsonl,ptx}.gz.
// Every record describes its launch in full (the kernel's name in the
// probe's PTX, grid, block, dynamic shared memory, each argument: a
// buffer's size, zeroed, or a scalar), the clock record it left (lane 0
// of every warp: [smid, c_0 ... c_n]) and one figure computed from it;
// mechModel replays the launch in the timing model and computes the same
// figure from the same record. The tests here only log the model against
// the H100 per configuration: the tolerances come once the records exist.
//
// PTXVM_MECH_DIR reads the records and PTX from another folder (e.g. what
// testdata/perf/gen/micro/fakecuda/fake.sh writes without a GPU: the same
// launches with every H100 figure 0). PTXVM_MECH_COST bounds a replay's
// cost (the record's "cost": warps × iterations × about the warp
// instructions of an iteration, a memory request counting 2 per line it
// touches; default 1,000,000, about a second on two cores): a launch above
// it replays fewer iterations where its figure allows, else it is
// skipped. PTXVM_MECH_RUN selects records whose probe/name contains it.

// mechDir is where the records and PTX are read.
func mechDir() string {
	if d := os.Getenv("PTXVM_MECH_DIR"); d != "" {
		return d
	}
	return schedDir
}

// mechArg is one kernel argument of a record: exactly one field is set.
type mechArg struct {
	Buf *uint64  `json:"buf"`
	U32 *uint32  `json:"u32"`
	U64 *uint64  `json:"u64"`
	F32 *float32 `json:"f32"`
}

// mechRecord is one launch record of a mechanism probe (mech.h's
// record()).
type mechRecord struct {
	Probe  string    `json:"probe"`
	Name   string    `json:"name"`
	Error  string    `json:"error"`
	Kernel string    `json:"kernel"`
	Grid   [3]uint32 `json:"grid"`
	Block  [3]uint32 `json:"block"`
	// DynSmem is the launch's dynamic shared memory (bytes).
	DynSmem uint64    `json:"dyn_smem"`
	Args    []mechArg `json:"args"`
	// RecArg is the argument that is the clock-record buffer; Row its u64
	// per warp (RowIters: Iters + 2, a clock per iteration).
	RecArg   int  `json:"rec_arg"`
	Row      int  `json:"row"`
	RowIters bool `json:"row_iters"`
	// ItersArg is the argument that is the iteration count (-1: none),
	// Iters its value, OpsPerIter the measured operations a warp's
	// iteration does.
	ItersArg   int     `json:"iters_arg"`
	Iters      int     `json:"iters"`
	OpsPerIter float64 `json:"ops_per_iter"`
	Warps      int     `json:"warps"`
	// Occupancy is the blocks an SM holds (cudaOccupancyMaxActiveBlocks
	// PerMultiprocessor), Regs ptxas's registers per thread.
	Occupancy int `json:"occupancy"`
	Regs      int `json:"regs"`
	// PerSMGrid > 0: every SM ran the same blocks, and a replay on one SM
	// runs this many.
	PerSMGrid uint32 `json:"per_sm_grid"`
	// Flush is how the L2 was left before the launch: "clean" (a read
	// after a memset), "dirty" (a 128 MB memset: Options.DirtyL2) or
	// "none".
	Flush string  `json:"flush"`
	MS    float64 `json:"ms"`
	// Figure names how Value (the H100's) is computed from the records
	// (mechFigure); Bytes is what a bytes_per_cycle figure divides, Skip
	// the segments a seg_cycles_per_op figure leaves out.
	Figure string  `json:"figure"`
	Value  float64 `json:"value"`
	Bytes  float64 `json:"bytes"`
	Cost   float64 `json:"cost"`
	Skip   int     `json:"skip"`
	// The summary of the H100's records.
	RecordedWarps int        `json:"recorded_warps"`
	SMs           int        `json:"sms"`
	SegMean       float64    `json:"seg_mean"`
	SpanMax       float64    `json:"span_max"`
	Segs          []float64  `json:"segs"`
	WarpCycles    phaseStats `json:"warp_cycles"`
	SMSpan        phaseStats `json:"sm_span"`
}

// mechFile returns the contents of name in mechDir (gunzipped), or skips
// the test when the file is not there.
func mechFile(t *testing.T, name string) []byte {
	t.Helper()
	path := filepath.Join(mechDir(), name)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		probe := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), filepath.Ext(strings.TrimSuffix(name, ".gz")))
		t.Skipf("%s: not recorded yet (on the GPU machine: sh testdata/perf/gen/micro/sched.sh OUTDIR %s, then "+
			"OUTDIR/%s.{jsonl,ptx,sass}.gz and %s.log into testdata/perf/micro/sched)", path, probe, probe, probe)
	}
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(z)
	require.NoError(t, err)
	return b
}

// mechRecords reads file's launch records whose probe is one of probes
// (records of failed launches, and other lines, left out).
func mechRecords(t *testing.T, file string, probes ...string) []mechRecord {
	t.Helper()
	want := map[string]bool{}
	for _, p := range probes {
		want[p] = true
	}
	sc := bufio.NewScanner(strings.NewReader(string(mechFile(t, file))))
	sc.Buffer(nil, 16<<20)
	var out []mechRecord
	for sc.Scan() {
		var r mechRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "%s: %.200s", file, sc.Text())
		if want[r.Probe] && r.Error == "" && r.Kernel != "" {
			out = append(out, r)
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out, "%s: no records of %v", file, probes)
	return out
}

var (
	mechMu  sync.Mutex
	mechPTX = map[string][]byte{}
)

// mechSummary is what mech.h's summarize() gives from the clock records.
type mechSummary struct {
	Warps    int
	WarpMean float64 // mean over warps of c_n - c_0
	SegMean  float64 // mean over warps and segments s >= skip of c_{s+1} - c_s
	Segs     []float64
	SpanMax  float64 // the largest per-SM span
	SMs      int
}

// mechSummarize is summarize() of mech.h on rec (row u64 per warp).
func mechSummarize(rec []uint64, row, skip int) mechSummary {
	var s mechSummary
	nseg := row - 2
	segSum := make([]float64, nseg)
	segN := make([]int, nseg)
	type span struct{ first, last uint64 }
	spans := map[uint64]*span{}
	var total, segAll float64
	var nSegAll int
	for w := 0; w+row <= len(rec); w += row {
		r := rec[w : w+row]
		if r[1] == 0 && r[row-1] == 0 {
			continue
		}
		s.Warps++
		total += float64(r[row-1] - r[1])
		for g := 0; g < nseg; g++ {
			d := float64(r[2+g] - r[1+g])
			segSum[g] += d
			segN[g]++
			if g >= skip {
				segAll += d
				nSegAll++
			}
		}
		if sp := spans[r[0]]; sp == nil {
			spans[r[0]] = &span{r[1], r[row-1]}
		} else {
			sp.first, sp.last = min(sp.first, r[1]), max(sp.last, r[row-1])
		}
	}
	if s.Warps > 0 {
		s.WarpMean = total / float64(s.Warps)
	}
	if nSegAll > 0 {
		s.SegMean = segAll / float64(nSegAll)
	}
	s.Segs = make([]float64, nseg)
	for g := range segSum {
		if segN[g] > 0 {
			s.Segs[g] = segSum[g] / float64(segN[g])
		}
	}
	for _, sp := range spans {
		s.SpanMax = max(s.SpanMax, float64(sp.last-sp.first))
	}
	s.SMs = len(spans)
	return s
}

// mechFigure is mech.h's figure(): the record's kind of figure from a
// summary, for iters iterations and bytes moved.
func mechFigure(kind string, s mechSummary, iters int, opsPerIter, bytes float64) float64 {
	switch kind {
	case "warp_cycles_per_op":
		return s.WarpMean / (float64(iters) * opsPerIter)
	case "seg_cycles_per_op":
		return s.SegMean / opsPerIter
	case "bytes_per_cycle":
		if s.SpanMax > 0 {
			return bytes / s.SpanMax
		}
	}
	return 0
}

// mechReplay is how a record is replayed: with iters iterations (0: the
// record's), and on one SM (the record's PerSMGrid blocks) when perSM.
type mechReplay struct {
	iters int
	perSM bool
}

// mechResult is a replay's outcome.
type mechResult struct {
	Value  float64 // the record's figure, from the model's clock records
	Cycles uint64  // the model's elapsed cycles (sm__cycles_elapsed.max)
	mechSummary
}

// mechModel replays record r of file (the probe's PTX: file's stem +
// ".ptx.gz") in the model.
func mechModel(t *testing.T, prof *gpu.Profile, file string, r mechRecord, rp mechReplay) mechResult {
	t.Helper()
	stem := strings.TrimSuffix(file, ".jsonl.gz")
	mechMu.Lock()
	src, ok := mechPTX[stem]
	mechMu.Unlock()
	if !ok {
		src = mechFile(t, stem+".ptx.gz")
		mechMu.Lock()
		mechPTX[stem] = src
		mechMu.Unlock()
	}
	iters := r.Iters
	if rp.iters > 0 {
		iters = rp.iters
	}
	dev := vm.NewDevice()
	m, err := dev.LoadModule(stem+".ptx", src)
	require.NoError(t, err)
	var raw [][]byte
	bufs := map[int]uint64{}
	for i, a := range r.Args {
		switch {
		case a.Buf != nil:
			p, err := dev.Malloc(max(*a.Buf, 4), fmt.Sprintf("arg%d", i))
			require.NoError(t, err)
			bufs[i] = p
			raw = append(raw, binary.LittleEndian.AppendUint64(nil, p))
		case a.U32 != nil:
			v := *a.U32
			if i == r.ItersArg {
				v = uint32(iters)
			}
			raw = append(raw, binary.LittleEndian.AppendUint32(nil, v))
		case a.U64 != nil:
			raw = append(raw, binary.LittleEndian.AppendUint64(nil, *a.U64))
		case a.F32 != nil:
			raw = append(raw, binary.LittleEndian.AppendUint32(nil, math.Float32bits(*a.F32)))
		default:
			t.Fatalf("%s: argument %d has no value", r.Name, i)
		}
	}
	p := *prof
	cfg := vm.LaunchConfig{Grid: r.Grid, Block: r.Block, DynSmem: r.DynSmem}
	if rp.perSM {
		p.SMs = 1
		cfg.Grid = [3]uint32{r.PerSMGrid, 1, 1}
	}
	l, err := m.PrepareLaunch(r.Kernel, cfg, raw)
	require.NoError(t, err, r.Name)
	defer l.Release()
	opt := Options{BlocksPerSM: max(1, r.Occupancy), Registers: r.Regs, Workers: 2}
	if r.Flush == "dirty" {
		opt.DirtyL2 = 128 << 20
	}
	res, err := Run(context.Background(), l, &p, opt)
	require.NoError(t, err, r.Name)
	row := r.Row
	if r.RowIters {
		row = iters + 2
	}
	blocks := int(cfg.Grid[0] * cfg.Grid[1] * cfg.Grid[2])
	warps := blocks * int((r.Block[0]*r.Block[1]*r.Block[2]+31)/32)
	rec := readLE[uint64](t, dev, bufs[r.RecArg], warps*row)
	s := mechSummarize(rec, row, r.Skip)
	bytes := r.Bytes
	if r.ItersArg >= 0 && r.Iters > 0 {
		bytes *= float64(iters) / float64(r.Iters)
	}
	if rp.perSM && r.Warps > 0 {
		bytes *= float64(warps) / float64(r.Warps)
	}
	return mechResult{Value: mechFigure(r.Figure, s, iters, r.OpsPerIter, bytes), Cycles: res.Cycles, mechSummary: s}
}

// mechCostLimit is PTXVM_MECH_COST, or 1,000,000.
func mechCostLimit() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("PTXVM_MECH_COST"), 64); err == nil && v > 0 {
		return v
	}
	return 1e6
}

// mechPlan says how record r is replayed within the cost limit: on one SM
// when every SM ran the same blocks, with fewer iterations when its figure
// allows (a per-operation or per-segment figure, or bytes that follow the
// iterations); ok false when even that costs too much.
func mechPlan(r mechRecord, limit float64) (rp mechReplay, cost float64, ok bool) {
	cost = r.Cost
	if r.PerSMGrid > 0 && r.Warps > 0 {
		rp.perSM = true
		perBlock := float64(r.Warps) / float64(r.Grid[0]*r.Grid[1]*r.Grid[2])
		cost *= float64(r.PerSMGrid) * perBlock / float64(r.Warps)
	}
	if cost <= limit {
		return rp, cost, true
	}
	if r.ItersArg < 0 || r.Iters <= 1 {
		return rp, cost, false
	}
	least := 1
	if r.Figure == "seg_cycles_per_op" {
		least = r.Skip + 1
	}
	n := int(float64(r.Iters) * limit / cost)
	if n < least || n >= r.Iters {
		return rp, cost, false
	}
	rp.iters = n
	return rp, cost * float64(n) / float64(r.Iters), true
}

// mechCompare replays every record of probes in file that passes the
// cost limit (and PTXVM_MECH_RUN), logging the model's figure against
// the H100's, and returns the outcomes by name.
func mechCompare(t *testing.T, file string, probes ...string) map[string]mechResult {
	if testing.Short() {
		t.Skip("-short")
	}
	if os.Getenv("PTXVM_MECH") == "" {
		t.Skip("every record of the probe, model against H100 (minutes): PTXVM_MECH=1; TestMechanismsHoldToH100 holds the model to the mechanisms it has")
	}
	recs := mechRecords(t, file, probes...)
	prof := gpu.MustLookup("h100")
	limit := mechCostLimit()
	sel := os.Getenv("PTXVM_MECH_RUN")
	out := map[string]mechResult{}
	type row struct {
		name          string
		h100, model   float64
		how           string
		skipped       bool
		figure, probe string
	}
	var rows []row
	for _, r := range recs {
		if sel != "" && !strings.Contains(r.Probe+"/"+r.Name, sel) {
			continue
		}
		rp, cost, ok := mechPlan(r, limit)
		name := r.Probe + "/" + r.Name
		if !ok {
			rows = append(rows, row{name: name, h100: r.Value, skipped: true, how: fmt.Sprintf("cost %.0f over %.0f", cost, limit), figure: r.Figure, probe: r.Probe})
			continue
		}
		t.Run(name, func(t *testing.T) {
			m := mechModel(t, prof, file, r, rp)
			out[name] = m
			how := ""
			if rp.perSM {
				how += fmt.Sprintf(" on one SM (%d blocks)", r.PerSMGrid)
			}
			if rp.iters > 0 {
				how += fmt.Sprintf(" %d of %d iterations", rp.iters, r.Iters)
			}
			t.Logf("%s: H100 %.3f, model %.3f (%s; %d warps recorded, %d cycles; span H100 %.0f model %.0f)%s", r.Figure, r.Value, m.Value,
				ratio(m.Value, r.Value), m.Warps, m.Cycles, r.SpanMax, m.SpanMax, how)
			rows = append(rows, row{name: name, h100: r.Value, model: m.Value, how: strings.TrimSpace(how), figure: r.Figure, probe: r.Probe})
		})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-44s %-19s %10s %10s %7s\n", "record", "figure", "H100", "model", "ratio")
	for _, x := range rows {
		if x.skipped {
			fmt.Fprintf(&b, "%-44s %-19s %10.3f %10s %7s  (%s)\n", x.name, x.figure, x.h100, "-", "-", x.how)
			continue
		}
		fmt.Fprintf(&b, "%-44s %-19s %10.3f %10.3f %7s  %s\n", x.name, x.figure, x.h100, x.model, ratio(x.model, x.h100), x.how)
	}
	t.Logf("model against the H100 (%s, %d records, cost limit %.0f):\n%s", file, len(rows), limit, b.String())
	return out
}

// ratio is model/h100 as text ("-" when the H100's figure is 0).
func ratio(model, h100 float64) string {
	if h100 == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", model/h100)
}

// Global atomics at the L2 (same address, per warp, per lane, per line, 8
// bins, one lane a warp; red, atom, 64-bit, float, CAS loops), warp-
// aggregated atomics and shared-memory atomics: cycles per atomic per
// warp, from one warp on one SM to 64 warps on every SM (atomics.cu).
func TestMechAtomicsAgainstH100(t *testing.T) {
	mechCompare(t, "atomics.jsonl.gz", "global", "warpagg", "shared")
}

// Shared atomics that ptxas makes compare-and-store loops (u64, f32, f64
// adds) against native ones (u32 adds of a value per lane and of 2), with
// equal and distinct values per lane, from one warp to 32 on an SM
// (casspin.cu).
func TestMechCASSpinAgainstH100(t *testing.T) {
	mechCompare(t, "casspin.jsonl.gz", "casspin")
}

// Tensor-core and asynchronous-copy instructions: mma.sync (f16 and tf32
// inputs, f32 and f16 accumulators), ldmatrix.x4 and a cp.async round trip,
// in 1 to 8 chains, from one warp to 32 on an SM (tensor.cu).
func TestMechTensorAgainstH100(t *testing.T) {
	mechCompare(t, "tensor.jsonl.gz", "tensor")
}

// Misses in flight: a step of K independent loads per thread (column
// walks, a sector a lane, a line a lane), cycles a step from one warp on
// one SM to 32 on every SM (mlp.cu).
func TestMechMLPAgainstH100(t *testing.T) {
	mechCompare(t, "mlp.jsonl.gz", "mlp")
}

// The L2 and DRAM at scale: streaming, transposed and sparse (partial-
// sector) writes, random sectors against streaming reads, mixed read and
// write streams, working sets around the L2's size (dramscale.cu).
func TestMechDRAMScaleAgainstH100(t *testing.T) {
	mechCompare(t, "dramscale.jsonl.gz", "write", "scatter", "mix", "l2")
}

// The shuffle, SFU, conversion and FMA pipes as nvcc emits them (expf,
// rsqrtf, logf, 1/x, shuffle trees, softmax and layer-norm rows, FFMA
// chains of 1 to 8), from one warp to 64 on an SM (pipes.cu).
func TestMechPipesAgainstH100(t *testing.T) {
	mechCompare(t, "pipes.jsonl.gz", "pipes")
}

// The instruction cache in the steady state: loops of 8 to 128 KB of
// straight-line FFMAs run by 1 to 64 warps of an SM (icache.cu).
func TestMechICacheAgainstH100(t *testing.T) {
	mechCompare(t, "icache.jsonl.gz", "icache")
}

// mechHeld are the probe records whose mechanism the model has, with how
// close to the H100's figure the model must stay. The other records are
// logged by the TestMech*AgainstH100 tests (PTXVM_MECH=1); what they show
// and what is not modelled is in testdata/perf/micro/README.md.
var mechHeld = []struct {
	file, name string
	tol        float64
}{
	// The L2's atomic unit: lanes on one word update it one after
	// another (1.46 cycles each, 3.5 for a float add), and so do the
	// transactions after it on the same line; a warp-aggregated atomic
	// (one lane) costs its slice 1.5 cycles on a line at hand.
	{"atomics.jsonl.gz", "global/atom_u32_one_gpu_w8", 0.10},
	{"atomics.jsonl.gz", "global/atom_f32_one_gpu_w8", 0.10},
	{"atomics.jsonl.gz", "global/atom_u32_leader_gpu_w8", 0.10},
	{"atomics.jsonl.gz", "global/atom_f32_leader_gpu_w8", 0.10},
	{"atomics.jsonl.gz", "global/atom_u32_leader_gpu_w64", 0.15},
	// A global compare-and-swap takes 100 cycles longer than another
	// atomic (memory.latency.l2_atomic_cas_latency).
	{"atomics.jsonl.gz", "global/cas_u32_one_sm1_w8", 0.10},
	{"atomics.jsonl.gz", "global/cas_u32_warp_sm1_w1", 0.10},
	{"atomics.jsonl.gz", "global/cas_u32_lane_sm1_w1", 0.10},
	// The atomic unit takes a transaction's sectors one after another: a
	// lane to a line of its own, and a warp's 32 lanes to the four
	// sectors of its own line (gpu.Memory's l2_atomic_cycles_per_sector).
	{"atomics.jsonl.gz", "global/atom_u32_line_gpu_w8", 0.10},
	{"atomics.jsonl.gz", "global/atom_f32_line_gpu_w8", 0.10},
	{"atomics.jsonl.gz", "global/atom_u32_lane_gpu_w64", 0.10},
	// SASS expansions read off the machine code: 1/x (rcp.rn.f32) is
	// ten machine instructions around a branch to its slow path, expf's
	// fifteen PTX instructions eight, a shuffle one.
	{"pipes.jsonl.gz", "pipes/rcp_ind_sm1_w1", 0.15},
	{"pipes.jsonl.gz", "pipes/expf_dep_sm1_w1", 0.10},
	{"pipes.jsonl.gz", "pipes/shfl_sum_sm1_w1", 0.10},
	{"pipes.jsonl.gz", "pipes/softmax_row_sm1_w1", 0.10},
	// ptxas keeps more chains in flight than the PTX's virtual registers
	// suggest (gpu.Timing.ScheduleRegisters).
	{"pipes.jsonl.gz", "pipes/expf_ind_sm1_w1", 0.15},
	{"pipes.jsonl.gz", "pipes/logf_ind_sm1_w1", 0.15},
	// The instruction cache holds 32 KB of loop, not 64.
	{"icache.jsonl.gz", "icache/ffma2048_sm1_w1", 0.15},
	{"icache.jsonl.gz", "icache/ffma4096_sm1_w1", 0.15},
	{"icache.jsonl.gz", "icache/ffma8192_sm1_w1", 0.15},
	// A shared add of 1 whose result is unused is ATOMS.POPC.INC: lanes
	// on one word are one update; an add of a value per lane (ATOMS.ADD)
	// serialises them.
	{"atomics.jsonl.gz", "shared/red_u32_same_sm1_w32", 0.10},
	{"atomics.jsonl.gz", "shared/red_u32_bins8_sm1_w32", 0.10},
	{"casspin.jsonl.gz", "casspin/u32_tid_same_sm1_w32", 0.10},
	// The native compare-and-swap on shared memory (a CAS loop the
	// program writes): longer than the other native atomics, per lane on
	// its word too, and twice the data path's time.
	{"atomics.jsonl.gz", "shared/cas_u32_lane_sm1_w1", 0.10},
	{"atomics.jsonl.gz", "shared/cas_u32_same_sm1_w1", 0.10},
	{"atomics.jsonl.gz", "shared/cas_u32_same_sm1_w8", 0.10},
	{"atomics.jsonl.gz", "shared/cas_u32_warp_sm1_w32", 0.10},
	// Shared atomics ptxas makes compare-and-store loops: one lane per
	// bank a round (ATOMS.CAST.SPIN fails the bank's others fast), and
	// other warps' updates of the word take turns with the warp's.
	{"casspin.jsonl.gz", "casspin/f32_tid_lane_sm1_w1", 0.15},
	{"casspin.jsonl.gz", "casspin/f32_tid_same_sm1_w1", 0.10},
	{"casspin.jsonl.gz", "casspin/f32_tid_bins8_sm1_w1", 0.10},
	{"casspin.jsonl.gz", "casspin/f32_tid_same_sm1_w32", 0.15},
	{"casspin.jsonl.gz", "casspin/f32_tid_stride32_sm1_w32", 0.15},
	{"casspin.jsonl.gz", "casspin/u64_tid_lane_sm1_w1", 0.15},
	{"casspin.jsonl.gz", "casspin/u64_tid_same_sm1_w1", 0.10},
	{"casspin.jsonl.gz", "casspin/u64_tid_stride32_sm1_w1", 0.10},
	{"casspin.jsonl.gz", "casspin/u64_tid_same_sm1_w32", 0.15},
	{"casspin.jsonl.gz", "casspin/f64_tid_bins8_sm1_w1", 0.10},
	// Tensor cores: a dependent mma.sync chain 34 cycles, the SM's
	// sub-partitions one HMMA per 6 cycles each (the tensor pipe);
	// ldmatrix.x4 four wavefronts of the data path.
	{"tensor.jsonl.gz", "tensor/mma_f32_ch1_sm1_w1", 0.15},
	{"tensor.jsonl.gz", "tensor/mma_f32_ch8_sm1_w32", 0.10},
	{"tensor.jsonl.gz", "tensor/mma_f16_ch8_sm1_w1", 0.10},
	{"tensor.jsonl.gz", "tensor/mma_tf32_ch4_sm1_w8", 0.15},
	{"tensor.jsonl.gz", "tensor/ldmatrix_ch4_sm1_w8", 0.10},
	{"tensor.jsonl.gz", "tensor/ldmatrix_ch8_sm1_w32", 0.10},
	// A cp.async's wait holds its warp until the copy lands
	// (timing.async_copy_cycles after its load), not as a fence.
	{"tensor.jsonl.gz", "tensor/cpasync_ch1_sm1_w1", 0.10},
	{"tensor.jsonl.gz", "tensor/cpasync_ch4_sm1_w32", 0.10},
	// Loads in flight: a warp's K independent column loads (K up to 8).
	{"mlp.jsonl.gz", "mlp/col_k4_sm1_w8", 0.10},
	{"mlp.jsonl.gz", "mlp/col_k8_sm1_w8", 0.15},
}

// TestMechanismsHoldToH100 replays mechHeld's records and holds each
// figure within its tolerance of the H100's.
func TestMechanismsHoldToH100(t *testing.T) {
	prof := gpu.MustLookup("h100")
	byFile := map[string][]mechRecord{}
	for _, h := range mechHeld {
		if byFile[h.file] == nil {
			byFile[h.file] = mechRecords(t, h.file, "global", "warpagg", "shared", "pipes", "icache", "mlp", "casspin", "tensor")
		}
		var r *mechRecord
		for i := range byFile[h.file] {
			if x := &byFile[h.file][i]; x.Probe+"/"+x.Name == h.name {
				r = x
			}
		}
		require.NotNil(t, r, "%s: no record %s", h.file, h.name)
		rp, _, ok := mechPlan(*r, mechCostLimit())
		require.True(t, ok, "%s: too costly to replay", h.name)
		m := mechModel(t, prof, h.file, *r, rp)
		t.Logf("%s: %s H100 %.1f, model %.1f (%s)", h.name, r.Figure, r.Value, m.Value, ratio(m.Value, r.Value))
		require.InEpsilon(t, r.Value, m.Value, h.tol, h.name)
	}
}

// The summary of clock records is mech.h's: rows that recorded nothing
// are left out, segments before skip too, and an SM's span runs from its
// first warp's first clock to its last warp's last.
func TestMechSummarize(t *testing.T) {
	rec := []uint64{
		0, 100, 200, 400, // SM 0: segments 100, 200
		0, 150, 200, 350, // SM 0: 50, 150
		0, 0, 0, 0, // did not record
		3, 1000, 1100, 1150, // SM 3: 100, 50
	}
	s := mechSummarize(rec, 4, 1)
	require.Equal(t, 3, s.Warps)
	require.Equal(t, 2, s.SMs)
	require.InDelta(t, (300.0+200+150)/3, s.WarpMean, 1e-9)
	require.InDelta(t, (200.0+150+50)/3, s.SegMean, 1e-9)
	require.Equal(t, []float64{250.0 / 3, 400.0 / 3}, s.Segs)
	require.InDelta(t, 300, s.SpanMax, 1e-9)
	require.InDelta(t, 200.0/4/2, mechFigure("warp_cycles_per_op", mechSummary{WarpMean: 200}, 4, 2, 0), 1e-9)
	require.InDelta(t, 1000.0/300, mechFigure("bytes_per_cycle", s, 1, 1, 1000), 1e-9)
	rp, _, ok := mechPlan(mechRecord{Cost: 1000, ItersArg: 2, Iters: 10, Figure: "seg_cycles_per_op", Skip: 2}, 500)
	require.True(t, ok)
	require.Equal(t, 5, rp.iters)
	_, _, ok = mechPlan(mechRecord{Cost: 1000, ItersArg: 2, Iters: 10, Figure: "seg_cycles_per_op", Skip: 2}, 200)
	require.False(t, ok, "fewer iterations than the figure needs")
}
