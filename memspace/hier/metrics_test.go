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
	// Conflicts per instruction need the instruction count.
	_, ok := MetricMap(&Counts{}, Extra{})["ptxvm__shared_bank_conflicts_per_warp_inst.ratio"]
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
		"ptxvm__global_ld_requested_per_fetched.ratio":                         0.25,
		"ptxvm__global_st_requested_per_written.ratio":                         0.5,
		"ptxvm__global_ld_bytes_per_sector.ratio":                              3.2,
		"ptxvm__shared_bank_conflicts_per_request.ratio":                       4,
		"ptxvm__shared_bank_conflicts_per_warp_inst.ratio":                     0.5,
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

// TestPercentagesStayPercentages: every derived figure reported as a
// percentage stays within [0, 100] however the lanes share addresses; the
// figures that can pass 100 (a broadcast asks for more bytes than it
// fetches) are ratios.
func TestPercentagesStayPercentages(t *testing.T) {
	tests := []struct {
		name string
		set  func(c *Counts)
	}{
		{"broadcast load (naive matmul's A row): 32 lanes, one sector, reused from L1", func(c *Counts) {
			c[GlobalLdRequests], c[GlobalLdSectors], c[GlobalLdBytes], c[GlobalLdFetched] = 16, 16, 16*128, 32
			c[GlobalLdHit], c[GlobalLdMiss] = 15, 1
		}},
		{"broadcast store: 32 lanes store one word", func(c *Counts) {
			c[GlobalStRequests], c[GlobalStSectors], c[GlobalStBytes], c[GlobalStWritten] = 1, 1, 128, 4
			c[GlobalStMiss] = 1
		}},
		{"32-way shared conflicts (transpose's column reads)", func(c *Counts) {
			c[SharedLdRequests], c[SharedLdWavefronts], c[SharedLdConflicts] = 2, 64, 62
			c[SharedStRequests], c[SharedStWavefronts] = 2, 2
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Counts
			tt.set(&c)
			for _, m := range Metrics(&c, Extra{InstIssued: 8}) {
				if strings.HasSuffix(m.Name, ".pct") {
					assert.GreaterOrEqual(t, m.Value, 0.0, m.Name)
					assert.LessOrEqual(t, m.Value, 100.0, m.Name)
				}
				assert.GreaterOrEqual(t, m.Value, 0.0, m.Name)
			}
		})
	}
}
