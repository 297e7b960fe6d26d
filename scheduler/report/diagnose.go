package report

import (
	"fmt"
	"math"
)

// Diagnosis says in plain words what an instruction's traffic shows.
type Diagnosis struct {
	// Kind is a short class ptxrun compare matches on: coalesced, strided,
	// misaligned, scattered, broadcast, shared-addresses, bank-conflict,
	// conflict-free, divergent-const, atomic, texture.
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Diagnosis kinds.
const (
	KindCoalesced      = "coalesced"
	KindStrided        = "strided"
	KindMisaligned     = "misaligned"
	KindScattered      = "scattered"
	KindBroadcast      = "broadcast"
	KindSharedAddrs    = "shared-addresses"
	KindBankConflict   = "bank-conflict"
	KindConflictFree   = "conflict-free"
	KindDivergentConst = "divergent-const"
	KindAtomic         = "atomic"
	KindTexture        = "texture"
)

func diagnose(in *Inst) Diagnosis {
	p := in.Pattern
	uniform := p != nil && p.Lanes > 1 && p.Distinct == 1
	switch in.Space {
	case "shared":
		return diagnoseShared(in, uniform)
	case "const", "param":
		if in.Wavefronts <= in.Requests {
			return Diagnosis{KindBroadcast, "uniform address: broadcast (one constant-cache access per request)"}
		}
		return Diagnosis{KindDivergentConst, fmt.Sprintf("divergent constant addresses: %s constant-cache accesses per request, one after another (a uniform address would need 1)",
			perReq(in.Wavefronts, in.Requests))}
	case "texture":
		d := Diagnosis{KindTexture, fmt.Sprintf("texture fetches: %s sectors per request", perReq(in.Sectors, in.Requests))}
		if in.L1HitPct >= 0 {
			d.Text += fmt.Sprintf(", %.0f%% of them hit in the texture cache", in.L1HitPct)
		}
		return d
	}
	if in.Requests == 0 {
		return Diagnosis{}
	}
	var d Diagnosis
	spr := perReq(in.Sectors, in.Requests)
	ideal := perReq(in.IdealSectors, in.Requests)
	switch {
	case in.Op == "atomic":
		d = Diagnosis{KindAtomic, fmt.Sprintf("atomic: %s sectors per request, performed in L2", spr)}
	case uniform:
		d = Diagnosis{KindBroadcast, fmt.Sprintf("uniform address: broadcast (%s sector per request)", spr)}
	case in.Excess == 0 && p != nil && p.Distinct < p.Lanes:
		d = Diagnosis{KindSharedAddrs, fmt.Sprintf("lanes share addresses (%d distinct of %d lanes): %s sectors per request", p.Distinct, p.Lanes, spr)}
	case in.Excess == 0:
		d = Diagnosis{KindCoalesced, fmt.Sprintf("coalesced: %s sectors per request, the minimum for its bytes", spr)}
	case p != nil && p.Regular && p.Size > 0 && p.Stride == int64(p.Size):
		d = Diagnosis{KindMisaligned, fmt.Sprintf("contiguous but misaligned (first lane at byte %d of a sector): %s sectors per request where %s would do",
			p.First%32, spr, ideal)}
	case p != nil && p.Regular && p.Size > 0 && p.Stride%int64(p.Size) == 0:
		d = Diagnosis{KindStrided, fmt.Sprintf("stride-%d access (%d B between lanes): %s sectors per request where %s would do",
			abs(p.Stride/int64(p.Size)), abs(p.Stride), spr, ideal)}
	case p != nil && p.Regular:
		d = Diagnosis{KindStrided, fmt.Sprintf("strided access (%d B between lanes): %s sectors per request where %s would do", abs(p.Stride), spr, ideal)}
	default:
		d = Diagnosis{KindScattered, fmt.Sprintf("scattered addresses: %s sectors per request where %s would do", spr, ideal)}
	}
	if in.Op == "load" && in.L1HitPct > 0 {
		d.Text += fmt.Sprintf("; L1 hits %.0f%% of its sectors", in.L1HitPct)
	}
	return d
}

func diagnoseShared(in *Inst, uniform bool) Diagnosis {
	if in.Requests == 0 {
		return Diagnosis{}
	}
	need := in.Wavefronts - in.Conflicts
	if in.Conflicts == 0 {
		if uniform {
			return Diagnosis{KindBroadcast, "uniform address: broadcast (conflict-free)"}
		}
		return Diagnosis{KindConflictFree, fmt.Sprintf("conflict-free: %s wavefronts per request", perReq(in.Wavefronts, in.Requests))}
	}
	ways := float64(in.Wavefronts) / float64(need)
	what := "bank conflicts"
	if in.Op == "atomic" {
		what = "lanes on the same word or bank serialise"
	}
	if ways == math.Trunc(ways) {
		return Diagnosis{KindBankConflict, fmt.Sprintf("%d-way bank conflict: %s wavefronts per request where %s would do",
			int(ways), perReq(in.Wavefronts, in.Requests), perReq(need, in.Requests))}
	}
	return Diagnosis{KindBankConflict, fmt.Sprintf("%s (%.1f-way on average): %s wavefronts per request where %s would do",
		what, ways, perReq(in.Wavefronts, in.Requests), perReq(need, in.Requests))}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
