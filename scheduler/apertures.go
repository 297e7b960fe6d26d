package scheduler

import (
	"slices"

	"github.com/ptxvm/ptxvm/memspace"
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
	// The module's managed variables (.global .attribute(.managed)): on
	// the host when they have an initializer or the spec writes them.
	given := map[string]bool{}
	for _, b := range p.Spec.Symbols {
		given[b.Name] = b.File != "" || b.Fill != nil
	}
	if p.Module != nil {
		for _, s := range p.Module.Symbols() {
			if s.Space != memspace.Global || s.Decl == nil || s.Size == 0 || !slices.Contains(s.Decl.Attrs, ".managed") {
				continue
			}
			initial := hier.PageUntouched
			if given[s.Name] || s.Decl.HasInit {
				initial = hier.PageHost
			}
			as = append(as, hier.NewAperture(hier.Managed, s.Addr, s.Size, cfg.HostLink.MigrateBytes, initial))
		}
	}
	return as
}
