package bounds_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/bounds"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/internal/tlgen"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// TestExactOnSeed000: with a fast level of exactly 5120 bytes every block
// can stay fast, so the bound is the all-fast cost, which the search
// reaches: 13 accesses at 2 + d/8 over 26624 bytes = 26 + 3328 = 3354.
func TestExactOnSeed000(t *testing.T) {
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", "seed000-example.json"))
	require.NoError(t, err)
	prof, err := profiles.Load(filepath.Join("..", "testdata", "hw", "two-level-5k.yaml"))
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, "seed000")
	require.NoError(t, err)
	b, err := bounds.Compute(p, costmodel.Seed003{})
	require.NoError(t, err)
	assert.Equal(t, 3354.0, b.Cost)
	assert.Equal(t, int64(5120), b.MaxLive)
	assert.Equal(t, []int64{0, 0}, b.Spill)
	r, err := hieropt.Plan(context.Background(), prog, prof, nil)
	require.NoError(t, err)
	assert.Equal(t, b.Cost, r.Plan.Cost.Final)
	assert.InDelta(t, 1.0, bounds.Captured(r.Plan.Cost.Initial, r.Plan.Cost.Final, b.Cost), 1e-12)
}

// TestLPTimestep: one timestep, two blocks written there, a fast level
// that holds only one. FAST costs 1 + d/10, SLOW 1 + d: a 100 B block
// costs 11 fast, 101 slow; a 60 B block 7 fast, 61 slow. FAST holds 100 B:
// the optimum puts the 100 B block fast (saving 90) and the 60 B slow:
// 11 + 61 = 72. (Fractionally no better: 60 B fast saves 54/60 = 0.9 per
// byte, 100 B fast saves 0.9 per byte too, so 72.)
func TestLPTimestep(t *testing.T) {
	prog := testprog.New("p", 1).
		Block("a", 100, "activation", 0, 0, testprog.Reads()).
		Block("b", 60, "activation", 0, 0, testprog.Reads()).
		Program()
	prof := testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 100, Align: 1, Latency: 1, Bandwidth: 10},
		testprog.Level{Name: "SLOW", Capacity: 1000, Align: 1, Latency: 1, Bandwidth: 1})
	p := testprog.Bind(prog, prof)
	b, err := bounds.Compute(p, costmodel.Seed003{})
	require.NoError(t, err)
	assert.InDelta(t, 72.0, b.Cost, 1e-9)
	assert.Equal(t, 1, b.LPs)
	assert.Equal(t, []int64{60, 0}, b.Spill)
}

// TestNeverAboveAPlan: on random programs and profiles, the bound never
// exceeds the cost of any valid plan: the initializer's, the search's and
// the seeds' arenas.
func TestNeverAboveAPlan(t *testing.T) {
	n := 400
	if testmode.Quick() {
		n = 60
	}
	checked := 0
	for seed := 0; checked < n && seed < 20*n; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		p, ok := randomProblem(rng)
		if !ok {
			continue
		}
		for _, m := range []costmodel.Model{costmodel.Seed003{}, costmodel.VelaDMA{}} {
			b, err := bounds.Compute(p, m)
			require.NoError(t, err)
			var plans []*state.Layout
			lay := state.NewLayout(p.Blocks())
			if _, err := actions.NewInitializer(p).Run(lay, 0); err != nil {
				continue
			}
			plans = append(plans, lay)
			r, err := hieropt.Plan(context.Background(), p.Prog, p.HW, &hieropt.Settings{CostModel: m.Name(), Search: search.Settings{Workers: 1}})
			require.NoError(t, err)
			plans = append(plans, r.Layout)
			for _, name := range arena.Names() {
				pl, _ := arena.Lookup(name)
				if al, _, _, err := arena.Place(p, pl); err == nil {
					plans = append(plans, al)
				}
			}
			for i, lay := range plans {
				c := costmodel.Total(m, p, lay)
				require.LessOrEqual(t, b.Cost, c*(1+1e-9), "seed %d, %s, plan %d", seed, m.Name(), i)
			}
		}
		checked++
	}
	require.Equal(t, n, checked)
}

func randomProblem(rng *rand.Rand) (*state.Problem, bool) {
	T := 3 + rng.IntN(10)
	b := testprog.New("r", T)
	for i := 0; i < 3+rng.IntN(15); i++ {
		first := rng.IntN(T)
		last := first + rng.IntN(T-first)
		kind := []string{"activation", "activation", "constant", "scratch"}[rng.IntN(4)]
		if kind == "scratch" {
			last = first
		}
		var opts []testprog.Option
		if kind == "constant" {
			opts = append(opts, testprog.Reads(last))
		}
		if rng.IntN(4) == 0 && kind != "constant" {
			opts = append(opts, testprog.Reusable())
		}
		b.Block(fmt.Sprintf("b%d", i), int64(16+rng.IntN(400)), kind, first, last, opts...)
	}
	prog := b.Program()
	var levels []testprog.Level
	for l := 0; l < 2+rng.IntN(2); l++ {
		levels = append(levels, testprog.Level{Name: fmt.Sprintf("L%d", l), Capacity: int64(200 + rng.IntN(800)*(l+1)), Align: int64(1 << rng.IntN(4)),
			Latency: float64(1 + 10*l), Bandwidth: math.Pow(0.25, float64(l)) * 16})
	}
	levels[len(levels)-1].Capacity = 100000
	p, err := state.Bind(prog, testprog.Profile("hw", levels...), "r")
	if err != nil || p.CheckCapacity() != nil {
		return nil, false
	}
	return p, true
}

// timelineProfile is TestLPTimestep's profile with a compute unit: FAST
// holds 100 B at in/out(d) = 1 + d/10, SLOW 1000 B at 10 + d; the compute
// unit retires 10 MACs per cycle after an overhead of 5 per op.
func timelineProfile() *hw.Profile {
	prof := testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 100, Align: 1, Latency: 1, Bandwidth: 10},
		testprog.Level{Name: "SLOW", Capacity: 1000, Align: 1, Latency: 10, Bandwidth: 1})
	prof.Compute = &hw.Compute{MACsPerUnit: 10, OpOverhead: 5}
	return prof
}

// TestTimelineByHand: two ops, one compute-bound, one memory-bound.
//
//	op0: 1000 MACs, c(0) = 5 + 1000/10 = 105; writes x (100 B), which fits
//	     FAST: m*(0) = in(FAST, 100) = 1 + 10 = 11. max(105, 11) = 105.
//	op1: no MACs, c(1) = 5 (the overhead alone); reads x (100 B) and
//	     writes y (60 B), which do not both fit FAST (160 > 100). The
//	     linear program fills FAST by saving per byte: y saves
//	     (70 - 7)/60 = 1.05, x (110 - 11)/100 = 0.99, so y is fast (7) and
//	     x takes the other 40 B: 0.4 * 11 + 0.6 * 110 = 70.4; m*(1) =
//	     77.4. max(5, 77.4) = 77.4.
//
// The bound is 105 + 77.4 = 182.4, one op compute-bound. No planning (both
// in SLOW, no copies): op0 max(105, in(SLOW, 100) = 110) = 110, op1
// max(5, 110 + 70) = 180: 290. The best plan keeps x in FAST and writes y
// to SLOW: op0 105, op1 11 + 70 = 81: 186 (verify agrees), which captures
// (290 - 186) / (290 - 182.4) = 104/107.6 of what planning can gain.
func TestTimelineByHand(t *testing.T) {
	prog := testprog.New("p", 2).
		Block("x", 100, "activation", 0, 1).
		Block("y", 60, "output", 1, 1, testprog.Reads()).
		Program()
	prog.Ops[0].MACs = 1000
	prof := timelineProfile()
	p := testprog.Bind(prog, prof)
	tb, err := bounds.Timeline(p)
	require.NoError(t, err)
	assert.Equal(t, []float64{105, 5}, tb.Compute)
	assert.InDeltaSlice(t, []float64{11, 77.4}, tb.Access.PerStep, 1e-9)
	assert.InDeltaSlice(t, []float64{105, 77.4}, tb.PerOp, 1e-9)
	assert.InDelta(t, 182.4, tb.Cost, 1e-9)
	assert.Equal(t, 1, tb.ComputeBound)
	none := bounds.NoPlanningTimeline(p)
	assert.Equal(t, 290.0, none)

	best := &plan.Plan{Workload: "p", Hardware: "hw", TimeUnit: hw.Cycle, CostModel: verify.TimelineModel,
		Placements: []plan.Placement{{Block: "x", From: 0, To: 1, Level: "FAST"}, {Block: "y", From: 1, To: 1, Level: "SLOW"}},
		Transfers:  []plan.Transfer{}, Cost: plan.Cost{Final: 186}}
	rep, err := verify.Check(prog, prof, best, nil)
	require.NoError(t, err)
	require.True(t, rep.Valid(), "%v", rep.Violations)
	assert.InDelta(t, 104/107.6, bounds.Captured(none, 186, tb.Cost), 1e-12)

	// Without a compute section, c(t) = 0: the timeline bound is the sum
	// of the least access costs, the seed model's bound.
	prof.Compute = nil
	tb, err = bounds.Timeline(p)
	require.NoError(t, err)
	assert.InDelta(t, 88.4, tb.Cost, 1e-9)
	assert.Equal(t, 0, tb.ComputeBound)
	seed, err := bounds.Compute(p, costmodel.Seed003{})
	require.NoError(t, err)
	assert.Equal(t, seed.Cost, tb.Cost)
	assert.Equal(t, 180.0+110, bounds.NoPlanningTimeline(p))
}

// TestTimelineNeverAboveAPlan: on random valid timeline plans (package
// tlgen: prefetches, loads, resident constants, up to three DMA channels,
// with and without compute), the timeline bound is at most the plan's cost
// as verify recomputes it, and at most the cost of planning nothing.
func TestTimelineNeverAboveAPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 15))
	n := 1000
	if testmode.Quick() {
		n = 200
	}
	tight := 0
	for i := 0; i < n; {
		g, ok := tlgen.Random(rng, tlgen.Options{})
		if !ok {
			continue
		}
		i++
		p, err := state.Bind(g.Prog, g.Prof, "rnd")
		require.NoError(t, err, "plan %d", i)
		tb, err := bounds.Timeline(p)
		require.NoError(t, err)
		rep, err := verify.Check(g.Prog, g.Prof, g.Plan, nil)
		require.NoError(t, err)
		g.Plan.Cost.Final = rep.Cost
		rep, err = verify.Check(g.Prog, g.Prof, g.Plan, nil)
		require.NoError(t, err)
		require.True(t, rep.Valid(), "plan %d: %v", i, rep.Violations)
		require.LessOrEqual(t, tb.Cost, rep.Cost*(1+1e-12), "plan %d", i)
		require.LessOrEqual(t, tb.Cost, bounds.NoPlanningTimeline(p)*(1+1e-12), "plan %d", i)
		if tb.Cost >= rep.Cost*(1-1e-12) {
			tight++
		}
	}
	t.Logf("%d plans: the bound is a plan's cost in %d (every access at its least cost, every copy hidden)", n, tight)
}

// TestNoPlanningTimelineIsTheNonePlan: NoPlanningTimeline is the timeline
// cost of the plan of hieropt's "none" planner, as verify recomputes it
// (rule 6, to 1e-9), on random problems given a compute unit, some with a
// read-only slowest level.
func TestNoPlanningTimelineIsTheNonePlan(t *testing.T) {
	n := 300
	if testmode.Quick() {
		n = 60
	}
	checked := 0
	for seed := 0; checked < n && seed < 20*n; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 12))
		p, ok := randomProblem(rng)
		if !ok {
			continue
		}
		prof := *p.HW
		prof.Levels = slices.Clone(prof.Levels)
		prof.Compute = &hw.Compute{MACsPerUnit: 1 + 4*rng.Float64(), OpOverhead: 30 * rng.Float64()}
		prof.Levels[len(prof.Levels)-1].ReadOnly = rng.IntN(2) == 0
		prog := *p.Prog
		prog.Ops = slices.Clone(prog.Ops)
		for i := range prog.Ops {
			prog.Ops[i].MACs = rng.Int64N(3000)
		}
		q, err := state.Bind(&prog, &prof, "r")
		if err != nil || q.CheckCapacity() != nil {
			continue // activations that do not fit the writable levels
		}
		r, err := hieropt.Plan(context.Background(), &prog, &prof, &hieropt.Settings{Planner: "none", CostModel: costmodel.Default})
		if err != nil {
			continue // the slowest writable level cannot hold its blocks
		}
		pl := *r.Plan
		pl.CostModel = verify.TimelineModel
		pl.Cost.Final = bounds.NoPlanningTimeline(q)
		rep, err := verify.Check(&prog, &prof, &pl, nil)
		require.NoError(t, err)
		require.True(t, rep.Valid(), "seed %d: %v", seed, rep.Violations)
		checked++
	}
	require.Equal(t, n, checked)
}

// TestTimelineNeverAbovePlanners: on random problems with a compute unit,
// no planner's plan under the timeline model costs less than the timeline
// bound. It runs once the timeline cost model is registered (issue 15);
// TestTimelineNeverAboveAPlan checks the bound on random valid timeline
// plans meanwhile.
func TestTimelineNeverAbovePlanners(t *testing.T) {
	if _, ok := costmodel.Lookup(verify.TimelineModel); !ok {
		t.Skip("the timeline cost model is not registered yet")
	}
	n := 100
	if testmode.Quick() {
		n = 20
	}
	checked := 0
	for seed := 0; checked < n && seed < 20*n; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 13))
		p, ok := randomProblem(rng)
		if !ok {
			continue
		}
		prof := *p.HW
		prof.Compute = &hw.Compute{MACsPerUnit: 1 + 4*rng.Float64(), OpOverhead: 30 * rng.Float64()}
		prog := *p.Prog
		prog.Ops = slices.Clone(prog.Ops)
		for i := range prog.Ops {
			prog.Ops[i].MACs = rng.Int64N(3000)
		}
		q, err := state.Bind(&prog, &prof, "r")
		require.NoError(t, err)
		tb, err := bounds.Timeline(q)
		require.NoError(t, err)
		for _, name := range hieropt.PlannerNames() {
			r, err := hieropt.Plan(context.Background(), &prog, &prof, &hieropt.Settings{Planner: name, CostModel: verify.TimelineModel,
				Search: search.Settings{Workers: 1}})
			var pe *hieropt.PlannerError
			if errors.As(err, &pe) {
				continue // this planner finds no plan of the problem
			}
			require.NoError(t, err, "seed %d, %s", seed, name)
			require.LessOrEqual(t, tb.Cost, r.Plan.Cost.Final*(1+1e-12), "seed %d, %s", seed, name)
		}
		checked++
	}
	require.Equal(t, n, checked)
}
