package timing

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
