package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Listing a module that uses an instruction PTX does not have reports the
// malformed module, with the nearest instruction that exists, and fails.
func TestListUnknownOpcode(t *testing.T) {
	const head = ".version 8.5\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{\n\t.reg .f32 %f<4>;\n"
	for _, tc := range []struct {
		name, body string
		code       int
		stderr     []string
	}{
		{"known", "\tadd.f32 %f1, %f2, %f3;\n\tret;\n}\n", exitOK, nil},
		{"typo", "\taddd.f32 %f1, %f2, %f3;\n\tret;\n}\n", exitUsage,
			[]string{"k.ptx:8:2: unknown instruction addd.f32; did you mean add.f32?"}},
		{"no near one", "\tfrobnicate.f32 %f1;\n\tret;\n}\n", exitUsage,
			[]string{"k.ptx:8:2: unknown instruction frobnicate.f32\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "k.ptx")
			require.NoError(t, os.WriteFile(file, []byte(head+tc.body), 0o644))
			for _, args := range [][]string{{file}, {"list", file}, {"list", "--check", file}} {
				r := ptxrun(t, args...)
				require.Equal(t, tc.code, r.code, "%q: %s", args, r.stderr)
				for _, s := range tc.stderr {
					require.Contains(t, r.stderr, s)
				}
			}
		})
	}
}

// report --compare names its file by kernel, and two launches of one
// kernel by what sets them apart, so comparisons do not overwrite each
// other.
func TestCompareName(t *testing.T) {
	const k = "_Z6matmulPfPKfS1_i"
	for _, tc := range []struct {
		a, b, ka, kb, want string
	}{
		{"naive.json", "tiled.json", "_Z12matmul_naivePfPKfS1_i", "_Z12matmul_tiledPfPKfS1_i", "matmul_naive-vs-matmul_tiled"},
		{"cases/matmul/O3/spec.json", "cases/matmul/G/spec.json", k, k, "matmul-O3-vs-G"},
		{"runs/a.json", "runs/b.json", k, k, "matmul-a-vs-b"},
		{"x/big/spec.json", "y/small/spec.json", k, k, "matmul-x_big-vs-y_small"},
		{"same.json", "same.json", k, k, "matmul-vs-matmul"},
		{"matmul_naive", "matmul_naive", "_Z12matmul_naivePfPKfS1_i", "_Z12matmul_naivePfPKfS1_i", "matmul_naive-vs-matmul_naive"},
	} {
		require.Equal(t, tc.want, compareName(tc.a, tc.b, tc.ka, tc.kb), "%s %s", tc.a, tc.b)
	}
}
