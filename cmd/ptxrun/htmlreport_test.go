package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/cmd/ptxrun/internal/chrome"
	"github.com/ptxvm/ptxvm/kernels"
)

// TestReportCommand: ptxrun report writes one HTML file for a bundled
// kernel (with its CUDA source), a spec, a quick launch, and two runs side
// by side; bad command lines are usage errors.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.html")
	r := ptxrun(t, "report", "transpose_padded", "--size", "64", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "wrote "+out)
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	s := string(page)
	for _, want := range []string{"<title>transpose_padded — ptxrun report</title>", "conflict-free",
		"__shared__ float tile[TILE_DIM][TILE_DIM &#43; 1];"} { // the bundled kernel's CUDA source
		assert.True(t, strings.Contains(s, want), "the page has %q", want)
	}

	r = ptxrun(t, "report", caseSpec("transpose_shared"), "--regs", "20", "-o", "-")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "<!DOCTYPE html>"))
	for _, want := range []string{"32-way bank conflict", "20 per thread"} {
		assert.True(t, strings.Contains(r.stdout, want), "the page has %q", want)
	}

	r = ptxrun(t, "report", filepath.Join(nvccDir, "ptx", "transpose.O3.ptx"), "--kernel", "transpose_naive", "--grid", "2,2", "--block", "32,8",
		"--arg", "out=f32[4096]", "--arg", "in=f32[4096]:iota", "--arg", "u32:64", "--arg", "u32:64", "-o", "-")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.Contains(r.stdout, "stride-64 access"), "the quick launch's strided store")

	r = ptxrun(t, "report", "--compare", "transpose_shared", caseSpec("transpose_padded"), "--size", "64", "-o", "-")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.Contains(r.stdout, "B has no shared bank conflicts"), "the comparison's headline")

	r = ptxrun(t, "report", "matmul_tiled", "--mode", "timing", "--size", "64", "-o", "-")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, want := range []string{"Where the time goes", `<section id="timeline">`, "warps wait on global loads at matmul.cu:", "smsp__average_warps_issue_stalled_", "timing mode"} {
		assert.True(t, strings.Contains(r.stdout, want), "the timed page has %q", want)
	}
	r = ptxrun(t, "report", "--compare", "matmul_naive", "matmul_tiled", "--mode", "timing", "--size", "32", "-o", "-")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, want := range []string{`id="a-fig-timeline"`, `id="b-fig-timeline"`, "cycles in B"} {
		assert.True(t, strings.Contains(r.stdout, want), "the timed comparison has %q", want)
	}

	cwd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	r = ptxrun(t, "report", "--compare", "matmul_naive", "matmul_tiled", "--size", "32")
	require.NoError(t, os.Chdir(cwd))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.FileExists(t, filepath.Join(dir, "matmul_naive-vs-matmul_tiled.html"), "the default name")

	for _, bad := range [][]string{
		{"report"},
		{"report", "no_such_kernel"},
		{"report", "--compare", "matmul_naive"},
		{"report", "matmul_naive", "matmul_tiled"},
		{"report", "--compare", "matmul_naive", "matmul_tiled", "--grid", "1"},
		{"report", caseSpec("transpose_shared"), "--grid", "1"},
		{"report", "matmul_naive", "--size", "-1"},
		{"report", "matmul_naive", "--mode", "cycles"},
	} {
		r := ptxrun(t, bad...)
		assert.Equal(t, exitUsage, r.code, "%q: %s", bad, r.stderr)
		assert.NotEmpty(t, r.stderr)
	}
}

// chromiumAll renders every page in TestReportInChromium.
var chromiumAll = flag.Bool("chromium.all", false, "TestReportInChromium renders all twelve pages (every bundled kernel's report, the three comparisons, the timed ones); by default one page of each kind: "+strings.Join(chromiumQuick, ", "))

// chromiumQuick are the pages TestReportInChromium renders by default, one
// of each kind the report has: a kernel's page (the tensor-core multiply's,
// the longest, and a transpose's), a comparison, a timed page and a timed
// comparison. Each page costs Chromium about a second of CPU (its
// screenshot of up to 1366×6000 pixels encoded and decoded); the pages of
// one kind differ only in their figures, not in what is laid out.
var chromiumQuick = []string{"matmul_wmma", "transpose_naive", "transpose_naive-vs-transpose_shared", "matmul_tiled-timing", "matmul_naive-matmul_tiled-timing"}

// TestReportInChromium renders the report of every bundled kernel, and the
// mission's comparisons, in a real headless Chromium (one browser for
// all), and the timed reports of the matmuls and their comparison: each
// page loads nothing but itself, logs no script error or exception, fits
// a 1366-pixel laptop screen without scrolling sideways, its counter
// filter works, its charts are drawn (SVGs with marks, the timing pages'
// timelines laid out at a readable height), and its screenshot is not
// blank. With PTXRUN_SHOTS=DIR the screenshots are kept there. By default
// only chromiumQuick's five pages are made and rendered (-chromium.all:
// all twelve).
func TestReportInChromium(t *testing.T) {
	bin := chrome.Find()
	if bin == "" {
		t.Skip("Chromium not found: install it to run this test (Debian/Ubuntu: apt-get install -y chromium; or set $CHROMIUM to a Chrome or Chromium binary)")
	}
	dir := t.TempDir()
	type page struct {
		name, file string
		timed      bool
	}
	var pages []page
	wanted := func(name string) bool { return *chromiumAll || slices.Contains(chromiumQuick, name) }
	for _, e := range kernels.All() {
		if !wanted(e.Name) {
			continue
		}
		f := filepath.Join(dir, e.Name+".html")
		r := ptxrun(t, "report", e.Name, "-o", f)
		require.Equal(t, exitOK, r.code, r.stderr)
		pages = append(pages, page{e.Name, f, false})
	}
	for _, c := range [][2]string{{"matmul_naive", "matmul_tiled"}, {"transpose_naive", "transpose_shared"}, {"transpose_shared", "transpose_padded"}} {
		if !wanted(c[0] + "-vs-" + c[1]) {
			continue
		}
		f := filepath.Join(dir, c[0]+"-vs-"+c[1]+".html")
		r := ptxrun(t, "report", "--compare", c[0], c[1], "-o", f)
		require.Equal(t, exitOK, r.code, r.stderr)
		pages = append(pages, page{c[0] + "-vs-" + c[1], f, false})
	}
	// Timed reports (at 128×128, which keeps the test quick).
	for _, args := range [][]string{{"matmul_naive"}, {"matmul_tiled"}, {"--compare", "matmul_naive", "matmul_tiled"}} {
		name := strings.Join(args, "-") + "-timing"
		name = strings.TrimPrefix(strings.ReplaceAll(name, "--compare-", ""), "-")
		if !wanted(name) {
			continue
		}
		f := filepath.Join(dir, name+".html")
		r := ptxrun(t, append(append([]string{"report"}, args...), "--mode", "timing", "--size", "128", "-o", f)...)
		require.Equal(t, exitOK, r.code, r.stderr)
		pages = append(pages, page{name, f, true})
	}
	if !*chromiumAll {
		require.Len(t, pages, len(chromiumQuick), "every default page is made")
	}

	b, err := chrome.Start(bin)
	require.NoError(t, err)
	defer func() {
		if t.Failed() {
			t.Logf("chromium's stderr:\n%s", tail(b.Stderr(), 3000))
		}
		b.Close()
	}()
	shots := os.Getenv("PTXRUN_SHOTS")
	const width = 1366
	// Type "l1tex" into the counter filter: some rows stay, some hide.
	filter := `(() => {
		const i = document.querySelector("input.counter-filter");
		const rows = [...document.getElementById(i.dataset.table).querySelectorAll("tbody tr:not(.grp)")];
		i.value = "l1tex"; i.dispatchEvent(new Event("input"));
		const shown = rows.filter(r => !r.hidden).length;
		i.value = ""; i.dispatchEvent(new Event("input"));
		const svgs = [...document.querySelectorAll("figure.chart svg")];
		const drawn = svgs.filter(s => s.querySelector("rect, path") && s.getBoundingClientRect().height > 40).length;
		const tl = [...document.querySelectorAll("figure.fig svg")];
		const tlPaths = tl.reduce((n, s) => n + [...s.querySelectorAll("path")].reduce((m, p) => m + (p.getAttribute("d") || "").split("M").length - 1, 0), 0);
		const tlH = tl.reduce((h, s) => Math.min(h, s.getBoundingClientRect().height), 1e9);
		return [shown, rows.length, rows.filter(r => !r.hidden).length, svgs.length, drawn, tl.length, tlPaths, Math.round(tl.length ? tlH : 0)].join("/");
	})()`
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			abs, err := filepath.Abs(p.file)
			require.NoError(t, err)
			url := "file://" + abs
			pg, err := b.Render(ctx, url, chrome.Options{Width: width, MaxHeight: 6000, Eval: filter})
			require.NoError(t, err)
			assert.Empty(t, pg.Errors(), "script errors, exceptions or error log entries")
			assert.Equal(t, []string{url}, pg.Requests, "the page loads nothing but itself")
			assert.LessOrEqual(t, pg.Width, width, "no sideways scrolling on a %d-pixel screen", width)
			var shown, total, back, svgs, drawn, timelines, tlPaths, tlHeight int
			_, err = fmt.Sscanf(pg.Eval, "%d/%d/%d/%d/%d/%d/%d/%d", &shown, &total, &back, &svgs, &drawn, &timelines, &tlPaths, &tlHeight)
			require.NoError(t, err, pg.Eval)
			assert.Greater(t, shown, 0, "the filter keeps the l1tex rows")
			assert.Less(t, shown, total, "the filter hides the others")
			assert.Equal(t, total, back, "clearing the filter shows every row")
			assert.GreaterOrEqual(t, drawn, 3, "charts drawn with marks")
			assert.Equal(t, svgs, drawn, "every chart's SVG laid out with marks")
			if p.timed {
				assert.GreaterOrEqual(t, drawn, 5, "the stall charts too")
				assert.Positive(t, timelines, "a timeline")
				assert.Greater(t, tlPaths, 100, "the timeline's rectangles")
				assert.Greater(t, tlHeight, 300, "the timeline laid out at a readable height")
			} else {
				assert.Zero(t, timelines)
			}

			img, err := png.Decode(bytes.NewReader(pg.PNG))
			require.NoError(t, err)
			colours, inked := inkOf(img)
			assert.Equal(t, width, img.Bounds().Dx())
			assert.Greater(t, img.Bounds().Dy(), 2000, "a page of some length")
			assert.Greater(t, colours, 200, "distinct colours: a blank or unstyled page has few")
			assert.Greater(t, inked, 0.08, "share of pixels that are not white")
			if shots != "" {
				require.NoError(t, os.WriteFile(filepath.Join(shots, p.name+".png"), pg.PNG, 0o644))
			}
		})
	}
}

// inkOf counts the distinct colours of an image and the share of its
// pixels that are not (nearly) white. The screenshots are decoded as
// *image.NRGBA or *image.RGBA: their opaque pixels are read from Pix and
// the colours seen marked in a bit set (a screenshot has 4 to 8 million
// pixels, and img.At with a map took about a second of CPU a page); the
// others go through img.At, as every pixel of another image type does.
func inkOf(img image.Image) (colours int, inked float64) {
	seen := make([]uint64, 1<<24/64)
	b := img.Bounds()
	var ink, all int
	note := func(r, g, bl uint32) {
		c := r<<16 | g<<8 | bl
		if seen[c/64]&(1<<(c%64)) == 0 {
			seen[c/64] |= 1 << (c % 64)
			colours++
		}
		if r < 240 || g < 240 || bl < 240 {
			ink++
		}
		all++
	}
	var pix []uint8
	var stride int
	switch m := img.(type) {
	case *image.NRGBA:
		pix, stride = m.Pix, m.Stride
	case *image.RGBA:
		pix, stride = m.Pix, m.Stride
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if pix != nil {
				// Pix's first pixel is Bounds().Min's.
				i := (y-b.Min.Y)*stride + (x-b.Min.X)*4
				if p := pix[i : i+4 : i+4]; p[3] == 0xff {
					note(uint32(p[0]), uint32(p[1]), uint32(p[2]))
					continue
				}
			}
			r, g, bl, _ := img.At(x, y).RGBA()
			note(r>>8, g>>8, bl>>8)
		}
	}
	return colours, float64(ink) / float64(all)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
