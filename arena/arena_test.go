package arena_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

func seed000Intervals(t *testing.T) []arena.Interval {
	t.Helper()
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", "seed000-example.json"))
	require.NoError(t, err)
	var iv []arena.Interval
	for _, b := range prog.Blocks {
		iv = append(iv, arena.Interval{First: b.First, Last: b.Last, Size: b.Size, Align: 1})
	}
	return iv
}

// TestSeed000Example: seed 000's planner on its own worked example needs
// exactly 5120 bytes (its Fig. 4):
//
//	t0 op0 2048 at 0                     arena 2048
//	t1 op1 2048 at 2048                  arena 4096
//	t2 op2 1024 at 4096                  arena 5120
//	t3 op0 freed [0,2048): op3 2048 fits exactly at 0
//	t4 op2 freed [4096,5120): op4 1024 fits at 4096
//	t5 op1, op3 freed: [0,4096) merged: op5 4096 fits at 0
func TestSeed000Example(t *testing.T) {
	iv := seed000Intervals(t)
	off := arena.Seed000{}.Offsets(iv)
	assert.Equal(t, []int64{0, 2048, 4096, 0, 4096, 0}, off)
	assert.Equal(t, int64(5120), arena.Peak(iv, off))
	require.NoError(t, check(iv, off))
}

// TestTFLiteExample: the TFLite paper's 8 tensors, (first,last,size):
// greedy by size reaches the lower bound 124.
func TestTFLiteExample(t *testing.T) {
	iv := []arena.Interval{{0, 1, 32, 1}, {1, 4, 28, 1}, {2, 5, 36, 1}, {3, 5, 16, 1}, {4, 5, 8, 1}, {5, 7, 64, 1}, {6, 8, 10, 1}, {7, 8, 40, 1}}
	off := arena.Seed004{}.Offsets(iv)
	require.NoError(t, check(iv, off))
	assert.Equal(t, int64(124), arena.Peak(iv, off))
}

// TestPackReachesTheOptimum: the pack planner finds the optimal arenas of
// both worked examples, which are their max-live bounds: 5120 bytes for
// seed 000's Fig. 4 (at timestep 4, op1, op3 and op4 are live:
// 2048+2048+1024) and 124 for TFLite's 8 tensors (at timestep 5: 36+16+8+64).
// Through Place, the seed-000 example fits a 5120-byte level exactly.
func TestPackReachesTheOptimum(t *testing.T) {
	pl, ok := arena.Lookup("pack")
	require.True(t, ok)
	iv := seed000Intervals(t)
	off := pl.Offsets(iv)
	require.NoError(t, check(iv, off))
	assert.Equal(t, int64(5120), arena.Peak(iv, off))
	assert.Equal(t, int64(5120), arena.MaxLive(iv))

	tfl := []arena.Interval{{0, 1, 32, 1}, {1, 4, 28, 1}, {2, 5, 36, 1}, {3, 5, 16, 1}, {4, 5, 8, 1}, {5, 7, 64, 1}, {6, 8, 10, 1}, {7, 8, 40, 1}}
	off = pl.Offsets(tfl)
	require.NoError(t, check(tfl, off))
	assert.Equal(t, int64(124), arena.Peak(tfl, off))
	assert.Equal(t, int64(124), arena.MaxLive(tfl))

	prog, err := workload.ReadFile(filepath.Join("..", "workloads", "seed000-example.json"))
	require.NoError(t, err)
	prof, err := profiles.Load(filepath.Join("..", "testdata", "hw", "two-level-5k.yaml"))
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, "seed000")
	require.NoError(t, err)
	lay, l, peak, err := arena.Place(p, pl)
	require.NoError(t, err)
	assert.Equal(t, 0, l, "the 5120-byte fast level")
	assert.Equal(t, int64(5120), peak)
	validPlan(t, p, lay, "pack")
}

// TestPackDeterministic: the pack planner's arena does not depend on the
// machine (a node budget, not a deadline).
func TestPackDeterministic(t *testing.T) {
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", "mobilenet_v2-int8.json"))
	require.NoError(t, err)
	prof, err := profiles.Get("ethos-u55")
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, "m")
	require.NoError(t, err)
	iv := arena.Intervals(p, 0)
	a := arena.Pack{}.Offsets(iv)
	b := arena.Pack{}.Offsets(iv)
	assert.Equal(t, a, b)
	require.NoError(t, check(iv, a))
	assert.LessOrEqual(t, arena.Peak(iv, a), arena.Peak(iv, arena.Seed004{}.Offsets(iv)))
}

func TestRandomArenasAreValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 300; n++ {
		var iv []arena.Interval
		for i := 0; i < 1+rng.IntN(40); i++ {
			f := rng.IntN(30)
			iv = append(iv, arena.Interval{First: f, Last: f + rng.IntN(8), Size: int64(1 + rng.IntN(500)), Align: int64(1 << rng.IntN(4))})
		}
		var live int64
		for ts := 0; ts < 40; ts++ {
			var s int64
			for _, x := range iv {
				if x.First <= ts && ts <= x.Last {
					s += x.Size
				}
			}
			live = max(live, s)
		}
		for _, name := range arena.Names() {
			pl, _ := arena.Lookup(name)
			off := pl.Offsets(iv)
			require.NoError(t, check(iv, off), "%s, case %d", name, n)
			assert.GreaterOrEqual(t, arena.Peak(iv, off), live)
		}
	}
}

// TestPlaceEveryShippedPair plans every shipped workload with each
// single-arena planner on every profile where the arena fits a level; every plan is
// valid.
func TestPlaceEveryShippedPair(t *testing.T) {
	placed := 0
	for _, p := range testprog.ShippedPairs(t, "..") {
		for _, name := range arena.Names() {
			pl, _ := arena.Lookup(name)
			lay, _, peak, err := arena.Place(p, pl)
			if err != nil {
				continue
			}
			assert.GreaterOrEqual(t, peak, p.Prog.ComputeStats().MaxLive)
			validPlan(t, p, lay, name)
			placed++
		}
	}
	assert.Greater(t, placed, 100)
}

// validPlan checks a single-arena layout with the plan checker (verify).
func validPlan(t *testing.T, p *state.Problem, lay *state.Layout, name string) {
	t.Helper()
	out := lay.Plan(p)
	init := state.NewLayout(p.Blocks())
	_, err := actionsRun(p, init)
	require.NoError(t, err)
	out.Cost = plan.Cost{Initial: costmodel.Total(costmodel.Seed003{}, p, init), Final: costmodel.Total(costmodel.Seed003{}, p, lay)}
	res, err := verify.Check(p.Prog, p.HW, out, &verify.Options{Doc: name,
		Initial: actions.VerifyInitial(context.Background(), p, costmodel.Seed003{})})
	require.NoError(t, err)
	require.True(t, res.Valid(), "%s %s %s: %v", name, p.Prog.Name, p.HW.Name, res.Violations)
}

func TestRegistry(t *testing.T) {
	assert.Equal(t, []string{"pack", "seed000", "seed001", "seed004"}, arena.Names())
	assert.EqualError(t, arena.Register(arena.Seed000{}), `arena: planner "seed000" registered twice`)
}
