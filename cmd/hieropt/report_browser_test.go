package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/spf13/cobra"
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

// chromiumPath finds headless Chromium, or skips the test (fails it when
// HIEROPT_REQUIRE_BROWSER=1, as CI sets).
func chromiumPath(t testing.TB) string {
	t.Helper()
	if st, err := os.Stat("/usr/bin/chromium"); err == nil && !st.IsDir() {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("HIEROPT_REQUIRE_BROWSER") == "1" {
		t.Fatal("chromium not found (HIEROPT_REQUIRE_BROWSER=1): install the Debian package chromium")
	}
	t.Skip("chromium not found: install the Debian package chromium to run the browser test")
	return ""
}

// pageFacts is what the browser saw of a report.
type pageFacts struct {
	Placements int      `json:"placements"` // #diagrams svg rect.pl
	Drawn      int      `json:"drawn"`      // of those, with a non-empty box on the page
	Panels     int      `json:"panels"`     // #diagrams g.panel
	Diagrams   int      `json:"diagrams"`   // #diagrams g.diagram
	Titles     []string `json:"titles"`     // each diagram's title
	Sections   []string `json:"sections"`   // ids of the report's sections found
	Differ     bool     `json:"differ"`     // the two diagrams' rectangles differ
	Moved      int      `json:"moved"`      // rectangles of one diagram not in the other
	Bars       int      `json:"bars"`       // #time g.r-bar
	Occupancy  int      `json:"occupancy"`  // #occupancy svg
	Runs       int      `json:"runs"`       // #timeline g.tl-run
	Stalls     int      `json:"stalls"`     // #timeline rect.tl-stall with a non-empty box
	InFlight   int      `json:"inflight"`   // #diagrams rect.inflight with a non-empty box
	Agg        int      `json:"agg"`        // #diagrams image.agg with a non-empty box
	Width      int      `json:"width"`
	Height     int      `json:"height"`
}

// factsJS reads pageFacts. A diagram's rectangles are compared relative to
// the leftmost one, since the second diagram is drawn to the right of the
// first.
const factsJS = `(() => {
  const q = s => Array.from(document.querySelectorAll(s));
  const diagrams = q('#diagrams g.diagram');
  const sig = g => {
    const rs = Array.from(g.querySelectorAll('rect.pl'));
    let x0 = Infinity;
    for (const r of rs) x0 = Math.min(x0, r.x.baseVal.value);
    return rs.map(r => [r.x.baseVal.value - x0, r.y.baseVal.value, r.width.baseVal.value, r.height.baseVal.value]
      .map(v => v.toFixed(2)).join(','));
  };
  let differ = false, moved = 0;
  if (diagrams.length === 2) {
    const a = sig(diagrams[0]), b = new Set(sig(diagrams[1]));
    const sa = new Set(a);
    for (const s of a) if (!b.has(s)) moved++;
    differ = moved > 0 || sa.size !== b.size;
  }
  const boxed = r => {
    const b = r.getBoundingClientRect();
    return b.width > 0 && b.height > 0;
  };
  const drawn = q('#diagrams svg rect.pl').filter(boxed).length;
  return {
    placements: q('#diagrams svg rect.pl').length,
    drawn: drawn,
    panels: q('#diagrams g.panel').length,
    diagrams: diagrams.length,
    titles: diagrams.map(d => (d.querySelector('text') || {textContent: ''}).textContent),
    sections: q('section[id]').map(s => s.id),
    differ: differ,
    moved: moved,
    bars: q('#time g.r-bar').length,
    occupancy: q('#occupancy svg').length,
    runs: q('#timeline g.tl-run').length,
    stalls: q('#timeline rect.tl-stall').filter(boxed).length,
    inflight: q('#diagrams rect.inflight').filter(boxed).length,
    agg: q('#diagrams image.agg').filter(boxed).length,
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
  };
})()`

// browser is a headless Chromium with a tab open, and the console errors
// it has seen.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

// newBrowser starts headless Chromium with a window w px wide; it is
// closed when the test ends.
func newBrowser(tb testing.TB, ctx context.Context, w, h int) *browser {
	tb.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(tb)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(w, h),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	tb.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	br := &browser{ctx: bctx}
	report := func(format string, args ...any) {
		br.mu.Lock()
		br.problems = append(br.problems, fmt.Sprintf(format, args...))
		br.mu.Unlock()
	}
	start := time.Now()
	require.NoError(tb, chromedp.Listen(bctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
				}
				report("console.%s: %s", ev.Type, strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			report("exception: %s", ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				report("log %s: %s (%s)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		}
	}), "starting chromium")
	tb.Logf("chromium: started in %s", time.Since(start).Round(time.Millisecond))
	return br
}

// Problems returns the console errors seen so far.
func (br *browser) Problems() []string {
	br.mu.Lock()
	defer br.mu.Unlock()
	return append([]string(nil), br.problems...)
}

// load opens file, waits for the report's last section and reads the
// page's facts (which lays every diagram out): it returns them and how long
// that took.
func (br *browser) load(tb testing.TB, file string) (pageFacts, time.Duration) {
	tb.Helper()
	u := (&url.URL{Scheme: "file", Path: file}).String()
	start := time.Now()
	require.NoError(tb, chromedp.Do(br.ctx, chromedp.Navigate(u), chromedp.WaitReady("#settings")), "loading %s", u)
	facts, err := chromedp.Run(br.ctx, chromedp.Evaluate[pageFacts](factsJS))
	require.NoError(tb, err)
	return facts, time.Since(start)
}

// browse opens file in headless Chromium and returns what it saw, the
// console errors, a full-page screenshot (PNG) and how long loading and
// checking took.
func browse(t *testing.T, ctx context.Context, file string) (pageFacts, []string, []byte, time.Duration) {
	t.Helper()
	br := newBrowser(t, ctx, 1700, 1000)
	facts, took := br.load(t, file)
	shot, err := chromedp.Run(br.ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	t.Logf("chromium: loaded and checked %s in %s; page %dx%d px",
		filepath.Base(file), took.Round(time.Millisecond), facts.Width, facts.Height)
	return facts, br.Problems(), shot, took
}

// saveScreenshot writes a screenshot to $HIEROPT_SCREENSHOT_DIR, or to the
// temporary directory.
func saveScreenshot(t testing.TB, name string, png []byte) {
	t.Helper()
	require.True(t, bytes.HasPrefix(png, []byte("\x89PNG")), "a PNG screenshot")
	dir := os.Getenv("HIEROPT_SCREENSHOT_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

func placementCount(p *state.Problem, lays ...*state.Layout) int {
	n := 0
	for _, lay := range lays {
		n += len(lay.Plan(p).Placements)
	}
	return n
}

// TestReportInBrowser: the report of resnet50-int8 on the Ethos-U55's
// seed-model copy (initializer vs search; TestReportInBrowserTimeline
// draws a timeline plan) opens in headless Chromium with no error, draws
// every placement of both plans in four panels, and the two diagrams
// differ where the search moved blocks.
func TestReportInBrowser(t *testing.T) {
	chromiumPath(t)

	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	p, err := a.loadProblem("resnet50-int8", seedHW("ethos-u55"))
	require.NoError(t, err)
	ini := state.NewLayout(p.Blocks())
	_, err = actions.NewInitializer(p).Run(ini, 0)
	require.NoError(t, err)
	o := searchOptions{Segments: "auto", Beam: search.DefaultBeam, Actions: "move,swap,reuse,evict",
		MaxCandidates: search.DefaultMaxCandidates, Rounds: search.DefaultRounds, Horizon: search.DefaultHorizon}
	s, err := o.settings()
	require.NoError(t, err)
	start := time.Now()
	res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, s)
	require.NoError(t, err)
	require.False(t, ini.Equal(res.Layout), "the search moves blocks")
	file := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, a.writeReport(file, p, ini, res.Layout, res.Model, res.Plan.Planner, reportSearchSettings(s, res, time.Since(start)), reportOutcome{Status: reportStatus(p, res)}))
	info, err := os.Stat(file)
	require.NoError(t, err)
	t.Logf("resnet50-int8 on %s: report %d bytes (%.0f KiB)", p.HW.Name, info.Size(), float64(info.Size())/1024)

	// The minute is Chromium's alone: making the report (under -race, on a
	// loaded machine) comes before it.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	facts, problems, shot, _ := browse(t, ctx, file)
	assert.Empty(t, problems, "console errors")
	want := placementCount(p, ini, res.Layout)
	assert.Equal(t, want, facts.Placements, "a rect.pl per placement of both plans")
	assert.Equal(t, want, facts.Drawn, "every rect.pl has a box on the page")
	assert.Equal(t, 2*p.Levels(), facts.Panels, "a panel per level per diagram")
	assert.Equal(t, 2, facts.Diagrams)
	if assert.Len(t, facts.Titles, 2) {
		assert.Contains(t, facts.Titles[0], "initial")
		assert.Contains(t, facts.Titles[1], "final")
	}
	assert.Equal(t, render.ReportSections, facts.Sections)
	assert.True(t, facts.Differ, "the before and after diagrams differ")
	assert.Positive(t, facts.Moved)
	assert.Equal(t, p.Prog.Timesteps(), facts.Bars)
	assert.Equal(t, p.Levels(), facts.Occupancy)
	t.Logf("%d placements drawn, %d rectangles of the initial plan not in the final one", facts.Placements, facts.Moved)
	saveScreenshot(t, "hieropt-report.png", shot)

	// The zoom: timesteps 10 to 49 of both diagrams, then the whole again.
	T := p.Prog.Timesteps()
	z := zoomTo(t, file, ctx, 10, 49)
	require.Len(t, z.Before, 2, "a zoom viewport per diagram")
	for i := range z.Before {
		b, a := viewBox(t, z.Before[i]), viewBox(t, z.After[i])
		dx := b[2] / float64(T)
		assert.InDelta(t, b[0]+10*dx, a[0], 1e-6, "the window starts at timestep 10")
		assert.InDelta(t, 40*dx, a[2], 1e-6, "40 timesteps wide")
		assert.Equal(t, b[1], a[1])
		assert.Equal(t, b[3], a[3])
		assert.Equal(t, z.Before[i], z.Whole[i], "hieroptZoom(0, T-1) draws the whole program")
	}
	assert.Equal(t, z.After[0], z.Returned)
	assert.Equal(t, fmt.Sprintf("timesteps 10–49 of %d", T), z.Label)
	assert.True(t, z.Bar, "the zoom bar is shown where the script runs")
	assert.Zero(t, z.Tax, "the whole program's axes are hidden while zoomed")
	assert.Equal(t, 2, z.Ztax, "an axis of the window per diagram")
	assert.Equal(t, want, z.VisibleBefore, "every placement within the viewports unzoomed")
	assert.Less(t, z.VisibleAfter, z.VisibleBefore, "zoomed: only the placements meeting timesteps 10-49 are in view")
	assert.Positive(t, z.VisibleAfter)
	t.Logf("zoom to timesteps 10-49 of %d: %d of %d placements in view", T, z.VisibleAfter, z.VisibleBefore)
	// Ten timesteps: each op named under each panel (its end after an
	// ellipsis where longer than its timestep's width); none on the whole
	// program.
	require.Len(t, z.Names, 2*p.Levels()*10)
	for i, got := range z.Names {
		name := p.Prog.Ops[10+i%10].Name
		if cut, ok := strings.CutPrefix(got, "…"); ok {
			assert.True(t, strings.HasSuffix(name, cut) && len(cut) < len(name), "%q cut from %q", got, name)
		} else {
			assert.Equal(t, name, got)
		}
	}
	assert.Zero(t, z.NamesAfter)
	t.Logf("zoomed to timesteps 10-19: %q ...", z.Names[:3])

	// Without script: every placement drawn, in view, the zoom bar hidden.
	br := newBrowser(t, ctx, 1700, 1000)
	require.NoError(t, chromedp.Do(br.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})))
	plain, _ := br.load(t, file)
	assert.Equal(t, want, plain.Placements)
	assert.Equal(t, want, plain.Drawn)
	ns, err := chromedp.Run(br.ctx, chromedp.Evaluate[zoomFacts](`({bar: !document.getElementById('zoombar').hidden,
	  label: document.getElementById('zoomlabel').textContent, tax: document.querySelectorAll('#diagrams g.tax').length})`))
	require.NoError(t, err)
	assert.False(t, ns.Bar, "no script: no zoom bar")
	assert.Empty(t, ns.Label, "no script: the script did not run")
	assert.Equal(t, 2*p.Levels(), ns.Tax, "the whole program's axes")
}

// zoomFacts is what zoomJS reads.
type zoomFacts struct {
	Before, After, Whole        []string // each zoom viewport's viewBox
	Returned, Label             string
	Bar                         bool
	Tax, Ztax                   int
	VisibleBefore, VisibleAfter int // rect.pl whose box meets their viewport's
	// Names are the op names under the axes zoomed to ten timesteps from
	// the window's start; NamesAfter counts them once the whole is drawn
	// again.
	Names      []string
	NamesAfter int
}

const zoomJS = `((from, to) => {
  const zs = Array.from(document.querySelectorAll('#diagrams svg.zoom'));
  const vb = () => zs.map(z => z.getAttribute('viewBox'));
  const visible = () => {
    let n = 0;
    for (const z of zs) {
      // The viewport: its diagram's panel frames (the nested svg's own box
      // is its content's).
      const v = z.parentNode.querySelector('g.panel rect.frame').getBoundingClientRect();
      for (const r of z.querySelectorAll('rect.pl')) {
        const b = r.getBoundingClientRect();
        if (b.right > v.left + 0.01 && b.left < v.right - 0.01) n++;
      }
    }
    return n;
  };
  const before = vb(), visibleBefore = visible();
  const returned = window.hieroptZoom(from, to);
  const after = vb(), visibleAfter = visible();
  const shown = s => Array.from(document.querySelectorAll(s)).filter(g => g.getBoundingClientRect().width > 0).length;
  const facts = {before, after, returned, visibleBefore, visibleAfter,
    label: document.getElementById('zoomlabel').textContent,
    bar: !document.getElementById('zoombar').hidden,
    tax: shown('#diagrams g.tax'), ztax: document.querySelectorAll('#diagrams g.ztax').length};
  window.hieroptZoom(from, from + 9);
  facts.names = Array.from(document.querySelectorAll('#diagrams text.zname')).map(e => e.firstChild.nodeValue);
  window.hieroptZoom(0, Number(zs[0].getAttribute('data-t1')) - 1);
  facts.whole = vb();
  facts.namesAfter = document.querySelectorAll('#diagrams text.zname').length;
  return facts;
})`

// zoomTo opens the report at file, zooms its diagrams to timesteps
// [from, to] through the page's script and reads what changed.
func zoomTo(t *testing.T, file string, ctx context.Context, from, to int) zoomFacts {
	t.Helper()
	br := newBrowser(t, ctx, 1700, 1000)
	br.load(t, file)
	z, err := chromedp.Run(br.ctx, chromedp.Evaluate[zoomFacts](fmt.Sprintf("%s(%d, %d)", zoomJS, from, to)))
	require.NoError(t, err)
	assert.Empty(t, br.Problems(), "console errors")
	// A screenshot of ten timesteps from the window's start (the ops named),
	// the zoom bar and diagrams in view.
	_, err = chromedp.Run(br.ctx, chromedp.Evaluate[bool](fmt.Sprintf(
		"window.hieroptZoom(%d, %d); document.getElementById('zoombar').scrollIntoView(); true", from, from+9)))
	require.NoError(t, err)
	shot, err := chromedp.Run(br.ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	saveScreenshot(t, "hieropt-report-zoom.png", shot)
	return z
}

// viewBox parses a viewBox attribute.
func viewBox(t *testing.T, s string) [4]float64 {
	t.Helper()
	var v [4]float64
	_, err := fmt.Sscanf(s, "%g %g %g %g", &v[0], &v[1], &v[2], &v[3])
	require.NoError(t, err, "viewBox %q", s)
	return v
}

// TestReportInBrowserLong: a generated program of 2,000 ops on the H100
// (the initializer's plan alone) renders with every placement drawn.
func TestReportInBrowserLong(t *testing.T) {
	chromiumPath(t)

	prog, err := gen.Generate(gen.Options{Ops: 2000, Seed: 1})
	require.NoError(t, err)
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	prof, err := a.loadProfile("h100-sm")
	require.NoError(t, err)
	p, err := bindProblem(prog, prof, "gen")
	require.NoError(t, err)
	lay := state.NewLayout(p.Blocks())
	_, err = actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	model, _ := costmodel.Lookup(costmodel.Default)
	file := filepath.Join(t.TempDir(), "report-2000.html")
	require.NoError(t, a.writeReport(file, p, lay, lay, model, "initializer", reportSearchSettings(nil, nil, 0), reportOutcome{}))
	info, err := os.Stat(file)
	require.NoError(t, err)
	t.Logf("2,000 ops on h100-sm: report %d bytes (%.1f MiB)", info.Size(), float64(info.Size())/(1<<20))

	// The minute is Chromium's alone: making the report (under -race, on a
	// loaded machine) comes before it.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	facts, problems, shot, took := browse(t, ctx, file)
	assert.Empty(t, problems, "console errors")
	want := placementCount(p, lay)
	assert.Equal(t, want, facts.Placements)
	assert.Equal(t, want, facts.Drawn)
	assert.Equal(t, p.Levels(), facts.Panels, "one diagram: the plans are the same")
	assert.Equal(t, 1, facts.Diagrams)
	assert.Equal(t, render.ReportSections, facts.Sections)
	assert.Equal(t, render.ReportMaxBars, facts.Bars)
	t.Logf("2,000 ops: %d placements drawn; Chromium loaded and checked it in %s", facts.Placements, took.Round(time.Millisecond))
	saveScreenshot(t, "hieropt-report-2000.png", shot)
}

// TestReportInBrowserTimeline: the report of testdata/timeline's hand-made
// plan (the timeline model) opens in headless Chromium with no error: its
// sections with the timeline after the diagrams, both runs drawn with a
// visible stall bar per stalled op, and every copy issued early (the
// hand plan's three and the initializer's) hatched with a visible box.
func TestReportInBrowserTimeline(t *testing.T) {
	chromiumPath(t)

	wl, prof, hand := tlFiles()
	file := filepath.Join(t.TempDir(), "report-timeline.html")
	r := runReport(t, "--workload", wl, "--hw", prof, hand, "-o", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	p, ini := tlInitial(t)
	_, _, rep := tlBreakdown(t, hand)
	m, _ := costmodel.Lookup("timeline")
	stalls := 0
	for _, rep := range []*costmodel.Report{costmodel.Breakdown(m, p, ini), rep} {
		for _, o := range rep.Timeline.Ops {
			if o.Stall > 0 {
				stalls++
			}
		}
	}
	// The minute is Chromium's alone: making the report (under -race, on a
	// loaded machine) comes before it.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	facts, problems, shot, _ := browse(t, ctx, file)
	assert.Empty(t, problems, "console errors")
	assert.Equal(t, render.ReportTimelineSections, facts.Sections)
	assert.Equal(t, 2, facts.Runs, "the initial and the final run")
	assert.Positive(t, stalls)
	assert.Equal(t, stalls, facts.Stalls, "a visible stall bar per stalled op")
	assert.Equal(t, tlEarly(ini.Plan(p).Transfers)+3, facts.InFlight, "the initializer's copies issued early and the hand plan's three")
	assert.Equal(t, 2, facts.Diagrams)
	saveScreenshot(t, "hieropt-report-timeline.png", shot)
}

// runReport runs `hieropt report args...`: through runCLI once the command
// is registered in root.go, else through a root that holds only it.
func runReport(t *testing.T, args ...string) result {
	t.Helper()
	if c, _, err := newRootCmd(nil, io.Discard, io.Discard).Find([]string{"report"}); err == nil && c.Name() == "report" {
		return runCLI(t, "", append([]string{"report"}, args...)...)
	}
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	root := &cobra.Command{Use: "hieropt", SilenceUsage: true, SilenceErrors: true}
	root.PersistentFlags().String("config", "", "")
	root.AddCommand(newReportCmd(a))
	root.SetArgs(append([]string{"report"}, args...))
	err := root.Execute()
	if err != nil {
		fmt.Fprintf(&errb, "hieropt: %s\n", oneLine(err.Error()))
	}
	return result{exitCode(err), out.String(), errb.String()}
}

// TestReportCommand: report writes a valid plan's report (the initial plan
// re-planned or given), refuses an invalid plan (exit 1, its first
// violations, no file) and a plan for another profile (exit 2).
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	hwFile := repo("testdata", "hw", "two-level-5k.yaml")
	planFile, initFile := filepath.Join(dir, "plan.json"), filepath.Join(dir, "initial.json")
	r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", hwFile, "-q", "-o", planFile)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", hwFile, "-q", "--no-search", "-o", initFile)
	require.Equal(t, exitOK, r.code, r.stderr)

	out := filepath.Join(dir, "report.html")
	r = runReport(t, "--workload", "seed000-example", "--hw", hwFile, planFile, "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	doc := string(data)
	for _, id := range render.ReportSections {
		assert.Contains(t, doc, `<section id="`+id+`">`)
	}
	assert.Contains(t, doc, "the initializer&#39;s, re-planned")
	assert.Contains(t, doc, "seed000-example")

	withInit := filepath.Join(dir, "report2.html")
	r = runReport(t, "--workload", "seed000-example", "--hw", hwFile, planFile, "--initial", initFile, "-o", withInit)
	require.Equal(t, exitOK, r.code, r.stderr)
	data2, err := os.ReadFile(withInit)
	require.NoError(t, err)
	assert.Contains(t, string(data2), filepath.Base(initFile))
	// The initializer's plan given or re-planned: the same report but for
	// the settings that say where it came from.
	cut := func(s string) string { return s[:strings.Index(s, `<section id="settings">`)] }
	assert.Equal(t, cut(doc), cut(string(data2)))

	// An invalid plan: exit 1, violations on stderr, nothing written.
	good, err := os.ReadFile(initFile)
	require.NoError(t, err)
	bad := strings.Replace(string(good), `"final": `, `"final": 1`, 1)
	require.NotEqual(t, string(good), bad)
	badFile := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(badFile, []byte(bad), 0o644))
	none := filepath.Join(dir, "none.html")
	r = runReport(t, "--workload", "seed000-example", "--hw", hwFile, badFile, "-o", none)
	assert.Equal(t, exitFailed, r.code, r.stderr)
	assert.Contains(t, r.stderr, "rule 6: cost.final")
	assert.Contains(t, r.stderr, "is invalid")
	assert.NoFileExists(t, none)
	r = runReport(t, "--workload", "seed000-example", "--hw", hwFile, planFile, "--initial", badFile, "-o", none)
	assert.Equal(t, exitFailed, r.code, r.stderr)
	assert.NoFileExists(t, none)

	// A plan for another profile: bad input. Without -o the report goes
	// to stdout.
	r = runReport(t, "--workload", "seed000-example", "--hw", repo("testdata", "hw", "one-level-8k.yaml"), planFile, "-o", none)
	assert.Equal(t, exitInput, r.code, r.stderr)
	assert.Contains(t, r.stderr, "plan is for hardware profile")
	r = runReport(t, "--workload", "seed000-example", "--hw", hwFile, planFile)
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "<!DOCTYPE html>"), r.stdout[:min(len(r.stdout), 80)])
	assert.NoFileExists(t, none)
}
