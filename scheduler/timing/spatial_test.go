package timing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
)

// A slice of the GPU has whole L2 slices, as many in each partition, of
// the same size as the GPU's, the SMs and DRAM bandwidth in proportion,
// and the grid's first blocks in as many waves (a launch whose memory
// fits in the GPU's L2: the whole L2's capacity); by default one SM in 8
// for a launch of FewWaves waves or more, one in 13 for fewer (the H100:
// 17 and 10 SMs); a GPU too small for
// MinSliceSMs at the fraction asked, a fraction of 1 and a grid under
// MinSampleWaves waves of the slice are not sliced.
func TestSpatialSlice(t *testing.T) {
	h100, gf100 := gpu.MustLookup("h100"), gpu.MustLookup("gf100")
	for _, tc := range []struct {
		name                  string
		prof                  *gpu.Profile
		frac, n, occ          int
		sms, slices, channels int
		blocks                int
		none                  bool
		fits                  bool
	}{
		{name: "H100 default, 32 waves", prof: h100, frac: 0, n: 132 * 8 * 32, occ: 8, sms: 17, slices: 10, channels: 10, blocks: 4352},
		{name: "H100 default, 31 waves", prof: h100, frac: 0, n: 32768, occ: 8, sms: 10, slices: 6, channels: 6, blocks: 2482},
		{name: "H100 default, 15.5 waves", prof: h100, frac: 0, n: 16384, occ: 8, sms: 10, slices: 6, channels: 6, blocks: 1241},
		{name: "H100 eighth, 15.5 waves", prof: h100, frac: 8, n: 16384, occ: 8, sms: 17, slices: 10, channels: 10, blocks: 2110},
		{name: "H100 fits in the L2", prof: h100, frac: 0, n: 16384, occ: 8, sms: 10, slices: 6, channels: 6, blocks: 1241, fits: true},
		{name: "H100 quarter", prof: h100, frac: 4, n: 16384, occ: 8, sms: 33, slices: 20, channels: 20, blocks: 4096},
		{name: "whole GPU", prof: h100, frac: 1, n: 16384, occ: 8, none: true},
		{name: "too few waves", prof: h100, frac: 8, n: 132 * 8 * 3, occ: 8, none: true},
		{name: "GF100 too small", prof: gf100, frac: 8, n: 4096, occ: 8, none: true},
		{name: "GF100 half", prof: gf100, frac: 2, n: 4096, occ: 8, sms: 8, slices: 3, channels: 3, blocks: 2185},
	} {
		t.Run(tc.name, func(t *testing.T) {
			footprint := uint64(1 << 40)
			if tc.fits {
				footprint = 32 << 20
			}
			s := newSpatial(tc.prof, tc.frac, tc.n, tc.occ, footprint)
			if tc.none {
				assert.Nil(t, s)
				return
			}
			require.NotNil(t, s)
			m := &tc.prof.Memory
			assert.Equal(t, tc.sms, s.sms)
			assert.Equal(t, tc.sms, s.mem.SMs)
			assert.Equal(t, tc.slices, s.mem.L2.Slices)
			if tc.fits {
				// The whole L2's capacity, to whole sets of the slice's slices.
				assert.LessOrEqual(t, s.mem.L2.SizeBytes, m.L2.SizeBytes, "the whole L2's capacity")
				assert.Greater(t, s.mem.L2.SizeBytes, m.L2.SizeBytes-tc.slices*m.L2.Ways*m.LineBytes, "the whole L2's capacity")
				assert.Zero(t, s.mem.L2.SizeBytes%(tc.slices*m.L2.Ways*m.LineBytes), "whole sets")
				assert.True(t, s.wholeL2)
			} else {
				assert.Equal(t, m.L2.SizeBytes/m.L2.Slices, s.mem.L2.SizeBytes/s.mem.L2.Slices, "slices of the GPU's size")
			}
			assert.Zero(t, s.mem.L2.Slices%s.mem.L2.Partitions)
			assert.Equal(t, tc.channels, s.mem.DRAM.Channels)
			assert.InDelta(t, m.DRAM.BytesPerCycle*float64(tc.sms)/float64(tc.prof.SMs), s.mem.DRAM.BytesPerCycle, 1e-9)
			assert.Equal(t, tc.blocks, s.blocks)
			// The bound's part for the slice: 3% on 17 SMs or more, 4% on
			// fewer than 16 (the slice of 10).
			wantErr := map[int]float64{17: 0.03, 33: 0.03, 10: 0.04, 8: 0.04}[tc.sms]
			assert.InDelta(t, wantErr, s.errFraction(), 1e-12)
			assert.Equal(t, tc.prof.SMs, m.SMs, "the profile is not changed")
		})
	}
}
