package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
)

// largeReportMax is the most bytes the report of a large case may take
// (issue 19: the 20,000-op report under 3 MB).
const largeReportMax = 3_000_000

// reportWindowPx is the browser window's width the large reports are
// read at (issue 19: readable at 1400 px wide).
const reportWindowPx = 1400

// largeCase is a report the browser test and benchmark open: its file, the
// problem and the plans drawn.
type largeCase struct {
	name       string
	file       string
	p          *state.Problem
	layouts    []*state.Layout
	aggregated bool // the diagrams are drawn a pixel at a time
}

// largeCases writes the reports of the large cases into dir: a generated
// 20,000-op program on h100-sm (the initializer's plan alone, as
// optimize --no-search makes it: a fixed budget), and gpt2-small-like-int8
// on ethos-u65 (the initializer's plan against the search's, which
// converges in well under a second).
func largeCases(tb testing.TB, dir string) []largeCase {
	tb.Helper()
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	var out []largeCase

	prog, err := gen.Generate(gen.Options{Ops: 20000, Seed: 1})
	require.NoError(tb, err)
	prof, err := a.loadProfile("h100-sm")
	require.NoError(tb, err)
	p, err := bindProblem(prog, prof, "gen")
	require.NoError(tb, err)
	lay := state.NewLayout(p.Blocks())
	_, err = actions.NewInitializer(p).Run(lay, 0)
	require.NoError(tb, err)
	model, _ := costmodel.Lookup(costmodel.Default)
	file := filepath.Join(dir, "report-gen20000.html")
	require.NoError(tb, a.writeReport(file, p, lay, lay, model, "initializer", reportSearchSettings(nil, nil, 0), reportOutcome{}))
	out = append(out, largeCase{name: "gen20000", file: file, p: p, layouts: []*state.Layout{lay}, aggregated: true})

	p, err = a.loadProblem("gpt2-small-like-int8", "ethos-u65")
	require.NoError(tb, err)
	o := searchOptions{Segments: "auto", Beam: search.DefaultBeam, Actions: "move,swap,reuse,evict",
		MaxCandidates: search.DefaultMaxCandidates, Rounds: search.DefaultRounds, Horizon: search.DefaultHorizon}
	s, err := o.settings()
	require.NoError(tb, err)
	start := time.Now()
	res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, s)
	require.NoError(tb, err)
	// The profile's cost model (ethos-u65's is the timeline): the problem
	// bound for it, and its initializer's plan, as report re-plans it.
	p, err = planProblem(p, res.Plan)
	require.NoError(tb, err)
	ini, _, err := actions.InitialPlan(context.Background(), p, res.Model)
	require.NoError(tb, err)
	require.False(tb, ini.Equal(res.Layout), "the search moves blocks")
	file = filepath.Join(dir, "report-gpt2-small-like-int8.html")
	require.NoError(tb, a.writeReport(file, p, ini, res.Layout, res.Model, res.Plan.Planner, reportSearchSettings(s, res, time.Since(start)), reportOutcome{Status: reportStatus(p, res)}))
	out = append(out, largeCase{name: "gpt2-small-like-int8", file: file, p: p, layouts: []*state.Layout{ini, res.Layout}})
	return out
}

// TestReportInBrowserLarge: the reports of the large cases are under 3 MB,
// open in headless Chromium 1400 px wide with no error and no horizontal
// scrolling, with every section, a diagram per plan and every level drawn
// (a picture per panel for the 20,000-op program, every placement for
// gpt2); a screenshot of each is taken. How long Chromium takes is
// measured by BenchmarkReportInBrowser, not here.
func TestReportInBrowserLarge(t *testing.T) {
	chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, c := range largeCases(t, t.TempDir()) {
		t.Run(c.name, func(t *testing.T) {
			info, err := os.Stat(c.file)
			require.NoError(t, err)
			assert.Less(t, info.Size(), int64(largeReportMax), "the report's size")
			t.Logf("%s: report %d bytes (%.2f MB)", c.name, info.Size(), float64(info.Size())/1e6)

			br := newBrowser(t, ctx, reportWindowPx, 2300) // tall: the "-top" screenshot holds the summary and the diagrams
			facts, took := br.load(t, c.file)
			assert.Empty(t, br.Problems(), "console errors")
			sections := render.ReportSections
			if c.p.Timeline() {
				sections = render.ReportTimelineSections
			}
			assert.Equal(t, sections, facts.Sections)
			assert.Equal(t, len(c.layouts), facts.Diagrams, "a diagram per plan")
			assert.Equal(t, len(c.layouts)*c.p.Levels(), facts.Panels, "a panel per level per diagram")
			if c.aggregated {
				assert.Zero(t, facts.Placements, "drawn a pixel at a time")
				assert.Equal(t, len(c.layouts)*c.p.Levels(), facts.Agg, "a visible picture per panel")
			} else {
				want := placementCount(c.p, c.layouts...)
				assert.Equal(t, want, facts.Placements, "a rect.pl per placement")
				assert.Equal(t, want, facts.Drawn, "every rect.pl has a box on the page")
			}
			assert.LessOrEqual(t, facts.Width, reportWindowPx, "the page fits the window's width")
			shot, err := chromedp.Run(br.ctx, chromedp.FullScreenshot(100))
			require.NoError(t, err)
			top, err := chromedp.Run(br.ctx, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			saveScreenshot(t, "hieropt-report-"+c.name+"-top.png", top)
			t.Logf("%s: loaded and checked in %s (one run; see BenchmarkReportInBrowser); page %dx%d px",
				c.name, took.Round(time.Millisecond), facts.Width, facts.Height)
			saveScreenshot(t, "hieropt-report-"+c.name+".png", shot)
		})
	}
}

// BenchmarkReportInBrowser measures how long headless Chromium takes to
// load each large case's report and lay it out (navigation to the facts
// read, which asks every diagram's boxes), with the report's size. Chromium
// is started once per case, outside the timing.
//
//	HIEROPT_REQUIRE_BROWSER=1 go test ./cmd/hieropt -run '^$' -bench ReportInBrowser -benchtime 5x
func BenchmarkReportInBrowser(b *testing.B) {
	chromiumPath(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, c := range largeCases(b, b.TempDir()) {
		b.Run(c.name, func(b *testing.B) {
			info, err := os.Stat(c.file)
			require.NoError(b, err)
			br := newBrowser(b, ctx, reportWindowPx, 2300)
			br.load(b, c.file) // a first load: Chromium's own start-up out of the timing
			b.ResetTimer()
			for b.Loop() {
				br.load(b, c.file)
			}
			b.StopTimer()
			require.Empty(b, br.Problems(), "console errors")
			b.ReportMetric(float64(info.Size()), "bytes")
		})
	}
}

// BenchmarkReportInBrowserFile measures, as BenchmarkReportInBrowser does,
// the reports named in $HIEROPT_BENCH_REPORTS (paths, comma-separated):
// reports made outside the test, such as that of a searched 20,000-op plan
// (skipped when the variable is empty).
//
//	HIEROPT_BENCH_REPORTS=$PWD/r.html go test ./cmd/hieropt -run '^$' -bench ReportInBrowserFile -benchtime 10x
func BenchmarkReportInBrowserFile(b *testing.B) {
	files := os.Getenv("HIEROPT_BENCH_REPORTS")
	if files == "" {
		b.Skip("HIEROPT_BENCH_REPORTS names no report")
	}
	chromiumPath(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, file := range strings.Split(files, ",") {
		b.Run(filepath.Base(file), func(b *testing.B) {
			abs, err := filepath.Abs(file)
			require.NoError(b, err)
			info, err := os.Stat(abs)
			require.NoError(b, err)
			br := newBrowser(b, ctx, reportWindowPx, 2300)
			br.load(b, abs)
			b.ResetTimer()
			for b.Loop() {
				br.load(b, abs)
			}
			b.StopTimer()
			require.Empty(b, br.Problems(), "console errors")
			b.ReportMetric(float64(info.Size()), "bytes")
		})
	}
}
