package timing

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace/hier"
)

// A window's groups go out once each: worker w first takes its own share
// from the front, then what is left of the others' from their backs; with
// workers taking at once, every group still goes to exactly one of them.
func TestShares(t *testing.T) {
	for _, c := range []struct {
		groups, workers int
		one             []int // the order worker 0 takes them in alone
	}{
		{1, 1, []int{0}},
		{5, 1, []int{0, 1, 2, 3, 4}},
		{5, 2, []int{0, 1, 4, 3, 2}},
		{7, 3, []int{0, 1, 3, 2, 6, 5, 4}},
		{2, 4, []int{0, 1}}, // shares of no group
	} {
		sh := newShares(c.workers)
		sh.reset(c.groups)
		var got []int
		for g := sh.take(0); g >= 0; g = sh.take(0) {
			got = append(got, g)
		}
		assert.Equal(t, c.one, got, "%+v", c)
		for w := range c.workers {
			assert.Equal(t, -1, sh.take(w), "nothing left after a window")
		}
	}
	const groups, workers, windows = 132, 4, 200
	sh := newShares(workers)
	for range windows {
		sh.reset(groups)
		taken := make([][]int, workers)
		var wg sync.WaitGroup
		wg.Add(workers)
		for w := range workers {
			go func() {
				defer wg.Done()
				for g := sh.take(w); g >= 0; g = sh.take(w) {
					taken[w] = append(taken[w], g)
				}
			}()
		}
		wg.Wait()
		seen := make([]int, groups)
		for _, gs := range taken {
			for _, g := range gs {
				seen[g]++
			}
		}
		for g, n := range seen {
			require.Equal(t, 1, n, "group %d", g)
		}
	}
}

// A timed run gives the same result on any number of workers, the groups
// going to whichever is free (shares) and the SMs dating their own fills
// (hier.Hierarchy.DeferFills): counters, cycles, stalls per instruction,
// the hierarchy's counts and the trace.
func TestWorkersSameResult(t *testing.T) {
	type seen struct {
		Cycles, Busy, Issued, ThreadIssued, WarpCycles, SMCycles uint64
		Stalls                                                   Stalls
		Windows                                                  int
		CTAsPerSM                                                []int
		Insts                                                    []InstStats
		Counts                                                   hier.Counts
		Trace                                                    string
	}
	run := func(workers int) seen {
		tr := &Trace{}
		r := runKernel(t, "matmul_tiled", 192, Options{Workers: workers, Trace: tr})
		var b strings.Builder
		require.NoError(t, tr.WriteJSON(&b))
		for i := range r.Insts {
			r.Insts[i].Info = nil // pointers into each run's program
		}
		return seen{r.Cycles, r.Busy, r.Issued, r.ThreadIssued, r.WarpCycles, r.SMCycles, r.Stalls, r.Windows, r.CTAsPerSM, r.Insts, r.Hier.Counts(), b.String()}
	}
	one := run(1)
	require.Positive(t, one.Windows)
	for _, w := range []int{2, 3, 7} {
		assert.Equal(t, one, run(w), "%d workers", w)
	}
}
