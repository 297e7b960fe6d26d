package hier

// Metric is one named figure: a raw counter or a value derived from them.
type Metric struct {
	Name  string
	Value float64
	Unit  string
	Help  string // one line; derived metrics give their formula
}

// Extra holds figures the hierarchy does not count itself but some derived
// metrics need.
type Extra struct {
	// InstIssued is the warp instructions issued (0: unknown; the metrics
	// that need it are left out).
	InstIssued uint64
}

type derivedMetric struct {
	name, unit, help string
	needsIssued      bool
	f                func(c *Counts, x Extra) float64
}

func pct(num, den uint64) float64 {
	if den == 0 {
		return 0
	}
	return 100 * float64(num) / float64(den)
}

func ratio(num, den uint64) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

func (c *Counts) l1Hits() uint64 {
	return c[GlobalLdHit] + c[GlobalStHit] + c[LocalLdHit] + c[LocalStHit] + c[TexHit]
}

func (c *Counts) l1Lookups() uint64 {
	return c.l1Hits() + c[GlobalLdMiss] + c[GlobalStMiss] + c[GlobalAtomMiss] + c[GlobalRedMiss] +
		c[LocalLdMiss] + c[LocalStMiss] + c[TexMiss]
}

func (c *Counts) l2Hits() uint64 {
	return c[L2ReadHit] + c[L2WriteHit] + c[L2AtomHit] + c[L2RedHit]
}

func (c *Counts) l2Sectors() uint64 {
	return c[L2ReadSectors] + c[L2WriteSectors] + c[L2AtomSectors] + c[L2RedSectors]
}

// sectorBytes is the unit the byte metrics convert sectors with.
const sectorBytes = 32

var derivedMetrics = []derivedMetric{
	{"l1tex__t_sector_hit_rate.pct", unitPct,
		"100 × L1 sector lookup hits / lookups (global, local, texture; loads, stores, atomics, reductions)", false,
		func(c *Counts, _ Extra) float64 { return pct(c.l1Hits(), c.l1Lookups()) }},
	{"l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", unitPct,
		"L1 global hit rate: 100 × global load sector hits / global load sectors", false,
		func(c *Counts, _ Extra) float64 { return pct(c[GlobalLdHit], c[GlobalLdHit]+c[GlobalLdMiss]) }},
	{"l1tex__t_sector_pipe_lsu_mem_global_op_st_hit_rate.pct", unitPct,
		"100 × global store sector hits / global store sectors", false,
		func(c *Counts, _ Extra) float64 { return pct(c[GlobalStHit], c[GlobalStHit]+c[GlobalStMiss]) }},
	{"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio", unitRatio,
		"global load sectors / global load requests (4 for 32 coalesced 4-byte lanes, 32 at worst)", false,
		func(c *Counts, _ Extra) float64 { return ratio(c[GlobalLdSectors], c[GlobalLdRequests]) }},
	{"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio", unitRatio,
		"global store sectors / global store requests", false,
		func(c *Counts, _ Extra) float64 { return ratio(c[GlobalStSectors], c[GlobalStRequests]) }},
	{"lts__t_sector_hit_rate.pct", unitPct,
		"100 × L2 sector hits / L2 sectors (reads, writes, atomics, reductions)", false,
		func(c *Counts, _ Extra) float64 { return pct(c.l2Hits(), c.l2Sectors()) }},
	{"lts__t_sector_op_read_hit_rate.pct", unitPct,
		"100 × L2 read sector hits / L2 read sectors", false,
		func(c *Counts, _ Extra) float64 { return pct(c[L2ReadHit], c[L2ReadSectors]) }},
	{"lts__t_sector_op_write_hit_rate.pct", unitPct,
		"100 × L2 write sector hits / L2 write sectors", false,
		func(c *Counts, _ Extra) float64 { return pct(c[L2WriteHit], c[L2WriteSectors]) }},
	{"dram__bytes_read.sum", unitByte,
		"dram__sectors_read.sum × 32", false,
		func(c *Counts, _ Extra) float64 { return float64(c[DRAMReadSectors] * sectorBytes) }},
	{"dram__bytes_write.sum", unitByte,
		"dram__sectors_write.sum × 32", false,
		func(c *Counts, _ Extra) float64 { return float64(c[DRAMWriteSectors] * sectorBytes) }},
	{"ptxvm__global_ld_efficiency.pct", unitPct,
		"global load efficiency: 100 × bytes requested / bytes fetched from L2 (the source texts' bytes needed / bytes fetched; over 100 with L1 reuse)", false,
		func(c *Counts, _ Extra) float64 { return pct(c[GlobalLdBytes], c[GlobalLdFetched]) }},
	{"ptxvm__global_st_efficiency.pct", unitPct,
		"global store efficiency: 100 × bytes stored / bytes written to L2 in store transactions", false,
		func(c *Counts, _ Extra) float64 { return pct(c[GlobalStBytes], c[GlobalStWritten]) }},
	{"ptxvm__global_ld_excess.pct", unitPct,
		"global memory excess load: 100 − 100 × bytes requested / bytes fetched from L2 (negative when L1 reuse serves more than it fetched)", false,
		func(c *Counts, _ Extra) float64 {
			if c[GlobalLdFetched] == 0 {
				return 0
			}
			return 100 - pct(c[GlobalLdBytes], c[GlobalLdFetched])
		}},
	{"ptxvm__global_st_excess.pct", unitPct,
		"global memory excess store: 100 − 100 × bytes stored / bytes written to L2", false,
		func(c *Counts, _ Extra) float64 {
			if c[GlobalStWritten] == 0 {
				return 0
			}
			return 100 - pct(c[GlobalStBytes], c[GlobalStWritten])
		}},
	{"ptxvm__global_ld_bytes_per_sector.pct", unitPct,
		"coalescing of global loads: 100 × bytes requested / (sectors × 32), whatever the caches hold", false,
		func(c *Counts, _ Extra) float64 { return pct(c[GlobalLdBytes], c[GlobalLdSectors]*sectorBytes) }},
	{"ptxvm__global_st_bytes_per_sector.pct", unitPct,
		"coalescing of global stores: 100 × bytes stored / (sectors × 32)", false,
		func(c *Counts, _ Extra) float64 { return pct(c[GlobalStBytes], c[GlobalStSectors]*sectorBytes) }},
	{"ptxvm__shared_bank_conflicts_per_inst.pct", unitPct,
		"shared bank conflicts per shared instruction: 100 × (load + store conflicts) / (shared loads + stores)", false,
		func(c *Counts, _ Extra) float64 {
			return pct(c[SharedLdConflicts]+c[SharedStConflicts], c[SharedLdRequests]+c[SharedStRequests])
		}},
	{"ptxvm__shared_bank_conflict_replay.pct", unitPct,
		"shared bank conflict replay: 100 × (load + store conflicts) / warp instructions issued", true,
		func(c *Counts, x Extra) float64 {
			return pct(c[SharedLdConflicts]+c[SharedStConflicts], x.InstIssued)
		}},
	{"ptxvm__tex_hit_rate.pct", unitPct,
		"texture hit rate: 100 × texture sector hits / texture sectors", false,
		func(c *Counts, _ Extra) float64 { return pct(c[TexHit], c[TexHit]+c[TexMiss]) }},
	{"ptxvm__local_bytes.sum", unitByte,
		"local memory traffic: (local load + store sectors) × 32", false,
		func(c *Counts, _ Extra) float64 {
			return float64((c[LocalLdSectors] + c[LocalStSectors]) * sectorBytes)
		}},
	{"ptxvm__local_l2_bytes.sum", unitByte,
		"local memory traffic that left the SM: local load misses × 32 + local store sectors × 32 (write-through)", false,
		func(c *Counts, _ Extra) float64 { return float64((c[LocalLdMiss] + c[LocalStSectors]) * sectorBytes) }},
	{"ptxvm__const_wavefronts_per_request.ratio", unitRatio,
		"constant-cache accesses per constant load: 1 when every load is a broadcast, up to 32 when lanes diverge", false,
		func(c *Counts, _ Extra) float64 { return ratio(c[ConstWavefronts], c[ConstRequests]) }},
}

// Metrics returns the raw counters of c in Counter order, then the derived
// metrics. Names are unique.
func Metrics(c *Counts, x Extra) []Metric {
	out := make([]Metric, 0, int(NumCounters)+len(derivedMetrics))
	for i := Counter(0); i < NumCounters; i++ {
		in := counterInfo[i]
		out = append(out, Metric{Name: in.Name, Value: float64(c[i]), Unit: in.Unit, Help: in.Help})
	}
	for _, d := range derivedMetrics {
		if d.needsIssued && x.InstIssued == 0 {
			continue
		}
		out = append(out, Metric{Name: d.name, Value: d.f(c, x), Unit: d.unit, Help: d.help})
	}
	return out
}

// MetricMap returns Metrics as a map from name to value (for a --metrics
// file).
func MetricMap(c *Counts, x Extra) map[string]float64 {
	m := map[string]float64{}
	for _, v := range Metrics(c, x) {
		m[v.Name] = v.Value
	}
	return m
}
