package costmodel_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/tlgen"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
)

// relDiff is |a - b| relative to the larger.
func relDiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

// bindTimeline binds a random plan's program and profile with the
// timeline model's semantics.
func bindTimeline(t *testing.T, g *tlgen.Gen) *state.Problem {
	t.Helper()
	p, err := state.Bind(g.Prog, g.Prof, "rnd", state.Semantics{Timeline: true})
	require.NoError(t, err)
	return p
}

// sortedTransfers is pl's transfers in a canonical order.
func sortedTransfers(pl *plan.Plan) []plan.Transfer {
	xs := slices.Clone(pl.Transfers)
	slices.SortFunc(xs, func(a, b plan.Transfer) int {
		if a.At != b.At {
			return a.At - b.At
		}
		if a.Block < b.Block {
			return -1
		}
		if a.Block > b.Block {
			return 1
		}
		return 0
	})
	return xs
}

// TestTimelineMatchesVerify prices random valid timeline plans (copies
// issued early, loads, resident constants; internal/tlgen) as layouts
// (state.LayoutOf) and checks the cost against verify's transcription of
// FORMATS.md 6.3 (to 1e-12), the round trip layout -> plan -> layout, and
// that the plan written from the layout has the same placements and
// transfers as the one read.
func TestTimelineMatchesVerify(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 6))
	n, loads, early, residents := 0, 0, 0, 0
	for n < 1500 {
		g, ok := tlgen.Random(rng, tlgen.Options{})
		if !ok {
			continue
		}
		n++
		p := bindTimeline(t, g)
		lay, err := state.LayoutOf(p, g.Plan)
		require.NoError(t, err)
		for _, x := range g.Plan.Transfers {
			if x.Load {
				loads++
			}
			if x.Start < x.At {
				early++
			}
		}
		for _, segs := range lay.Segs {
			if segs[0].IsResident() {
				residents++
			}
		}
		cost := costmodel.Total(costmodel.Timeline{}, p, lay)
		g.Plan.CostModel, g.Plan.Cost.Final = "timeline", cost
		rep, err := verify.Check(g.Prog, g.Prof, g.Plan, nil)
		require.NoError(t, err)
		require.True(t, rep.Valid(), "%v", rep.Violations)
		require.LessOrEqual(t, relDiff(cost, rep.Cost), 1e-12, "costmodel %v, verify %v", cost, rep.Cost)

		back := lay.Plan(p)
		require.Equal(t, g.Plan.Placements, back.Placements)
		require.Equal(t, sortedTransfers(g.Plan), sortedTransfers(back))
		again, err := state.LayoutOf(p, back)
		require.NoError(t, err)
		require.True(t, lay.Equal(again))
	}
	t.Logf("%d plans: %d loads, %d copies issued early, %d resident constants", n, loads, early, residents)
	require.Positive(t, loads)
	require.Positive(t, early)
	require.Positive(t, residents)
}

// TestTimelineGeneralisesSeed003 is FORMATS.md 6.3's claim and issue 15's
// must-show: with no compute section, one DMA channel and every copy
// issued at its timestep, the timeline cost of a plan equals seed003's for
// the same placements (constants first placed in their home levels, so
// that no load differs). Each op then waits for its copies, which run one
// after the other, and lasts its accesses: the sum of section 4.
func TestTimelineGeneralisesSeed003(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	for n := 0; n < 1500; {
		g, ok := tlgen.Random(rng, tlgen.Options{ConstantsHome: true, SeedOnly: true})
		if !ok {
			continue
		}
		n++
		g.Prof.Compute, g.Prof.DMA.Channels = nil, 1
		p := bindTimeline(t, g)
		lay, err := state.LayoutOf(p, g.Plan)
		require.NoError(t, err)
		tl := costmodel.Total(costmodel.Timeline{}, p, lay)
		seed := costmodel.Total(costmodel.Seed003{}, p, lay)
		require.LessOrEqual(t, relDiff(tl, seed), 1e-12, "timeline %v, seed003 %v", tl, seed)
	}
}

// randomChange changes one to three blocks of lay: each gets its
// segments' levels drawn again, and each copy a random lead within its
// segment (the program stays one the timeline simulates; the layout
// need not be valid for pricing).
func randomChange(rng *rand.Rand, p *state.Problem, lay *state.Layout) []costmodel.BlockChange {
	var ch []costmodel.BlockChange
	for range 1 + rng.IntN(3) {
		b := rng.IntN(p.Blocks())
		if slices.ContainsFunc(ch, func(c costmodel.BlockChange) bool { return c.Block == b }) {
			continue
		}
		old := lay.Segs[b]
		segs := slices.Clone(old)
		for i := range segs {
			segs[i].Level = int32(rng.IntN(p.Levels()))
			segs[i].Lead = 0
			if i > 0 {
				segs[i].Lead = int32(rng.IntN(int(segs[i].From-segs[i-1].From) + 1))
			} else if segs[0].From > 0 && rng.IntN(2) == 0 {
				segs[0].Lead = int32(rng.IntN(int(segs[0].From) + 1))
			}
		}
		ch = append(ch, costmodel.BlockChange{Block: b, Old: old, New: segs})
	}
	return ch
}

// TestTimelinePricer checks the timeline Pricer against Total: Reprice of
// random changes equals the changed layout's full price (1e-12), and a
// chain of Derives prices every layout along it as Total does.
func TestTimelinePricer(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 8))
	m := costmodel.Timeline{}
	var sc costmodel.Scratch
	for n := 0; n < 400; {
		g, ok := tlgen.Random(rng, tlgen.Options{})
		if !ok {
			continue
		}
		n++
		p := bindTimeline(t, g)
		lay, err := state.LayoutOf(p, g.Plan)
		require.NoError(t, err)
		pr := m.Price(p, lay)
		require.Equal(t, costmodel.Total(m, p, lay), pr.Cost())
		for range 8 {
			ch := randomChange(rng, p, lay)
			got := pr.Reprice(ch, &sc)
			next := lay.Clone()
			for _, c := range ch {
				next.Segs[c.Block] = c.New
			}
			want := costmodel.Total(m, p, next)
			require.LessOrEqual(t, relDiff(got, want), 1e-12, "Reprice %v, Total %v", got, want)
			pr = pr.Derive(next, ch)
			require.LessOrEqual(t, relDiff(pr.Cost(), want), 1e-12, "Derive %v, Total %v", pr.Cost(), want)
			lay = next
			for op := range p.Prog.Timesteps() {
				require.Equal(t, m.Price(p, lay).Dur(op), pr.Dur(op))
			}
		}
	}
}
