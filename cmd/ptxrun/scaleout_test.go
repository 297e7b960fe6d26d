package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fencedBlocks returns the code blocks of a Markdown file fenced as lang.
func fencedBlocks(t *testing.T, file, lang string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var blocks []string
	var cur *strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case cur == nil && strings.TrimSpace(line) == "```"+lang:
			cur = &strings.Builder{}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

// The Kubernetes and Slurm recipes of docs/scale-out.md, run as the page
// gives them (each shard a process of its own), merge into what one
// process running the whole sweep writes.
func TestScaleOutRecipes(t *testing.T) {
	doc := filepath.Join("..", "..", "docs", "scale-out.md")
	sweepText, err := os.ReadFile(testSweep(t))
	require.NoError(t, err)
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "sweep.jsonl"), sweepText, 0o644))
	one := filepath.Join(root, "one.jsonl")
	cmd, out := ptxrunProcess(t, nil, "sweep", filepath.Join(root, "sweep.jsonl"), "-o", one)
	require.NoError(t, cmd.Wait(), out.String())
	want, err := os.ReadFile(one)
	require.NoError(t, err)

	t.Run("kubernetes", func(t *testing.T) {
		var args [][]string
		completions := 0
		for _, b := range fencedBlocks(t, doc, "yaml") {
			for _, line := range strings.Split(b, "\n") {
				line = strings.TrimSpace(line)
				if a, ok := strings.CutPrefix(line, "args: "); ok {
					var list []string
					require.NoError(t, json.Unmarshal([]byte(a), &list), "args as a flow list of quoted strings: %s", line)
					args = append(args, list)
				}
				if m := regexp.MustCompile(`^completions: (\d+)`).FindStringSubmatch(line); m != nil {
					completions, _ = strconv.Atoi(m[1])
				}
			}
		}
		require.Len(t, args, 2, "the sweep Job's args and the merge Job's")
		require.Positive(t, completions)
		assert.Contains(t, args[0], fmt.Sprintf("env/%d", completions), "--shard env/N with N the Job's completions")
		data := filepath.Join(t.TempDir(), "data")
		require.NoError(t, os.MkdirAll(data, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(data, "sweep.jsonl"), sweepText, 0o644))
		// What Kubernetes does: the volume at /data, $(VAR) expanded from
		// the container's variables, one pod per index.
		pod := func(a []string, index int) []string {
			var out []string
			for _, s := range a {
				s = strings.ReplaceAll(s, "/data", data)
				out = append(out, strings.ReplaceAll(s, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(index)))
			}
			return out
		}
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		for i := 0; i < completions; i++ {
			c, o := ptxrunProcess(t, []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}, pod(args[0], i)...)
			cmds, outs = append(cmds, c), append(outs, o)
		}
		for i, c := range cmds {
			require.NoError(t, c.Wait(), outs[i].String())
		}
		c, o := ptxrunProcess(t, nil, pod(args[1], 0)...)
		require.NoError(t, c.Wait(), o.String())
		got, err := os.ReadFile(filepath.Join(data, "results", "sweep.jsonl"))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
		assertSplit(t, filepath.Join(data, "results", "shard-*.jsonl"), completions, want)
	})

	t.Run("slurm", func(t *testing.T) {
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Skip("no bash to run the Slurm script with")
		}
		var script, submit string
		for _, b := range fencedBlocks(t, doc, "bash") {
			switch {
			case strings.Contains(b, "#SBATCH --array="):
				script = b
			case strings.Contains(b, "--wrap"):
				submit = b
			}
		}
		require.NotEmpty(t, script, "the array script")
		require.NotEmpty(t, submit, "the submission with the merge")
		m := regexp.MustCompile(`#SBATCH --array=(\d+)-(\d+)(?::(\d+))?`).FindStringSubmatch(script)
		require.NotNil(t, m)
		lo, _ := strconv.Atoi(m[1])
		hi, _ := strconv.Atoi(m[2])
		step := 1
		if m[3] != "" {
			step, _ = strconv.Atoi(m[3])
		}
		var ids []int
		for id := lo; id <= hi; id += step {
			ids = append(ids, id)
		}
		cpus := "1"
		if m := regexp.MustCompile(`#SBATCH --cpus-per-task=(\d+)`).FindStringSubmatch(script); m != nil {
			cpus = m[1]
		}
		wrap := regexp.MustCompile(`--wrap '([^']*)'`).FindStringSubmatch(submit)
		require.NotNil(t, wrap, "the merge given to sbatch --wrap '...'")

		// ptxrun on the PATH: this test binary, run as ptxrun.
		exe, err := os.Executable()
		require.NoError(t, err)
		bin := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(bin, "ptxrun"), []byte(fmt.Sprintf("#!/bin/sh\n%s=1 exec %q \"$@\"\n", asPtxrun, exe)), 0o755))
		work := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(work, "sweep.jsonl"), sweepText, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(work, "sweep.sbatch"), []byte(script), 0o644))
		require.NoError(t, os.Mkdir(filepath.Join(work, "results"), 0o755), "the submission's mkdir -p results")
		path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		for _, id := range ids {
			c := exec.Command(bash, "sweep.sbatch")
			c.Dir = work
			c.Env = append(os.Environ(), "PATH="+path, fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", id), fmt.Sprintf("SLURM_ARRAY_TASK_MIN=%d", lo),
				fmt.Sprintf("SLURM_ARRAY_TASK_MAX=%d", hi), fmt.Sprintf("SLURM_ARRAY_TASK_STEP=%d", step), fmt.Sprintf("SLURM_ARRAY_TASK_COUNT=%d", len(ids)),
				"SLURM_CPUS_PER_TASK="+cpus)
			var o bytes.Buffer
			c.Stdout, c.Stderr = &o, &o
			require.NoError(t, c.Start())
			cmds, outs = append(cmds, c), append(outs, &o)
		}
		for i, c := range cmds {
			require.NoError(t, c.Wait(), outs[i].String())
		}
		c := exec.Command("/bin/sh", "-c", wrap[1])
		c.Dir = work
		c.Env = append(os.Environ(), "PATH="+path)
		o, err := c.CombinedOutput()
		require.NoError(t, err, string(o))
		got, err := os.ReadFile(filepath.Join(work, "results", "sweep.jsonl"))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
		assertSplit(t, filepath.Join(work, "results", "shard-*.jsonl"), len(ids), want)
	})
}

// assertSplit checks that the n shard outputs matching pattern split the
// results of want between them, each result in one shard only.
func assertSplit(t *testing.T, pattern string, n int, want []byte) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	require.NoError(t, err)
	assert.Len(t, files, n, "one output per shard")
	lines := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines += bytes.Count(b, []byte("\n"))
	}
	assert.Equal(t, bytes.Count(want, []byte("\n")), lines, "each line run by one shard only")
}
