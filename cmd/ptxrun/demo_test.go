package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/kernels"
)

// demoRow is a row of `ptxrun demo --json`.
type demoRow struct {
	Name       string  `json:"name"`
	Kernel     string  `json:"kernel"`
	Grid       string  `json:"grid"`
	Block      string  `json:"block"`
	Inst       uint64  `json:"warp_instructions"`
	ThreadInst uint64  `json:"thread_instructions"`
	Seconds    float64 `json:"seconds"`
	Match      bool    `json:"match"`
	Error      string  `json:"error"`
}

// demoNames are the bundled kernels a test runs: all of them, or under
// -short the smallest.
func demoNames(t *testing.T) []string {
	if testing.Short() {
		return []string{"transpose_naive"}
	}
	var names []string
	for _, e := range kernels.All() {
		names = append(names, e.Name)
	}
	require.NotEmpty(t, names)
	return names
}

func TestDemo(t *testing.T) {
	names := demoNames(t)
	args := []string{"demo"}
	if testing.Short() {
		args = append(args, names...)
	}
	r := ptxrun(t, args...)
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Empty(t, r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, lines, 1+len(names), r.stdout)
	assert.Contains(t, lines[0], "matches Go reference")
	for i, n := range names {
		f := strings.Fields(lines[1+i])
		require.NotEmpty(t, f)
		assert.Equal(t, n, f[0])
		assert.Equal(t, "yes", f[len(f)-1], "%s does not match its reference: %s", n, lines[1+i])
	}
}

func TestDemoJSON(t *testing.T) {
	// TestDemo runs them all; two show the JSON.
	names := []string{"transpose_naive", "transpose_shared"}
	r := ptxrun(t, append([]string{"demo", "--json", "--workers", "1", "--seed", "7"}, names...)...)
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	var rows []demoRow
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rows), r.stdout)
	require.Len(t, rows, len(names))
	for i, row := range rows {
		assert.Equal(t, names[i], row.Name)
		assert.True(t, row.Match, "%s: %s", row.Name, row.Error)
		assert.Empty(t, row.Error)
		assert.True(t, strings.HasPrefix(row.Kernel, "_Z"), row.Kernel)
		assert.Regexp(t, `^\(\d+,\d+,\d+\)$`, row.Grid)
		assert.Regexp(t, `^\(\d+,\d+,\d+\)$`, row.Block)
		assert.Positive(t, row.Inst)
		assert.GreaterOrEqual(t, row.ThreadInst, row.Inst)
	}
}

func TestDemoInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := ptxrunCtx(t, ctx, "demo", "transpose_naive")
	assert.Equal(t, exitInterrupted, r.code)
	assert.Contains(t, r.stderr, "ptxrun: interrupted")
	assert.Contains(t, r.stdout, "NO: ")
	assert.Contains(t, r.stdout, "canceled")
}
