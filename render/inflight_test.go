package render_test

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/tlgen"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// tlHand is testdata/timeline's hand-made plan, bound under the timeline
// model: w1 loaded from FLASH one op early (start 0, at 1), a copied to
// SLOW from 1 (at 2), w2 prefetched from FLASH from 1 (at 3), w3 resident
// in FAST.
func tlHand(t testing.TB) (*state.Problem, *plan.Plan, *state.Layout) {
	t.Helper()
	dir := filepath.Join("..", "testdata", "timeline")
	prog, err := workload.ReadFile(filepath.Join(dir, "tl-workload.json"))
	require.NoError(t, err)
	prof, err := profiles.Load(filepath.Join(dir, "tl.yaml"))
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, "tl", state.Semantics{Timeline: true})
	require.NoError(t, err)
	pl, err := plan.ReadFile(filepath.Join(dir, "tl-plan.json"))
	require.NoError(t, err)
	lay, err := state.LayoutOf(p, pl)
	require.NoError(t, err)
	return p, pl, lay
}

// planCopies counts a plan's transfers (loads included), those issued
// before their timestep (start < at) and the loads.
func planCopies(pl *plan.Plan) (all, early, loads int) {
	for _, x := range pl.Transfers {
		all++
		if x.Start < x.At {
			early++
		}
		if x.Load {
			loads++
		}
	}
	return all, early, loads
}

var inflightRe = regexp.MustCompile(`<rect class="inflight" x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)" height="[0-9.]+" stroke="[^"]+"><title>(\S+) in flight: [^<]*, issued at timestep (\d+) for timestep (\d+);`)

// TestInFlightHandPlan: the hand-made plan's three copies issued early are
// hatched from their start to their timestep at their destinations, each
// with an arrow from its start to its timestep; w1's load arrow starts at
// FLASH; w3, resident, spans the whole run.
func TestInFlightHandPlan(t *testing.T) {
	p, pl, lay := tlHand(t)
	all, early, loads := planCopies(pl)
	require.Equal(t, [3]int{3, 3, 1}, [3]int{all, early, loads}, "the hand plan: 3 copies, all early, 1 load")
	var buf bytes.Buffer
	require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "tl", Layout: lay}}, render.Options{}))
	c := wellFormed(t, buf.Bytes())
	assert.Equal(t, early, c["rect.inflight"])
	assert.Equal(t, all, c["line.xfer"], "an arrow per transfer of the plan, loads included")
	assert.Equal(t, loads, c["line.load"])
	assert.Equal(t, 1, strings.Count(buf.String(), `<pattern id="inflight"`))

	// Default width 960 over 5 timesteps: 192 px a timestep, from x = 78.
	x := func(t int) float64 { return 78 + 192*float64(t) }
	want := map[string][2]int{"w1": {0, 1}, "a": {1, 2}, "w2": {1, 3}}
	got := inflightRe.FindAllStringSubmatch(buf.String(), -1)
	require.Len(t, got, len(want))
	for _, m := range got {
		se, ok := want[m[3]]
		require.True(t, ok, "an in-flight copy of %s", m[3])
		assert.Equal(t, strconv.Itoa(se[0]), m[4], "%s's start", m[3])
		assert.Equal(t, strconv.Itoa(se[1]), m[5], "%s's at", m[3])
		x0, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		w, err := strconv.ParseFloat(m[2], 64)
		require.NoError(t, err)
		assert.InDelta(t, x(se[0]), x0, 0.01, "%s's reservation begins at its start", m[3])
		assert.InDelta(t, x(se[1])-x(se[0]), w, 0.01, "%s's reservation ends at its timestep", m[3])
		delete(want, m[3])
	}
	s := buf.String()
	assert.Regexp(t, `<line class="xfer" x1="270" y1="[0-9.]+" x2="654" y2="[0-9.]+"><title>w2 moves at timestep 3: FLASH @ 0 → FAST @ 192, the copy issued at timestep 1</title></line>`, s,
		"w2's arrow: from FLASH @ 0 at timestep 1 to FAST @ 192 at timestep 3")
	assert.Regexp(t, `<line class="xfer load" x1="78" y1="[0-9.]+" x2="270" y2="[0-9.]+"><title>w1 is loaded for timestep 1: FLASH → FAST @ 128, the copy issued at timestep 0</title>`, s)
	assert.Regexp(t, `<rect class="pl k-constant" x="78" y="[0-9.]+" width="960" height="[0-9.]+" fill="#009E73"><title>w3 · [^<]*resident`, s,
		"w3's range is kept for the whole run")
	assert.Contains(t, s, "copy in flight", "the legend says what the hatching is")
}

// TestInFlightRandomPlans: on random valid timeline plans (internal/tlgen),
// a hatched rectangle per copy issued before its timestep and an arrow per
// transfer (loads included), as the plan document counts them; plans of
// the default model (no early start) get neither the pattern nor a hatched
// rectangle.
func TestInFlightRandomPlans(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	n, early, residents := 0, 0, 0
	for n < 300 {
		seed := n%4 == 0 // a plan of the default model, bound as such
		g, ok := tlgen.Random(rng, tlgen.Options{SeedOnly: seed})
		if !ok {
			continue
		}
		n++
		p, err := state.Bind(g.Prog, g.Prof, "rnd", state.Semantics{Timeline: !seed})
		require.NoError(t, err)
		lay, err := state.LayoutOf(p, g.Plan)
		require.NoError(t, err)
		all, e, loads := planCopies(g.Plan)
		var buf bytes.Buffer
		require.NoError(t, render.SVG(&buf, p, []render.Diagram{{Title: "a", Layout: lay}, {Title: "b", Layout: lay}}, render.Options{}))
		c := wellFormed(t, buf.Bytes())
		require.Equal(t, 2*e, c["rect.inflight"], "plan %d", n)
		require.Equal(t, 2*all, c["line.xfer"], "plan %d", n)
		require.Equal(t, 2*loads, c["line.load"], "plan %d", n)
		require.Equal(t, e > 0, strings.Contains(buf.String(), `id="inflight"`), "plan %d", n)
		require.Equal(t, e, render.InFlight(lay), "plan %d", n)
		early += e
		for _, segs := range lay.Segs {
			if segs[0].IsResident() {
				residents++
			}
		}
	}
	t.Logf("%d plans: %d copies in flight, %d resident constants", n, early, residents)
	require.Positive(t, early)
	require.Positive(t, residents)
}

var runTitleRe = regexp.MustCompile(`<g class="tl-run"><text x="[0-9.]+" y="[0-9.]+" font-size="14" font-weight="bold">([^<]*)(?:<title>([^<]*)</title>)?</text>`)

// TestTimelineLongTitle: a run's title longer than the room left of its
// figures is cut, with an ellipsis, and whole in its tooltip; a short one
// is drawn as it is.
func TestTimelineLongTitle(t *testing.T) {
	ini, fin, _, _ := tlSmall()
	long := strings.Repeat("plan.json (a hand-written plan, described at length) ", 4)
	fin.Title = long
	for _, width := range []int{960, 700} {
		svg := tlDraw(t, render.TimelineOptions{Width: width}, ini, fin)
		tlParse(t, svg)
		m := runTitleRe.FindAllStringSubmatch(string(svg), -1)
		require.Len(t, m, 2)
		assert.Equal(t, "initial", m[0][1])
		assert.Empty(t, m[0][2], "no tooltip for a title that fits")
		assert.True(t, strings.HasSuffix(m[1][1], "…"), m[1][1])
		assert.True(t, strings.HasPrefix(long, strings.TrimSuffix(m[1][1], "…")))
		assert.Equal(t, long, m[1][2])
		// The cut title ends before the figures: a character of the title
		// is at most 8.6 px, of the figures 6.2 px.
		stats := regexp.MustCompile(`text-anchor="end" fill="#555">([^<]*)<`).FindStringSubmatch(string(svg))[1]
		titleW := 8.6 * float64(len([]rune(m[1][1])))
		assert.LessOrEqual(t, titleW+6.2*float64(len([]rune(stats))), float64(width), "width %d", width)
	}
	// So narrow that the figures alone fill it: a title keeps 24
	// characters.
	svg := tlDraw(t, render.TimelineOptions{Width: 300}, ini, fin)
	m := runTitleRe.FindAllStringSubmatch(string(svg), -1)
	require.Len(t, m, 2)
	assert.Equal(t, "initial", m[0][1])
	assert.Equal(t, []rune(long)[:23], []rune(strings.TrimSuffix(m[1][1], "…")))
}

// TestTimelineCounts: a run's figures count in words, one or many.
func TestTimelineCounts(t *testing.T) {
	p, _, lay := tlHand(t)
	m, ok := costmodel.Lookup("timeline")
	require.True(t, ok)
	tl, err := render.PlanTimeline(p, "hand", costmodel.Breakdown(m, p, lay))
	require.NoError(t, err)
	svg := string(tlDraw(t, render.TimelineOptions{}, tl))
	assert.Contains(t, svg, "; 5 ops, 3 copies, 1 DMA channel</text>")
	tl.Trace.Copies, tl.Copies = tl.Trace.Copies[:1], tl.Copies[:1]
	svg = string(tlDraw(t, render.TimelineOptions{}, tl))
	assert.Contains(t, svg, "; 5 ops, 1 copy, 1 DMA channel</text>")
}
