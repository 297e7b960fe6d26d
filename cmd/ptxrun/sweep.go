package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ptxvm/ptxvm/scheduler/shard"
	"github.com/ptxvm/ptxvm/scheduler/sweep"
)

const sweepUsage = `Usage: ptxrun sweep FILE.jsonl -o OUT.jsonl [flags]
       ptxrun sweep merge -o OUT.jsonl SHARD.jsonl... [--input FILE.jsonl]

Runs every line of FILE.jsonl, one launch a line:

  {"spec": "cases/gemm/spec.json", "gpu": "h100", "mode": "timing", "size": 512}

and writes one JSON line per input line to OUT.jsonl, in input order: the
line number, the input echoed, "status" ok or error (with "error"), the
kernel, the GPU, the mode, in timing mode "cycles" (sampled: with
"cycles_error" and "sampled"), and the key counters under "metrics"
(--metrics). A line may say:

` + sweep.Fields + `

Results are appended as launches finish: a run that is stopped (Ctrl-C, a
lost machine) keeps them, and running the same command again skips the
lines already done; when every line is done the file is rewritten in
input order. Lines ending in an error count as done (--retry-errors runs
them again).

--shard I/N runs only the lines whose position in the file (from 0, blank
lines not counted) is I modulo N; --shard env/N takes I from a Kubernetes
Indexed Job's JOB_COMPLETION_INDEX or a Slurm array's SLURM_ARRAY_TASK_ID.
Give each shard its own output, and merge them:

  ptxrun sweep merge -o OUT.jsonl shard-*.jsonl --input FILE.jsonl

writes exactly what one process running the whole sweep writes; --input
checks that every line has its result. docs/scale-out.md has a Kubernetes
Job and a Slurm script.`

// shardFlag adds --shard.
func shardFlag(fs *flag.FlagSet) *string {
	return fs.String("shard", "", "run only shard `I/N` (I from 0 to N-1) of the work, dealt round robin in its sorted order; env/N takes I from $JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or $SLURM_ARRAY_TASK_ID (Slurm array), env also N from $SLURM_ARRAY_TASK_COUNT (docs/scale-out.md)")
}

// parseShard reads --shard for command cmd ("" is all of the work).
func parseShard(stderr io.Writer, cmd, s string) (shard.Shard, bool) {
	if s == "" {
		return shard.All, true
	}
	sh, err := shard.Parse(s, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "ptxrun %s: --shard: %v\n", cmd, err)
		return shard.Shard{}, false
	}
	return sh, true
}

// sweepSummary is what a sweep run prints (--json: as JSON).
type sweepSummary struct {
	Input      string  `json:"input"`
	Output     string  `json:"output"`
	Lines      int     `json:"lines"`
	Shard      string  `json:"shard,omitempty"`
	ShardLines int     `json:"shard_lines"`
	Ran        int     `json:"ran"`
	DoneBefore int     `json:"done_before"`
	Errors     int     `json:"errors"`
	Complete   bool    `json:"complete"`
	Seconds    float64 `json:"seconds"`
}

func cmdSweep(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return cmdSweepMerge(args[1:], stdout, stderr)
	}
	fs := newFlags("sweep", sweepUsage, stderr)
	out := fs.String("o", "", "write the results to `OUT.jsonl` (a rerun with the same file goes on where it stopped)")
	shardText := shardFlag(fs)
	workers := fs.Int("workers", 0, "lines run at once, each launch on one core (0: all cores)")
	metricsText := fs.String("metrics", "key", "the counters each result keeps: key (instructions, traffic, hit rates, DRAM bytes, occupancy, cycles and stall reasons), all (every counter, about 120), or `NAMES` separated by commas (ptxrun metrics lists them)")
	retry := fs.Bool("retry-errors", false, "run again the lines whose result in OUT.jsonl is an error")
	failOnError := fs.Bool("fail-on-error", false, "exit 1 if any line of the run ends in an error (by default errors are results like any other)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ptxrun sweep: give exactly one sweep file (or: ptxrun sweep merge)")
		fs.Usage()
		return exitUsage
	}
	if *out == "" {
		fmt.Fprintln(stderr, "ptxrun sweep: give the output file with -o OUT.jsonl (running again with the same file resumes)")
		return exitUsage
	}
	if !nonNegative(stderr, "sweep", "workers", int64(*workers)) {
		return exitUsage
	}
	sh, ok := parseShard(stderr, "sweep", *shardText)
	if !ok {
		return exitUsage
	}
	keep, err := sweep.ParseMetrics(*metricsText)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun sweep: --metrics:", err)
		return exitUsage
	}
	if same, _ := sameFile(pos[0], *out); same {
		fmt.Fprintf(stderr, "ptxrun sweep: -o %s is the sweep file itself\n", *out)
		return exitUsage
	}
	entries, err := sweep.ReadFile(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun sweep:", err)
		return exitUsage
	}
	if len(entries) == 0 {
		fmt.Fprintf(stderr, "ptxrun sweep: %s has no lines to run\n", pos[0])
		return exitUsage
	}
	mine := shard.Select(sh, entries)
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintln(stderr, "ptxrun sweep:", err)
		return exitFail
	}
	o, err := sweep.OpenOutput(*out, entries, mine, *retry)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun sweep:", err)
		return exitUsage
	}
	var todo []sweep.Entry
	for _, e := range mine {
		if !o.Done(e.Line) {
			todo = append(todo, e)
		}
	}
	start := time.Now()
	var done atomic.Uint64
	prog := startProgress(stderr, "lines", uint64(len(todo)), &done)
	err = sweep.Run(ctx, todo, sweep.Options{Workers: *workers, Metrics: keep}, func(r *sweep.Result) error {
		done.Add(1)
		if r.Status == sweep.StatusError {
			prog.Pause()
			fmt.Fprintf(stderr, "ptxrun sweep: %s:%d: %s\n", pos[0], r.Line, r.Error)
			prog.Resume()
		}
		return o.Append(r)
	})
	prog.Stop()
	if err != nil {
		o.Close()
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "ptxrun sweep: %d of %d lines done; run the same command again to go on\n", o.Kept+int(done.Load()), len(mine))
			return exitInterrupted
		}
		fmt.Fprintln(stderr, "ptxrun sweep:", err)
		return exitFail
	}
	if err := o.Finish(); err != nil {
		fmt.Fprintln(stderr, "ptxrun sweep:", err)
		return exitFail
	}
	sum := sweepSummary{Input: pos[0], Output: *out, Lines: len(entries), ShardLines: len(mine), Ran: len(todo), DoneBefore: o.Kept,
		Complete: true, Seconds: time.Since(start).Seconds()}
	if sh.Sharded() {
		sum.Shard = sh.String()
	}
	for _, r := range o.Records() {
		if r.Status == sweep.StatusError {
			sum.Errors++
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(sum)
	} else {
		what := fmt.Sprintf("%d lines", sum.Lines)
		if sh.Sharded() {
			what += fmt.Sprintf(", shard %s: %d of them", sh, sum.ShardLines)
		}
		fmt.Fprintf(stdout, "%s: %s; %d run now, %d done before, %d errors (%s); results in %s\n",
			pos[0], what, sum.Ran, sum.DoneBefore, sum.Errors, time.Since(start).Round(time.Millisecond), *out)
	}
	if *failOnError && sum.Errors > 0 {
		return exitFail
	}
	return exitOK
}

func cmdSweepMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("sweep merge", `Usage: ptxrun sweep merge -o OUT.jsonl SHARD.jsonl... [--input FILE.jsonl]

Merges the outputs of a sweep's shards (ptxrun sweep --shard I/N) into one
file in input order: exactly what one process running the whole sweep
writes. A line with results in two files must have the same result in
both. A SHARD with * ? or [ in it that names no file is a pattern, expanded
here (for a container image with no shell). With --input, checks that
every line of the sweep has its result and that the results are for the
lines as they read now; exits 1 if not, naming the lines missing.`, stderr)
	out := fs.String("o", "", "write the merged results to `OUT.jsonl`")
	input := fs.String("input", "", "the sweep file `FILE.jsonl`: check that every line has a result")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "ptxrun sweep merge: give the shards' output files")
		fs.Usage()
		return exitUsage
	}
	if *out == "" {
		fmt.Fprintln(stderr, "ptxrun sweep merge: give the merged file with -o OUT.jsonl")
		return exitUsage
	}
	pos, err = expandGlobs(pos)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun sweep merge:", err)
		return exitUsage
	}
	for _, p := range pos {
		if same, _ := sameFile(p, *out); same {
			fmt.Fprintf(stderr, "ptxrun sweep merge: -o %s is one of the files to merge: write the merge to a file of its own\n", *out)
			return exitUsage
		}
	}
	recs, err := sweep.Merge(pos)
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun sweep merge:", err)
		return exitUsage
	}
	if *input != "" {
		entries, err := sweep.ReadFile(*input)
		if err != nil {
			fmt.Fprintln(stderr, "ptxrun sweep merge:", err)
			return exitUsage
		}
		if err := sweep.Check(recs, entries); err != nil {
			fmt.Fprintln(stderr, "ptxrun sweep merge:", err)
			return exitFail
		}
	}
	if err := sweep.WriteRecords(*out, recs); err != nil {
		fmt.Fprintln(stderr, "ptxrun sweep merge:", err)
		return exitFail
	}
	errs := 0
	for _, r := range recs {
		if r.Status == sweep.StatusError {
			errs++
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Output  string `json:"output"`
			Files   int    `json:"files"`
			Results int    `json:"results"`
			Errors  int    `json:"errors"`
			Checked bool   `json:"checked_against_input"`
		}{*out, len(pos), len(recs), errs, *input != ""})
		return exitOK
	}
	checked := ""
	if *input != "" {
		checked = ", every line of " + *input
	}
	fmt.Fprintf(stdout, "%d results from %d files (%d errors%s) merged into %s\n", len(recs), len(pos), errs, checked, *out)
	return exitOK
}

// expandGlobs expands the arguments that are glob patterns (a * ? or [
// in a name that is not a file), in sorted order; a pattern that matches
// nothing is an error.
func expandGlobs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if _, err := os.Stat(a); err == nil || !strings.ContainsAny(a, "*?[") {
			out = append(out, a)
			continue
		}
		m, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("no file matches %s", a)
		}
		out = append(out, m...)
	}
	return out, nil
}

// sameFile reports whether paths a and b name the same existing file.
func sameFile(a, b string) (bool, error) {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true, nil
	}
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}
