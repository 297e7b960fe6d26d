package program

import (
	"fmt"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// rateUS is a transfer of n bytes at rate r (µs), with cacheBytes the
// host's cache (Host.HostCacheBytes).
func rateUS(r gpu.Rate, n uint64, cacheBytes int64) float64 {
	bw := r.GBPerS
	if r.BeyondCacheGBPerS > 0 && cacheBytes > 0 && n > uint64(cacheBytes) {
		bw = r.BeyondCacheGBPerS
	}
	return r.LatencyUS + float64(n)/(bw*1e3)
}

// hostSection returns the profile's host section, or an error saying the
// profile does not time transfers.
func hostSection(p *gpu.Profile) (*gpu.Host, error) {
	if p.Host.Copies == nil {
		return nil, fmt.Errorf("the %s profile has no host section: its copies, memsets and prefetches cannot be timed", p.Name)
	}
	return &p.Host, nil
}

// copyKind is the Host.Copies key of a copy to (device or host) from or
// to host memory hm.
func copyKind(to, hm string) string {
	dir := "h2d_"
	if to == "host" {
		dir = "d2h_"
	}
	if hm == "" {
		hm = spec.HostPageable
	}
	return dir + hm
}

// CopyUS is the modelled time of a cudaMemcpy of n bytes to the device
// or the host, the host side in host memory hm (pageable, pinned,
// write_combined), its host bytes not in the host's cache (the first copy
// of data the CPU wrote).
func CopyUS(p *gpu.Profile, n uint64, to, hm string) (float64, error) {
	return copyUS(p, n, to, hm, false)
}

// copyUS is CopyUS where warm says the host side's bytes are in the
// host's cache (the same pageable copy to the device ran last): a rate with
// a ColdGBPerS runs at it unless warm.
func copyUS(p *gpu.Profile, n uint64, to, hm string, warm bool) (float64, error) {
	h, err := hostSection(p)
	if err != nil {
		return 0, err
	}
	r, ok := h.Copies[copyKind(to, hm)]
	if !ok {
		return 0, fmt.Errorf("the %s profile has no rate for %s copies", p.Name, copyKind(to, hm))
	}
	if r.ColdGBPerS > 0 && !warm {
		return r.LatencyUS + float64(n)/(r.ColdGBPerS*1e3), nil
	}
	return rateUS(r, n, h.HostCacheBytes), nil
}

// MemsetUS is the modelled time of a cudaMemset of n bytes of device (or
// managed) memory: the fixed cost, then the bytes at the DRAM's bandwidth.
func MemsetUS(p *gpu.Profile, n uint64) (float64, error) {
	h, err := hostSection(p)
	if err != nil {
		return 0, err
	}
	bw := p.Memory.DRAM.BytesPerCycle * float64(p.ClockMHz) / 1e3 // GB/s
	return h.MemsetLatencyUS + float64(n)/(bw*1e3), nil
}

// PrefetchUS is the modelled time of a cudaMemPrefetchAsync moving n bytes
// of managed memory to the device or the host (0 bytes: only the fixed
// cost).
func PrefetchUS(p *gpu.Profile, n uint64, to string) (float64, error) {
	h, err := hostSection(p)
	if err != nil {
		return 0, err
	}
	r := h.PrefetchToDevice
	if to == "host" {
		r = h.PrefetchToHost
	}
	return rateUS(r, n, h.HostCacheBytes), nil
}

// HostTouchUS is the modelled time of the host's first touch of n bytes
// of managed memory that are on the device (their pages fault back one
// after another).
func HostTouchUS(p *gpu.Profile, n uint64) (float64, error) {
	h, err := hostSection(p)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	return rateUS(h.HostTouch, n, h.HostCacheBytes), nil
}
