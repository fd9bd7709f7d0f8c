package verify_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/fuzzcheck"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// agree checks pl, a plan of p priced by model, with verify: it is valid,
// cost.initial is what the planner's initializer (or fallback) plan costs
// (actions.VerifyInitial), and Check recomputes the final cost that
// package costmodel gives the plan's layout, to 1e-12 relative. A NaN
// cost.initial is set from the planner first.
func agree(t *testing.T, p *state.Problem, pl *plan.Plan, model costmodel.Model) {
	t.Helper()
	ctx := context.Background()
	if math.IsNaN(pl.Cost.Initial) {
		initial, _, err := actions.InitialCost(ctx, p, model)
		require.NoError(t, err)
		pl.Cost.Initial = initial
	}
	rep := check(t, p.Prog, p.HW, pl, &verify.Options{Initial: actions.VerifyInitial(ctx, p, model)})
	requireValid(t, rep)
	assert.Equal(t, model.Name(), rep.Model)
	lay, err := state.LayoutOf(p, pl)
	require.NoError(t, err)
	want := costmodel.Total(model, p, lay)
	assert.LessOrEqual(t, relDiff(rep.Cost, want), 1e-12, "verify %v, costmodel %v", rep.Cost, want)
	assert.LessOrEqual(t, relDiff(rep.Cost, pl.Cost.Final), verify.RelTolerance)
}

// priced writes lay as a plan under model, its cost.final from package
// costmodel (cost.initial NaN: agree fills it in).
func priced(p *state.Problem, lay *state.Layout, model costmodel.Model) *plan.Plan {
	pl := lay.Plan(p)
	pl.Cost = plan.Cost{Initial: math.NaN(), Final: costmodel.Total(model, p, lay)}
	if model.Name() != costmodel.Default {
		pl.CostModel = model.Name()
	}
	return pl
}

// shipped is a shipped pair (the i-th of testprog.ShippedPairs) and the
// plan hieropt.Plan makes of it with the default settings (nil where it
// finds none).
type shipped struct {
	i   int
	p   *state.Problem
	res *hieropt.Result
}

var (
	shippedOnce sync.Once
	shippedAll  []shipped
)

// shippedPlans returns every second shipped pair (a workload on a
// built-in profile that can hold it; -short: every fourth), each with
// Plan's plan, made once for all the tests of the package: the plans
// are most of their time. (The plans of every pair pass verify in the
// library's and the command line's tests: hieropt's TestEveryShippedPair,
// cmd/hieropt's TestOptimizeEveryWorkloadAndProfile.)
func shippedPlans(t *testing.T) []shipped {
	t.Helper()
	shippedOnce.Do(func() {
		step := 2
		if testmode.Quick() {
			step = 4
		}
		for i, p := range testprog.ShippedPairs(t, "..") {
			if i%step != 0 {
				continue
			}
			s := shipped{i: i, p: p}
			if res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, nil); err == nil {
				s.res = res
			} else {
				t.Logf("%s on %s: no plan: %v", p.Prog.Name, p.HW.Name, err)
			}
			shippedAll = append(shippedAll, s)
		}
	})
	require.NotEmpty(t, shippedAll)
	return shippedAll
}

// TestShippedPlans: the plans hieropt.Plan makes for the shipped pairs
// of shippedPlans pass verify with the costs package costmodel gives them
// (Plan under the default model, and under vela-dma for every eighth
// pair); and so do those plans with three blocks moved to fresh space in
// mid-life (the search seldom moves blocks in these), under both cost
// models. -short: the default model only for Plan.
func TestShippedPlans(t *testing.T) {
	models := []costmodel.Model{costmodel.Seed003{}, costmodel.VelaDMA{}}
	rng := rand.New(rand.NewPCG(14, 1))
	pairs := shippedPlans(t)
	transfers, reuses, collided := 0, 0, 0
	for _, s := range pairs {
		p := s.p
		t.Run(p.Prog.Name+"/"+p.HW.Name, func(t *testing.T) {
			if s.res == nil {
				return
			}
			agree(t, p, s.res.Plan, models[0])
			transfers += len(s.res.Plan.Transfers)
			reuses += countReuses(s.res.Plan)
			if bad, a, b := collide(p.Prog, s.res.Plan, rng); bad != nil {
				rep := check(t, p.Prog, p.HW, bad, nil)
				assert.Subset(t, []int{3, 4}, ruleSet(rep), "%v", lines(rep))
				assert.True(t, overlapOf(rep, a, b), "no rule-4 violation for %q and %q: %v", a, b, lines(rep))
				collided++
			}
			moved := moveSome(p, s.res.Layout, rng, 3)
			for _, m := range models {
				pl := priced(p, moved, m)
				agree(t, p, pl, m)
				transfers += len(pl.Transfers)
			}
			if testmode.Quick() || s.i%8 != 0 {
				return
			}
			vela := models[1]
			res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, &hieropt.Settings{CostModel: vela.Name()})
			if err != nil {
				t.Logf("%s: no plan: %v", vela.Name(), err)
				return
			}
			agree(t, p, res.Plan, vela)
			transfers += len(res.Plan.Transfers)
		})
	}
	t.Logf("%d pairs: %d transfers, %d in-place reuses, %d plans with a block moved onto another", len(pairs), transfers, reuses, collided)
	assert.Positive(t, transfers, "the plans move blocks")
	assert.Positive(t, reuses, "the plans reuse space in place")
	assert.Greater(t, collided, len(pairs)/2, "most plans have two blocks to collide")
}

// collide returns a copy of pl in which a placement, picked by rng, sits
// at the offset of another block's placement in its level with which it
// shares a timestep, the two blocks being such that neither may take the
// other's space (kindRule, and the first reusable): what a planner that
// loses track of a block would write. It returns the two blocks, or nil
// if pl has no such pair.
func collide(prog *workload.Program, pl *plan.Plan, rng *rand.Rand) (bad *plan.Plan, moved, onto string) {
	blocks := make(map[string]*workload.Block, len(prog.Blocks))
	for i := range prog.Blocks {
		blocks[prog.Blocks[i].Name] = &prog.Blocks[i]
	}
	mayTake := func(a, b *workload.Block) bool { // b may take a's space
		return a.Reusable && slices.Contains(kindRule[a.Kind.String()], b.Kind.String())
	}
	for range 100 {
		i := rng.IntN(len(pl.Placements))
		a := pl.Placements[i]
		var cands []int
		for j, b := range pl.Placements {
			if b.Block == a.Block || b.Level != a.Level || b.Offset == a.Offset || b.To < a.From || a.To < b.From ||
				mayTake(blocks[a.Block], blocks[b.Block]) || mayTake(blocks[b.Block], blocks[a.Block]) {
				continue
			}
			cands = append(cands, j)
		}
		if len(cands) > 0 {
			b := pl.Placements[cands[rng.IntN(len(cands))]]
			return moveTo(pl, i, a.Level, b.Offset), a.Block, b.Block
		}
	}
	return nil, "", ""
}

// moveSome returns a copy of lay in which up to n blocks, picked by rng,
// move at a timestep inside their lives to space of a level they may use
// that no block uses at any time (the slowest level with such space).
func moveSome(p *state.Problem, lay *state.Layout, rng *rand.Rand, n int) *state.Layout {
	out := lay.Clone()
	top := make([]int64, p.Levels()) // per level: the end of the highest span ever used
	for b, segs := range out.Segs {
		for _, sg := range segs {
			top[sg.Level] = max(top[sg.Level], sg.Offset+p.Foot(b, int(sg.Level)))
		}
	}
	for tries := 0; n > 0 && tries < 1000; tries++ {
		b := rng.IntN(p.Blocks())
		blk := p.Block(b)
		if blk.First == blk.Last || len(out.Segs[b]) > 1 {
			continue
		}
		for l := p.Levels() - 1; l >= 0; l-- {
			capacity, foot := p.HW.Levels[l].Capacity, p.Foot(b, l)
			if !p.Allowed(b, l) || top[l] > capacity-foot {
				continue
			}
			off := state.AlignUp(top[l], p.Align(b, l))
			if off < top[l] || off > capacity-foot { // (off < top: it overflowed)
				continue
			}
			out.MoveAt(b, blk.First+1+rng.IntN(blk.Last-blk.First), state.Pos{Level: int32(l), Offset: off})
			top[l] = off + p.Foot(b, l)
			n--
			break
		}
	}
	return out
}

// countReuses counts the placements that start where another placement of
// the same level ends, at the same offset, at the same timestep.
func countReuses(pl *plan.Plan) int {
	type key struct {
		level string
		off   int64
		t     int
	}
	ends := map[key]bool{}
	for _, pp := range pl.Placements {
		ends[key{pp.Level, pp.Offset, pp.To}] = true
	}
	n := 0
	for _, pp := range pl.Placements {
		if ends[key{pp.Level, pp.Offset, pp.From}] {
			n++
		}
	}
	return n
}

// TestGoldenPlans: the golden plans under testdata/golden pass verify with
// the costs package costmodel gives them, under the plan's cost model (a
// problem bound with its semantics). A plan's hardware is a built-in
// profile, a seed-model copy of one (NAME-seed003:
// testdata/hw/seed003/NAME.yaml) or a test profile of testdata/hw.
func TestGoldenPlans(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "golden", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			pl, err := plan.ReadFile(f)
			require.NoError(t, err)
			prog, err := workload.ReadFile(filepath.Join("..", "workloads", pl.Workload+".json"))
			require.NoError(t, err)
			prof, err := profiles.Get(pl.Hardware)
			if err != nil {
				file := filepath.Join("..", "testdata", "hw", pl.Hardware+".yaml")
				if name, ok := strings.CutSuffix(pl.Hardware, "-seed003"); ok {
					file = filepath.Join("..", "testdata", "hw", "seed003", name+".yaml")
				}
				prof, err = profiles.Load(file)
			}
			require.NoError(t, err)
			model, ok := costmodel.Lookup(cmp.Or(pl.CostModel, costmodel.Default))
			require.True(t, ok, pl.CostModel)
			p, err := state.Bind(prog, prof, "golden", state.Semantics{Timeline: model.Timeline()})
			require.NoError(t, err)
			agree(t, p, pl, model)
		})
	}
}

// TestRandomPlans: on random small programs and profiles, the search's
// plans (both cost models) pass verify with the costs package costmodel
// gives them.
func TestRandomPlans(t *testing.T) {
	n := 3000
	if testmode.Quick() {
		n = 300
	}
	planned := 0
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(14, uint64(i)))
		lim := fuzzcheck.Small
		if i%4 == 3 {
			lim = fuzzcheck.Medium
		}
		prog, prof := fuzzcheck.Problem(rng, lim)
		p, err := state.Bind(prog, prof, "random")
		if err != nil {
			continue
		}
		model := costmodel.Model(costmodel.Seed003{})
		if i%3 == 2 {
			model = costmodel.VelaDMA{}
		}
		res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, &hieropt.Settings{CostModel: model.Name(), Search: search.Settings{Workers: 1}})
		if err != nil {
			continue // no plan exists (the fuzzcheck tests check that)
		}
		planned++
		pl := res.Layout.Plan(p)
		pl.Cost = plan.Cost{Initial: res.Initial.Cost, Final: res.Plan.Cost.Final}
		if model.Name() != costmodel.Default {
			pl.CostModel = model.Name()
		}
		moved := priced(p, moveSome(p, res.Layout, rng, 2), model)
		t.Run(fmt.Sprintf("program %d", i), func(t *testing.T) {
			agree(t, p, pl, model)
			agree(t, p, moved, model)
		})
	}
	t.Logf("%d of %d random programs planned", planned, n)
	assert.Greater(t, planned, n/2)
}
