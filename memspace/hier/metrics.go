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
	// Bytes the lanes asked for count every lane (lanes × width), so lanes
	// that share an address (a broadcast) and lines L1 serves again make
	// them exceed the bytes fetched, written or held in the sectors: these
	// are ratios, not percentages that would pass 100 (ncu's
	// smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct, the
	// same quotient as ptxvm__global_ld_bytes_per_sector.ratio / 32,
	// passes 100 on broadcasts alike; docs/counters.md).
	{"ptxvm__global_ld_requested_per_fetched.ratio", unitRatio,
		"bytes global loads asked for / bytes L1 fetched from L2 for them: 1 when each fetched byte is asked for once; below 1 fetched bytes no lane asked for; above 1 L1 reuse or lanes sharing addresses (broadcasts) served more than was fetched", false,
		func(c *Counts, _ Extra) float64 { return ratio(c[GlobalLdBytes], c[GlobalLdFetched]) }},
	{"ptxvm__global_st_requested_per_written.ratio", unitRatio,
		"bytes global stores wrote (lanes × width) / bytes their transactions sent to L2: below 1 partial sectors; above 1 lanes storing to the same address", false,
		func(c *Counts, _ Extra) float64 { return ratio(c[GlobalStBytes], c[GlobalStWritten]) }},
	{"ptxvm__global_ld_bytes_per_sector.ratio", unitRatio,
		"coalescing of global loads: bytes asked for / sectors accessed, whatever the caches hold (32 when every byte of every sector is asked for once; above 32 when lanes share addresses)", false,
		func(c *Counts, _ Extra) float64 { return ratio(c[GlobalLdBytes], c[GlobalLdSectors]) }},
	{"ptxvm__global_st_bytes_per_sector.ratio", unitRatio,
		"coalescing of global stores: bytes stored / sectors accessed (32 at best; above 32 when lanes store to the same address)", false,
		func(c *Counts, _ Extra) float64 { return ratio(c[GlobalStBytes], c[GlobalStSectors]) }},
	{"ptxvm__shared_bank_conflicts_per_request.ratio", unitRatio,
		"bank conflicts per shared load or store: (load + store conflicts) / (shared loads + stores); 0 conflict-free, 31 for a 32-way conflict", false,
		func(c *Counts, _ Extra) float64 {
			return ratio(c[SharedLdConflicts]+c[SharedStConflicts], c[SharedLdRequests]+c[SharedStRequests])
		}},
	{"ptxvm__shared_bank_conflicts_per_warp_inst.ratio", unitRatio,
		"shared bank conflicts per warp instruction executed: the extra data-stage passes conflicts cost per instruction of the launch (can exceed 1)", true,
		func(c *Counts, x Extra) float64 {
			return ratio(c[SharedLdConflicts]+c[SharedStConflicts], x.InstIssued)
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
