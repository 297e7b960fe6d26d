package program_test

import (
	"bufio"
	"context"
	"encoding/json"
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

// TestMixedL2AgainstGPU holds the timing model's loads and stores of
// L2-resident data to the H200 (testdata/host/hostmem9.jsonl, group mix;
// ncu_hostmem9_mix.csv.gz the same launches under Nsight Compute): each
// warp of 8, 132 or 264 blocks of 1,024 threads loads and stores words of
// two 8 MiB buffers the L2 holds (a kernel wrote one and read the other
// just before, as here: a program of three launches), coalesced or 32
// lines of one sector a warp. The model runs an eighth of the GPU's
// iterations; its rate in sectors a cycle must be within mixTol of the
// GPU's but for mixKnown, which are most of the launches: the model's
// slices move 32 bytes a cycle, reads and writes alike, where ncu shows
// the H200's L2 reading coalesced lines at 127-139 sectors a cycle
// (lts2xbar 76-79% busy), taking writes at up to 73 (xbar2lts 89-90%),
// and both together at up to 165 (docs/timing-validation.md, "Reads and
// writes mixed in the L2"). The default run takes three launches (ws on 8
// blocks holds the store port, timing.store_cycles_per_line); -hostfull
// all 33 (71 s on 2 idle cores, 2026-11-29: 12 within 15%, 21 known).
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
	gpu, err := scheduler.LookupProfile("h200")
	require.NoError(t, err)
	dir := t.TempDir()
	cache := spec.NewModuleCache()
	for _, r := range rows {
		if !*hostFull && r.Name != "rg_blocks132" && r.Name != "wc_blocks8" && r.Name != "ws_blocks8" {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			pattern := r.Name[:strings.LastIndex(r.Name, "_blocks")]
			kernel, ok := mixKernels[pattern]
			require.True(t, ok, pattern)
			iters := max(4, r.Iters/8)
			const n = 2 << 20 // words of each buffer
			js := fmt.Sprintf(`{"module": %q, "buffers": [{"name": "A", "type": "f32", "count": %d}, {"name": "B", "type": "f32", "count": %d}, {"name": "sink", "type": "f32", "count": 1}],
 "steps": [
  {"launch": {"kernel": "fill_all", "grid": [264], "block": [1024], "args": [{"buffer": "B"}, {"u32": %d}, {"f32": 1}]}},
  {"launch": {"kernel": "read_all", "grid": [264], "block": [1024], "args": [{"buffer": "A"}, {"u32": %d}, {"buffer": "sink"}]}},
  {"launch": {"kernel": %q, "grid": [%d], "block": [1024], "args": [{"buffer": "A"}, {"buffer": "B"}, {"u32": %d}, {"u32": %d}, {"buffer": "sink"}]}}],
 "outputs": []}`, ptx, n, n, n, n, kernel, r.Blocks, n, iters)
			path := filepath.Join(dir, r.Name+".json")
			require.NoError(t, os.WriteFile(path, []byte(js), 0o644))
			sp, err := spec.Load(path)
			require.NoError(t, err)
			run, err := program.Execute(context.Background(), sp, gpu, scheduler.Options{Workers: 2, Mode: scheduler.ModeTiming}, cache)
			require.NoError(t, err)
			defer run.Release()
			cycles := run.Steps[2].Metrics["sm__cycles_elapsed.max"]
			sectors := r.ReadSectors + r.WriteSectors
			model := sectors * float64(iters) / float64(r.Iters) / cycles
			real := sectors / (r.US * clockMHz)
			t.Logf("%-18s %6.1f sectors a cycle (GPU %6.1f, %+.0f%%)", r.Name, model, real, 100*(model/real-1))
			if reason, ok := mixKnown[pattern+"/"+fmt.Sprint(r.Blocks)]; ok {
				t.Logf("  known: %s", reason)
				return
			}
			assert.InEpsilon(t, real, model, mixTol, "%s: sectors a cycle", r.Name)
		})
	}
}

// mixKnown are the launches the model is not held to (pattern/blocks),
// with the reason (h200 profile, 2026-11-29).
var mixKnown = func() map[string]string {
	const (
		reads   = "coalesced reads: the H200's L2 returns 127-139 sectors a cycle (ncu: lts2xbar 76-79% busy; their near copies serve them, 0.01 M of 20 M sectors cross the fabric between the partitions), the model's 96 slices 32 bytes a cycle each (73-75 with the far lookups), a rate that stands in for the fabric (docs/timing-validation.md, \"The fabric between the L2's partitions\")"
		writes  = "coalesced writes: the H200's L2 takes 73 sectors a cycle (xbar2lts 89-90% busy, 56% of the sectors over the fabric); the model's launch is issue-bound (math_pipe_throttle) at 55, running 24% more instructions than the GPU's 35.2 M (ptxas's loop is shorter; not looked into)"
		mixed   = "reads and writes together: the H200 moves them on separate paths (lts2xbar out, xbar2lts in; up to 165 sectors a cycle in all, t_sectors_srcunit_tex 98-102%), the model's slices one queue for both at 32 bytes a cycle"
		partial = "one-sector partial writes: the H200's L2 takes 37 requests a cycle (xbar2lts 91-93%), the model's slices 31 (0.7 + 1.625 cycles a request, far ones at both partitions)"
		smSide  = "gathers and scattered stores together on 8 SMs: an H200 SM loads a line and sends a line written in part in about 3.5 cycles (0.28 each a cycle), the model in 2.4: its stores leave by a port of their own (timing.store_cycles_per_line 2.07, fitted on ws/8: 0.48 lines a cycle an SM), while on the GPU the gathers' lines and the stores' share a stage"
		latency = "coalesced loads on 8 SMs: the H200's SMs get 1.23 sectors a cycle each with four loads a warp in flight (ptxas unrolls the loop by four), the model 0.94; why was not looked into"
	)
	m := map[string]string{}
	for _, b := range []string{"132", "264"} {
		m["rc/"+b] = reads
		m["wc/"+b] = writes
		m["ws/"+b] = partial
		m["rc_ws/"+b] = partial
		m["rg_ws/"+b] = partial
		for _, p := range []string{"rc_wc", "rc2_wc", "rc4_wc", "rc_wc2"} {
			m[p+"/"+b] = mixed
		}
	}
	m["rg_ws/8"] = smSide
	m["rc/8"], m["rc4_wc/8"] = latency, latency
	return m
}()
