package hier

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A read that finds its sectors valid in L2 while their DRAM fill is still
// on its way gets them when the first requester does (ncu counts it as a
// hit; the naive matmul's SMs read B's rows in step and all wait for one
// fill); after the fill it is an ordinary hit. Near (homed in the reader's
// partition) and far (a near copy) lines alike.
func TestL2HitOnFillInFlightWaits(t *testing.T) {
	h := newTest(t, "h100")
	m := h.Memory()
	lat := &m.cfg.Latency
	var near, far uint64
	for line := uint64(base >> 7); near == 0 || far == 0; line++ {
		if m.partitionOf(m.sliceOf(line)) == 0 {
			if near == 0 {
				near = line
			}
		} else if far == 0 {
			far = line
		}
	}
	tests := []struct {
		name string
		line uint64
		hit  uint32 // an ordinary hit's latency
	}{
		{"home slice", near, lat.L2HitNear},
		{"near copy", far, lat.L2HitNear},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := uint64(100000 * (i + 1))
			first := m.serve(txn{line: tt.line, mask: 0x3, op: opRead}, 0, t0, nil)
			assert.GreaterOrEqual(t, first, lat.DRAM, "the first read misses to DRAM")
			second := m.serve(txn{line: tt.line, mask: 0x3, op: opRead}, 0, t0+10, nil)
			assert.Equal(t, t0+uint64(first), t0+10+uint64(second), "a hit during the fill gets the data with the first read")
			late := t0 + uint64(first) + 1000
			assert.Equal(t, tt.hit, m.serve(txn{line: tt.line, mask: 0x3, op: opRead}, 0, late, nil), "after the fill: an ordinary hit")
		})
	}
}

// The table forgets a record whose cycle has passed and reuses its slot.
func TestPendingFillsExpire(t *testing.T) {
	p := newPendingFills()
	p.note(3, 42, 0x1, 500, 100)
	assert.Equal(t, uint64(500), p.until(3, 42, 0x1, 200))
	assert.Zero(t, p.until(3, 42, 0x2, 200), "other sectors are not in flight")
	assert.Zero(t, p.until(4, 42, 0x1, 200), "nor the line at another slice")
	assert.Zero(t, p.until(3, 42, 0x1, 500), "arrived")
	p.note(3, 42, 0x2, 900, 600)
	assert.Zero(t, p.until(3, 42, 0x1, 700), "a new fill replaces an arrived one's sectors")
	assert.Equal(t, uint64(900), p.until(3, 42, 0x2, 700))
}
