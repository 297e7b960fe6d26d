package timing

import (
	"context"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
)

// The H100's reduce_shared blocks, phase by phase, recorded by
// testdata/perf/gen/micro/phases.cu (sched.sh) into
// testdata/perf/micro/sched/phases.jsonl.gz.

// phaseStats is a distribution as phases.cu gives it.
type phaseStats struct {
	Mean float64 `json:"mean"`
	P10  float64 `json:"p10"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
}

// phasesRecord is one "phases" line of phases.jsonl.gz.
type phasesRecord struct {
	Probe       string     `json:"probe"`
	Name        string     `json:"name"`
	Grid        uint32     `json:"grid"`
	BlocksPerSM int        `json:"blocks_per_sm"`
	N           int        `json:"n"`
	Loads       phaseStats `json:"loads"`
	Tree        phaseStats `json:"tree"`
	Life        phaseStats `json:"life"`
	Gap         phaseStats `json:"gap"`
	TreesAtOnce float64    `json:"trees_at_once"`
}

// statsOf is v's distribution as phases.cu computes it.
func statsOf(v []float64) phaseStats {
	sort.Float64s(v)
	var sum float64
	for _, x := range v {
		sum += x
	}
	at := func(p float64) float64 { return v[int(p*float64(len(v)-1)+0.5)] }
	return phaseStats{Mean: sum / float64(len(v)), P10: at(0.1), P50: at(0.5), P90: at(0.9)}
}

// modelPhases runs the phases probe r in the model and returns what
// phases.cu computes from its records.
func modelPhases(t *testing.T, prof *gpu.Profile, r phasesRecord) phasesRecord {
	cfg := vm.LaunchConfig{Grid: [3]uint32{r.Grid, 1, 1}, Block: [3]uint32{256, 1, 1}}
	l, dev, b := probeLaunch(t, "phases", "_Z5phasePjPKjjPy", cfg, buffer(uint64(r.Grid)*4), buffer(uint64(r.N)*4), r.N, buffer(uint64(r.Grid)*32))
	_, err := Run(context.Background(), l, prof, Options{BlocksPerSM: r.BlocksPerSM, Workers: 2})
	require.NoError(t, err)
	rec := readLE[uint64](t, dev, b[2], int(r.Grid)*4)
	bySM := map[uint64][]int{}
	for blk := 0; blk < int(r.Grid); blk++ {
		bySM[rec[4*blk]] = append(bySM[rec[4*blk]], blk)
	}
	out := r
	var loads, tree, life, gap []float64
	var seen, length float64
	first, last := prof.SMs*r.BlocksPerSM, int(r.Grid)-prof.SMs*r.BlocksPerSM
	for _, bs := range bySM {
		sort.Slice(bs, func(i, j int) bool { return rec[4*bs[i]+1] < rec[4*bs[j]+1] })
		for x, blk := range bs {
			s0, s1, s2 := rec[4*blk+1], rec[4*blk+2], rec[4*blk+3]
			if x >= r.BlocksPerSM {
				var prev uint64
				for _, o := range bs[:x] {
					if e := rec[4*o+3]; e <= s0 {
						prev = max(prev, e)
					}
				}
				if prev > 0 {
					gap = append(gap, float64(s0-prev))
				}
			}
			if blk < first || blk >= last {
				continue
			}
			loads = append(loads, float64(s1-s0))
			tree = append(tree, float64(s2-s1))
			life = append(life, float64(s2-s0))
			length += float64(s2 - s1)
			seen += float64(s2 - s1)
			for _, o := range bs {
				if o == blk {
					continue
				}
				if lo, hi := max(s1, rec[4*o+2]), min(s2, rec[4*o+3]); hi > lo {
					seen += float64(hi - lo)
				}
			}
		}
	}
	out.Loads, out.Tree, out.Life, out.Gap = statsOf(loads), statsOf(tree), statsOf(life), statsOf(gap)
	out.TreesAtOnce = seen / length
	return out
}

func phasesRecords(t *testing.T) []phasesRecord {
	return probeRecords(t, "phases.jsonl.gz", "phases", func(r *phasesRecord) string { return r.Probe })
}

// A block of reduce_shared alone on its SM, or with one other, lives as
// long on the model as on the H100 (within 10%), its loads and its tree
// too, and the two blocks' trees overlap as much. (With eight blocks per
// SM they do not: the H100's trees take 1.8 times as long as alone and
// overlap 3.7 at a time, the model's 1.1 times and 2.5; the shuffle /
// shared reduction pair's gap, testdata/perf/micro/README.md.)
func TestBlockPhasesMatchH100(t *testing.T) {
	prof := gpu.MustLookup("h100")
	n := 0
	for _, r := range phasesRecords(t) {
		if r.Name != "b1" && r.Name != "b2" {
			continue
		}
		n++
		t.Run(r.Name, func(t *testing.T) {
			m := modelPhases(t, prof, r)
			for _, x := range []struct {
				who string
				r   phasesRecord
			}{{"H100 ", r}, {"model", m}} {
				t.Logf("%s loads %4.0f, tree %4.0f (10th-90th percentile %4.0f-%4.0f), life %4.0f, slot gap %3.0f; trees at once %.2f",
					x.who, x.r.Loads.Mean, x.r.Tree.Mean, x.r.Tree.P10, x.r.Tree.P90, x.r.Life.Mean, x.r.Gap.Mean, x.r.TreesAtOnce)
			}
			assert.InEpsilon(t, r.Life.Mean, m.Life.Mean, 0.10, "a block's life")
			assert.InEpsilon(t, r.Loads.Mean, m.Loads.Mean, 0.10, "its loads")
			assert.InEpsilon(t, r.Tree.Mean, m.Tree.Mean, 0.10, "its tree")
			assert.InDelta(t, r.TreesAtOnce, m.TreesAtOnce, 0.15, "trees at once on an SM")
		})
	}
	assert.Equal(t, 2, n, "1 and 2 blocks per SM")
}
