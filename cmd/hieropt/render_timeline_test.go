package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// tlFiles are testdata/timeline's workload, profile and hand-made plan (a
// load of w1 one op early, a's copy to SLOW and w2's prefetch from FLASH
// at 1, w3 resident).
func tlFiles() (wl, prof, pl string) {
	dir := repo("testdata", "timeline")
	return filepath.Join(dir, "tl-workload.json"), filepath.Join(dir, "tl.yaml"), filepath.Join(dir, "tl-plan.json")
}

// tlBreakdown prices the plan at path under the timeline model, as the
// library does, for the tests to count against.
func tlBreakdown(t *testing.T, path string) (*state.Problem, *plan.Plan, *costmodel.Report) {
	t.Helper()
	wl, prof, _ := tlFiles()
	prog, err := workload.ReadFile(wl)
	require.NoError(t, err)
	h, err := hw.ReadFile(prof)
	require.NoError(t, err)
	p, err := state.Bind(prog, h, "tl", state.Semantics{Timeline: true})
	require.NoError(t, err)
	pl, err := plan.ReadFile(path)
	require.NoError(t, err)
	lay, err := state.LayoutOf(p, pl)
	require.NoError(t, err)
	m, ok := costmodel.Lookup("timeline")
	require.True(t, ok)
	return p, pl, costmodel.Breakdown(m, p, lay)
}

// tlInitial is the initializer's plan of testdata/timeline's problem
// under the timeline model: the report's initial plan.
func tlInitial(t *testing.T) (*state.Problem, *state.Layout) {
	t.Helper()
	_, _, hand := tlFiles()
	p, _, _ := tlBreakdown(t, hand)
	m, _ := costmodel.Lookup("timeline")
	lay, _, err := actions.InitialPlan(context.Background(), p, m)
	require.NoError(t, err)
	return p, lay
}

// tlEarly counts the copies issued before their timestep (start < at).
func tlEarly(xs []plan.Transfer) int {
	n := 0
	for _, x := range xs {
		if x.Start < x.At {
			n++
		}
	}
	return n
}

// TestRenderTimeline: render --timeline draws the hand-made plan's
// timeline (a bar per op, per copy and per stall of its breakdown), with
// --compare both runs; the time-space diagram of the same plan hatches its
// three copies issued early; a plan of another model is refused in one
// line naming the plan and the rule, with no file written.
func TestRenderTimeline(t *testing.T) {
	dir := t.TempDir()
	wl, prof, hand := tlFiles()
	args := []string{"--workload", wl, "--hw", prof}
	out := filepath.Join(dir, "tl.svg")
	r := runCLI(t, "", append([]string{"render", hand, "--timeline", "-o", out}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	c := wellFormedXML(t, data)
	p, pl, rep := tlBreakdown(t, hand)
	stalls := 0
	for _, o := range rep.Timeline.Ops {
		if o.Stall > 0 {
			stalls++
		}
	}
	require.Positive(t, stalls, "the hand plan stalls")
	assert.Equal(t, 1, c["g.tl-run"])
	assert.Equal(t, p.Prog.Timesteps(), c["g.tl-op"])
	assert.Equal(t, len(pl.Transfers), c["g.tl-copy"], "a bar per copy, the load included")
	assert.Equal(t, stalls, c["rect.tl-stall"])
	assert.Equal(t, 1+p.HW.Channels(), c["g.tl-lane"])
	assert.Contains(t, string(data), "tl-plan.json (hand-written: a load of w1")
	for _, x := range pl.Transfers {
		assert.Contains(t, string(data), fmt.Sprintf("%s · %s → %s · 64 B · issued at op %d", x.Block, x.FromLevel, x.ToLevel, x.Start), x.Block)
	}

	// The time-space diagram of the same plan: a hatched reservation per
	// copy issued before its timestep, an arrow per copy.
	diag := filepath.Join(dir, "diag.svg")
	r = runCLI(t, "", append([]string{"render", hand, "-o", diag}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err = os.ReadFile(diag)
	require.NoError(t, err)
	c = wellFormedXML(t, data)
	early := tlEarly(pl.Transfers)
	assert.Equal(t, 3, early)
	assert.Equal(t, early, c["rect.inflight"])
	assert.Equal(t, len(pl.Transfers), c["line.xfer"])
	assert.Equal(t, 1, c["line.load"])

	// --compare: the initializer's plan above, on one time scale.
	ini := filepath.Join(dir, "initial.json")
	r = runCLI(t, "", append([]string{"optimize", "--no-search", "-q", "-o", ini}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	both := filepath.Join(dir, "both.svg")
	r = runCLI(t, "", append([]string{"render", hand, "--timeline", "--compare", ini, "-o", both}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err = os.ReadFile(both)
	require.NoError(t, err)
	c = wellFormedXML(t, data)
	assert.Equal(t, 2, c["g.tl-run"])
	assert.Equal(t, 2*p.Prog.Timesteps(), c["g.tl-op"])
	s := string(data)
	assert.Less(t, strings.Index(s, "initial.json (initializer)"), strings.Index(s, "tl-plan.json (hand-written"), "the reference above")

	// A plan of the seed's model: refused, one line, exit 2, no file.
	seedPlan := filepath.Join(dir, "seed.json")
	r = runCLI(t, "", append([]string{"optimize", "--no-search", "-q", "--cost-model", "seed003", "-o", seedPlan}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	none := filepath.Join(dir, "none.svg")
	r = runCLI(t, "", append([]string{"render", seedPlan, "--timeline", "-o", none}, args...)...)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, `hieropt: plan "`+seedPlan+`": cost_model: "seed003" has no timeline: --timeline draws only plans of the timeline model (cost_model "timeline", FORMATS.md section 6)`+"\n", r.stderr)
	assert.NoFileExists(t, none)
	r = runCLI(t, "", append([]string{"render", hand, "--timeline", "--compare", seedPlan, "-o", none}, args...)...)
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, `plan "`+seedPlan+`": cost_model: "seed003" has no timeline`)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"))
	assert.NoFileExists(t, none)
	r = runCLI(t, "", append([]string{"render", hand, "--timeline", "--ascii"}, args...)...)
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, "--ascii and --timeline exclude each other")
}

// TestReportTimelineCommand: report on the hand-made timeline plan has the
// timeline section (the initializer's run and the plan's), and optimize
// --report on the same problem too; a plan of the seed's model has none.
func TestReportTimelineCommand(t *testing.T) {
	dir := t.TempDir()
	wl, prof, hand := tlFiles()
	args := []string{"--workload", wl, "--hw", prof}
	p, _, _ := tlBreakdown(t, hand)
	out := filepath.Join(dir, "report.html")
	r := runReport(t, append([]string{hand, "-o", out}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	doc := string(data)
	for _, id := range render.ReportTimelineSections {
		assert.Contains(t, doc, `<section id="`+id+`">`)
	}
	assert.Equal(t, 2, strings.Count(doc, `<g class="tl-run">`))
	_, ini := tlInitial(t)
	assert.Equal(t, tlEarly(ini.Plan(p).Transfers)+3, strings.Count(doc, `<rect class="inflight"`), "the initializer's copies in flight and the hand plan's 3")
	final := doc[strings.LastIndex(doc, `<g class="diagram">`):]
	assert.Equal(t, 3, strings.Count(final, `<rect class="inflight"`), "the hand plan's 3")

	opt := filepath.Join(dir, "opt.html")
	r = runCLI(t, "", append([]string{"optimize", "-q", "-o", filepath.Join(dir, "p.json"), "--report", opt}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err = os.ReadFile(opt)
	require.NoError(t, err)
	assert.Contains(t, string(data), `<section id="timeline">`)

	seed := filepath.Join(dir, "seed.html")
	r = runCLI(t, "", append([]string{"optimize", "-q", "--cost-model", "seed003", "-o", filepath.Join(dir, "s.json"), "--report", seed}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err = os.ReadFile(seed)
	require.NoError(t, err)
	assert.NotContains(t, string(data), `<section id="timeline">`)
	assert.NotContains(t, string(data), `tl-run`)
}
