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
	"github.com/hieropt/hieropt/pack"
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

// TestTFLMByHand: the tflm planner is TFLite Micro's rule, pack.TFLM, on
// the intervals as buffers [First, Last+1). Intervals (first, last, size):
// 0 (2,3,20), 1 (0,0,60), 2 (2,4,40), 3 (0,1,50), 4 (1,2,40). By
// decreasing size, the tie 2/4 in decreasing index order: 1, 3, 4, 2, 0.
//
//	1 at 0 (alone)
//	3 meets 1 [0,60): no gap below it, at 60
//	4 meets 3 only: the gap [0,60) holds 40, at 0
//	2 meets 4 [0,40): at 40 (3 ended at 1)
//	0 meets 4 [0,40) and 2 [40,80): at 80; peak 110 (3: 60+50)
//
// Seed 004 places 2 before 4 (ties in index order) and puts 4 above 3
// (the gaps [0,0) and [40,60) are too small): peak 150.
func TestTFLMByHand(t *testing.T) {
	iv := []arena.Interval{{2, 3, 20, 1}, {0, 0, 60, 1}, {2, 4, 40, 1}, {0, 1, 50, 1}, {1, 2, 40, 1}}
	pl, ok := arena.Lookup("tflm")
	require.True(t, ok)
	off := pl.Offsets(iv)
	require.NoError(t, check(iv, off))
	assert.Equal(t, []int64{80, 0, 40, 60, 0}, off)
	assert.Equal(t, int64(110), arena.Peak(iv, off))
	assert.Equal(t, int64(150), arena.Peak(iv, arena.Seed004{}.Offsets(iv)))

	p := &pack.Problem{}
	for _, x := range iv {
		p.Buffers = append(p.Buffers, pack.Buffer{Lower: int64(x.First), Upper: int64(x.Last) + 1, Size: x.Size})
	}
	want, peak := pack.TFLM(p, nil, nil)
	assert.Equal(t, want, off)
	assert.Equal(t, int64(110), peak)
}

// TestTFLMAligns: TFLM's rule places at sums of sizes, so the planner
// rounds every size up to a multiple of every alignment first. 0 (24 B,
// align 1) and 1 (16 B, align 16), alive together: sizes 32 and 16, 0 at
// 0 and 1 at 32 (with the sizes as given 1 would sit at 24). With
// alignments 3 and 4, sizes are rounded to their least common multiple,
// 12: 0 (10 B, align 3) and 1 (8 B, align 4) become 12 each, a tie: 1
// goes first, at 0, then 0 at 12. The peak is the real sizes': 12+10 = 22.
func TestTFLMAligns(t *testing.T) {
	iv := []arena.Interval{{0, 0, 24, 1}, {0, 0, 16, 16}}
	off := arena.TFLM{}.Offsets(iv)
	require.NoError(t, check(iv, off))
	assert.Equal(t, []int64{0, 32}, off)

	iv = []arena.Interval{{0, 1, 10, 3}, {1, 2, 8, 4}}
	off = arena.TFLM{}.Offsets(iv)
	require.NoError(t, check(iv, off))
	assert.Equal(t, []int64{12, 0}, off)
	assert.Equal(t, int64(22), arena.Peak(iv, off))

	// Alignments 2^31-1, 2^31-19 and 3 (coprime) have a least common
	// multiple above 2^63: no sizes to round to, no arena. Place says so;
	// seed 004 places the same blocks.
	prof := testprog.Profile("hw", testprog.Level{Name: "MEM", Capacity: 1 << 40, Align: 1, Latency: 1, Bandwidth: 1})
	prog := testprog.New("p", 1).
		Block("a", 8, "activation", 0, 0, testprog.Align(1<<31-1)).
		Block("b", 8, "activation", 0, 0, testprog.Align(1<<31-19)).
		Block("c", 8, "activation", 0, 0, testprog.Align(3)).
		Program()
	p := testprog.Bind(prog, prof)
	assert.Nil(t, arena.TFLM{}.Offsets(arena.Intervals(p, 0)))
	_, _, _, err := arena.Place(p, arena.TFLM{})
	assert.EqualError(t, err, "planner tflm needs an arena larger than every level (MEM 1099511627776 B)")
	_, _, _, err = arena.Place(p, arena.Seed004{})
	assert.NoError(t, err)
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
// valid, and each planner places some.
func TestPlaceEveryShippedPair(t *testing.T) {
	placed := 0
	by := map[string]int{}
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
			by[name]++
		}
	}
	assert.Greater(t, placed, 100)
	for _, name := range arena.Names() {
		assert.Greater(t, by[name], 10, name)
	}
	t.Logf("plans placed: %v", by)
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
	assert.Equal(t, []string{"pack", "seed000", "seed001", "seed004", "tflm"}, arena.Names())
	assert.EqualError(t, arena.Register(arena.Seed000{}), `arena: planner "seed000" registered twice`)
}
