package fuzzcheck_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/internal/fuzzcheck"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// describe prints a problem for a failure message: the workload document
// and the profile's levels.
func describe(prog *workload.Program, prof *hw.Profile) string {
	var b strings.Builder
	_ = prog.Write(&b)
	fmt.Fprintf(&b, "profile %s (%s):\n", prof.Name, prof.TimeUnit)
	for _, l := range prof.Levels {
		fmt.Fprintf(&b, "  %s capacity %d alignment %d in %v/%v out %v/%v\n", l.Name, l.Capacity, l.Alignment,
			l.In.Latency, l.In.Bandwidth, l.Out.Latency, l.Out.Bandwidth)
	}
	return b.String()
}

// relEqual reports whether a and b agree to a relative 1e-9.
func relEqual(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// checker validates the plans of one problem.
type checker struct {
	t    testing.TB
	p    *state.Problem
	desc string
	// initial[noReuse] is the initializer's plan in workload order, with
	// or without reuse, nil if it finds none; cause[noReuse] then says
	// why. initial[false] priced by a plan's model is that plan's
	// cost.initial; where it is nil, the fallback plan's is.
	initial [2]*state.Layout
	cause   [2]*actions.InfeasibleError
}

// initialCost is cost.initial of a plan priced by model: the cost of the
// initializer's plan or, where the initializer finds none, of the fallback
// plan (which depends on the model); NaN when neither exists.
func (c *checker) initialCost(model costmodel.Model, noReuse bool) float64 {
	lay := c.initial[b2i(noReuse)]
	if lay == nil {
		lay = c.fallback(model, noReuse)
	}
	if lay == nil {
		return math.NaN()
	}
	return costmodel.Total(model, c.p, lay)
}

// fallback is the fallback plan where the initializer (with or without
// reuse) fails, nil if there is none or the initializer does not fail.
func (c *checker) fallback(model costmodel.Model, noReuse bool) *state.Layout {
	cause := c.cause[b2i(noReuse)]
	if cause == nil {
		return nil
	}
	lay, _, err := actions.FallbackPlan(context.Background(), c.p, model, cause)
	if err != nil {
		c.infeasible("fallback", err)
		return nil
	}
	return lay
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// requireValid writes lay as a plan priced by model and checks it with
// verify.Check (cost.initial against actions.VerifyInitial where an
// initializer or fallback plan exists): no violation, and the final cost
// Check recomputes equal to costmodel.Total's. It returns the plan and its
// cost.
func (c *checker) requireValid(what string, lay *state.Layout, model costmodel.Model) (*plan.Plan, float64) {
	t := c.t
	t.Helper()
	require.NoError(t, lay.CheckComplete(c.p), "%s\n%s", what, c.desc)
	pl := lay.Plan(c.p)
	if model.Name() != costmodel.Default {
		pl.CostModel = model.Name()
	}
	cost := costmodel.Total(model, c.p, lay)
	initial := c.initialCost(model, false)
	pl.Cost = plan.Cost{Initial: initial, Final: cost}
	opt := &verify.Options{Doc: what}
	if !math.IsNaN(initial) { // else cost.initial has nothing to match
		opt.Initial = actions.VerifyInitial(context.Background(), c.p, model)
	}
	res, err := verify.Check(c.p.Prog, c.p.HW, pl, opt)
	require.NoError(t, err, "%s\n%s", what, c.desc)
	var bad []string
	for _, v := range res.Violations {
		bad = append(bad, v.String())
	}
	require.Empty(t, bad, "%s: invalid plan\n%s", what, c.desc)
	require.Zero(t, res.Omitted)
	require.True(t, relEqual(res.Cost, cost), "%s: verify.Check recomputes %v, costmodel.Total says %v\n%s", what, res.Cost, cost, c.desc)
	return pl, cost
}

// infeasible checks that err says the problem has no plan.
func (c *checker) infeasible(what string, err error) {
	c.t.Helper()
	var ie *actions.InfeasibleError
	var ce *state.CapacityError
	require.True(c.t, errors.As(err, &ie) || errors.As(err, &ce), "%s: %T %v\n%s", what, err, err, c.desc)
	require.NotContains(c.t, err.Error(), "\n")
}

// runSearch plans a bound problem with hieropt.Plan (the search, unless
// s names another planner).
func runSearch(p *state.Problem, s *hieropt.Settings) (*hieropt.Result, error) {
	return hieropt.Plan(context.Background(), p.Prog, p.HW, s)
}

// namedSettings is a search configuration to check.
type namedSettings struct {
	name string
	s    hieropt.Settings
}

// initialOnly starts the search from the initializer's plan alone.
var initialOnly = []string{actions.WorkloadOrder.Name()}

// searchSettings are the settings the fuzzer searches every problem with.
func searchSettings() []namedSettings {
	return []namedSettings{
		{"defaults", hieropt.Settings{Search: search.Settings{Workers: 1, Check: true}}},
		{"seed", hieropt.Settings{Search: search.Settings{Workers: 1, Check: true, Segments: segments.Fixed(1), Beam: 1, Actions: actions.Seed}, Starts: initialOnly}},
		{"beam1", hieropt.Settings{Search: search.Settings{Workers: 1, Check: true, Beam: 1, Actions: actions.Seed}, Starts: initialOnly}},
		// A wide beam, not an unbounded one: with every candidate and two
		// rounds, an unbounded beam is exponential even on a fuzzed 6-op
		// program (testdata/fuzz/FuzzPlanners/77e143e4b3993231: 10.3 s,
		// which the fuzzer took for a hang; 33 ms with 64).
		{"wide", hieropt.Settings{Search: search.Settings{Workers: 2, Check: true, Segments: segments.Fixed(2), Beam: 64, MaxCandidates: -1, Rounds: 2, Horizon: -1}}},
		{"vela", hieropt.Settings{Search: search.Settings{Workers: 1, Check: true}, CostModel: "vela-dma"}},
	}
}

// checkPlanners plans one problem with every planner and validates every
// plan it gets.
func checkPlanners(t testing.TB, prog *workload.Program, prof *hw.Profile, settings []namedSettings) {
	t.Helper()
	desc := describe(prog, prof)
	p, err := state.Bind(prog, prof, "fuzz")
	if err != nil {
		require.True(t, inputerr.Is(err) || errors.As(err, new(*state.CapacityError)), "%T %v\n%s", err, err, desc)
		require.NotContains(t, err.Error(), "\n")
		return
	}
	c := &checker{t: t, p: p, desc: desc}
	seed := costmodel.Seed003{}
	feasible := false

	// The initializer: both orders, with and without reuse. The
	// workload-order plan with reuse is every plan's cost.initial.
	for _, noReuse := range []bool{false, true} {
		for _, ord := range []actions.Order{actions.WorkloadOrder, actions.KindOrder} {
			what := fmt.Sprintf("initializer (%s order, no reuse %v)", ord, noReuse)
			in := actions.NewInitializerOrder(p, ord)
			in.NoReuse = noReuse
			lay := state.NewLayout(p.Blocks())
			if _, err := in.Run(lay, 0); err != nil {
				c.infeasible(what, err)
				if ord == actions.WorkloadOrder {
					require.ErrorAs(t, err, &c.cause[b2i(noReuse)])
				}
				continue
			}
			feasible = true
			if ord == actions.WorkloadOrder {
				c.initial[b2i(noReuse)] = lay
			}
		}
	}

	for _, noReuse := range []bool{false, true} {
		for _, ord := range []actions.Order{actions.WorkloadOrder, actions.KindOrder} {
			in := actions.NewInitializerOrder(p, ord)
			in.NoReuse = noReuse
			lay := state.NewLayout(p.Blocks())
			if _, err := in.Run(lay, 0); err == nil {
				c.requireValid(fmt.Sprintf("initializer (%s order, no reuse %v)", ord, noReuse), lay, seed)
			}
		}
	}

	// The fallback plan, where the initializer fails: valid, and its cost
	// is cost.initial (Validate computes it again).
	for _, noReuse := range []bool{false, true} {
		if lay := c.fallback(seed, noReuse); lay != nil {
			feasible = true
			_, cost := c.requireValid(fmt.Sprintf("fallback (no reuse %v)", noReuse), lay, seed)
			if !noReuse {
				require.True(t, relEqual(cost, c.initialCost(seed, false)), "fallback: cost %v, cost.initial %v\n%s", cost, c.initialCost(seed, false), desc)
			}
		}
	}

	// Every arena planner that finds an arena that fits.
	for _, name := range arena.Names() {
		pl, ok := arena.Lookup(name)
		require.True(t, ok)
		lay, _, _, err := arena.Place(p, pl)
		if err != nil {
			require.NotContains(t, err.Error(), "\n")
			continue
		}
		feasible = true
		c.requireValid("arena "+name, lay, seed)
	}

	// What the planners found and what CheckCapacity says agree: it may
	// only refuse problems that have no plan.
	if feasible {
		require.NoError(t, p.CheckCapacity(), "a planner found a plan\n%s", desc)
	}

	// The search.
	for _, ss := range settings {
		s := ss.s
		res, err := runSearch(p, &s)
		// The search fails exactly when the initializer (workload order)
		// does and the fallback plan does not exist either.
		model, merr := s.Model(p.HW)
		require.NoError(t, merr)
		start := c.initial[0]
		if start == nil {
			start = c.fallback(model, false)
		}
		if err != nil {
			c.infeasible("search "+ss.name, err)
			require.Nil(t, start, "search %s fails (%v) where the initializer or the fallback finds a plan\n%s", ss.name, err, desc)
			continue
		}
		require.NotNil(t, start, "search %s finds a plan where neither the initializer nor the fallback does\n%s", ss.name, desc)
		require.Equal(t, c.initial[0] == nil, res.Initial.Fallback != nil, "search %s: Initial.Fallback\n%s", ss.name, desc)
		_, cost := c.requireValid("search "+ss.name, res.Layout, model)
		final, initial := res.Plan.Cost.Final, res.Plan.Cost.Initial
		require.True(t, relEqual(final, cost), "search %s: cost.final %v, costmodel.Total %v\n%s", ss.name, final, cost, desc)
		require.LessOrEqual(t, final, initial*(1+1e-9), "search %s is worse than the initializer\n%s", ss.name, desc)
		want := c.initialCost(model, false)
		require.True(t, relEqual(initial, want), "search %s: cost.initial %v, the initializer's plan %v\n%s", ss.name, initial, want, desc)
	}

	// The walk alone, re-planning without reuse, from the initializer's
	// plan without reuse (an experiment Plan does not run).
	if lay := c.initial[1]; lay != nil {
		in := actions.NewInitializer(p)
		in.NoReuse = true
		r, err := search.Walk(context.Background(), p, search.Start{Layout: lay, Initializer: in}, &search.Settings{Workers: 1, Check: true})
		require.NoError(t, err)
		_, cost := c.requireValid("walk without reuse", r.Layout, seed)
		require.True(t, relEqual(r.Cost, cost), "walk without reuse: Result.Cost %v, costmodel.Total %v\n%s", r.Cost, cost, desc)
		require.LessOrEqual(t, r.Cost, r.StartCost*(1+1e-9), "walk without reuse is worse than its start\n%s", desc)
	}
}

// FuzzPlanners decodes the fuzz bytes into a small program and profile
// (fuzzcheck.Problem) and checks that every plan of every planner passes
// verify.Check, that the search never ends worse than the initializer,
// and that the planners agree on whether a plan exists.
func FuzzPlanners(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("seed"))
	f.Add(bytes.Repeat([]byte{7, 3, 250, 1}, 40))
	f.Add([]byte{2, 5, 0, 3, 1, 1, 0, 7, 11, 2, 0, 1, 0, 3, 1, 4, 0, 2, 9, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Fuzz(func(t *testing.T, data []byte) {
		prog, prof := fuzzcheck.Problem(&fuzzcheck.Bytes{Data: data}, fuzzcheck.Small)
		checkPlanners(t, prog, prof, searchSettings())
	})
}
