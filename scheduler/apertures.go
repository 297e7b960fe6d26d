package scheduler

import (
	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/vm/compare"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// Apertures returns the address ranges of p's buffers that are not device
// memory (spec Buffer.Memory): pinned and mapped buffers are system
// memory, managed buffers managed memory whose pages start on the host
// when the spec gives the buffer contents (the host wrote them) and
// untouched otherwise. cfg gives the managed page size.
func Apertures(p *spec.Prepared, cfg *hier.Config) []*hier.Aperture {
	var as []*hier.Aperture
	for _, b := range p.Spec.Buffers {
		mem := spec.MemoryOf(b)
		if mem == spec.MemDevice {
			continue
		}
		n := b.Count * uint64(compare.ElemSize(b.Type))
		if spec.OnHost(mem) {
			as = append(as, hier.NewAperture(hier.Sysmem, p.Buffers[b.Name], n, 0, 0))
			continue
		}
		initial := hier.PageUntouched
		if b.File != "" || b.Fill != nil {
			initial = hier.PageHost
		}
		as = append(as, hier.NewAperture(hier.Managed, p.Buffers[b.Name], n, cfg.HostLink.MigrateBytes, initial))
	}
	return as
}
