package html

import (
	"bufio"
	"embed"
	"errors"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptxvm/ptxvm/scheduler/report"
)

// Options says what a page shows besides the report.
type Options struct {
	// Sources holds the text of CUDA source files by base name
	// ("matmul.cu"), for the CUDA source view (FindSources looks for them).
	// Lines of files not given show their file:line labels only.
	Sources map[string]string
	// Command is the command line that made the report, for the footer
	// ("" leaves it out).
	Command string
	// Version is the tool's version, for the footer.
	Version string
}

//go:embed templates/*
var files embed.FS

var tmpl = template.Must(template.New("").Funcs(template.FuncMap{
	"add": func(a, b float64) float64 { return a + b },
	"sub": func(a, b float64) float64 { return a - b },
	"half": func(a float64) float64 {
		return a / 2
	},
	"wbr": wbr,
}).ParseFS(files, "templates/*.tmpl"))

// page is the data of a page.
type page struct {
	Title   string
	CSS     template.CSS
	JS      template.JS
	Opt     Options
	Run     *runView
	Cmp     *cmpView
	Compare bool
}

func newPage(title string, opt Options) (*page, error) {
	css, err := files.ReadFile("templates/style.css")
	if err != nil {
		return nil, err
	}
	js, err := files.ReadFile("templates/script.js")
	if err != nil {
		return nil, err
	}
	// Both are this package's own embedded files, not input.
	return &page{Title: title, CSS: template.CSS(css), JS: template.JS(js), Opt: opt}, nil
}

// Write renders the report of one run as a self-contained HTML page.
func Write(w io.Writer, r *report.Report, opt Options) error {
	if r == nil {
		return errors.New("no report")
	}
	p, err := newPage(short(r.Kernel)+" — ptxrun report", opt)
	if err != nil {
		return err
	}
	p.Run = newRunView(r, "", "", opt.Sources, true)
	p.Run.buildCharts(p.Run.chartScales())
	p.Run.applyHeat(p.Run.cudaScales, p.Run.ptxScales)
	return execute(w, "report", p)
}

// WriteCompare renders two runs side by side as a self-contained HTML
// page.
func WriteCompare(w io.Writer, c *report.Comparison, opt Options) error {
	if c == nil || c.A == nil || c.B == nil {
		return errors.New("no comparison")
	}
	p, err := newPage(short(c.A.Kernel)+" vs "+short(c.B.Kernel)+" — ptxrun report", opt)
	if err != nil {
		return err
	}
	p.Cmp = newCmpView(c, opt.Sources)
	p.Compare = true
	return execute(w, "compare", p)
}

func execute(w io.Writer, name string, p *page) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := tmpl.ExecuteTemplate(bw, name, p); err != nil {
		return err
	}
	return bw.Flush()
}

// FindSources looks for the CUDA files the report's .loc directives name
// and returns the texts it finds by base name. It tries, for each file,
// the paths given (a file whose base name matches, or a folder holding
// one), the path nvcc recorded, that path's trailing parts under every
// folder from the PTX file's and each folder given up to the root (a
// clone on another machine: the corpus's /build/ptxvm/testdata/apps/gen/
// kernels/graph.cu, or testdata/apps/gen/kernels/graph.cu as recorded from
// the repository's root, is found above testdata/apps/ptx), longest part
// first, and the folder of the PTX file. Files it cannot read are left
// out.
func FindSources(r *report.Report, paths ...string) map[string]string {
	out := map[string]string{}
	var roots []string
	if r.Module != "" {
		roots = append(roots, filepath.Dir(r.Module))
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			roots = append(roots, p)
		}
	}
	for _, rec := range r.CUDAFiles {
		base := filepath.Base(rec)
		if _, ok := out[base]; ok {
			continue
		}
		var try []string
		for _, p := range paths {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				try = append(try, filepath.Join(p, base))
			} else if filepath.Base(p) == base {
				try = append(try, p)
			}
		}
		try = append(try, rec)
		try = append(try, underAncestors(rec, roots)...)
		if r.Module != "" {
			try = append(try, filepath.Join(filepath.Dir(r.Module), base))
		}
		for _, p := range try {
			if b, err := os.ReadFile(p); err == nil && len(b) <= maxSource {
				out[base] = string(b)
				break
			}
		}
	}
	return out
}

// underAncestors returns where recorded path rec may be found on this
// machine: each of its trailing parts of two or more elements (longest
// first) under each root and each folder above it.
func underAncestors(rec string, roots []string) []string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(rec)), "/")
	var out []string
	for k := 0; k+2 <= len(parts); k++ {
		tail := parts[k:]
		if tail[0] == "" || slices.Contains(tail, "..") {
			continue
		}
		suffix := filepath.Join(tail...)
		for _, root := range roots {
			d, err := filepath.Abs(root)
			if err != nil {
				continue
			}
			for {
				out = append(out, filepath.Join(d, suffix))
				up := filepath.Dir(d)
				if up == d {
					break
				}
				d = up
			}
		}
	}
	return out
}

// wbr lets a metric name break after its underscores and dots.
func wbr(name string) template.HTML {
	var b strings.Builder
	start := 0
	for i := 0; i < len(name); i++ {
		if (name[i] == '_' || name[i] == '.') && (i+1 == len(name) || name[i+1] != '_') {
			b.WriteString(template.HTMLEscapeString(name[start : i+1]))
			b.WriteString("<wbr>")
			start = i + 1
		}
	}
	b.WriteString(template.HTMLEscapeString(name[start:]))
	return template.HTML(b.String()) // each part escaped above
}

// maxSource bounds a CUDA file read for the source view.
const maxSource = 4 << 20
