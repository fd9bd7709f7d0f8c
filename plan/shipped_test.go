package plan_test

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// shipped is one shipped workload bound to one built-in profile, with the
// initializer's layout.
type shipped struct {
	name string
	p    *state.Problem
	lay  *state.Layout
}

// loadShipped binds every testdata workload to every built-in profile and
// runs the initializer. skip lists the pairs that cannot be planned, with
// the reason.
func loadShipped(t testing.TB) (ok []shipped, skip []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "workloads", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		prog, err := workload.ReadFile(f)
		require.NoError(t, err, f)
		for _, hwName := range profiles.Names() {
			prof, err := profiles.Get(hwName)
			require.NoError(t, err, hwName)
			name := prog.Name + "/" + hwName
			p, err := state.Bind(prog, prof, workload.DocName(f))
			if err == nil {
				err = p.CheckCapacity()
			}
			if err != nil {
				skip = append(skip, name+": "+err.Error())
				continue
			}
			lay := state.NewLayout(p.Blocks())
			if _, err := actions.NewInitializer(p).Run(lay, 0); err != nil {
				var inf *actions.InfeasibleError
				require.True(t, errors.As(err, &inf), "%s: %v", name, err)
				skip = append(skip, name+": "+err.Error())
				continue
			}
			ok = append(ok, shipped{name, p, lay})
		}
	}
	return ok, skip
}

// initializerPlan is the plan --no-search writes for s.
func initializerPlan(s shipped) *plan.Plan {
	pl := plan.FromLayout(s.p, s.lay)
	cost := costmodel.Total(costmodel.Seed003{}, s.p, s.lay)
	pl.Cost = plan.Cost{Initial: cost, Final: cost}
	pl.Planner = "initializer"
	return pl
}

// TestShippedWorkloads checks the validator against package costmodel and
// the initializer on every shipped workload and built-in profile: the
// initializer's plan is valid and both compute the same cost; and moving
// one block onto another's address breaks rule 4.
func TestShippedWorkloads(t *testing.T) {
	cases, skipped := loadShipped(t)
	for _, s := range skipped {
		t.Logf("not plannable: %s", s)
	}
	require.NotEmpty(t, cases)
	rng := rand.New(rand.NewPCG(2024, 3))
	for _, s := range cases {
		t.Run(s.name, func(t *testing.T) {
			pl := initializerPlan(s)
			res := validate(t, s.p, pl)
			requireValid(t, res)
			want := costmodel.Total(costmodel.Seed003{}, s.p, s.lay)
			assert.LessOrEqual(t, relDiff(res.Cost, want), 1e-9, "validator %v, costmodel %v", res.Cost, want)
			assert.LessOrEqual(t, relDiff(res.InitialCost, want), 1e-9)
			assert.True(t, res.Layout.Equal(s.lay))

			// A round trip through the file format keeps the plan valid.
			back, err := plan.Parse("rt.json", writePlan(t, pl))
			require.NoError(t, err)
			requireValid(t, validate(t, s.p, back))

			// Moves to fresh space, priced by both implementations, under
			// both models.
			lay := moveSome(s.p, s.lay, rng, 3)
			require.Equal(t, 3, lay.Transfers(), "moveSome found three blocks to move")
			for _, model := range []costmodel.Model{costmodel.Seed003{}, costmodel.VelaDMA{}} {
				mpl := plan.FromLayout(s.p, lay)
				if model.Name() != costmodel.Default {
					mpl.CostModel = model.Name()
				}
				want := costmodel.Total(model, s.p, lay)
				mpl.Cost = plan.Cost{Initial: costmodel.Total(model, s.p, s.lay), Final: want}
				mres := validate(t, s.p, mpl)
				requireValid(t, mres)
				assert.LessOrEqual(t, relDiff(mres.Cost, want), 1e-9, "%s: validator %v, costmodel %v", model.Name(), mres.Cost, want)
				assert.True(t, mres.Layout.Equal(lay))
			}

			bad, moved, onto := collide(t, s.p, pl, rng)
			if bad == nil {
				t.Logf("no two blocks share a level and a timestep")
				return
			}
			res = validate(t, s.p, bad)
			require.False(t, res.Valid())
			found := false
			for _, v := range res.Violations {
				if v.Rule == 4 && strings.Contains(v.Message, fmt.Sprintf("%q", moved)) && strings.Contains(v.Message, fmt.Sprintf("%q", onto)) {
					found = true
				}
				assert.Contains(t, []int{3, 4}, v.Rule, "%s", v)
			}
			assert.True(t, found, "no rule-4 violation for %q over %q: %v", moved, onto, lines(res))
		})
	}
}

// moveSome returns a copy of lay in which n blocks, picked by rng, move at
// a timestep inside their lives to space that no other block uses at any
// time, in the slowest level they may use that has such space.
func moveSome(p *state.Problem, lay *state.Layout, rng *rand.Rand, n int) *state.Layout {
	out := lay.Clone()
	used := make([][][2]int64, p.Levels()) // per level: [off, end) ever used
	for b, segs := range out.Segs {
		for _, sg := range segs {
			used[sg.Level] = append(used[sg.Level], [2]int64{sg.Offset, sg.Offset + p.Foot(b, int(sg.Level))})
		}
	}
	// fresh returns the lowest offset of level l, aligned to a, with f bytes
	// that no span of used[l] touches.
	fresh := func(l int, f, a int64) (int64, bool) {
		spans := slices.Clone(used[l])
		slices.SortFunc(spans, func(x, y [2]int64) int { return cmp.Compare(x[0], y[0]) })
		off := int64(0)
		for _, sp := range spans {
			if off+f <= sp[0] {
				break
			}
			off = max(off, state.AlignUp(sp[1], a))
		}
		return off, off+f <= p.HW.Levels[l].Capacity
	}
	for tries := 0; n > 0 && tries < 1000; tries++ {
		b := rng.IntN(p.Blocks())
		blk := p.Block(b)
		if blk.First == blk.Last || len(out.Segs[b]) > 1 {
			continue
		}
		for l := p.Levels() - 1; l >= 0; l-- {
			if !p.Allowed(b, l) {
				continue
			}
			off, ok := fresh(l, p.Foot(b, l), p.Align(b, l))
			if !ok {
				continue
			}
			at := blk.First + 1 + rng.IntN(blk.Last-blk.First)
			out.MoveAt(b, at, state.Pos{Level: int32(l), Offset: off})
			used[l] = append(used[l], [2]int64{off, off + p.Foot(b, l)})
			n--
			break
		}
	}
	return out
}

// collide returns a copy of pl in which one block, picked by rng, sits at
// the offset of another block that shares its level and a timestep with it
// (and could not take its space by reuse), or nil if there is no such pair.
func collide(t testing.TB, p *state.Problem, pl *plan.Plan, rng *rand.Rand) (bad *plan.Plan, moved, onto string) {
	t.Helper()
	n := len(pl.Placements)
	for range 100 {
		i := rng.IntN(n)
		a := pl.Placements[i]
		var cands []int
		for j, b := range pl.Placements {
			if j == i || b.Block == a.Block || b.Level != a.Level || b.Offset == a.Offset ||
				b.To < a.From || a.To < b.From {
				continue
			}
			ba, _ := p.BlockID(a.Block)
			bb, _ := p.BlockID(b.Block)
			if workload.CanReuse(p.Block(ba), p.Block(bb)) || workload.CanReuse(p.Block(bb), p.Block(ba)) {
				continue
			}
			cands = append(cands, j)
		}
		if len(cands) == 0 {
			continue
		}
		b := pl.Placements[cands[rng.IntN(len(cands))]]
		bad = &plan.Plan{}
		*bad = *pl
		bad.Placements = append([]plan.Placement(nil), pl.Placements...)
		bad.Placements[i].Offset = b.Offset
		// Keep rule 2: the transfers into and out of the moved placement
		// follow it.
		bad.Transfers = append([]plan.Transfer(nil), pl.Transfers...)
		for k := range bad.Transfers {
			x := &bad.Transfers[k]
			if x.Block != a.Block {
				continue
			}
			if x.At == a.From && x.ToLevel == a.Level && x.ToOffset == a.Offset {
				x.ToOffset = b.Offset
			}
			if x.At == a.To+1 && x.FromLevel == a.Level && x.FromOffset == a.Offset {
				x.FromOffset = b.Offset
			}
		}
		return bad, a.Block, b.Block
	}
	return nil, "", ""
}

// BenchmarkValidate validates the initializer's plan of resnet50-int8 on
// ethos-u55 (the initializer's run inside Validate, for rule 6, included).
func BenchmarkValidate(b *testing.B) {
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", "resnet50-int8.json"))
	require.NoError(b, err)
	prof, err := profiles.Get("ethos-u55")
	require.NoError(b, err)
	p, err := state.Bind(prog, prof, "resnet50-int8")
	require.NoError(b, err)
	lay := state.NewLayout(p.Blocks())
	_, err = actions.NewInitializer(p).Run(lay, 0)
	require.NoError(b, err)
	pl := initializerPlan(shipped{"resnet50-int8/ethos-u55", p, lay})
	b.Run("resnet50-int8/ethos-u55", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := plan.Validate(p, pl, "bench")
			if err != nil || !res.Valid() {
				b.Fatalf("%v %v", err, res.Violations)
			}
		}
	})
}
