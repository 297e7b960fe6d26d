package html_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xhtml "golang.org/x/net/html"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/report"
	"github.com/ptxvm/ptxvm/scheduler/report/html"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm/spec"
)

var (
	cache   = spec.NewModuleCache()
	reports = map[string]*report.Report{}
	cuDir   = filepath.Join("..", "..", "..", "testdata", "nvcc", "gen", "kernels")
)

// build runs a kernel of the nvcc corpus (O3) and returns its report.
func build(t *testing.T, name string) *report.Report {
	t.Helper()
	if r, ok := reports[name]; ok {
		return r
	}
	sp, err := spec.Load(filepath.Join("..", "..", "..", "testdata", "nvcc", "cases", name, "O3", "spec.json"))
	require.NoError(t, err)
	run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{}, cache)
	require.NoError(t, err)
	r, err := report.New(run, scheduler.H100)
	require.NoError(t, err)
	run.Release()
	reports[name] = r
	return r
}

// doc is a parsed page.
type doc struct {
	root *xhtml.Node
	text string
	ids  map[string]*xhtml.Node
}

func parse(t *testing.T, page []byte) *doc {
	t.Helper()
	root, err := xhtml.Parse(bytes.NewReader(page))
	require.NoError(t, err)
	d := &doc{root: root, ids: map[string]*xhtml.Node{}}
	d.walk(func(n *xhtml.Node) {
		if id := attr(n, "id"); id != "" {
			_, dup := d.ids[id]
			assert.False(t, dup, "id %q twice", id)
			d.ids[id] = n
		}
	})
	d.text = textOf(root)
	return d
}

func (d *doc) walk(f func(*xhtml.Node)) {
	var rec func(*xhtml.Node)
	rec = func(n *xhtml.Node) {
		f(n)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(d.root)
}

// all returns the elements named tag (with class cls, if given).
func (d *doc) all(tag, cls string) []*xhtml.Node {
	var out []*xhtml.Node
	d.walk(func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode && n.Data == tag && (cls == "" || hasClass(n, cls)) {
			out = append(out, n)
		}
	})
	return out
}

func attr(n *xhtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *xhtml.Node, cls string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == cls {
			return true
		}
	}
	return false
}

func textOf(n *xhtml.Node) string {
	var b strings.Builder
	var rec func(*xhtml.Node)
	rec = func(n *xhtml.Node) {
		if n.Type == xhtml.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == xhtml.ElementNode && (n.Data == "style" || n.Data == "script") {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// selfContained checks that the page references nothing outside itself:
// no element loads a resource, links leave only to anchors of the page,
// the style sheet imports nothing and refers only to the page's patterns,
// and the one script is inline.
func selfContained(t *testing.T, d *doc) {
	t.Helper()
	scripts := 0
	d.walk(func(n *xhtml.Node) {
		if n.Type != xhtml.ElementNode {
			return
		}
		switch n.Data {
		case "link", "img", "iframe", "object", "embed", "video", "audio", "source", "image", "use", "base", "frame":
			t.Errorf("element <%s> may load a resource", n.Data)
		case "script":
			scripts++
			assert.Empty(t, attr(n, "src"), "an inline script")
		case "style":
			css := textOf2(n)
			assert.NotContains(t, css, "@import")
			for _, m := range regexp.MustCompile(`url\(([^)]*)\)`).FindAllStringSubmatch(css, -1) {
				assert.True(t, strings.HasPrefix(m[1], "#"), "css url(%s) is not a pattern of the page", m[1])
			}
		}
		for _, a := range n.Attr {
			switch a.Key {
			case "src", "srcset", "data", "action", "formaction", "poster", "xlink:href", "background":
				t.Errorf("<%s %s=%q> references a resource", n.Data, a.Key, a.Val)
			case "href":
				assert.True(t, strings.HasPrefix(a.Val, "#"), "<%s href=%q> leaves the page", n.Data, a.Val)
				if id := strings.TrimPrefix(a.Val, "#"); id != "" {
					_, ok := d.ids[id]
					assert.True(t, ok, "href %q points nowhere", a.Val)
				}
			case "style":
				assert.NotContains(t, a.Val, "url(", "<%s style=%q>", n.Data, a.Val)
			}
		}
	})
	assert.Equal(t, 1, scripts, "one inline script")
}

func textOf2(n *xhtml.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == xhtml.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

func write(t *testing.T, r *report.Report, opt html.Options) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, html.Write(&b, r, opt))
	return b.Bytes()
}

// TestReportStructure: a run's page has its sections, a chart of each kind
// drawn as SVG, a row per PTX line and per CUDA line, every counter of the
// run with its meaning, and references nothing outside itself.
func TestReportStructure(t *testing.T) {
	for _, name := range []string{"transpose_shared", "matmul_tiled"} {
		t.Run(name, func(t *testing.T) {
			r := build(t, name)
			page := write(t, r, html.Options{Sources: html.FindSources(r, cuDir), Command: "ptxrun report x", Version: "test"})
			assert.Less(t, len(page), 1<<20, "the page stays small")
			d := parse(t, page)
			selfContained(t, d)

			titles := d.all("title", "")
			require.NotEmpty(t, titles)
			assert.Contains(t, textOf(titles[0]), name)
			for _, id := range []string{"glance", "launch", "charts", "cuda", "ptx", "top", "counters"} {
				n, ok := d.ids[id]
				if assert.True(t, ok, "section %s", id) {
					assert.Equal(t, "section", n.Data)
					assert.NotEmpty(t, d.allIn(n, "h2"), "section %s has a heading", id)
				}
			}
			navs := d.all("nav", "")
			require.Len(t, navs, 1)
			assert.Len(t, d.allIn(navs[0], "a"), 7)

			// Four charts, each an SVG with a title, or a sentence saying
			// why there is none.
			figs := d.all("figure", "chart")
			require.Len(t, figs, 4)
			for _, f := range figs {
				svgs := d.allIn(f, "svg")
				if len(svgs) == 0 {
					assert.NotEmpty(t, d.allInClass(f, "p", "empty"), attr(f, "id"))
					continue
				}
				assert.NotEmpty(t, d.allIn(svgs[0], "title"), attr(f, "id"))
				assert.NotEmpty(t, d.allIn(svgs[0], "rect"), attr(f, "id"))
			}

			// The PTX view: one row per listing line, in order.
			ptxRows := d.allInClass(d.ids["ptx"], "tr", "")
			assert.Len(t, ptxRows, len(r.Listing)+1, "a header and a row per line")
			for _, ll := range r.Listing {
				row, ok := d.ids["ptx-"+itoa(ll.Line)]
				if assert.True(t, ok, "PTX line %d", ll.Line) {
					assert.Contains(t, textOf(row), ll.Text)
				}
			}
			// Every memory instruction's diagnosis is on its row.
			for _, in := range r.Insts {
				row := d.ids["ptx-"+strings.Split(in.PTXLine, ":")[1]]
				require.NotNil(t, row)
				assert.Contains(t, textOf(row), in.Diagnosis.Text)
			}
			// The CUDA view has every CUDA line and, with the source
			// found, its text.
			for _, ln := range r.Lines {
				assert.Contains(t, textOf(d.ids["cuda"]), strings.Split(ln.CUDA, ":")[1])
			}
			assert.NotContains(t, textOf(d.ids["cuda"]), "was not found")

			// Every figure of the run is listed, with its meaning.
			counters := textOf(d.ids["counters"])
			for _, m := range report.Catalogue() {
				if _, ok := r.Metrics[m.Name]; ok {
					assert.Contains(t, counters, m.Name)
					assert.Contains(t, counters, m.Help)
				}
			}
			var rows int
			for _, tb := range d.allInClass(d.ids["counters"], "table", "counters") {
				for _, tr := range d.allIn(tb, "tr") {
					if len(d.allIn(tr, "code")) == 1 {
						rows++
					}
				}
			}
			assert.Equal(t, len(r.Metrics), rows, "one row per figure")
			assert.Contains(t, d.text, "Command: ptxrun report x")
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func (d *doc) allIn(n *xhtml.Node, tag string) []*xhtml.Node { return d.allInClass(n, tag, "") }

func (d *doc) allInClass(n *xhtml.Node, tag, cls string) []*xhtml.Node {
	sub := &doc{root: n}
	return sub.all(tag, cls)
}

// TestHeat: the shared transpose's column read is the hottest line for
// bank conflicts (the darkest heat), its diagnosis says 32-way, and the
// chart of wavefronts draws its conflicts; the padded one's has none.
func TestHeat(t *testing.T) {
	r := build(t, "transpose_shared")
	d := parse(t, write(t, r, html.Options{}))
	top := r.Inst(r.TopConflicts[0])
	row := d.ids["ptx-"+strings.Split(top.PTXLine, ":")[1]]
	require.NotNil(t, row)
	assert.Contains(t, textOf(row), "32-way bank conflict")
	var hot []string
	for _, td := range d.allIn(row, "td") {
		if hasClass(td, "h8") {
			hot = append(hot, attr(td, "title"))
		}
	}
	assert.Contains(t, strings.Join(hot, "|"), "Conflicts: ", "the conflicts cell is the hottest")
	banks := d.ids["chart-banks"]
	require.NotNil(t, banks)
	assert.NotEmpty(t, bars(d, banks, "s-conflict"))
	assert.Contains(t, textOf(banks), "(32-way)")
	// Without the CUDA file the CUDA view says so and keeps the labels.
	assert.Contains(t, textOf(d.ids["cuda"]), "was not found")
	assert.Contains(t, textOf(d.ids["cuda"]), "transpose.cu")

	p := build(t, "transpose_padded")
	d = parse(t, write(t, p, html.Options{}))
	assert.Empty(t, bars(d, d.ids["chart-banks"], "s-conflict"))
	assert.NotEmpty(t, bars(d, d.ids["chart-banks"], "s-need"))
	assert.Contains(t, d.text, "No access moves more sectors than its bytes need and no shared access has a bank conflict.")
}

// bars returns the bar segments of class cls of a chart (not its legend).
func bars(d *doc, chart *xhtml.Node, cls string) []*xhtml.Node {
	var out []*xhtml.Node
	for _, g := range d.allInClass(chart, "g", "row") {
		out = append(out, d.allInClass(g, "rect", cls)...)
	}
	return out
}

// TestEscaping: whatever a report holds is text, never markup.
func TestEscaping(t *testing.T) {
	orig := build(t, "transpose_naive")
	r := *orig
	r.Kernel = `<script>alert(1)</script>`
	r.Insts = append([]report.Inst(nil), orig.Insts...)
	r.Insts[0].Diagnosis.Text = `<img src=x onerror=alert(2)>`
	r.Listing = append([]report.ListingLine(nil), orig.Listing...)
	r.Listing[0].Text = `"><b>bold</b>`
	page := write(t, &r, html.Options{Command: `ptxrun </footer><script>x()</script>`, Sources: map[string]string{"transpose.cu": "<i>source</i>\n"}})
	d := parse(t, page)
	selfContained(t, d)
	assert.Empty(t, d.all("img", ""))
	assert.Empty(t, d.all("b", ""))
	assert.Empty(t, d.all("i", ""))
	assert.Contains(t, d.text, `<img src=x onerror=alert(2)>`)
	assert.Contains(t, d.text, `"><b>bold</b>`)
}

// TestCompareStructure: the comparison leads with what changed in words
// and paired bars, the diagnoses that differ, then both runs side by side
// on the same scales, and every metric with its ratio.
func TestCompareStructure(t *testing.T) {
	tests := []struct {
		a, b      string
		headlines []string
		diag      []string
	}{
		{"transpose_shared", "transpose_padded", []string{"32× fewer shared load wavefronts in B", "B has no shared bank conflicts"},
			[]string{"32-way bank conflict", "conflict-free"}},
		{"transpose_naive", "transpose_shared", []string{"B adds 63,488 shared bank conflicts", "8× fewer global store sectors in B"},
			[]string{"stride-256 access", "32-way bank conflict"}},
		{"matmul_naive", "matmul_tiled", []string{"16× fewer global load requests in B", "8× fewer global load sectors in B"},
			[]string{"lanes share addresses", "coalesced: 4 sectors per request"}},
	}
	for _, tt := range tests {
		t.Run(tt.a+"_vs_"+tt.b, func(t *testing.T) {
			a, b := build(t, tt.a), build(t, tt.b)
			c := report.Compare(a, b)
			var buf bytes.Buffer
			require.NoError(t, html.WriteCompare(&buf, c, html.Options{Sources: html.FindSources(a, cuDir)}))
			d := parse(t, buf.Bytes())
			selfContained(t, d)
			for _, id := range []string{"diff", "diagnoses", "glance", "charts", "cuda", "ptx", "metrics"} {
				assert.Contains(t, d.ids, id)
			}
			var heads []string
			for _, li := range d.allInClass(d.root, "ul", "headlines") {
				heads = append(heads, textOf(li))
			}
			for _, h := range tt.headlines {
				assert.Contains(t, strings.Join(heads, "\n"), h)
			}
			diff := textOf(d.ids["diff"])
			for _, s := range tt.diag {
				assert.Contains(t, diff, s)
			}
			assert.Contains(t, d.ids, "chart-paired")
			// Each chart twice, A's and B's, at the same place.
			for _, kind := range []string{"sectors", "banks", "hits", "traffic"} {
				fa, fb := d.ids["a-chart-"+kind], d.ids["b-chart-"+kind]
				require.NotNil(t, fa, kind)
				assert.Nil(t, fb, "one figure holds both")
				svgs := d.allIn(fa, "svg")
				if len(svgs) == 2 {
					assert.Equal(t, attr(svgs[0], "viewBox")[:8], attr(svgs[1], "viewBox")[:8])
				}
			}
			assert.Contains(t, d.ids, "a-ptx-"+itoa(a.Listing[0].Line))
			assert.Contains(t, d.ids, "b-ptx-"+itoa(b.Listing[0].Line))
			// Every metric of either run, with its ratio.
			metrics := textOf(d.ids["metrics"])
			for _, row := range c.Rows {
				assert.Contains(t, metrics, row.Name)
			}
		})
	}
}

// Two launches of one kernel (two specs, other sizes) are told apart by
// what was run: each side names its spec.
func TestCompareNamesTheSpecs(t *testing.T) {
	ra, rb := *build(t, "transpose_shared"), *build(t, "transpose_shared") // copies: build shares its reports
	a, b := &ra, &rb
	a.From, b.From = "runs/small/spec.json", "runs/large/spec.json"
	var buf bytes.Buffer
	require.NoError(t, html.WriteCompare(&buf, report.Compare(a, b), html.Options{}))
	d := parse(t, buf.Bytes())
	var heads []string
	for _, p := range d.allInClass(d.root, "p", "sidehead") {
		heads = append(heads, textOf(p))
	}
	require.NotEmpty(t, heads)
	assert.Contains(t, heads[0], "runs/small/spec.json")
	assert.Contains(t, heads[1], "runs/large/spec.json")
	meta := textOf(d.allInClass(d.root, "p", "meta")[0])
	assert.Contains(t, meta, "A: runs/small/spec.json")
	assert.Contains(t, meta, "B: runs/large/spec.json")
}

// TestDeterministic: the same report gives the same bytes.
func TestDeterministic(t *testing.T) {
	r := build(t, "matmul_tiled")
	opt := html.Options{Sources: html.FindSources(r, cuDir)}
	assert.Equal(t, write(t, r, opt), write(t, r, opt))
}

// TestFindSources: the CUDA file is found in a folder given, as a file
// given, and not found elsewhere.
func TestFindSources(t *testing.T) {
	r := *build(t, "matmul_naive")
	r.CUDAFiles = []string{"/nonexistent/build/dir/matmul.cu"}
	assert.Contains(t, html.FindSources(&r, cuDir)["matmul.cu"], "matmul_naive")
	assert.Contains(t, html.FindSources(&r, filepath.Join(cuDir, "matmul.cu"))["matmul.cu"], "matmul_tiled")
	assert.Empty(t, html.FindSources(&r, filepath.Join(cuDir, "transpose.cu")))
	assert.Empty(t, html.FindSources(&r))
}

// TestFindSourcesInAClone: a path nvcc recorded on another machine, or
// relative to the repository's root, is found by its trailing parts above
// the PTX file (the corpora's sources in a fresh clone) or above a folder
// given (a spec's); a trailing part that is only the base name is not
// looked for above them.
func TestFindSourcesInAClone(t *testing.T) {
	ptx := filepath.Join("..", "..", "..", "testdata", "apps", "ptx", "graph.G.ptx")
	want, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "apps", "gen", "kernels", "graph.cu"))
	require.NoError(t, err)
	spec := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(spec, "src", "k"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(spec, "src", "k", "mine.cu"), []byte("__global__ void mine() {}"), 0o644))
	tests := []struct {
		name, module, recorded string
		paths                  []string
		want                   string
	}{
		{"absolute, another machine", ptx, "/build/elsewhere/ptxvm/testdata/apps/gen/kernels/graph.cu", nil, string(want)},
		{"relative to the repository's root", ptx, "testdata/apps/gen/kernels/graph.cu", nil, string(want)},
		{"under the spec's folder", filepath.Join(spec, "k.ptx"), "/home/someone/proj/src/k/mine.cu", []string{spec}, "__global__ void mine() {}"},
		{"base name only: not searched upwards", ptx, "/build/elsewhere/graph2.cu", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report.Report{Module: tt.module, CUDAFiles: []string{tt.recorded}}
			got := html.FindSources(&r, tt.paths...)[filepath.Base(tt.recorded)]
			assert.Equal(t, tt.want, got)
		})
	}
}

// timedReports caches the timed reports (with their timelines).
var timedReports = map[string]*report.Report{}

// buildTimed runs a kernel of the nvcc corpus (O3) in timing mode with a
// trace and returns its report with its timeline.
func buildTimed(t *testing.T, name string) *report.Report {
	t.Helper()
	if r, ok := timedReports[name]; ok {
		return r
	}
	sp, err := spec.Load(filepath.Join("..", "..", "..", "testdata", "nvcc", "cases", name, "O3", "spec.json"))
	require.NoError(t, err)
	tr := &timing.Trace{SampleSMs: 2}
	run, err := scheduler.RunSpec(context.Background(), sp, scheduler.H100, scheduler.Options{Mode: scheduler.ModeTiming, Trace: tr}, cache)
	require.NoError(t, err)
	r, err := report.New(run, scheduler.H100)
	require.NoError(t, err)
	run.Release()
	require.NoError(t, r.AddTimeline(tr))
	timedReports[name] = r
	return r
}

// TestTimingStructure: a timed run's page leads with the timing cards and
// where the time goes in words (each of the report's sentences, linked to
// its CUDA line), charts the stall reasons and the stall cycles per line
// in the reasons' colours, heats the source views by stall cycles, and
// draws the timeline: a row of block shading per SM, the sampled SMs' warp
// slots and the detail, coloured by state, with a legend. A functional
// page has none of it.
func TestTimingStructure(t *testing.T) {
	for _, name := range []string{"matmul_tiled", "matmul_naive"} {
		t.Run(name, func(t *testing.T) {
			r := buildTimed(t, name)
			tm := r.Timing
			page := write(t, r, html.Options{Sources: html.FindSources(r, cuDir)})
			assert.Less(t, len(page), 1<<20, "the page stays small")
			d := parse(t, page)
			selfContained(t, d)
			navs := d.all("nav", "")
			require.Len(t, navs, 1)
			assert.Len(t, d.allIn(navs[0], "a"), 8, "the timeline's link too")

			glance := textOf(d.ids["glance"])
			for _, s := range []string{"cycles", comma(tm.Cycles), "achieved occupancy", "IPC", "top stall reason", tm.Top().Reason, "Where the time goes"} {
				assert.Contains(t, glance, s)
			}
			lists := d.allInClass(d.ids["glance"], "ul", "time")
			require.Len(t, lists, 1)
			items := d.allIn(lists[0], "li")
			require.Len(t, items, min(8, len(tm.Sources)))
			for i, li := range items {
				assert.Contains(t, textOf(li), tm.Sources[i].Sentence)
				links := d.allIn(li, "a")
				require.NotEmpty(t, links)
				href := attr(links[0], "href")
				assert.Contains(t, textOf(d.ids[strings.TrimPrefix(href, "#")]), strings.Split(tm.Sources[i].Where, ":")[1], "the link goes to its line")
			}

			// The stall chart: a bar per reason, in its colour.
			stalls := d.ids["chart-stalls"]
			require.NotNil(t, stalls)
			for _, s := range tm.Stalls {
				if s.PerIssue < 0.005 && s.Reason != "selected" {
					continue
				}
				assert.Contains(t, textOf(stalls), s.Reason)
				assert.NotEmpty(t, bars(d, stalls, "st-"+strings.ReplaceAll(s.Reason, "_", "-")), s.Reason)
			}
			lineChart := d.ids["chart-line-stalls"]
			require.NotNil(t, lineChart)
			assert.Contains(t, textOf(lineChart), tm.Lines[0].Where)
			assert.NotEmpty(t, bars(d, lineChart, "st-long-scoreboard"))

			// Heat: the line with the most stall cycles has the darkest
			// stall cell, its title naming the reasons.
			hot := tm.Lines[0]
			for _, l := range tm.Lines {
				if l.StallCycles > hot.StallCycles {
					hot = l
				}
			}
			var row *xhtml.Node
			for _, tr := range d.allIn(d.ids["cuda"], "tr") {
				if ths := d.allIn(tr, "th"); len(ths) > 0 && textOf(ths[0]) == strings.Split(hot.Where, ":")[1] {
					row = tr
				}
			}
			require.NotNil(t, row, hot.Where)
			found := false
			for _, td := range d.allIn(row, "td") {
				if strings.HasPrefix(attr(td, "title"), "Stall cycles: ") {
					found = true
					assert.True(t, hasClass(td, "h8"), attr(td, "class"))
					assert.Contains(t, attr(td, "title"), report.TopReasonOf(hot.Stalls))
				}
			}
			assert.True(t, found, "a stall-cycles cell")
			assert.Contains(t, textOf(d.ids["ptx"]), "Stall")

			// The timeline.
			sec := d.ids["timeline"]
			require.NotNil(t, sec)
			fig := d.ids["fig-timeline"]
			require.NotNil(t, fig)
			svgs := d.allIn(fig, "svg")
			require.Len(t, svgs, 1)
			classes := map[string]int{}
			for _, p := range d.allIn(svgs[0], "path") {
				classes[attr(p, "class")]++
				assert.Regexp(t, `^(M[\d.]+ [\d.]+h[\d.]+v[\d.]+h-[\d.]+z)+$`, attr(p, "d"))
			}
			shades := 0
			for c := range classes {
				if strings.HasPrefix(c, "tb") {
					shades++
				}
			}
			assert.Positive(t, shades, "blocks resident")
			assert.Contains(t, classes, "st-long-scoreboard")
			assert.Contains(t, classes, "st-active")
			text := textOf(fig)
			for _, s := range []string{"Blocks resident per SM", "SM 0: its", "SM 1: its", "SM 0 in detail", "launch ends", "cycles", "long_scoreboard", "active"} {
				assert.Contains(t, text, s)
			}
			assert.NotEmpty(t, d.allInClass(svgs[0], "line", "start"), "the detail marks where warps start")
		})
	}
	f := parse(t, write(t, build(t, "matmul_tiled"), html.Options{}))
	assert.NotContains(t, f.ids, "timeline")
	assert.NotContains(t, f.text, "Where the time goes")
	assert.NotContains(t, f.ids, "chart-stalls")
}

// TestTimingCompare: two timed runs side by side lead with the cycles,
// show each run's sentences, the stall charts paired, and both timelines
// on one cycle axis (the longer launch spans the plot).
func TestTimingCompare(t *testing.T) {
	a, b := buildTimed(t, "matmul_naive"), buildTimed(t, "matmul_tiled")
	var buf bytes.Buffer
	require.NoError(t, html.WriteCompare(&buf, report.Compare(a, b), html.Options{Sources: html.FindSources(a, cuDir)}))
	d := parse(t, buf.Bytes())
	selfContained(t, d)
	heads := d.allInClass(d.root, "ul", "headlines")
	require.Len(t, heads, 1)
	first := d.allIn(heads[0], "li")[0]
	assert.Regexp(t, `^[\d.]+× (fewer|more) cycles in B \(`, textOf(first), "the cycles lead")
	assert.Contains(t, textOf(d.ids["chart-paired"]), "cycles:")
	assert.Len(t, d.allInClass(d.ids["glance"], "ul", "time"), 2)
	assert.Contains(t, textOf(d.ids["glance"]), a.Timing.Sources[0].Sentence)
	assert.Contains(t, textOf(d.ids["glance"]), b.Timing.Sources[0].Sentence)
	for _, id := range []string{"a-chart-stalls", "a-chart-line-stalls", "timeline", "a-fig-timeline", "b-fig-timeline"} {
		assert.Contains(t, d.ids, id)
	}
	// One axis: the longer run's "launch ends" line is further right.
	end := func(id string) float64 {
		for _, l := range d.allInClass(d.ids[id], "line", "end") {
			x, err := strconv.ParseFloat(attr(l, "x1"), 64)
			require.NoError(t, err)
			return x
		}
		t.Fatalf("%s: no end line", id)
		return 0
	}
	ea, eb := end("a-fig-timeline"), end("b-fig-timeline")
	if a.Timing.Cycles > b.Timing.Cycles {
		assert.Greater(t, ea, eb)
	} else {
		assert.Greater(t, eb, ea)
	}
	// A timed run beside a functional one: no timing views.
	buf.Reset()
	require.NoError(t, html.WriteCompare(&buf, report.Compare(a, build(t, "matmul_tiled")), html.Options{}))
	d = parse(t, buf.Bytes())
	assert.NotContains(t, d.ids, "timeline")
	assert.NotContains(t, d.ids, "a-chart-stalls")
}

func comma(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
