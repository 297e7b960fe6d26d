package program_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/program"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// mixRow is one launch of hostmem9's `mix` group.
type mixRow struct {
	Name         string  `json:"name"`
	US           float64 `json:"us"`
	Blocks       int     `json:"blocks"`
	Iters        int     `json:"iters"`
	ReadSectors  float64 `json:"read_sectors"`
	WriteSectors float64 `json:"write_sectors"`
}

// mixKernels are the mixk instantiations by pattern: R loads then W
// stores a lane an iteration, gathered/scattered (32 lines of a sector) or
// coalesced (one line of four).
var mixKernels = map[string]string{
	"rc": "_Z4mixkILi1ELi0ELb0ELb0EEvPKfPfjjS2_", "rg": "_Z4mixkILi1ELi0ELb1ELb0EEvPKfPfjjS2_",
	"wc": "_Z4mixkILi0ELi1ELb0ELb0EEvPKfPfjjS2_", "ws": "_Z4mixkILi0ELi1ELb0ELb1EEvPKfPfjjS2_",
	"rc_wc": "_Z4mixkILi1ELi1ELb0ELb0EEvPKfPfjjS2_", "rc2_wc": "_Z4mixkILi2ELi1ELb0ELb0EEvPKfPfjjS2_",
	"rc4_wc": "_Z4mixkILi4ELi1ELb0ELb0EEvPKfPfjjS2_", "rc_wc2": "_Z4mixkILi1ELi2ELb0ELb0EEvPKfPfjjS2_",
	"rg_wc": "_Z4mixkILi1ELi1ELb1ELb0EEvPKfPfjjS2_", "rc_ws": "_Z4mixkILi1ELi1ELb0ELb1EEvPKfPfjjS2_",
	"rg_ws": "_Z4mixkILi1ELi1ELb1ELb1EEvPKfPfjjS2_",
}

var (
	mixExact = flag.Bool("mix.exact", false, "TestMixedL2AgainstGPU runs the GPU's iteration counts, not two shorter launches extrapolated (about five times as long)")
	mixGPU   = flag.String("mix.gpu", "h200", "the GPU profile (a name or a file) TestMixedL2AgainstGPU runs on, to try a variant of the h200 profile; the known misses are the h200 profile's")
)

// TestMixedL2AgainstGPU holds the timing model's loads and stores of
// L2-resident data to the H200 (testdata/host/hostmem9.jsonl, group mix;
// ncu_hostmem9_mix.csv.gz the same launches under Nsight Compute): each
// warp of 8, 132 or 264 blocks of 1,024 threads loads and stores words of
// two 8 MiB buffers the L2 holds (a kernel wrote one and read the other
// just before, as here: a program of three launches), coalesced or 32
// lines of one sector a warp. The model's launch time at the GPU's
// iterations is extrapolated from two shorter launches (-mix.exact runs
// them); its rate in sectors a cycle must be within mixTol of the GPU's
// but for mixKnown (docs/timing-validation.md, "Reads and writes mixed in
// the L2"). The default run takes three launches; -hostfull all 33 (in
// parallel; 2026-11-29 on the h200 profile: 21 within 15%, mean |error|
// 14.1%).
func TestMixedL2AgainstGPU(t *testing.T) {
	const mixTol, clockMHz = 0.15, 1980
	f, err := os.Open(filepath.Join(hostDir, "hostmem9.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var rows []mixRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"group":"mix"`) {
			var r mixRow
			require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
			rows = append(rows, r)
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, rows, 33)
	ptx, err := filepath.Abs(filepath.Join(hostDir, "ptx", "hostmem9.O3.ptx"))
	require.NoError(t, err)
	gpu, err := scheduler.LookupProfile(*mixGPU)
	require.NoError(t, err)
	dir := t.TempDir()
	cache := spec.NewModuleCache()
	for _, r := range rows {
		if !*hostFull && r.Name != "rg_blocks132" && r.Name != "rc_blocks264" && r.Name != "ws_blocks8" {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			if *hostFull {
				t.Parallel()
			}
			pattern := r.Name[:strings.LastIndex(r.Name, "_blocks")]
			kernel, ok := mixKernels[pattern]
			require.True(t, ok, pattern)
			// cycles runs the program with the mix kernel looping iters
			// times and returns its launch's cycles.
			cycles := func(iters int) float64 {
				const n = 2 << 20 // words of each buffer
				js := fmt.Sprintf(`{"module": %q, "buffers": [{"name": "A", "type": "f32", "count": %d}, {"name": "B", "type": "f32", "count": %d}, {"name": "sink", "type": "f32", "count": 1}],
 "steps": [
  {"launch": {"kernel": "fill_all", "grid": [264], "block": [1024], "args": [{"buffer": "B"}, {"u32": %d}, {"f32": 1}]}},
  {"launch": {"kernel": "read_all", "grid": [264], "block": [1024], "args": [{"buffer": "A"}, {"u32": %d}, {"buffer": "sink"}]}},
  {"launch": {"kernel": %q, "grid": [%d], "block": [1024], "args": [{"buffer": "A"}, {"buffer": "B"}, {"u32": %d}, {"u32": %d}, {"buffer": "sink"}]}}],
 "outputs": []}`, ptx, n, n, n, n, kernel, r.Blocks, n, iters)
				path := filepath.Join(dir, fmt.Sprintf("%s_%d.json", r.Name, iters))
				require.NoError(t, os.WriteFile(path, []byte(js), 0o644))
				sp, err := spec.Load(path)
				require.NoError(t, err)
				run, err := program.Execute(context.Background(), sp, gpu, scheduler.Options{Workers: 2, Mode: scheduler.ModeTiming}, cache)
				require.NoError(t, err)
				defer run.Release()
				return run.Steps[2].Metrics["sm__cycles_elapsed.max"]
			}
			// The GPU's time is the whole launch's: its start (the launch,
			// the blocks', the first loads' latency) and its end come once.
			// The model runs a short launch and one twice as long and
			// extrapolates the difference, which is steady, to the GPU's
			// iterations (within 2.5% of running them all: -mix.exact).
			var model float64
			if *mixExact {
				model = cycles(r.Iters)
			} else {
				a := max(4, r.Iters/8)
				if mixShort[r.Name] && !*hostFull {
					a = max(4, r.Iters/16)
				}
				c1, c2 := cycles(a), cycles(2*a)
				model = c1 + (c2-c1)*float64(r.Iters-a)/float64(a)
			}
			sectors := r.ReadSectors + r.WriteSectors
			real := sectors / (r.US * clockMHz)
			model = sectors / model
			t.Logf("%-18s %6.1f sectors a cycle (GPU %6.1f, %+.0f%%)", r.Name, model, real, 100*(model/real-1))
			if reason, ok := mixKnown[pattern+"/"+fmt.Sprint(r.Blocks)]; ok {
				t.Logf("  known: %s", reason)
				return
			}
			assert.InEpsilon(t, real, model, mixTol, "%s: sectors a cycle", r.Name)
		})
	}
}

// mixShort are the default launches whose rate comes out the same from
// 1/16 and 1/8 of the GPU's iterations as from 1/8 and 1/4 (2026-11-29:
// rg_blocks132 77.1 against 77.2 sectors a cycle, ws_blocks8 3.8 and 3.8),
// which the default run extrapolates from the shorter pair (half the
// time). rc_blocks264 is not among them: 141.7 against 147.7, its start
// not yet steady at 36 iterations. -hostfull runs all at 1/8 and 1/4.
var mixShort = map[string]bool{"rg_blocks132": true, "ws_blocks8": true}

// mixKnown are the launches the model is not held to (pattern/blocks),
// with the reason (h200 profile, 2026-11-29, at the GPU's iterations).
var mixKnown = func() map[string]string {
	const (
		mixed   = "reads and writes together: the H200 moves them on separate paths (lts2xbar out, xbar2lts in; up to 165 sectors a cycle in all, t_sectors_srcunit_tex 98-102%), the model's slices one queue for both (reads at 58 bytes a cycle, writes at 32): 17-35% slow"
		writes  = "coalesced writes on 132 and 264 SMs: the H200's L2 takes 73 sectors a cycle (xbar2lts 89-90% busy, 56% of the sectors over the fabric); the model's launch is issue-bound (math_pipe_throttle) at 62, running 24% more instructions than the GPU's 35.2 M (ptxas's loop is shorter; not looked into): 15% slow"
		partial = "gathers with one-sector partial writes: the H200's L2 takes 37 write requests a cycle (xbar2lts 91-93%), the model's slices 31 (0.7 + 1.625 cycles a request, far ones at both partitions): 14-16% slow"
		smSide  = "gathers and stores together on 8 SMs: an H200 SM loads a line and sends a line written in part in about 3.5 cycles (0.28 each a cycle), the model in 2.4: its stores leave by a port of their own (timing.store_cycles_per_line 2.07, fitted on ws/8: 0.48 lines a cycle an SM), while on the GPU the gathers' lines and the stores' share a stage (+19% with coalesced stores, +64% with scattered)"
		reads   = "coalesced reads on 132 blocks: the model's slices read 58 bytes a cycle, the rate ncu's lts2xbar gives at 264 blocks (139 sectors a cycle; the model 148, +6%), while 132 blocks get 127 on the GPU and 148 in the model (+16%): the GPU's rate falls with fewer warps in flight, the model's does not"
		stores8 = "coalesced stores on 8 SMs: an H200 SM sends a line of four sectors in 4.2 cycles and a line of one sector in 2.05 (ws/8); the model charges a line 2.07 cycles whatever its sectors and its launch is issue-bound at 3.5 cycles a line: 18-19% fast here and with two stores a load (rc_wc2/8); a cost by the sector, about 0.7 a sector and 1.3 a line, is not fitted"
	)
	m := map[string]string{}
	for _, b := range []string{"132", "264"} {
		m["wc/"+b] = writes
		m["rg_ws/"+b] = partial
		for _, p := range []string{"rc2_wc", "rc4_wc", "rc_wc2"} {
			m[p+"/"+b] = mixed
		}
	}
	m["rc_wc/264"] = mixed
	m["rg_ws/8"], m["rg_wc/8"] = smSide, smSide
	m["wc/8"], m["rc_wc2/8"] = stores8, stores8
	m["rc/132"] = reads
	return m
}()
