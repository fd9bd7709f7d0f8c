package bounds_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/bounds"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
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
	if testing.Short() {
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
