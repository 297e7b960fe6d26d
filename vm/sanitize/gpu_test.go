package sanitize_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm/sanitize"
)

// The records compute-sanitizer printed for the corpus on the H200
// (testdata/sanitize/gpu/<case>.<variant>.<tool>.txt, gen/gen.py device),
// reduced to what this comparison holds them to: per record group, the
// kind and the source lines (file names without folders), and the number
// of records (racecheck: of hazards, one per byte).

// gpuKey is one group of records: a kind and the CUDA lines it names.
type gpuKey struct {
	kind  string
	lines string // "file.cu:L" or "file.cu:L>file.cu:M" for a race
}

// gpuRun is one compute-sanitizer run.
type gpuRun struct {
	groups map[gpuKey]int
	hung   bool // killed after 40 s: the kernel hung under the tool
	failed bool // the launch failed
}

var (
	reHazard = regexp.MustCompile(`^(Error|Warning): (?:\(Warp Level Programming\) )?Potential (RAW|WAR|WAW) hazard`)
	reSide   = regexp.MustCompile(`^\s+\w+ Thread \(\d+,\d+,\d+\) at .* in (\S+):(\d+)$`)
	reAt     = regexp.MustCompile(`^\s+at .* in (\S+):(\d+)$`)
)

// gpuKinds maps compute-sanitizer's headlines to our kinds.
func gpuKind(head string, body []string) string {
	switch {
	case strings.HasPrefix(head, "Invalid __"):
		for _, b := range body {
			if strings.Contains(b, "is misaligned") {
				return "misaligned"
			}
		}
		return "out of bounds"
	case strings.HasPrefix(head, "Uninitialized __"):
		return "uninitialized read"
	case strings.HasPrefix(head, "Illegal instruction"):
		return "illegal instruction"
	case strings.HasPrefix(head, "Program hit"):
		return "launch failure"
	case strings.Contains(head, "Divergent thread(s) in warp"):
		return "divergent barrier in warp"
	case strings.Contains(head, "Divergent thread(s) in block"):
		return "divergent barrier in block"
	case strings.Contains(head, "Invalid arguments"):
		return "invalid arguments"
	}
	return head
}

func parseGPU(text string) gpuRun {
	run := gpuRun{groups: map[gpuKey]int{}}
	run.hung = strings.Contains(text, "#exit 124 ")
	run.failed = strings.Contains(text, "launch: CUDA_ERROR")
	var rec []string
	flush := func() {
		defer func() { rec = rec[:0] }()
		if len(rec) == 0 {
			return
		}
		head := rec[0]
		if m := reHazard.FindStringSubmatch(head); m != nil {
			var ls []string
			for _, r := range rec[1:] {
				if s := reSide.FindStringSubmatch(r); s != nil {
					ls = append(ls, filepath.Base(s[1])+":"+s[2])
				}
			}
			run.groups[gpuKey{m[2], strings.Join(ls, ">")}]++
			return
		}
		if strings.HasPrefix(head, "Error: Race reported") || strings.HasPrefix(head, "Warning: Race reported") ||
			strings.HasPrefix(head, "COMPUTE-SANITIZER") || strings.Contains(head, "SUMMARY") ||
			strings.Contains(head, "buffer overflow") || strings.Contains(head, "were skipped") {
			return
		}
		line := ""
		for _, r := range rec[1:] {
			if s := reAt.FindStringSubmatch(r); s != nil {
				line = filepath.Base(s[1]) + ":" + s[2]
				break
			}
		}
		run.groups[gpuKey{gpuKind(head, rec[1:]), line}]++
	}
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "========= ") {
			continue
		}
		body := strings.TrimPrefix(l, "========= ")
		if strings.TrimSpace(body) == "" {
			flush()
			continue
		}
		if !strings.HasPrefix(body, " ") && len(rec) > 0 && !strings.HasPrefix(body, "and ") {
			flush()
		}
		rec = append(rec, body)
	}
	flush()
	return run
}

// ourKind is the kind compute-sanitizer gives what we call kind.
func ourKind(kind string) string {
	switch kind {
	case "uninitialized atomic":
		return "uninitialized read"
	case "syncwarp mask excludes lane", "syncwarp mask mismatch":
		return "invalid arguments"
	}
	return kind
}

// ourGroups is the report as gpuKeys: each site's line as compute-
// sanitizer prints it (the innermost frame, the file without folders).
func ourGroups(rep *sanitize.Report) map[gpuKey]int {
	out := map[gpuKey]int{}
	for _, f := range rep.Findings {
		var ls []string
		for _, s := range f.Sites {
			if s.Source != "" {
				ls = append(ls, filepath.Base(s.Source))
			} else {
				ls = append(ls, "")
			}
		}
		out[gpuKey{ourKind(f.Kind), strings.Join(ls, ">")}] += f.Count
	}
	return out
}

// verdict compares one run: "clean" (neither reports), "match" (the same
// groups; counts may differ), "found" (a group in common, others apart),
// "order" (a race found between the same lines, RAW on one side and WAR
// on the other: which access came first differs), "missed", "extra"
// (we report, the GPU does not), "hung" (the GPU hung under the tool).
func verdict(gpu gpuRun, ours map[gpuKey]int) string {
	g := map[gpuKey]int{}
	for k, n := range gpu.groups {
		if k.kind != "launch failure" {
			g[k] = n
		}
	}
	o := map[gpuKey]int{}
	for k, n := range ours {
		if k.kind != "launch failure" {
			o[k] = n
		}
	}
	switch {
	case gpu.hung:
		return "hung"
	case len(g) == 0 && len(o) == 0:
		return "clean"
	case len(g) == 0:
		return "extra"
	case len(o) == 0:
		return "missed"
	}
	common, same := 0, len(g) == len(o)
	for k := range g {
		_, ok := o[k]
		for q := range o {
			// compute-sanitizer names no line where the code has none
			// it can map (a -O3 __syncwarp): the kind decides.
			ok = ok || k.lines == "" && q.kind == k.kind
		}
		if ok {
			common++
		} else {
			same = false
		}
	}
	if same {
		return "match"
	}
	if common > 0 {
		return "found"
	}
	for k := range g {
		for q := range o {
			ls := strings.Split(q.lines, ">")
			if len(ls) == 2 && (k.kind == "RAW" && q.kind == "WAR" || k.kind == "WAR" && q.kind == "RAW") && k.lines == ls[1]+">"+ls[0] {
				return "order"
			}
		}
	}
	return "missed"
}

func fmtGroups(m map[gpuKey]int) string {
	var parts []string
	for k, n := range m {
		parts = append(parts, fmt.Sprintf("%s %s x%d", k.kind, k.lines, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// TestAgainstComputeSanitizer runs every case compute-sanitizer ran and
// compares the record groups: kind and source lines. The table
// (testdata/sanitize/gpu/MATCH.txt, -update) says per run what matched;
// the test holds every planted bug found under its tool (match, found or
// order) and no clean run reporting what the GPU did not.
func TestAgainstComputeSanitizer(t *testing.T) {
	cases, controls := loadCases(t)
	tool := map[string]string{}
	for _, c := range cases {
		tool[c.Case] = c.Tool
	}
	files, err := filepath.Glob(filepath.Join(corpus, "gpu", "*.*.*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	isControl := map[string]bool{}
	for _, c := range controls {
		isControl[c] = true
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tbuild\ttool\tverdict\tcompute-sanitizer\tptxrun sanitize")
	tally := map[string]int{}
	var md bytes.Buffer // the table docs/sanitize.md carries
	fmt.Fprintln(&md, "| case | build | tool | verdict | counts | compute-sanitizer (kind line ×count) | ptxrun sanitize |")
	fmt.Fprintln(&md, "| --- | --- | --- | --- | --- | --- | --- |")
	mdClean := 0
	for _, f := range files {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".txt"), ".")
		require.Len(t, parts, 3, f)
		name, variant, tl := parts[0], parts[1], parts[2]
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		gpu := parseGPU(string(text))
		tools, err := sanitize.ParseTool(tl)
		require.NoError(t, err)
		specPath := filepath.Join(corpus, "specs", name+"."+variant+".json")
		if isControl[name] {
			specPath = filepath.Join("../../testdata/nvcc/cases", name, variant, "spec.json")
		}
		rep := sanitizeSpec(t, specPath, tools, false)
		ours := ourGroups(rep)
		v := verdict(gpu, ours)
		planted := tool[name] == tl
		if planted {
			tally["planted "+v]++
		} else {
			tally["other "+v]++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, variant, tl, v, fmtGroups(gpu.groups), fmtGroups(ours))
		if planted || v != "clean" {
			counts := "same"
			switch {
			case v == "clean":
				counts = "-"
			case v == "hung":
				counts = "(GPU hung)"
			case fmtGroups(gpu.groups) != fmtGroups(ours):
				counts = "differ"
			}
			fmt.Fprintf(&md, "| %s | %s | %s | %s | %s | %s | %s |\n", name, variant, tl, v, counts, mdCell(fmtGroups(gpu.groups)), mdCell(fmtGroups(ours)))
		} else {
			mdClean++
		}
		switch {
		case planted && !knownMiss[name+"."+variant] && !knownExtra[name+"."+variant+"."+tl]:
			assert.Contains(t, []string{"match", "found", "order", "hung", "clean"}, v, "%s.%s %s: compute-sanitizer %s; ours %s", name, variant, tl, fmtGroups(gpu.groups), fmtGroups(ours))
		case !planted && !knownExtra[name+"."+variant+"."+tl]:
			assert.NotEqual(t, "extra", v, "%s.%s %s: a finding the GPU does not report: %s", name, variant, tl, fmtGroups(ours))
		}
	}
	tw.Flush()
	var keys []string
	for k := range tally {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintln(&b)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %d\n", k, tally[k])
	}
	fmt.Fprintf(&md, "\nThe other %d runs (clean kernels, and planted kernels under the tools they do not target) report nothing on either side.\n", mdClean)
	table := filepath.Join(corpus, "gpu", "MATCH.txt")
	docs := filepath.Join("..", "..", "docs", "sanitize.md")
	if *update {
		require.NoError(t, os.WriteFile(table, b.Bytes(), 0o644))
		text, err := os.ReadFile(docs)
		require.NoError(t, err)
		out, err := replaceSection(string(text), md.String())
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(docs, []byte(out), 0o644))
		return
	}
	text, err := os.ReadFile(docs)
	require.NoError(t, err)
	_, got, ok := strings.Cut(string(text), matchBegin+"\n")
	got, _, ok2 := strings.Cut(got, matchEnd)
	require.True(t, ok && ok2, "docs/sanitize.md lacks the %s ... %s section", matchBegin, matchEnd)
	assert.Equal(t, md.String(), got, "docs/sanitize.md's comparison table is out of date: go test -update")
	want, err := os.ReadFile(table)
	require.NoError(t, err, "go test -update writes it")
	assert.Equal(t, string(want), b.String())
}

// knownMiss and knownExtra are the runs where we differ from
// compute-sanitizer on purpose or by a known limit (docs/sanitize.md).
var (
	knownMiss  = map[string]bool{}
	knownExtra = map[string]bool{
		// The VM holds a bar.warp.sync whose mask leaves out the executing
		// lane to be an illegal instruction (recorded without the
		// sanitizer); under compute-sanitizer the launch ran.
		"sync_syncwarp_self.O3.memcheck": true,
		// -G: the VM deadlocks the two halves' __syncwarps (each waits for
		// a lane of the other half); the H200 completed them.
		"sync_syncwarp_mismatch.G.synccheck": true,
		// The VM gives each thread its own local memory and faults past
		// it; on the GPU thread 1's a[4096] lands in memory the launch
		// owns (another thread's stack) and memcheck stays silent.
		"mem_local_past.O3.memcheck": true,
	}
)

// The markers of the generated comparison table in docs/sanitize.md.
const (
	matchBegin = "<!-- generated by TestAgainstComputeSanitizer -update: do not edit -->"
	matchEnd   = "<!-- end of generated table -->"
)

// replaceSection puts table between the markers of text.
func replaceSection(text, table string) (string, error) {
	before, rest, ok := strings.Cut(text, matchBegin+"\n")
	if !ok {
		return "", fmt.Errorf("no %q in docs/sanitize.md", matchBegin)
	}
	_, after, ok := strings.Cut(rest, matchEnd)
	if !ok {
		return "", fmt.Errorf("no %q in docs/sanitize.md", matchEnd)
	}
	return before + matchBegin + "\n" + table + matchEnd + after, nil
}

// mdCell makes a record list a Markdown table cell.
func mdCell(s string) string {
	if s == "" {
		return "nothing"
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "; ", "<br>")
}
