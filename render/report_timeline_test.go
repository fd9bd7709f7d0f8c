package render

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// rtTimelineModel is the registered timeline model.
func rtTimelineModel(t testing.TB) costmodel.Model {
	t.Helper()
	m, ok := costmodel.Lookup("timeline")
	require.True(t, ok, "the timeline model is registered")
	require.True(t, m.Timeline())
	return m
}

// rtHand is testdata/timeline's hand-made plan under the timeline model
// (w1 loaded one op early, a and w2 copied from timestep 1, w3 resident)
// and the initializer's plan of the same problem.
func rtHand(t testing.TB) (p *state.Problem, initial, final *state.Layout) {
	t.Helper()
	dir := filepath.Join("..", "testdata", "timeline")
	prog, err := workload.ReadFile(filepath.Join(dir, "tl-workload.json"))
	require.NoError(t, err)
	prof, err := profiles.Load(filepath.Join(dir, "tl.yaml"))
	require.NoError(t, err)
	p, err = state.Bind(prog, prof, "tl", state.Semantics{Timeline: true})
	require.NoError(t, err)
	pl, err := plan.ReadFile(filepath.Join(dir, "tl-plan.json"))
	require.NoError(t, err)
	final, err = state.LayoutOf(p, pl)
	require.NoError(t, err)
	initial, _, err = actions.InitialPlan(context.Background(), p, rtTimelineModel(t))
	require.NoError(t, err)
	return p, initial, final
}

var rtSectionIDRe = regexp.MustCompile(`<section id="([a-z]+)">`)

func rtSectionIDs(doc string) []string {
	var ids []string
	for _, m := range rtSectionIDRe.FindAllStringSubmatch(doc, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// TestReportTimelineSection: the report of a timeline plan has the
// timeline section after the diagrams: both plans' runs on one scale, a
// bar per op, a red stall bar exactly where the breakdown has a stall
// (with its op in the bar's title), a bar per copy, and the totals of the
// breakdown in its table.
func TestReportTimelineSection(t *testing.T) {
	p, ini, fin := rtHand(t)
	m := rtTimelineModel(t)
	require.False(t, ini.Equal(fin))
	doc := rtWrite(t, &Report{Problem: p, Model: m, Initial: ini, Final: fin, Planner: "hand", Version: "v0-test"})
	assert.Equal(t, ReportTimelineSections, rtSectionIDs(doc))
	assert.Contains(t, doc, `<a href="#timeline">Timeline</a>`)
	rtSelfContained(t, doc)
	rtSVGs(t, doc)
	sec := rtSection(t, doc, "timeline")
	svgs := rtSVGs(t, sec)
	require.Len(t, svgs, 1)
	assert.Equal(t, 2, strings.Count(sec, `<g class="tl-run">`), "the initial and the final run")
	assert.Equal(t, 2*(1+p.HW.Channels()), strings.Count(sec, `<g class="tl-lane"`))
	assert.NotContains(t, sec, `class="tl-col"`, "5 ops: drawn op by op")

	stalls, copies := 0, 0
	for i, lay := range []*state.Layout{ini, fin} {
		rep := costmodel.Breakdown(m, p, lay)
		require.NotNil(t, rep.Timeline)
		copies += len(rep.Timeline.Copies)
		busy, compute, memory := 0.0, 0.0, 0.0
		for op, o := range rep.Timeline.Ops {
			busy += o.End - o.Begin
			compute += o.Compute
			memory += o.Memory
			if o.Stall > 0 {
				stalls++
				assert.Contains(t, sec, fmt.Sprintf("stall %s cycles before op %d %s (", repCost(o.Stall), op, p.Prog.Ops[op].Name))
			}
		}
		name := []string{"initial", "final"}[i]
		row := regexp.MustCompile(`<tr><td>` + name + `</td>.*</tr>`).FindString(sec)
		require.NotEmpty(t, row, name)
		// time, compute, memory, ops' time, stall, in that order.
		want := fmt.Sprintf(`<td class="n">%s</td><td class="n">%s</td><td class="n">%s</td><td class="n">%s</td><td class="n">%s</td>`,
			repCost(rep.Total), repCost(compute), repCost(memory), repCost(busy), repCost(rep.Timeline.Stall))
		assert.Contains(t, row, want, name)
		assert.InDelta(t, rep.Total, busy+rep.Timeline.Stall, 1e-9, "a run is its ops and its stalls")
		assert.Contains(t, sec, fmt.Sprintf(`%s ends at %s cycles`, name, repCost(rep.Total)))
	}
	require.Positive(t, stalls, "the hand plan stalls")
	assert.Equal(t, stalls, strings.Count(sec, `<rect class="tl-stall"`), "a stall bar per stalled op")
	assert.Equal(t, 2*p.Prog.Timesteps(), strings.Count(sec, `<g class="tl-op">`))
	assert.Equal(t, copies, strings.Count(sec, `<g class="tl-copy">`))
	// The diagrams: every copy issued before its timestep, in either
	// plan document, is hatched (the hand plan has 3).
	early := 0
	for _, lay := range []*state.Layout{ini, fin} {
		for _, x := range lay.Plan(p).Transfers {
			if x.Start < x.At {
				early++
			}
		}
	}
	require.GreaterOrEqual(t, early, 3)
	diag := rtSection(t, doc, "diagrams")
	assert.Contains(t, diag, fmt.Sprintf("a copy in flight (%d drawn)", early))
	assert.Equal(t, early, strings.Count(diag, `<rect class="inflight"`))
	final := diag[strings.LastIndex(diag, `<g class="diagram">`):]
	assert.Equal(t, 3, strings.Count(final, `<rect class="inflight"`), "the hand plan's 3")
	// The per-level times and the time chart are the work, which the
	// timeline overlaps: the report says so.
	assert.Contains(t, rtSection(t, doc, "summary"), "so the times add up to more than the plan's time")
	assert.Contains(t, rtSection(t, doc, "time"), "The final plan's work per timestep")
	// Deterministic.
	assert.Equal(t, doc, rtWrite(t, &Report{Problem: p, Model: m, Initial: ini, Final: fin, Planner: "hand", Version: "v0-test"}))
}

// TestReportTimelineTransfers: under the timeline model the report counts
// and lists the copies as the plan document does, loads included, with
// their starts, and their copy times add up to the channels' transfer time
// in the timeline's table.
func TestReportTimelineTransfers(t *testing.T) {
	p, ini, fin := rtHand(t)
	m := rtTimelineModel(t)
	doc := rtWrite(t, &Report{Problem: p, Model: m, Initial: ini, Final: fin})
	xi, xf := ini.Plan(p).Transfers, fin.Plan(p).Transfers
	require.Len(t, xf, 3, "the hand plan: w1's load, a's and w2's transfers")
	sum := rtSection(t, doc, "summary")
	assert.Contains(t, sum, fmt.Sprintf(`transfers (final)</div><div class="v">%d</div>`, len(xf)))
	assert.Contains(t, sum, fmt.Sprintf("%d transfers in the final plan, %d in the initial one", len(xf), len(xi)))
	tr := rtSection(t, doc, "transfers")
	assert.Equal(t, len(xf), strings.Count(tr, "<tr>")-1)
	assert.Contains(t, tr, "3 copies in the final plan (1 of them loads of constants from their home level; 3 issued before the timestep that needs them)")
	for _, x := range xf {
		from := x.FromLevel + `</td><td class="n">` + fmt.Sprint(x.FromOffset)
		if x.Load {
			from = x.FromLevel + ` (load)</td><td class="n">—`
		}
		assert.Contains(t, tr, fmt.Sprintf(`>%d</td><td class="n">%d</td><td class="nm">%s</td><td>%s</td><td>%s</td>`, x.At, x.Start, x.Block, from, x.ToLevel), x.Block)
	}
	// The copies' times: w1 and w2 FLASH -> FAST, 20 + 64/2 + 1 + 64/4 =
	// 69 each; a FAST -> SLOW, 1 + 64/4 + 10 + 64/1 = 91. In all 229, the
	// time the one channel transfers.
	assert.Contains(t, tr, "take 229.00 cycles on the DMA channels")
	rep := costmodel.Breakdown(m, p, fin)
	busy := 0.0
	for _, c := range rep.Timeline.Copies {
		busy += c.End - c.Begin
	}
	assert.InDelta(t, 229.0, busy, 1e-9)
}

// TestReportTimelineOnePlan: with one plan, one run, its row named for
// both.
func TestReportTimelineOnePlan(t *testing.T) {
	p, _, fin := rtHand(t)
	doc := rtWrite(t, &Report{Problem: p, Model: rtTimelineModel(t), Final: fin})
	sec := rtSection(t, doc, "timeline")
	assert.Equal(t, 1, strings.Count(sec, `<g class="tl-run">`))
	assert.Contains(t, sec, "<tr><td>initial = final</td>")
	assert.Equal(t, p.Prog.Timesteps(), strings.Count(sec, `<g class="tl-op">`))
}

// TestReportNoTimelineUnderSeed: under the seed's model the report has no
// timeline section, no timeline drawing and no hatched copies.
func TestReportNoTimelineUnderSeed(t *testing.T) {
	p := rtProblem(t, rtShipped(t, "seed000-example"), filepath.Join("..", "testdata", "hw", "two-level-5k.yaml"))
	ini, fin := rtInitial(t, p), rtSearch(t, p)
	doc := rtWrite(t, &Report{Problem: p, Initial: ini, Final: fin})
	assert.Equal(t, ReportSections, rtSectionIDs(doc))
	for _, s := range []string{`id="timeline"`, "tl-", "inflight", "in flight", "Timeline"} {
		assert.NotContains(t, doc, s)
	}
}

// rtTimelineProfile is a built-in profile given the timeline model: a
// compute unit and two DMA channels.
func rtTimelineProfile(t testing.TB, name string) *hw.Profile {
	t.Helper()
	prof, err := profiles.Load(name)
	require.NoError(t, err)
	prof.CostModel = "timeline"
	prof.Compute = &hw.Compute{MACsPerUnit: 1024, OpOverhead: 100}
	prof.DMA = hw.DMA{Channels: 2}
	require.NoError(t, prof.Validate("test"))
	return prof
}

// TestReportTimelineLong: a 3,000-op program's timeline is drawn a pixel
// column at a time: no lane has more elements than the columns allow,
// and red columns appear where and only where ops stall.
func TestReportTimelineLong(t *testing.T) {
	prog, err := gen.Generate(gen.Options{Ops: 3000, Seed: 1})
	require.NoError(t, err)
	p, err := state.Bind(prog, rtTimelineProfile(t, "h100-sm"), "gen", state.Semantics{Timeline: true})
	require.NoError(t, err)
	m := rtTimelineModel(t)
	lay, _, err := actions.InitialPlan(context.Background(), p, m)
	require.NoError(t, err)
	rep := costmodel.Breakdown(m, p, lay)
	doc := rtWrite(t, &Report{Problem: p, Model: m, Final: lay})
	sec := rtSection(t, doc, "timeline")
	rtSVGs(t, sec)
	assert.NotContains(t, sec, `<g class="tl-op">`)
	assert.Positive(t, strings.Count(sec, `<g class="tl-col">`))
	assert.Contains(t, sec, "drawn a column at a time")
	lanes := 1 + p.HW.Channels()
	elements := strings.Count(sec, "<") - strings.Count(sec, "</")
	bound := lanes*(TimelineElementsPerColumn*ReportTimelineWidth+3) + 2*TimelineFixedElements
	assert.LessOrEqual(t, elements, bound+200, "the table and the text add a few elements")
	stallCols := strings.Count(sec, `<rect class="tl-stall"`)
	if rep.Timeline.Stall > 0 {
		assert.Positive(t, stallCols)
		assert.LessOrEqual(t, stallCols, ReportTimelineWidth)
	} else {
		assert.Zero(t, stallCols)
	}
	t.Logf("3,000 ops: report %d bytes, timeline section %d bytes, %d elements (bound %d), %d stall columns, stall %s of %s",
		len(doc), len(sec), elements, bound, stallCols, repCost(rep.Timeline.Stall), repCost(rep.Total))
}
