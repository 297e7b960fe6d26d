package gpu

import "fmt"

// Host is what moving data between the host and the device costs outside
// kernels (scheduler/hostlink uses it): copies over the host link by the
// host memory's kind and direction, cudaMemset, and managed memory's
// prefetches and host touches. What host and managed memory cost inside a
// kernel is the memory section's host_link (memspace/hier).
type Host struct {
	// Link names the link the figures are of ("PCIe Gen5 x16").
	Link string `json:"link,omitempty"`
	// Source says where the figures come from.
	Source string `json:"source,omitempty"`
	// Copies by host memory and direction: h2d_pageable, d2h_pageable,
	// h2d_pinned, d2h_pinned, h2d_write_combined, d2h_write_combined.
	Copies map[string]Rate `json:"copies"`
	// PrefetchToDevice and PrefetchToHost are cudaMemPrefetchAsync of
	// managed memory; HostTouch is the host's first touch of managed
	// memory on the device (its pages migrate back one fault at a time).
	PrefetchToDevice Rate `json:"prefetch_to_device"`
	PrefetchToHost   Rate `json:"prefetch_to_host"`
	HostTouch        Rate `json:"host_touch"`
	// MemsetLatencyUS is a cudaMemset's fixed cost; its bytes go at the
	// DRAM's bandwidth.
	MemsetLatencyUS float64 `json:"memset_latency_us"`
	// LaunchOverheadUS is what a kernel launch adds to a program beyond
	// the kernel's duration (gpu__time_duration): the launch as CUDA
	// events around it see it.
	LaunchOverheadUS float64 `json:"launch_overhead_us"`
	// AfterTransferUS is what the first launch after data came to the
	// device (a copy, or an earlier launch's faults on managed memory)
	// adds to the program beyond LaunchOverheadUS; AfterPrefetchUS the
	// same after a prefetch of managed memory to the device.
	AfterTransferUS float64 `json:"after_transfer_us,omitempty"`
	AfterPrefetchUS float64 `json:"after_prefetch_us,omitempty"`
	// AfterPrefetchGrowth is what that launch pays beyond
	// AfterPrefetchUS for the bytes prefetched to the device since the
	// last launch; AfterPageableNew what it pays beyond AfterTransferUS
	// for the bytes that pageable copies put into buffers no launch had
	// used yet (a pinned copy, or a pageable copy into a buffer kernels
	// have used, pays AfterTransferUS alone). Fitted on the H200's
	// recordings (testdata/host, docs/host-memory.md "The first launch
	// grows with what arrived").
	AfterPrefetchGrowth Growth `json:"after_prefetch_growth,omitzero"`
	AfterPageableNew    Growth `json:"after_pageable_new,omitzero"`
	// HostCacheBytes: host data beyond this size moves at a Rate's
	// BeyondCacheGBPerS (it is no longer in the host's last-level cache).
	HostCacheBytes int64 `json:"host_cache_bytes,omitempty"`
}

// Growth is a cost that grows with the bytes that arrived up to a ceiling:
// PerMiBUS a MiB (2^20 bytes), at most MaxUS.
type Growth struct {
	PerMiBUS float64 `json:"per_mib_us"`
	MaxUS    float64 `json:"max_us"`
}

// US is the cost of bytes.
func (g Growth) US(bytes uint64) float64 {
	return min(g.PerMiBUS*float64(bytes)/(1<<20), g.MaxUS)
}

// Rate is a transfer's cost: LatencyUS plus the bytes at GBPerS (10⁹
// bytes a second), or at BeyondCacheGBPerS (if not 0) for more than
// Host.HostCacheBytes.
type Rate struct {
	LatencyUS         float64 `json:"latency_us"`
	GBPerS            float64 `json:"gb_per_s"`
	BeyondCacheGBPerS float64 `json:"beyond_cache_gb_per_s,omitempty"`
	// ColdGBPerS (if not 0) is the rate whenever the host bytes are not
	// in the host's cache, whatever their size: a pageable copy to the
	// device of a buffer the CPU wrote, or a copy wrote, since the same
	// copy last ran.
	ColdGBPerS float64 `json:"cold_gb_per_s,omitempty"`
}

// Copy kinds (Host.Copies keys): direction, then host memory.
var CopyKinds = []string{"h2d_pageable", "d2h_pageable", "h2d_pinned", "d2h_pinned", "h2d_write_combined", "d2h_write_combined"}

func (h *Host) validate() error {
	if h.Copies == nil {
		return nil // no host section: the host link is not modelled
	}
	check := func(what string, r Rate) error {
		if r.LatencyUS < 0 || r.GBPerS <= 0 || r.BeyondCacheGBPerS < 0 || r.ColdGBPerS < 0 {
			return fmt.Errorf("host.%s: latency_us must not be negative and gb_per_s must be positive", what)
		}
		return nil
	}
	for _, k := range CopyKinds {
		r, ok := h.Copies[k]
		if !ok {
			return fmt.Errorf("host.copies: %s is missing", k)
		}
		if err := check("copies."+k, r); err != nil {
			return err
		}
	}
	for k := range h.Copies {
		known := false
		for _, c := range CopyKinds {
			known = known || c == k
		}
		if !known {
			return fmt.Errorf("host.copies: unknown kind %q (known: %v)", k, CopyKinds)
		}
	}
	for what, r := range map[string]Rate{"prefetch_to_device": h.PrefetchToDevice, "prefetch_to_host": h.PrefetchToHost, "host_touch": h.HostTouch} {
		if err := check(what, r); err != nil {
			return err
		}
	}
	if h.MemsetLatencyUS < 0 || h.HostCacheBytes < 0 || h.LaunchOverheadUS < 0 || h.AfterTransferUS < 0 || h.AfterPrefetchUS < 0 {
		return fmt.Errorf("host: memset_latency_us, launch_overhead_us, after_transfer_us, after_prefetch_us and host_cache_bytes must not be negative")
	}
	for what, g := range map[string]Growth{"after_prefetch_growth": h.AfterPrefetchGrowth, "after_pageable_new": h.AfterPageableNew} {
		if g.PerMiBUS < 0 || g.MaxUS < 0 {
			return fmt.Errorf("host.%s: per_mib_us and max_us must not be negative", what)
		}
	}
	return nil
}
