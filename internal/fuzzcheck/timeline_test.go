package fuzzcheck_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/internal/fuzzcheck"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// timelineProblem draws a small problem for the timeline model: a
// fuzzcheck.SmallReadOnly program and profile (a read-only level in two
// problems of three), with a compute section in three problems of four,
// MACs on most ops, 1-3 DMA channels and cost_model timeline.
func timelineProblem(rng *rand.Rand) (*workload.Program, *hw.Profile) {
	prog, prof := fuzzcheck.Problem(rng, fuzzcheck.SmallReadOnly)
	prof.CostModel = "timeline"
	prof.DMA = hw.DMA{Channels: 1 + rng.IntN(3)}
	if rng.IntN(4) > 0 {
		prof.Compute = &hw.Compute{MACsPerUnit: []float64{0.5, 1, 4, 16}[rng.IntN(4)], OpOverhead: []float64{0, 0, 3, 40}[rng.IntN(4)]}
	}
	for t := range prog.Ops {
		if rng.IntN(4) > 0 {
			prog.Ops[t].MACs = rng.Int64N(4000)
		}
	}
	if err := prof.Validate("fuzz"); err != nil {
		panic(err)
	}
	return prog, prof
}

// TestTimelinePlanners plans random small problems under the timeline
// model with every planner through hieropt.Plan, which checks every plan
// with verify.Check (rules 1-10 and the timeline cost) and returns an
// error if one fails; the search also under the seed's action set and a
// wide beam, with Check (the committed cost after every commit equals
// costmodel.Total, the occupancy the layout's). Of the search it asserts
// that the walk's result costs no more than its start, that its Cost is
// costmodel.Total of its layout, and that the plan's cost.final is the
// timeline cost of the plan. Where a planner finds no plan, the error is
// the infeasibility or capacity error.
func TestTimelinePlanners(t *testing.T) {
	n := 1000
	if testmode.Quick() {
		n = 40
	}
	tl, ok := costmodel.Lookup("timeline")
	require.True(t, ok)
	settings := []struct {
		name string
		s    hieropt.Settings
	}{
		{"defaults", hieropt.Settings{Search: search.Settings{Workers: 1, Check: true}}},
		{"seed", hieropt.Settings{Search: search.Settings{Workers: 1, Check: true, Beam: 1, Actions: actions.Seed}, Starts: initialOnly}},
		{"wide", hieropt.Settings{Search: search.Settings{Workers: 2, Check: true, Segments: segments.Fixed(2), Beam: -1, MaxCandidates: -1, Rounds: 2, Horizon: -1}}},
	}
	stats := map[string]int{}
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(1515, uint64(i)))
		prog, prof := timelineProblem(rng)
		desc := describe(prog, prof)
		if _, err := state.Bind(prog, prof, "fuzz", state.Semantics{Timeline: true}); err != nil {
			require.True(t, inputerr.Is(err) || errors.As(err, new(*state.CapacityError)), "%T %v\n%s", err, err, desc)
			stats["does not bind"]++
			continue
		}
		for _, pl := range hieropt.Planners() {
			if pl.Name() == "search" {
				continue
			}
			res, err := hieropt.Plan(context.Background(), prog, prof, &hieropt.Settings{Planner: pl.Name()})
			if err != nil {
				requireInfeasible(t, "planner "+pl.Name(), err, desc)
				continue
			}
			require.Equal(t, "timeline", res.Model.Name())
			require.True(t, relEqual(res.Plan.Cost.Final, costmodel.Total(tl, res.Problem, res.Layout)), "%s\n%s", pl.Name(), desc)
			stats["planned by "+pl.Name()]++
		}
		for _, ss := range settings {
			s := ss.s
			res, err := hieropt.Plan(context.Background(), prog, prof, &s)
			if err != nil {
				requireInfeasible(t, "search "+ss.name, err, desc)
				stats["search "+ss.name+": no plan"]++
				continue
			}
			require.Equal(t, "timeline", res.Model.Name())
			w := res.Search
			require.NotNil(t, w, "search %s\n%s", ss.name, desc)
			require.LessOrEqual(t, w.Cost, w.StartCost*(1+1e-12), "search %s: the walk ends costlier than its start\n%s", ss.name, desc)
			require.True(t, relEqual(w.Cost, costmodel.Total(tl, res.Problem, w.Layout)), "search %s: Result.Cost %v, Total %v\n%s", ss.name, w.Cost, costmodel.Total(tl, res.Problem, w.Layout), desc)
			require.True(t, relEqual(res.Plan.Cost.Final, costmodel.Total(tl, res.Problem, res.Layout)), "search %s: cost.final\n%s", ss.name, desc)
			require.LessOrEqual(t, res.Plan.Cost.Final, res.Plan.Cost.Initial*(1+1e-9), "search %s is worse than the initializer\n%s", ss.name, desc)
			stats["search "+ss.name+": planned"]++
			if asyncEviction(res) {
				stats["search "+ss.name+": copies out early"]++
			}
			if idleEviction(res) {
				stats["search "+ss.name+": evicts an idle activation"]++
			}
			if w.Cost < w.StartCost*(1-1e-9) {
				stats["search "+ss.name+": improved"]++
			}
		}
		if t.Failed() {
			t.Fatalf("program %d (rand.NewPCG(1515, %d))", i, i)
		}
	}
	t.Logf("%d programs: %v", n, stats)
	require.Greater(t, stats["search defaults: improved"], 0)
	require.Greater(t, stats["search defaults: planned"], n/3)
	if !testmode.Quick() {
		// 7 of the 1,000 programs (none of the 40 of -short).
		require.Greater(t, stats["search defaults: copies out early"], 0)
		// 1 of the 1,000 under the wide settings (none under the defaults).
		require.Greater(t, stats["search wide: evicts an idle activation"], 0)
	}
}

// idleEviction reports whether res's plan copies a block into a slower
// level at a timestep that neither reads nor writes it (the evict action
// sending an idle activation out of the way), so that the test covers
// such plans.
func idleEviction(res *hieropt.Result) bool {
	level := func(name string) int {
		return slices.IndexFunc(res.Problem.HW.Levels, func(l hw.Level) bool { return l.Name == name })
	}
	return slices.ContainsFunc(res.Plan.Transfers, func(x plan.Transfer) bool {
		b, ok := res.Problem.BlockID(x.Block)
		if !ok || x.Load || level(x.ToLevel) <= level(x.FromLevel) {
			return false
		}
		blk := res.Problem.Block(b)
		return !slices.Contains(blk.Reads, x.At) && !slices.Contains(blk.Writes, x.At)
	})
}

// asyncEviction reports whether res's plan has a transfer into a slower
// level issued before its timestep (the prefetch action's asynchronous
// eviction), so that the test covers such plans.
func asyncEviction(res *hieropt.Result) bool {
	level := func(name string) int {
		return slices.IndexFunc(res.Problem.HW.Levels, func(l hw.Level) bool { return l.Name == name })
	}
	return slices.ContainsFunc(res.Plan.Transfers, func(x plan.Transfer) bool {
		return !x.Load && x.Start < x.At && level(x.ToLevel) > level(x.FromLevel)
	})
}

// requireInfeasible asserts that err is the planners' infeasibility,
// capacity or planner error (an arena that fits no level), in one line.
func requireInfeasible(t *testing.T, what string, err error, desc string) {
	t.Helper()
	var ie *actions.InfeasibleError
	var ce *state.CapacityError
	var pe *hieropt.PlannerError
	require.True(t, errors.As(err, &ie) || errors.As(err, &ce) || errors.As(err, &pe), "%s: %T %v\n%s", what, err, err, desc)
	require.NotContains(t, err.Error(), "\n")
}

// Random program 71 of TestTimelinePlanners (found by its exhaustive run):
// the resident-levels pre-pass packs constants down from a level's top,
// and a constant aligned to 128 B whose footprint reached below offset 0
// was placed at 0 over another resident (state.AlignDown rounded a
// negative offset toward zero). resident-all and the search (which walks
// that start) must plan it.
func TestResidentLevelsBelowZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(1515, 71))
	prog, prof := timelineProblem(rng)
	for _, planner := range []string{"resident-all", "search"} {
		res, err := hieropt.Plan(context.Background(), prog, prof, &hieropt.Settings{Planner: planner})
		require.NoError(t, err, planner)
		require.True(t, res.Check.Valid(), planner)
	}
}
