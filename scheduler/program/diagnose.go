package program

import (
	"fmt"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// Share is the part of a program's time one kind of step takes.
type Share struct {
	What   string // "pageable copies", "pinned copies", "kernels", ...
	TimeUS float64
	Pct    float64
}

// Shares splits a timed program's time by kind of step: copies by host
// memory, the host's touches of managed memory, prefetches, memsets and
// kernels. Kinds that take no time are left out.
func (r *Run) Shares() []Share {
	order := []string{}
	t := map[string]float64{}
	for _, s := range r.Steps {
		k := map[string]string{spec.StepMemset: "memsets", spec.StepPrefetch: "prefetches"}[s.Kind]
		switch {
		case s.Kind == spec.StepCopy && s.Engine == EngineHost:
			k = "host touches of managed memory"
		case s.Kind == spec.StepCopy:
			k = s.HostMemory + " copies"
		case s.Kind == spec.StepLaunch:
			k = "kernels"
		}
		if _, ok := t[k]; !ok {
			order = append(order, k)
		}
		t[k] += s.TimeUS
	}
	var out []Share
	for _, k := range order {
		if t[k] <= 0 {
			continue
		}
		pct := 0.0
		if r.TimeUS > 0 {
			pct = 100 * t[k] / r.TimeUS
		}
		out = append(out, Share{What: k, TimeUS: t[k], Pct: pct})
	}
	return out
}

// Diagnose says in plain words where a timed program's time goes and what
// would cut it: pageable copies that pinned memory would speed up, first
// touches of managed memory that a prefetch would move ahead of the
// kernel, kernels bound by mapped memory's link. Nothing for an untimed
// run.
func (r *Run) Diagnose() []string {
	if !r.Timed || r.TimeUS <= 0 {
		return nil
	}
	var out []string
	// Pageable copies.
	var pageable, pinned float64
	for _, s := range r.Steps {
		if s.Kind == spec.StepCopy && s.HostMemory == spec.HostPageable {
			pageable += s.TimeUS
			us, err := CopyUS(r.GPU, s.Bytes, s.To, spec.HostPinned)
			if err != nil {
				return out
			}
			pinned += us
		}
	}
	if pageable > 0.2*r.TimeUS {
		out = append(out, fmt.Sprintf("%.0f%% of the program is pageable copies (%s): the driver stages them through a pinned buffer; from pinned memory (cudaMallocHost) they would take about %s, the program about %s.",
			100*pageable/r.TimeUS, US(pageable), US(pinned), US(r.TimeUS-pageable+pinned)))
	}
	for _, s := range r.Steps {
		if s.Kind != spec.StepLaunch || s.Launch == nil {
			continue
		}
		if s.Migrated > 0 && s.TimeUS > 0 {
			pf, err := PrefetchUS(r.GPU, s.Migrated, "device")
			if err == nil {
				faults := "a fault migrates"
				if s.Faults != 1 {
					faults = fmt.Sprintf("%d faults migrate", s.Faults)
				}
				out = append(out, fmt.Sprintf("step %d (%s) touches %s of managed memory that is on the host: %s it during the kernel, which takes %s; a prefetch to the device before it (cudaMemPrefetchAsync) would move it in about %s.",
					s.Index, s.What, BytesText(s.Migrated), faults, US(s.TimeUS), US(pf)))
			}
		}
		if h := s.Launch.Hier; h != nil {
			c := h.Counts()
			rd, wr := c[hier.HostLinkReadBytes], c[hier.HostLinkWriteBytes]
			link := rd + wr
			if link > 0 && s.TimeUS > 0 {
				msg := fmt.Sprintf("step %d (%s) reads %s and writes %s of mapped or pinned memory over the host link (%.1f and %.1f GB/s)",
					s.Index, s.What, BytesText(rd), BytesText(wr), float64(rd)/(s.TimeUS*1e3), float64(wr)/(s.TimeUS*1e3))
				if req := c[hier.GlobalLdBytes] + c[hier.GlobalStBytes]; req > 0 && link > 2*req {
					msg += fmt.Sprintf(", %.1f times the %s its threads asked for: a sector crosses the link for each scattered access; coalesce the accesses or copy the buffer to the device first", float64(link)/float64(req), BytesText(req))
				}
				out = append(out, msg+".")
			}
		}
	}
	if len(out) == 0 {
		for _, sh := range r.Shares() {
			if sh.Pct >= 50 {
				out = append(out, fmt.Sprintf("%s take %.0f%% of the program (%s).", sh.What, sh.Pct, US(sh.TimeUS)))
			}
		}
	}
	return out
}

// US formats microseconds for people: "642.8 µs", "12.31 ms".
func US(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.3f s", us/1e6)
	case us >= 1e4:
		return fmt.Sprintf("%.2f ms", us/1e3)
	}
	return fmt.Sprintf("%.1f µs", us)
}

// BytesText formats a byte count for people: "16.0 MiB", "512 B".
func BytesText(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
