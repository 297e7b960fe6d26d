package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asPtxrun, set in a child's environment, makes the test binary run as
// ptxrun (TestMain), so that a test can start ptxrun processes without
// building it.
const asPtxrun = "PTXRUN_TEST_RUN_AS_PTXRUN"

func TestMain(m *testing.M) {
	if os.Getenv(asPtxrun) == "1" {
		main() // exits
	}
	os.Exit(m.Run())
}

// ptxrunProcess starts ptxrun with args as a process of its own, with env
// added to its environment; wait for it with Wait.
func ptxrunProcess(t *testing.T, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), asPtxrun+"=1"), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	return cmd, &out
}

// appsDir is the application corpus (committed; its launches are small).
var appsDir, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "apps", "cases"))

// testSweep writes a sweep of small corpus launches, in both modes, on
// both built-in GPUs, with a line that ends in an error and fields of the
// user's own, and returns its path.
func testSweep(t *testing.T) string {
	t.Helper()
	lines := []string{
		`{"spec": "@/scan_block/O3", "gpu": "h100", "mode": "functional", "run": 1}`,
		`{"spec": "@/adam_small/O3/spec.json", "gpu": "h100", "mode": "timing", "run": 2}`,
		`{"spec": "@/gemm/O3", "gpu": "gf100", "mode": "timing", "any_target": true, "run": 3}`,
		``,
		`{"spec": "@/nosuch/O3", "mode": "timing", "run": 4}`,
		`{"spec": "@/histogram256/fast", "gpu": "gf100", "mode": "functional", "any_target": true, "run": 5}`,
		`{"spec": "@/scan_f32_block/O3", "mode": "timing", "sample": "off", "run": 6}`,
		`{"spec": "@/gemm/O3", "mode": "functional", "counters": false, "note": "<bare>", "run": 7}`,
	}
	p := filepath.Join(t.TempDir(), "sweep.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(strings.ReplaceAll(strings.Join(lines, "\n")+"\n", "@", appsDir)), 0o644))
	return p
}

// N shards of a sweep, run as N processes at once, merged, are byte for
// byte the output of one process running the whole sweep, for 2 and 3
// shards; a shard given by the Kubernetes or Slurm variables is the same
// shard as one given by its number.
func TestSweepShardsMergeToOneProcess(t *testing.T) {
	sw := testSweep(t)
	dir := t.TempDir()
	one := filepath.Join(dir, "one.jsonl")
	cmd, out := ptxrunProcess(t, nil, "sweep", sw, "-o", one)
	require.NoError(t, cmd.Wait(), out.String())
	assert.Contains(t, out.String(), "7 lines; 7 run now, 0 done before, 1 errors")
	want, err := os.ReadFile(one)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	require.Len(t, lines, 7, "one result per input line")
	for i, l := range lines {
		var r struct {
			Line   int             `json:"line"`
			Input  json.RawMessage `json:"input"`
			Status string          `json:"status"`
			Cycles *uint64         `json:"cycles"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		assert.Contains(t, string(r.Input), fmt.Sprintf(`"run":%d`, i+1), "in input order, the input echoed")
		if i == 3 {
			assert.Equal(t, "error", r.Status, l)
			continue
		}
		assert.Equal(t, "ok", r.Status, l)
		assert.Equal(t, strings.Contains(string(r.Input), `"timing"`), r.Cycles != nil, "cycles in timing mode: %s", l)
	}

	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			var parts []string
			var cmds []*exec.Cmd
			var outs []*bytes.Buffer
			for i := 0; i < n; i++ {
				p := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.jsonl", i, n))
				parts = append(parts, p)
				args := []string{"sweep", sw, "-o", p, "--shard", fmt.Sprintf("%d/%d", i, n)}
				var env []string
				switch i {
				case 1: // as a Kubernetes Indexed Job's pod
					args[len(args)-1] = fmt.Sprintf("env/%d", n)
					env = []string{"JOB_COMPLETION_INDEX=1"}
				case 2: // as a Slurm array's task (--array=1-3)
					args[len(args)-1] = "env"
					env = []string{"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=3"}
				}
				c, o := ptxrunProcess(t, env, args...)
				cmds, outs = append(cmds, c), append(outs, o)
			}
			for i, c := range cmds {
				require.NoError(t, c.Wait(), outs[i].String())
				assert.Contains(t, outs[i].String(), fmt.Sprintf("shard %d/%d", i, n))
			}
			merged := filepath.Join(dir, fmt.Sprintf("merged-%d.jsonl", n))
			cmd, out := ptxrunProcess(t, nil, append([]string{"sweep", "merge", "-o", merged, "--input", sw}, parts...)...)
			require.NoError(t, cmd.Wait(), out.String())
			assert.Contains(t, out.String(), fmt.Sprintf("7 results from %d files (1 errors, every line of", n))
			got, err := os.ReadFile(merged)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "the merged shards are what one process wrote")
		})
	}
}

// A sweep stopped part way goes on where it stopped; a finished one runs
// nothing again.
func TestSweepResumes(t *testing.T) {
	sw := testSweep(t)
	dir := t.TempDir()
	one := filepath.Join(dir, "one.jsonl")
	r := ptxrun(t, "sweep", sw, "-o", one, "--workers", "2")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "sweep.jsonl:5: open ", "an error is said as it happens, with its line")
	want, err := os.ReadFile(one)
	require.NoError(t, err)

	r = ptxrun(t, "sweep", sw, "-o", one, "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var sum sweepSummary
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &sum))
	assert.Equal(t, 0, sum.Ran, "nothing to run again")
	assert.Equal(t, 7, sum.DoneBefore)
	assert.Equal(t, 1, sum.Errors)

	// The second and third results written, the fourth cut short.
	lines := strings.SplitAfter(string(want), "\n")
	part := filepath.Join(dir, "part.jsonl")
	require.NoError(t, os.WriteFile(part, []byte(lines[2]+lines[1]+lines[3][:20]), 0o644))
	r = ptxrun(t, "sweep", sw, "-o", part)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "5 run now, 2 done before")
	got, err := os.ReadFile(part)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	r = ptxrun(t, "sweep", sw, "-o", part, "--retry-errors", "--fail-on-error")
	assert.Equal(t, exitFail, r.code, "the error again, and --fail-on-error")
	assert.Contains(t, r.stdout, "1 run now, 6 done before, 1 errors")
}

func TestSweepErrors(t *testing.T) {
	sw := testSweep(t)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("{\"spec\": \"x\", \"gpu\": \"a100\"}\n{\"mode\": \"timing\"}\n"), 0o644))
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		stderr []string
	}{
		{"no file", []string{"sweep", "-o", out}, nil, []string{"give exactly one sweep file"}},
		{"no output", []string{"sweep", sw}, nil, []string{"give the output file with -o OUT.jsonl"}},
		{"output is the input", []string{"sweep", sw, "-o", sw}, nil, []string{"is the sweep file itself"}},
		{"bad shard", []string{"sweep", sw, "-o", out, "--shard", "3/3"}, nil, []string{"--shard: shard \"3/3\": the index counts from 0"}},
		{"shard from nothing", []string{"sweep", sw, "-o", out, "--shard", "env/2"}, map[string]string{"JOB_COMPLETION_INDEX": "", "SLURM_ARRAY_TASK_ID": ""}, []string{"neither JOB_COMPLETION_INDEX"}},
		{"malformed lines", []string{"sweep", bad, "-o", out}, nil, []string{`bad.jsonl:1: "gpu": unknown GPU "a100"`, `bad.jsonl:2: no "spec"`}},
		{"test: bad shard", []string{"test", appsDir, "--shard", "1"}, nil, []string{"--shard: shard \"1\": write I/N"}},
		{"merge: no output", []string{"sweep", "merge", sw}, nil, []string{"give the merged file with -o"}},
		{"merge: output among the inputs", []string{"sweep", "merge", "-o", sw, sw}, nil, []string{"is one of the files to merge"}},
		{"merge: a pattern that matches nothing", []string{"sweep", "merge", "-o", out, filepath.Join(filepath.Dir(out), "shard-*.jsonl")}, nil, []string{"no file matches", "shard-*.jsonl"}},
		{"merge: not sweep results", []string{"sweep", "merge", "-o", out, sw}, nil, []string{"sweep.jsonl:1: not a sweep result"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			r := ptxrun(t, tc.args...)
			assert.Equal(t, exitUsage, r.code, r.stderr)
			for _, s := range tc.stderr {
				assert.Contains(t, r.stderr, s)
			}
			assert.NoFileExists(t, out)
		})
	}
}

// The shards of ptxrun test split the cases: each case in one shard.
func TestTestShards(t *testing.T) {
	root := filepath.Join(appsDir, "scan_block")
	all := ptxrun(t, "test", root, "--json")
	require.Equal(t, exitOK, all.code, all.stderr)
	names := func(out string) []string {
		var res struct {
			Results []struct {
				Name string `json:"name"`
			} `json:"results"`
			Shard string `json:"shard"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &res))
		var ns []string
		for _, r := range res.Results {
			ns = append(ns, r.Name)
		}
		return ns
	}
	want := names(all.stdout)
	require.GreaterOrEqual(t, len(want), 3)
	var got []string
	for i := 0; i < 2; i++ {
		r := ptxrun(t, "test", root, "--shard", fmt.Sprintf("%d/2", i), "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, fmt.Sprintf(`"shard": "%d/2"`, i))
		part := names(r.stdout)
		assert.NotEmpty(t, part)
		got = append(got, part...)
	}
	assert.ElementsMatch(t, want, got, "the shards hold every case once")

	r := ptxrun(t, "test", root, "--shard", fmt.Sprintf("1/%d", len(want)))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, fmt.Sprintf("1 cases (shard 1/%d of %d): 1 passed", len(want), len(want)))
	r = ptxrun(t, "test", root, "--shard", fmt.Sprintf("%d/%d", len(want), len(want)+1))
	assert.Equal(t, exitOK, r.code, "a shard with no cases has nothing to fail")
	assert.Contains(t, r.stdout, "no cases")
}
