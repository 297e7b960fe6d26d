package program

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptxvm/ptxvm/memspace/hier"
)

// The managed buffer that gained the most resident bytes is the same in
// every run when two gained alike (the lowest base): it was the first in a
// map's random order, so identical programs left different L2 lines dirty.
func TestMigratedRangeTies(t *testing.T) {
	resident := func(base uint64) *hier.Aperture {
		return hier.NewAperture(hier.Managed, base, 1<<20, 64<<10, hier.PageDevice)
	}
	for range 20 {
		r := &Run{apertures: map[string]*hier.Aperture{
			"c": resident(0x30000000), "a": resident(0x10000000), "b": resident(0x20000000),
		}, residentBefore: map[string]uint64{}}
		base, bytes := r.migratedRange()
		assert.EqualValues(t, 0x10000000, base)
		assert.EqualValues(t, 1<<20, bytes)
	}
}
