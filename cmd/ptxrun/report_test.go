package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func caseSpec(name string) string { return filepath.Join(casesDir, name, "O3", "spec.json") }

func TestRunReport(t *testing.T) {
	r := ptxrun(t, "run", caseSpec("transpose_naive"), "--report", "--regs", "20")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, want := range []string{"Memory summary", "Top instructions by sectors", "transpose.cu:18",
		"stride-256 access (1024 B between lanes): 32 sectors per request where 4 would do", "20 registers per thread"} {
		assert.Contains(t, r.stdout, want)
	}
	assert.NotContains(t, r.stdout, "estimated from the PTX")

	r = ptxrun(t, "run", caseSpec("transpose_shared"), "--report", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var rep struct {
		Kernel       string  `json:"kernel"`
		TopConflicts []int32 `json:"top_conflicts"`
		Insts        []struct {
			ID        int32  `json:"id"`
			CUDA      string `json:"cuda_line"`
			Diagnosis struct {
				Kind, Text string
			} `json:"diagnosis"`
		} `json:"instructions"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	assert.Equal(t, "_Z16transpose_sharedPfPKfjj", rep.Kernel)
	require.NotEmpty(t, rep.TopConflicts)
	for _, in := range rep.Insts {
		if in.ID == rep.TopConflicts[0] {
			assert.Equal(t, "bank-conflict", in.Diagnosis.Kind)
		}
	}
}

// --metrics writes every counter with its ncu name, and each is in the
// catalogue ptxrun metrics prints.
func TestMetricsFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.json")
	r := ptxrun(t, "run", caseSpec("matmul_tiled"), "--metrics", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var m struct {
		GPU     string             `json:"gpu"`
		Metrics map[string]float64 `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal(data, &m))
	assert.Equal(t, "H100", m.GPU)
	assert.Equal(t, 131072.0, m.Metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"], "the PTX's scalar shared loads (ncu counts 98,304: ptxas merges pairs into LDS.128)")
	assert.Contains(t, m.Metrics, "lts__t_sector_hit_rate.pct")
	assert.Contains(t, m.Metrics, "sm__maximum_warps_per_active_cycle_pct")

	r = ptxrun(t, "metrics")
	require.Equal(t, exitOK, r.code, r.stderr)
	for name := range m.Metrics {
		assert.Contains(t, r.stdout, "  "+name+" ", name)
	}
	assert.Contains(t, r.stdout, "MEMORY COUNTERS")
	assert.Contains(t, r.stdout, "DERIVED")
	h := ptxrun(t, "help", "metrics")
	assert.Equal(t, r.stdout, h.stdout)
	j := ptxrun(t, "metrics", "--json")
	var cat []struct{ Name, Help string }
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &cat))
	assert.Greater(t, len(cat), 60)
}

func TestCompareCommand(t *testing.T) {
	r := ptxrun(t, "compare", caseSpec("transpose_shared"), caseSpec("transpose_padded"))
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(r.stdout, "\n")
	var first string
	for _, l := range lines {
		if strings.Contains(l, "l1tex__") {
			first = l
			break
		}
	}
	assert.Contains(t, first, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
	assert.Contains(t, r.stdout, "Diagnoses that differ")
	assert.Contains(t, r.stdout, "32-way bank conflict")
	assert.Contains(t, r.stdout, "more metrics are equal in both")

	r = ptxrun(t, "compare", caseSpec("matmul_naive"), caseSpec("matmul_tiled"), "--json", "--all")
	require.Equal(t, exitOK, r.code, r.stderr)
	var c struct {
		Rows []struct {
			Name  string   `json:"name"`
			Ratio *float64 `json:"ratio"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &c))
	assert.NotEmpty(t, c.Rows)

	r = ptxrun(t, "compare", caseSpec("matmul_naive"))
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "give two spec files")
	r = ptxrun(t, "compare", caseSpec("matmul_naive"), "nope.json")
	assert.Equal(t, exitUsage, r.code)
	r = ptxrun(t, "compare", "-h")
	assert.Equal(t, exitOK, r.code)
	for _, f := range []string{"-gpu", "-json", "-all", "-regs-a", "-regs-b", "-workers"} {
		assert.Contains(t, r.stdout, "  "+f)
	}
}
