package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
)

func TestGPUs(t *testing.T) {
	r := ptxrun(t, "gpus")
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 4)
	assert.Contains(t, lines[0], "NAME")
	assert.Regexp(t, `^gf100\s+2\.0\s+15\s+1401\s+48\s+8\s+32768\s+48 KiB\s+64 KiB\s+768 KiB\s+128 B\s+32\s+fermi`, lines[1])
	assert.Regexp(t, `^h100\s+9\.0\s+132\s+1980\s+64\s+32\s+65536\s+228 KiB\s+256 KiB\s+50 MiB\s+128 B\s+32\s+sectored`, lines[2])
	assert.Regexp(t, `^h200\s+9\.0\s+132\s+1980\s+64\s+32\s+65536\s+228 KiB\s+256 KiB\s+60 MiB\s+128 B\s+32\s+sectored`, lines[3])

	r = ptxrun(t, "gpus", "H100")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "132 at 1980 MHz")
	assert.Contains(t, r.stdout, "0/8/16/32/64/100/132/164/196/228 KiB")

	r = ptxrun(t, "gpus", "a100")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `unknown GPU "a100" (known: gf100, h100, h200; or give a profile file)`)

	r = ptxrun(t, "gpus", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var all []gpu.Profile
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &all))
	require.Len(t, all, 3)
	assert.Equal(t, "GF100", all[0].Name)

	r = ptxrun(t, "help", "gpus")
	require.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "  -json")
}

// A user's profile file: written by "gpus NAME --json", edited, and used
// with --gpu FILE by every command that runs kernels.
func TestGPUFile(t *testing.T) {
	r := ptxrun(t, "gpus", "h100", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	p, err := gpu.Parse([]byte(r.stdout))
	require.NoError(t, err)
	p.Name, p.Memory.Name = "tiny", "tiny"
	p.SMs, p.Memory.SMs = 3, 3
	p.Launch.MaxThreadsPerBlock = 128
	data, err := p.MarshalIndent()
	require.NoError(t, err)
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.json")
	require.NoError(t, os.WriteFile(file, data, 0o644))

	r = ptxrun(t, "gpus", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "3 at 1980 MHz")

	// transpose_naive has blocks of 256 threads: tiny refuses them.
	sp := filepath.Join(casesDir, "transpose_naive", "O3", "spec.json")
	r = ptxrun(t, "run", sp, "--gpu", file)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "the tiny allows 128 per block")
	r = ptxrun(t, "test", filepath.Join(casesDir, "transpose_naive"), "--gpu", file)
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stdout+r.stderr, "the tiny allows 128 per block")
	r = ptxrun(t, "demo", "transpose_naive", "--gpu", file)
	assert.Equal(t, exitFail, r.code)

	// A broken file is refused with its field named.
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(data), `"sms": 3`, `"sms": 0`, 1)), 0o644))
	r = ptxrun(t, "run", sp, "--gpu", file)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "sms: must be positive")

	for _, cmd := range []string{"run", "test", "demo"} {
		r = ptxrun(t, cmd, "-h")
		assert.Contains(t, r.stdout, "profile FILE", cmd)
	}
	r = ptxrun(t, "run", "-h")
	assert.Contains(t, r.stdout, "  -regs")
}
