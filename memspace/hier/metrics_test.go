package hier

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMetricNames(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Metrics(&Counts{}, Extra{InstIssued: 1}) {
		assert.False(t, seen[m.Name], "duplicate %s", m.Name)
		seen[m.Name] = true
		assert.NotEmpty(t, m.Help, m.Name)
		unit, _, ok := strings.Cut(m.Name, "__")
		assert.True(t, ok, m.Name)
		assert.Contains(t, []string{"l1tex", "lts", "dram", "ptxvm"}, unit, m.Name)
		assert.True(t, strings.HasSuffix(m.Name, ".sum") || strings.HasSuffix(m.Name, ".pct") || strings.HasSuffix(m.Name, ".ratio"), m.Name)
	}
	assert.Len(t, seen, int(NumCounters)+len(derivedMetrics))
	for c := Counter(0); c < NumCounters; c++ {
		assert.NotEmpty(t, c.String(), "counter %d has no name", c)
	}
	assert.Equal(t, "ptxvm__unknown", NumCounters.String())
	// The replay percentage needs the instruction count.
	_, ok := MetricMap(&Counts{}, Extra{})["ptxvm__shared_bank_conflict_replay.pct"]
	assert.False(t, ok)
}

func TestDerivedMetrics(t *testing.T) {
	var c Counts
	c[GlobalLdHit], c[GlobalLdMiss] = 30, 10
	c[GlobalStMiss] = 10
	c[GlobalLdBytes], c[GlobalLdFetched] = 128, 512
	c[GlobalLdRequests], c[GlobalLdSectors] = 2, 40
	c[GlobalStBytes], c[GlobalStWritten] = 64, 128
	c[SharedLdRequests], c[SharedLdConflicts] = 4, 31
	c[SharedStRequests], c[SharedStConflicts] = 4, 1
	c[L2ReadSectors], c[L2ReadHit], c[L2WriteSectors], c[L2WriteHit] = 10, 5, 10, 10
	c[DRAMReadSectors], c[DRAMWriteSectors] = 3, 2
	c[TexHit], c[TexMiss] = 3, 1
	c[LocalLdSectors], c[LocalStSectors], c[LocalLdMiss] = 2, 3, 1
	c[ConstRequests], c[ConstWavefronts] = 2, 33
	m := MetricMap(&c, Extra{InstIssued: 64})
	want := map[string]float64{
		"l1tex__t_sector_hit_rate.pct":                                         60,
		"l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct":               75,
		"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio": 20,
		"lts__t_sector_hit_rate.pct":                                           75,
		"lts__t_sector_op_read_hit_rate.pct":                                   50,
		"dram__bytes_read.sum":                                                 96,
		"dram__bytes_write.sum":                                                64,
		"ptxvm__global_ld_efficiency.pct":                                      25,
		"ptxvm__global_ld_excess.pct":                                          75,
		"ptxvm__global_st_efficiency.pct":                                      50,
		"ptxvm__global_st_excess.pct":                                          50,
		"ptxvm__global_ld_bytes_per_sector.pct":                                10,
		"ptxvm__shared_bank_conflicts_per_inst.pct":                            400,
		"ptxvm__shared_bank_conflict_replay.pct":                               50,
		"ptxvm__tex_hit_rate.pct":                                              75,
		"ptxvm__local_bytes.sum":                                               160,
		"ptxvm__local_l2_bytes.sum":                                            128,
		"ptxvm__const_wavefronts_per_request.ratio":                            16.5,
		"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum":                       40,
	}
	for name, v := range want {
		assert.InDelta(t, v, m[name], 1e-9, name)
	}
	// No traffic: rates are 0, not NaN.
	for name, v := range MetricMap(&Counts{}, Extra{}) {
		assert.Zero(t, v, name)
	}
}
