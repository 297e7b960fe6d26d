package scheduler_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// The ground truth: the memory hierarchy's counters of every corpus launch
// against what Nsight Compute measured for it on the H100.
//
// By default the tests run the nvcc corpus (O3 and G) and a representative
// subset of the perf and apps corpora (gtDefault); -groundtruth.full runs
// every launch of every corpus (several minutes), and -groundtruth.table
// FILE writes the match-rate table the README shows.
var (
	gtFull  = flag.Bool("groundtruth.full", false, "compare every launch of every corpus with its ncu row (minutes); default: the nvcc corpus and a subset of the others")
	gtTable = flag.String("groundtruth.table", "", "write the match rate per counter, as a markdown table, to `FILE`")
	gtMax   = flag.Float64("groundtruth.max", 2e9, "with -groundtruth.full, leave out launches of more than `N` thread instructions (ncu's smsp__thread_inst_executed.sum; the perf corpus's -G calibration launches run 10^9 to 10^11)")
)

// gtDefault are the perf and apps launches the default run compares: one
// or more of each access pattern the perf corpus records (strides,
// offsets, __ldg, shared-memory patterns of every width, constant
// broadcast and divergence, local memory, 2D textures, L1 and L2 working
// sets, partial stores) and small application kernels. The rest take too
// long for every go test.
var gtDefault = map[string]bool{
	"perf/access.O3/copy_u32_stride1": true, "perf/access.O3/copy_u32_stride2": true, "perf/access.O3/copy_u32_stride8": true,
	"perf/access.O3/copy_u32_stride16": true, "perf/access.O3/copy_u32_stride32": true, "perf/access.O3/copy_u32_stride9": true,
	"perf/access.O3/copy_u32_offset_i1_o0": true, "perf/access.O3/copy_u32_offset_i0_o1": true, "perf/access.O3/copy_u32_offset_i31_o0": true,
	"perf/access.O3/copy_u64_offset_i1_o0": true, "perf/access.O3/copy_v4_offset_i1_o0": true, "perf/access.O3/copy_u32_stride8_ldg": true,
	"perf/access.O3/copy_perm_stride1": true, "perf/access.O3/copy_perm_stride32": true,
	"perf/access.O3/smem_ld_b32_stride2": true, "perf/access.O3/smem_ld_b32_stride32": true, "perf/access.O3/smem_ld_b32_bcast": true,
	"perf/access.O3/smem_ld_b64_stride2": true, "perf/access.O3/smem_ld_b64_halves_same": true, "perf/access.O3/smem_ld_b128_stride4": true,
	"perf/access.O3/smem_ld_b128_quarters_same": true, "perf/access.O3/smem_st_b32_stride4": true, "perf/access.O3/smem_st_b64_stride2": true,
	"perf/access.O3/smem_st_b128_stride1": true, "perf/access.O3/smem_atom_add_u32": true,
	"perf/access.O3/const_uniform": true, "perf/access.O3/const_distinct8": true, "perf/access.O3/const_distinct32": true,
	"perf/access.O3/local_dyn_index_uniform": true, "perf/access.O3/tex_rows_point": true, "perf/access.O3/tex_cols_point": true,
	"perf/access.O3/tex_3x3_linear": true, "perf/access.O3/l2_ws_4MiB": true, "perf/access.O3/l1_ws_16KiB": true,
	"perf/access.O3/store_fill_4MiB": true,
	"apps/O3/jacobi2d_small":         true, "apps/O3/hotspot": true, "apps/O3/scan_block": true, "apps/O3/softmax_small": true,
	"apps/O3/histogram256": true, "apps/O3/stencil2d_shared": true, "apps/O3/spmv_csr_small": true, "apps/O3/gemm": true,
	// Tensor cores and asynchronous copies (issue 24): wmma fragments
	// (LDSM from shared, LDG/STG), ldmatrix and cp.async (LDGSTS),
	// mbarrier operations (SYNCS, not LSU traffic), a cluster reduction.
	"tensor/O3/matmul_wmma": true, "tensor/O3/matmul_wmma_shared": true, "tensor/O3/matmul_wmma_tf32": true,
	"tensor/O3/matmul_mma_cpasync": true, "tensor/O3/pipeline_block": true, "tensor/O3/pipeline_prims": true,
	"tensor/O3/barrier_copy": true, "tensor/O3/cluster_reduce": true,
	"tensor/G/matmul_wmma_shared": true, "tensor/G/matmul_mma_cpasync": true, "tensor/G/pipeline_block": true,
	// The second set (testdata/tensor2), written after the first's
	// counters were modelled: bf16 and s8 wmma, column-major fragments,
	// mma.sync tf32 with cp.async, a cp.async stencil, a cuda::pipeline
	// multiply.
	"tensor2/O3/matmul_wmma_bf16": true, "tensor2/O3/matmul_wmma_s8": true, "tensor2/O3/batched_wmma16": true,
	"tensor2/O3/gemv_mma_tf32": true, "tensor2/O3/stencil_cpasync": true, "tensor2/O3/matmul_pipeline3": true,
}

// gtLaunch is one corpus launch, run.
type gtLaunch struct {
	l    *ncu.Launch
	ours map[string]float64
	// oneToOne says, per group of memory instructions ("global ld",
	// "shared st", "tex", ...), whether the PTX's instructions are the
	// machine code's (ptxas kept every one, with its width).
	oneToOne map[string]bool
	secs     float64
	err      error
}

var (
	gtOnce sync.Once
	gtRuns []*gtLaunch
	gtErr  error
)

// groundTruth runs the selected corpus launches once per test binary,
// each with ncu's register count (so that the occupancy, the carveout and
// the waves are the GPU's), on all cores.
func groundTruth(t *testing.T) []*gtLaunch {
	t.Helper()
	gtOnce.Do(func() {
		all, err := ncu.ReadAll(filepath.Join("..", "testdata"))
		if err != nil {
			gtErr = err
			return
		}
		for _, l := range all {
			if l.Repeat > 0 || !l.Has("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum") {
				continue // repeats, and tables without the memory counters
			}
			if v, ok := l.Value("smsp__thread_inst_executed.sum"); ok && v > *gtMax && l.Corpus != "nvcc" {
				continue
			}
			if *gtFull || l.Corpus == "nvcc" || gtDefault[l.Name()] {
				gtRuns = append(gtRuns, &gtLaunch{l: l})
			}
		}
		cache := spec.NewModuleCache()
		sass := map[string]ncu.MemOps{}
		var mu sync.Mutex
		var g errgroup.Group
		g.SetLimit(runtime.GOMAXPROCS(0))
		for _, r := range gtRuns {
			g.Go(func() error {
				start := time.Now()
				sp, err := spec.Load(r.l.SpecPath())
				if err != nil {
					r.err = err
					return nil
				}
				run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100,
					scheduler.Options{Workers: 1, MaxInst: 1 << 36, Registers: r.l.Int("launch__registers_per_thread")}, cache)
				if err != nil {
					r.err = err
					return nil
				}
				r.ours = run.Metrics()
				r.secs = time.Since(start).Seconds()
				k := run.Prepared.Launch.Kernel
				var names []string
				for _, f := range k.Funcs {
					names = append(names, f.Name)
				}
				key := ncu.SASSPath(filepath.Join(sp.Dir, sp.Module)) + "|" + strings.Join(names, ",")
				mu.Lock()
				so, ok := sass[key]
				mu.Unlock()
				if !ok {
					so, err = ncu.SASSOps(ncu.SASSPath(filepath.Join(sp.Dir, sp.Module)), names)
					if err != nil {
						r.err = err
						return nil
					}
					mu.Lock()
					sass[key] = so
					mu.Unlock()
				}
				r.oneToOne = oneToOne(ncu.PTXOps(k), so)
				if k.UsesCalls || len(so["cas"]) > 0 {
					// Calls: ptxas's calling convention passes arguments
					// and saves registers through local memory and may
					// inline or clone the callees. Compare-and-swap loops
					// (float atomics, atomicCAS retries): their loads and
					// stores run as often as contention makes them retry.
					for g := range r.oneToOne {
						r.oneToOne[g] = false
					}
				}
				return nil
			})
		}
		_ = g.Wait()
	})
	require.NoError(t, gtErr)
	require.NotEmpty(t, gtRuns)
	return gtRuns
}

// oneToOne compares a kernel's memory instructions in PTX and SASS, group
// by group; a group of loads or stores also needs the generic ones of its
// direction to agree (a generic access can reach any space).
func oneToOne(ptx, sass ncu.MemOps) map[string]bool {
	out := map[string]bool{}
	for _, g := range []string{"global ld", "global st", "local ld", "local st", "shared ld", "shared st", "global atom", "global red", "shared atom", "tex"} {
		ok := ncu.Same(ptx, sass, g)
		for _, dir := range []string{"ld", "st", "atom"} {
			if strings.HasSuffix(g, dir) {
				ok = ok && ncu.Same(ptx, sass, "generic "+dir)
			}
		}
		out[g] = ok
	}
	return out
}

// gtCounter is one compared counter and how.
type gtCounter struct {
	name  string
	group string // the instruction group it counts ("" for rates and bytes)
	// pct: a percentage, compared within 10 points; otherwise within 10 %.
	pct bool
	// exact: equal wherever the group maps one to one onto the machine code.
	exact bool
	// ratio: derived here from two raw ncu counters (num/den) when ncu has
	// no metric of that name.
	num, den string
	// large: only launches whose L2 traffic is at least gtLarge sectors (by
	// our count), where the traffic ncu adds to every launch (instruction
	// and constant fetches, its own fabric lookups) is small beside the
	// kernel's.
	large bool
	label string // the row's name in the table, when not name
}

// gtLarge is the L2 traffic, in sectors, of a launch the "large" rows
// compare: 200,000 sectors (6.4 MB), ten times the fabric lookups ncu
// counts in every launch.
const gtLarge = 200_000

var gtCounters = []gtCounter{
	{name: "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", group: "global ld", exact: true},
	{name: "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", group: "global ld", exact: true},
	{name: "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", group: "global st", exact: true},
	{name: "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", group: "global st", exact: true},
	{name: "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum", group: "local ld", exact: true},
	{name: "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", group: "local ld", exact: true},
	{name: "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum", group: "local st", exact: true},
	{name: "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", group: "local st", exact: true},
	{name: "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", group: "shared ld", exact: true},
	{name: "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", group: "shared ld", exact: true},
	{name: "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", group: "shared st", exact: true},
	{name: "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", group: "shared st", exact: true},
	{name: "l1tex__t_requests_pipe_tex_mem_texture.sum", group: "tex", exact: true},
	{name: "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", group: "global atom", exact: true},
	{name: "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", group: "global red", exact: true},
	{name: "l1tex__t_sector_hit_rate.pct", pct: true},
	{name: "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", pct: true},
	{name: "lts__t_sector_hit_rate.pct", pct: true},
	{name: "lts__t_sector_hit_rate.pct", pct: true, large: true, label: "lts__t_sector_hit_rate.pct (launches with ≥ 6.4 MB of L2 traffic)"},
	{name: "ptxvm__lts_srcunit_tex_read_hit_rate.pct", pct: true,
		num: "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", den: "lts__t_sectors_srcunit_tex_op_read.sum"},
	{name: "lts__t_sectors_srcunit_tex_op_read.sum"},
	{name: "lts__t_sectors_srcunit_tex_op_write.sum"},
	{name: "lts__t_sectors_srcunit_ltcfabric.sum"},
	{name: "dram__bytes_read.sum"},
	{name: "dram__bytes_read.sum", large: true, label: "dram__bytes_read.sum (launches that read ≥ 6.4 MB)"},
	{name: "dram__bytes_write.sum"},
}

func (c *gtCounter) key() string {
	if c.label != "" {
		return c.label
	}
	return c.name
}

// values returns ours and ncu's figure of c for launch r; false when ncu
// has none.
func (c *gtCounter) values(r *gtLaunch) (ours, gpu float64, ok bool) {
	if c.large {
		// DRAM rows: where the GPU moved 6.4 MB or more; L2 rows: where
		// our L2 sees 200,000 sectors or more (ncu's corpora do not all
		// have the L2's sector counts).
		if strings.HasPrefix(c.name, "dram__") {
			if v, _ := r.l.Value(c.name); v < gtLarge*32 {
				return 0, 0, false
			}
		} else if r.ours["lts__t_sectors_op_read.sum"]+r.ours["lts__t_sectors_op_write.sum"] < gtLarge {
			return 0, 0, false
		}
	}
	if c.num != "" {
		n, ok1 := r.l.Value(c.num)
		d, ok2 := r.l.Value(c.den)
		if !ok1 || !ok2 || d == 0 {
			return 0, 0, false
		}
		od := r.ours[c.den]
		if od == 0 {
			return 0, 0, false
		}
		return 100 * r.ours[c.num] / od, 100 * n / d, true
	}
	gpu, ok = r.l.Value(c.name)
	if !ok {
		return 0, 0, false
	}
	return r.ours[c.name], gpu, true
}

func (c *gtCounter) within(ours, gpu float64) bool {
	if c.pct {
		return math.Abs(ours-gpu) <= 10
	}
	return math.Abs(ours-gpu) <= 0.1*math.Abs(gpu)
}

// gtStat is one counter's match rate.
type gtStat struct {
	n, exact, within int // launches compared (either side non-zero)
	n11, exact11     int // of them, where the group maps one to one
	// near11: within ncu's own variance (gtVariance); arbitration11: shared
	// wavefronts or conflicts where ncu's exceed ours by arbitration with
	// other traffic of the data stage (at most gtArbitration of the
	// wavefronts).
	near11, arbitration11 int
	mismatches11          []string
	worst                 []string
}

// gtVariance is how far ncu's counts of the same accesses differ between
// measurements: the naive transpose's stores are the same PTX accesses at
// -O3 and -G, and ncu counts 1,037,246 and 1,049,203 sectors at 1024x1024
// (the access pattern makes 1,048,576); the offset copies' store sectors
// and the large reductions' store requests move as much. A one-to-one
// counter within it of ours counts as matching "within ncu's variance".
const gtVariance = 0.03

// gtArbitration: ncu's shared-memory wavefronts and bank conflicts also
// count arbitration with other traffic of the data stage (the brief's
// caveat); in the large launches ncu's exceed the code's by up to 8 % of
// the wavefronts (transpose_padded_4096: 39,778 conflicts of 524,288
// wavefronts where the padded tile has none).
const gtArbitration = 0.10

func gtStats(runs []*gtLaunch) map[string]*gtStat {
	stats := map[string]*gtStat{}
	for i := range gtCounters {
		c := &gtCounters[i]
		s := &gtStat{}
		stats[c.key()] = s
		for _, r := range runs {
			if r.err != nil {
				continue
			}
			ours, gpu, ok := c.values(r)
			if !ok || ours == 0 && gpu == 0 {
				continue
			}
			s.n++
			if ours == gpu {
				s.exact++
			}
			if c.within(ours, gpu) {
				s.within++
			} else if len(s.worst) < 400 {
				s.worst = append(s.worst, fmt.Sprintf("%s: ours %s, ncu %s", r.l.Name(), fmtNum(ours), fmtNum(gpu)))
			}
			if c.exact && r.oneToOne[c.group] {
				s.n11++
				switch {
				case ours == gpu:
					s.exact11++
				case strings.Contains(c.name, "mem_shared") && gpu > ours && gpu-ours <= gtArbitration*wavefronts(r, c.name):
					s.arbitration11++
				case math.Abs(gpu-ours) <= gtVariance*ours:
					s.near11++
				default:
					s.mismatches11 = append(s.mismatches11, fmt.Sprintf("%s: ours %s, ncu %s", r.l.Name(), fmtNum(ours), fmtNum(gpu)))
				}
			}
		}
	}
	return stats
}

// wavefronts is our count of the wavefronts a shared-memory counter's
// direction made.
func wavefronts(r *gtLaunch, name string) float64 {
	return r.ours[strings.Replace(name, "data_bank_conflicts_pipe_lsu_mem_shared", "data_pipe_lsu_wavefronts_mem_shared", 1)]
}

func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}

// TestGroundTruthRuns: every selected launch runs, and the run took what
// the whole test suite can afford.
func TestGroundTruthRuns(t *testing.T) {
	runs := groundTruth(t)
	var total float64
	for _, r := range runs {
		assert.NoError(t, r.err, r.l.Name())
		total += r.secs
	}
	t.Logf("%d launches, %.1f s of runs", len(runs), total)
}

// TestGroundTruthExact: where ptxas kept the PTX's memory instructions one
// for one (same instructions of each group, same widths, in the committed
// SASS), requests, sectors, wavefronts, bank conflicts and texture requests
// equal ncu's, or differ by no more than ncu's own variance (gtVariance)
// or, for shared memory, the arbitration ncu adds (gtArbitration). The
// known exceptions are listed with their reason.
func TestGroundTruthExact(t *testing.T) {
	stats := gtStats(groundTruth(t))
	for _, c := range gtCounters {
		if !c.exact {
			continue
		}
		s := stats[c.key()]
		var unexplained []string
		for _, m := range s.mismatches11 {
			if reason := gtKnown(m); reason == "" {
				unexplained = append(unexplained, m)
			}
		}
		assert.Empty(t, unexplained, "%s differs from ncu where the PTX maps one to one onto the machine code", c.name)
		t.Logf("%-60s one-to-one %d/%d exact, %d within ncu's variance, %d arbitration; all %d/%d exact, %d within 10%%", c.name, s.exact11, s.n11, s.near11, s.arbitration11, s.exact, s.n, s.within)
	}
}

// gtKnownMismatches are the launches whose one-to-one counters still
// differ from ncu's, each with the reason (a prefix of the mismatch line).
var gtKnownMismatches = map[string]string{
	"tensor/O3/matmul_mma_cpasync: ours 4096, ncu 4864": "cp.async.cg of 16 bytes gathering row pieces (the A tile: 8 rows of 64 B a request; the B tile: 4 rows of 128 B): ncu counts 19 sectors a request where the bytes span 16, in the 1024² launch too (2,490,368 for 131,072 requests); the contiguous copies of pipeline_block and pipeline_prims count 16, as ours do. Not understood",
	"tensor/G/matmul_mma_cpasync: ours 4096, ncu 4864":  "as at -O3",
	"tensor2/O3/matmul_pipeline3: ours 4096, ncu 4864":  "the same gathering copies (cuda::memcpy_async of 16-byte row pieces) as matmul_mma_cpasync: 19 sectors a request for ncu",
}

func gtKnown(m string) string {
	for prefix, reason := range gtKnownMismatches {
		if strings.HasPrefix(m, prefix) {
			return reason
		}
	}
	return ""
}

// TestGroundTruthRates: L1 and L2 hit rates within 10 points and DRAM
// bytes within 10 % of ncu's, for at least the share of launches each
// counter reaches today (gtFloors); the README explains the rest.
func TestGroundTruthRates(t *testing.T) {
	stats := gtStats(groundTruth(t))
	for _, c := range gtCounters {
		if c.exact {
			continue
		}
		s := stats[c.key()]
		if s.n == 0 {
			continue
		}
		rate := float64(s.within) / float64(s.n)
		t.Logf("%-60s %d/%d within %s", c.key(), s.within, s.n, map[bool]string{true: "10 points", false: "10%"}[c.pct])
		if floor, ok := gtFloors[c.key()]; ok && !*gtFull {
			assert.GreaterOrEqual(t, rate, floor, "%s: %d of %d launches within tolerance", c.key(), s.within, s.n)
		}
	}
	if *gtTable != "" {
		require.NoError(t, os.WriteFile(*gtTable, []byte(gtMarkdown(stats)), 0o644))
	}
}

// gtFloors are the shares of the default selection's launches within
// tolerance today, rounded down: a change that loses accuracy fails.
var gtFloors = map[string]float64{
	"l1tex__t_sector_hit_rate.pct":                                      0.75,
	"l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct":            0.95,
	"lts__t_sector_hit_rate.pct":                                        0.42, // 0.45 before the SMs alternated between the L2's partitions (126 → 119 of 277: docs/timing-validation.md, "The L2 of the H200, adopted")
	"lts__t_sector_hit_rate.pct (launches with ≥ 6.4 MB of L2 traffic)": 0.75,
	"ptxvm__lts_srcunit_tex_read_hit_rate.pct":                          0.5,
	"lts__t_sectors_srcunit_tex_op_read.sum":                            0.5,
	"lts__t_sectors_srcunit_tex_op_write.sum":                           0.95,
	"dram__bytes_read.sum":                                              0.15,
}

func gtMarkdown(stats map[string]*gtStat) string {
	var b strings.Builder
	b.WriteString("| counter | compared | exact | within tolerance | one-to-one launches: exact + within ncu's variance + arbitration / all |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, c := range gtCounters {
		s := stats[c.key()]
		if s.n == 0 {
			continue
		}
		tol := "10 %"
		if c.pct {
			tol = "10 points"
		}
		pct := func(a, n int) string {
			if n == 0 {
				return "-"
			}
			return fmt.Sprintf("%d (%.0f %%)", a, 100*float64(a)/float64(n))
		}
		one := "-"
		if c.exact {
			one = fmt.Sprintf("%d + %d + %d / %d", s.exact11, s.near11, s.arbitration11, s.n11)
		}
		name := "`" + c.name + "`"
		if c.label != "" {
			name = "`" + c.name + "`" + strings.TrimPrefix(c.label, c.name)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s (%s) | %s |\n", name, s.n, pct(s.exact, s.n), pct(s.within, s.n), tol, one)
	}
	return b.String()
}

// TestGroundTruthWorst logs, with -v, the launches outside tolerance for
// each counter (what the README's explanations rest on).
func TestGroundTruthWorst(t *testing.T) {
	if !testing.Verbose() {
		t.Skip("run with -v to list the launches outside tolerance")
	}
	stats := gtStats(groundTruth(t))
	names := make([]string, 0, len(stats))
	for n := range stats {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, w := range stats[n].worst {
			t.Logf("%s: %s", n, w)
		}
	}
}
