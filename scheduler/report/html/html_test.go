package html_test

import (
	"bytes"
	"context"
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
