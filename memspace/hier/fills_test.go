package hier

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fill table answers as a map of line to fill does: random puts and
// deletes on few lines (long probe chains, backward shifts across the
// wrap, growth), checked against a map after every step.
func TestFillTableMatchesMap(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		rng := rand.New(rand.NewPCG(seed, 0))
		var tab fillTable
		ref := map[uint64]fill{}
		for step := 0; step < 2000; step++ {
			line := rng.Uint64N(300)
			if rng.IntN(5) < 3 {
				f := tab.put(line)
				want, ok := ref[line]
				if !ok {
					want = fill{key: line + 1}
				}
				require.Equal(t, want, *f, "seed %d step %d: put of line %d", seed, step, line)
				f.group, f.mask, f.ready = uint64(step), uint8(step), rng.Uint64N(20)
				ref[line] = *f
			} else {
				tab.del(line)
				delete(ref, line)
			}
			for l := range uint64(300) {
				r, ok := ref[l]
				if f := tab.get(l); ok {
					require.NotNil(t, f, "seed %d step %d: line %d lost", seed, step, l)
					require.Equal(t, r, *f, "seed %d step %d: line %d", seed, step, l)
				} else {
					require.Nil(t, f, "seed %d step %d: line %d not deleted", seed, step, l)
				}
			}
			require.Equal(t, len(ref), tab.n)
		}
	}
}
