package timing_test

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// sourceSamples is what Nsight Compute's source page holds for one launch
// of the perf corpus's calibration (ncu --page source).
type sourceSamples struct {
	// lines: "file:line" → reason → samples, from the source-line rows.
	lines map[string]map[string]float64
	// sass: the machine instructions in address order, once each.
	sass []sassRow
}

// sassRow is one machine instruction of a launch's source page.
type sassRow struct {
	text    string             // "@!P0  LDG.E R2, desc[UR4][R4.64]"
	execs   float64            // warp-level executions
	samples map[string]float64 // reason → samples ("all": every sample)
}

// readSourceSamples reads the calibration launches' source pages by case.
func readSourceSamples(t *testing.T) map[string]*sourceSamples {
	root := "../../testdata/perf"
	b, err := os.ReadFile(filepath.Join(root, "manifest.json"))
	require.NoError(t, err)
	var m struct {
		Supplement struct {
			Source struct {
				Launches []struct{ Case string } `json:"launches"`
			} `json:"source_calib_O3"`
		} `json:"supplement"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	f, err := os.Open(filepath.Join(root, "ncu/source/calib.O3.cuda_sass.csv.gz"))
	require.NoError(t, err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	r := csv.NewReader(gz)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true // CUDA source text with its own quotes
	recs, err := r.ReadAll()
	require.NoError(t, err)
	out := map[string]*sourceSamples{}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		if err != nil {
			return 0
		}
		return v
	}
	// A launch is one section per source file of its kernel: a section of
	// another function, or of a file the launch already had, starts the
	// next launch. Each section lists the kernel's machine code again.
	launch, file, fn := -1, "", ""
	seen := map[string]bool{}
	addrs := map[string]bool{}
	var head []string
	for _, rec := range recs {
		switch {
		case len(rec) == 2 && rec[0] == "File Path":
			file = rec[1]
			continue
		case len(rec) == 2 && rec[0] == "Function Name":
			if rec[1] != fn || seen[file] {
				launch++
				clear(seen)
				clear(addrs)
			}
			fn = rec[1]
			seen[file] = true
			continue
		case len(rec) > 0 && rec[0] == "Line No":
			head = rec
			continue
		}
		if len(rec) != len(head) || head == nil || launch >= len(m.Supplement.Source.Launches) {
			continue
		}
		c := m.Supplement.Source.Launches[launch].Case
		if out[c] == nil {
			out[c] = &sourceSamples{lines: map[string]map[string]float64{}}
		}
		ss := out[c]
		reasons := map[string]float64{}
		for i, h := range head {
			reason, ok := strings.CutPrefix(h, "stall_")
			if !ok || strings.Contains(reason, "(") {
				continue
			}
			if v := num(rec[i]); v != 0 {
				reasons[reason] += v
			}
		}
		switch {
		case rec[0] != "": // a source line
			where := filepath.Base(file) + ":" + rec[0]
			if ss.lines[where] == nil {
				ss.lines[where] = map[string]float64{}
			}
			for reason, v := range reasons {
				ss.lines[where][reason] += v
			}
		case strings.HasPrefix(rec[2], "0x") && !addrs[rec[2]]: // a machine instruction
			addrs[rec[2]] = true
			reasons["all"] = num(rec[slices.Index(head, "Warp Stall Sampling (All Samples)")])
			ss.sass = append(ss.sass, sassRow{text: strings.TrimSpace(rec[3]), execs: num(rec[slices.Index(head, "Instructions Executed")]), samples: reasons})
		}
	}
	return out
}

// lineSamples is readSourceSamples's per-line samples: launch case →
// "file:line" → reason → samples.
func lineSamples(t *testing.T) map[string]map[string]map[string]float64 {
	out := map[string]map[string]map[string]float64{}
	for c, ss := range readSourceSamples(t) {
		out[c] = ss.lines
	}
	return out
}

// ncu's sample names for our stall reasons.
var sampleName = map[timing.Stall]string{
	timing.LongScoreboard: "long_sb", timing.ShortScoreboard: "short_sb", timing.Wait: "wait",
	timing.Barrier: "barrier", timing.MIOThrottle: "mio", timing.LGThrottle: "lg", timing.TexThrottle: "tex",
	timing.MathPipeThrottle: "math", timing.NotSelected: "not_selected", timing.BranchResolving: "branch_resolving",
	timing.NoInstruction: "no_inst", timing.Membar: "membar", timing.DispatchStall: "dispatch", timing.Selected: "selected",
}

// top returns the line with the most samples other than "selected", and
// its largest reason.
func top(lines map[string]map[string]float64) (string, string) {
	best, bestN := "", 0.0
	for w, rs := range lines {
		n := 0.0
		for r, v := range rs {
			if r != "selected" {
				n += v
			}
		}
		if n > bestN || n == bestN && w < best {
			best, bestN = w, n
		}
	}
	reason, rn := "", 0.0
	for r, v := range lines[best] {
		if r != "selected" && v > rn {
			reason, rn = r, v
		}
	}
	return best, reason
}

// The per-line attribution agrees with the GPU's: for the mission kernels
// the CUDA line where the warps stalled most, and why, is the one Nsight
// Compute's PC sampling names.
func TestStallLinesMatchGPU(t *testing.T) {
	samples := lineSamples(t)
	ls, err := ncu.ReadAll("../../testdata")
	require.NoError(t, err)
	byCase := map[string]*ncu.Launch{}
	for _, l := range ls {
		if l.Corpus == "perf" && l.Table == "calib.O3" {
			byCase[l.Case] = l
		}
	}
	prof := gpu.MustLookup("h100")
	for _, c := range []string{"matmul_tiled_256", "transpose_naive_1024", "transpose_shared_1024", "transpose_padded_1024"} {
		t.Run(c, func(t *testing.T) {
			l := byCase[c]
			require.NotNil(t, l)
			gpuLine, gpuReason := top(samples[c])
			require.NotEmpty(t, gpuLine)
			res := timedGPULaunch(t, l, prof)
			ours := map[string]map[string]float64{}
			for _, ln := range res.Timing.Lines() {
				ours[ln.Where] = map[string]float64{}
				for s := timing.Stall(0); s < timing.NumStalls; s++ {
					if v := ln.Stalls[s.String()]; v > 0 {
						ours[ln.Where][sampleName[s]] = float64(v)
					}
				}
			}
			line, reason := top(ours)
			assert.Equal(t, gpuLine, line, "the line warps stall at most: %s", summary(samples[c]))
			// The model's reason there is the GPU's, or a close second of
			// the GPU's (at least half its samples): transpose_shared's
			// line 28 is 177 long_scoreboard and 98 mio_throttle samples on
			// the GPU, and its predicated stores wait more on the MIO
			// queue than on their loads in the model.
			g := samples[c][gpuLine]
			assert.True(t, reason == gpuReason || g[reason] >= g[gpuReason]/2, "why, at %s: the GPU says %s (%v), the model %s", line, gpuReason, g, reason)
		})
	}
}

func summary(lines map[string]map[string]float64) string {
	type kv struct {
		w string
		n float64
	}
	var all []kv
	for w, rs := range lines {
		n := 0.0
		for r, v := range rs {
			if r != "selected" {
				n += v
			}
		}
		all = append(all, kv{w, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n })
	var b strings.Builder
	for _, x := range all[:min(4, len(all))] {
		fmt.Fprintf(&b, "%s %.0f; ", x.w, x.n)
	}
	return b.String()
}

// ncu's per-issue stall ratios, every reason it reports: their sum times
// the instructions issued is the launch's warp-cycles, which its samples
// divide into.
var ncuStallRatios = []string{"barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
	"long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction", "not_selected",
	"selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"}

var (
	sassGuard = regexp.MustCompile(`^@!?(P\d)\s`)
	sassSetp  = regexp.MustCompile(`^ISETP\.\S+ (P\d), PT, ([^;]*)$`)
)

// On the H100 an instruction guarded by the predicate that the ISETP just
// before it writes waits for it far longer than an ISETP that takes the
// predicate as an operand: Nsight Compute's wait samples per machine
// instruction, over the calibration launches, scaled to warp-cycles. The
// profile's ALU latency gives the operand's wait, the ALU latency plus
// timing.guard_cycles the guard's (each within 1.5 cycles).
func TestGuardLatencyMatchesSASSSamples(t *testing.T) {
	ls, err := ncu.Read("../../testdata/perf/ncu/calib.O3.csv.gz")
	require.NoError(t, err)
	byCase := map[string]*ncu.Launch{}
	for _, l := range ls {
		byCase[l.Case] = l
	}
	var guard, operand [2]float64 // wait cycles, executions
	for c, ss := range readSourceSamples(t) {
		l := byCase[c]
		require.NotNil(t, l, c)
		cycles := 0.0
		for _, r := range ncuStallRatios {
			v, _ := l.Value("smsp__average_warps_issue_stalled_" + r + "_per_issue_active.ratio")
			cycles += v
		}
		cycles *= float64(l.Int("smsp__inst_executed.sum"))
		samples := 0.0
		for _, row := range ss.sass {
			samples += row.samples["all"]
		}
		if samples == 0 {
			continue
		}
		for i := 1; i < len(ss.sass); i++ {
			prev, row := ss.sass[i-1], ss.sass[i]
			m := sassSetp.FindStringSubmatch(prev.text)
			if m == nil || row.execs == 0 || row.execs != prev.execs {
				continue
			}
			w := row.samples["wait"] * cycles / samples
			if g := sassGuard.FindStringSubmatch(row.text); g != nil && g[1] == m[1] {
				guard[0] += w
				guard[1] += row.execs
			} else if strings.HasPrefix(row.text, "ISETP") && strings.HasSuffix(row.text, ", "+m[1]) {
				operand[0] += w
				operand[1] += row.execs
			}
		}
	}
	require.Positive(t, guard[1])
	require.Positive(t, operand[1])
	gw, ow := guard[0]/guard[1], operand[0]/operand[1]
	tc := gpu.MustLookup("h100").Timing
	alu := float64(tc.Pipes["alu"].Latency)
	t.Logf("H100: guarded by the ISETP before: %.1f cycles' wait (%.0f executions); its predicate as an operand: %.1f (%.0f)", gw, guard[1], ow, operand[1])
	assert.InDelta(t, gw, alu+float64(tc.GuardCycles)-1, 1.5, "guard: alu latency %v + guard_cycles %d - 1", alu, tc.GuardCycles)
	assert.InDelta(t, ow, alu-1, 1.5, "operand: alu latency %v - 1", alu)
}
