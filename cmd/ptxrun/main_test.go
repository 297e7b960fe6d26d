package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The repository's test data, seen from this package's folder.
var (
	nvccDir  = filepath.Join("..", "..", "testdata", "nvcc")
	casesDir = filepath.Join(nvccDir, "cases")
)

// result is what one ptxrun command line did.
type result struct {
	code           int
	stdout, stderr string
}

// ptxrun runs the command line args through doMain.
func ptxrun(t *testing.T, args ...string) result {
	t.Helper()
	return ptxrunCtx(t, context.Background(), args...)
}

func ptxrunCtx(t *testing.T, ctx context.Context, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := doMain(ctx, args, &out, &errb)
	r := result{code, out.String(), errb.String()}
	// A Go panic recovered somewhere below, or printed by a library, would
	// show up here; a real one fails the test on its own.
	assert.NotContains(t, r.stderr, "goroutine ", "args %q", args)
	assert.NotContains(t, r.stderr, "panic:", "args %q", args)
	return r
}

// writeFiles writes files (name → contents) into a new temporary folder and
// returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	return dir
}

// flagNames are the flags each command documents.
var flagNames = map[string][]string{
	"run": {"-out", "-metrics", "-gpu", "-workers", "-max-inst", "-json", "-strict", "-npy", "-any-target",
		"-kernel", "-grid", "-block", "-arg", "-outputs", "-save-spec", "-dynamic-shared", "-stack-bytes"},
	"test":  {"-ulp", "-json", "-workers", "-max-inst", "-v", "-gpu", "-strict", "-any-target", "-shard"},
	"sweep": {"-o", "-shard", "-workers", "-metrics", "-retry-errors", "-fail-on-error", "-json"},
	"demo":  {"-json", "-workers", "-seed"},
	"report": {"-o", "-compare", "-source", "-gpu", "-regs", "-regs-a", "-regs-b", "-workers", "-max-inst", "-any-target", "-size",
		"-kernel", "-grid", "-block", "-arg", "-dynamic-shared"},
	"list": {"-json", "-kernel", "-check", "-headers"},
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"-help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := ptxrun(t, args...)
			require.Equal(t, exitOK, r.code, r.stderr)
			for _, cmd := range []string{"ptxrun FILE.ptx", "ptxrun run SPEC.json", "ptxrun test DIR", "ptxrun demo", "ptxrun version"} {
				assert.Contains(t, r.stdout, cmd)
			}
			assert.Empty(t, r.stderr)
		})
	}
}

func TestCommandHelp(t *testing.T) {
	for cmd, flags := range flagNames {
		for _, args := range [][]string{{cmd, "-h"}, {cmd, "--help"}, {"help", cmd}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				r := ptxrun(t, args...)
				require.Equal(t, exitOK, r.code, r.stderr)
				// Help that was asked for goes to stdout, where a pager sees it.
				assert.Contains(t, r.stdout, "Usage: ptxrun")
				assert.Contains(t, r.stdout, "Flags:")
				for _, f := range flags {
					assert.Contains(t, r.stdout, "  "+f, "flag %s", f)
				}
				assert.Empty(t, r.stderr)
			})
		}
	}
	t.Run("FILE.ptx -h", func(t *testing.T) {
		r := ptxrun(t, "x.ptx", "-h")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "Usage: ptxrun FILE.ptx")
	})
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		r := ptxrun(t, arg)
		require.Equal(t, exitOK, r.code)
		assert.Equal(t, "ptxrun "+version+"\n", r.stdout)
		assert.Empty(t, r.stderr)
	}
}

func TestCommandLineErrors(t *testing.T) {
	sp := filepath.Join(casesDir, "collatz", "O3", "spec.json")
	ptxFile := filepath.Join(nvccDir, "ptx", "control.O3.ptx")
	tests := []struct {
		name   string
		args   []string
		stderr []string // substrings of stderr
	}{
		{"no arguments", nil, []string{"Usage:"}},
		{"unknown command", []string{"frob"}, []string{`unknown command "frob"`, "Usage:"}},
		{"unknown command that looks like a flag", []string{"--frob"}, []string{`unknown command "--frob"`}},
		{"help for an unknown command", []string{"help", "frob"}, []string{`unknown command "frob"`}},
		{"run: unknown flag", []string{"run", sp, "--bogus"}, []string{"flag provided but not defined: -bogus", "Usage: ptxrun run"}},
		{"test: unknown flag", []string{"test", casesDir, "-x"}, []string{"flag provided but not defined: -x"}},
		{"demo: unknown flag", []string{"demo", "--fast"}, []string{"flag provided but not defined: -fast"}},
		{"list: unknown flag", []string{ptxFile, "--regs"}, []string{"flag provided but not defined: -regs"}},
		{"run: bad flag value", []string{"run", sp, "--workers", "many"}, []string{`invalid value "many" for flag -workers`}},
		{"run: flag without its value", []string{"run", sp, "--out"}, []string{"flag needs an argument: -out"}},
		{"run: no spec", []string{"run"}, []string{"give exactly one spec file", "Usage: ptxrun run"}},
		{"run: two specs", []string{"run", sp, sp}, []string{"give exactly one spec file"}},
		{"test: no folder", []string{"test"}, []string{"give at least one folder", "Usage: ptxrun test"}},
		{"list: no file", []string{"list"}, []string{"give exactly one PTX file"}},
		{"list: two files", []string{ptxFile, ptxFile}, []string{"give exactly one PTX file"}},
		{"run: unknown GPU", []string{"run", sp, "--gpu", "a100"}, []string{`unknown GPU "a100"`, "h100"}},
		{"test: unknown GPU", []string{"test", casesDir, "--gpu", "a100"}, []string{`unknown GPU "a100"`}},
		{"run: negative workers", []string{"run", sp, "--workers", "-2"}, []string{"-workers must not be negative"}},
		{"run: negative budget", []string{"run", sp, "--max-inst", "-1"}, []string{"-max-inst must not be negative"}},
		{"test: negative workers", []string{"test", casesDir, "--workers", "-1"}, []string{"-workers must not be negative"}},
		{"demo: negative workers", []string{"demo", "--workers", "-1"}, []string{"-workers must not be negative"}},
		{"demo: unknown kernel", []string{"demo", "nosuch"}, []string{`no bundled kernel named "nosuch"`, "matmul_naive"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ptxrun(t, tc.args...)
			assert.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
			for _, s := range tc.stderr {
				assert.Contains(t, r.stderr, s)
			}
			assert.Empty(t, r.stdout)
		})
	}
}
