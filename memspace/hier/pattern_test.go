package hier

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptxvm/ptxvm/memspace"
)

func TestPattern(t *testing.T) {
	tests := []struct {
		name string
		mask uint32
		addr func(l int) uint64
		want Pattern
	}{
		{"coalesced", all, func(l int) uint64 { return base + 4*uint64(l) }, Pattern{Lanes: 32, Size: 4, Distinct: 32, Stride: 4, Regular: true, First: base}},
		{"stride 32", all, func(l int) uint64 { return base + 128*uint64(l) }, Pattern{Lanes: 32, Size: 4, Distinct: 32, Stride: 128, Regular: true, First: base}},
		{"misaligned", all, func(l int) uint64 { return base + 4 + 4*uint64(l) }, Pattern{Lanes: 32, Size: 4, Distinct: 32, Stride: 4, Regular: true, First: base + 4}},
		{"uniform", all, func(l int) uint64 { return base + 64 }, Pattern{Lanes: 32, Size: 4, Distinct: 1, Stride: 0, Regular: true, First: base + 64}},
		{"irregular", all, func(l int) uint64 { return base + uint64(l*l) }, Pattern{Lanes: 32, Size: 4, Distinct: 32, First: base}},
		{"descending", 0xff, func(l int) uint64 { return base + 4*uint64(8-l) }, Pattern{Lanes: 8, Size: 4, Distinct: 8, Stride: -4, Regular: true, First: base + 32}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newTest(t, "h100")
			h.SM(3).Observe(acc(memspace.Global, memspace.Load, 4, tt.mask, tt.addr))
			assert.Equal(t, tt.want, h.Tally().Pattern(0))
		})
	}
}

// The pattern kept is the first access with the most lanes; over SMs, the
// lowest-numbered SM's among equals, whatever order the SMs ran in.
func TestPatternMerge(t *testing.T) {
	h := newTest(t, "h100")
	half := func(l int) uint64 { return base + 8*uint64(l) }
	full := func(l int) uint64 { return base + 4*uint64(l) }
	other := func(l int) uint64 { return base + 4096 + 4*uint64(l) }
	h.SM(5).Observe(acc(memspace.Global, memspace.Load, 4, 0xffff, half))
	h.SM(5).Observe(acc(memspace.Global, memspace.Load, 4, all, full))
	h.SM(2).Observe(acc(memspace.Global, memspace.Load, 4, all, other))
	h.SM(2).Observe(acc(memspace.Global, memspace.Load, 4, all, full))
	p := h.Tally().Pattern(0)
	assert.Equal(t, 32, p.Lanes)
	assert.Equal(t, base+4096, p.First, "SM 2's first full access")
	assert.Equal(t, Pattern{}, h.Tally().Pattern(7))
}
