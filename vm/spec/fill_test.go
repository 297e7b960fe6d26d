package spec_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// TestFillAgainstGPU runs perf-corpus cases whose inputs are fill rules
// (integer and float rand, iota) and compares their outputs with the GPU's,
// which the corpus runner computed from the same rules.
func TestFillAgainstGPU(t *testing.T) {
	cases := []string{
		"hist_shared_256bins", // u32 rand
		"const_distinct4",     // u32 rand table, f32 rand data
		"copy_u32_stride1",    // iota
		"tex_rows_point",      // f32 rand with lo/hi, through a texture
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "testdata", "perf", "cases", name, "O3")
			sp, err := spec.Load(filepath.Join(dir, "spec.json"))
			require.NoError(t, err)
			run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{NoCounters: true}, nil)
			require.NoError(t, err)
			for _, out := range sp.Outputs {
				got := run.Outputs[out]
				if want, err := os.ReadFile(filepath.Join(dir, "expected", out+".bin")); err == nil {
					assert.Equal(t, want, got, out)
					continue
				}
				line, err := os.ReadFile(filepath.Join(dir, "expected", out+".sha256"))
				require.NoError(t, err)
				sum := sha256.Sum256(got)
				assert.Equal(t, strings.TrimSpace(string(line)), fmt.Sprintf("%s %d", hex.EncodeToString(sum[:]), len(got)), out)
			}
		})
	}
}

func TestFillErrors(t *testing.T) {
	base := `{"module": "m.ptx", "kernel": "k", "grid": [1], "block": [1], "args": [{"buffer": "b"}],
	          "buffers": [{"name": "b", "type": "%s", "count": 4, %s}]}`
	tests := []struct {
		typ, fill, want string
	}{
		{"u32", `"fill": {"kind": "rand"}`, "seed is missing"},
		{"u32", `"fill": {"kind": "rand", "seed": -1}`, "not an unsigned 64-bit integer"},
		{"u32", `"fill": {"kind": "noise", "seed": 1}`, `kind "noise"`},
		{"u32", `"fill": {"kind": "iota", "value": 3}`, `unknown field "value"`},
		{"u32", `"fill": {"kind": "iota", "start": 1.5}`, "start 1.5 is not an integer"},
		{"f32", `"fill": {"kind": "rand", "seed": 1}`, "lo is missing"},
		{"u32", `"fill": {"kind": "rand", "seed": 1, "lo": 5, "hi": 4}`, "lo/hi 5/4"},
		{"bf16", `"fill": {"kind": "const", "value": 1}`, "not defined for type bf16"},
		{"u32", `"fill": {"kind": "const", "value": 1}, "file": "x.bin"`, "fill and file are exclusive"},
		{"u32", `"fill": {"kind": "const"}`, "value is missing"},
	}
	for _, tt := range tests {
		_, err := spec.Parse([]byte(fmt.Sprintf(base, tt.typ, tt.fill)), ".")
		assert.ErrorContains(t, err, tt.want, tt.fill)
	}
}
