package vm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunCTAs: blocks run together give RunCTA's bytes and counts for any
// quantum, and their warps' accesses interleave: with a small quantum the
// first accesses come from every block before any block finishes.
func TestRunCTAs(t *testing.T) {
	const n = 64 // 4×4 blocks of 16×16 threads
	ref := tiledMatmul(t, n)
	sm := ref.Launch.NewSM(0)
	for i := 0; i < ref.Launch.NumCTAs(); i++ {
		require.NoError(t, sm.RunCTA(i))
	}
	want, err := ref.Outputs()
	require.NoError(t, err)
	for _, quantum := range []int{0, 1, 7, 32, 1 << 20} {
		s := tiledMatmul(t, n)
		sm := s.Launch.NewSM(0)
		rec := &recorder{}
		sm.Observer = rec
		for first := 0; first < s.Launch.NumCTAs(); first += 4 {
			require.NoError(t, sm.RunCTAs([]int{first, first + 1, first + 2, first + 3}, quantum))
		}
		got, err := s.Outputs()
		require.NoError(t, err)
		require.Equal(t, want, got, "quantum %d", quantum)
		assert.Equal(t, ref.Launch.NumCTAs(), int(sm.Stats.CTAs))
		assert.Equal(t, uint64(s.Launch.InstExecuted()), sm.Stats.Inst)
		assert.Empty(t, sm.Resident(), "every block retired")
		// Block 3 of each group starts before block 0 ends.
		first3, last0 := -1, -1
		for i, a := range rec.got {
			if a.Origin.CTA == 3 && first3 < 0 {
				first3 = i
			}
			if a.Origin.CTA == 0 {
				last0 = i
			}
		}
		assert.Less(t, first3, last0, "quantum %d: the blocks' accesses interleave (at barriers at least)", quantum)
	}
}

// The instruction budget stops RunCTAs, and the blocks are retired.
func TestRunCTAsBudget(t *testing.T) {
	s := tiledMatmul(t, 32)
	s.Launch.MaxInst = 100
	sm := s.Launch.NewSM(0)
	err := sm.RunCTAs([]int{0, 1, 2, 3}, 8)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "instruction budget exhausted")
	assert.Empty(t, sm.Resident(), "blocks are retired on an error too")
}
