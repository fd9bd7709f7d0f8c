package repack_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/repack"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

func bind(t *testing.T, workloadFile, hwArg string) *state.Problem {
	t.Helper()
	prog, err := workload.ReadFile(workloadFile)
	require.NoError(t, err)
	if _, ok := profiles.YAML(hwArg); ok {
		// The seed model's tests (a problem bound without Semantics) run
		// on the built-in's seed-model copy; the built-ins name the
		// timeline model.
		hwArg = filepath.Join("..", "testdata", "hw", "seed003", hwArg+".yaml")
	}
	prof, err := profiles.Load(hwArg)
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, workloadFile)
	require.NoError(t, err)
	return p
}

func shipped(name string) string {
	return filepath.Join("..", "workloads", name+".json")
}

// initial returns the initializer's layout of p, in the given order.
func initial(t *testing.T, p *state.Problem, order actions.Order) (*state.Layout, bool) {
	t.Helper()
	lay := state.NewLayout(p.Blocks())
	if _, err := actions.NewInitializerOrder(p, order).Run(lay, 0); err != nil {
		var ie *actions.InfeasibleError
		require.ErrorAs(t, err, &ie)
		return nil, false
	}
	return lay, true
}

// valid checks a repacked layout with the plan checker (verify: FORMATS.md's
// rules, the cost recomputed independently) and returns the plan's bytes.
func valid(t *testing.T, p *state.Problem, r *repack.Result) []byte {
	t.Helper()
	require.NoError(t, r.Layout.CheckComplete(p))
	pl := r.Layout.Plan(p)
	pl.Planner = "repack"
	init, ok := initial(t, p, actions.WorkloadOrder)
	require.True(t, ok)
	pl.Cost = plan.Cost{Initial: costmodel.Total(costmodel.Seed003{}, p, init), Final: r.Cost}
	res, err := verify.Check(p.Prog, p.HW, pl, &verify.Options{Initial: actions.VerifyInitial(context.Background(), p, costmodel.Seed003{})})
	require.NoError(t, err)
	require.True(t, res.Valid(), "%s on %s: %v", p.Prog.Name, p.HW.Name, res.Violations)
	var buf bytes.Buffer
	require.NoError(t, pl.Write(&buf))
	return buf.Bytes()
}

// TestEveryShippedPair repacks the initializer's plan (in both orders) of
// every shipped workload on every built-in profile it fits, in checking
// mode (every accepted change verified: no overlap at any timestep, the
// running cost right). Every result is valid, and either strictly cheaper
// than the input or the input itself. With -short (CI's race run), every
// fifth pair.
func TestEveryShippedPair(t *testing.T) {
	pairs, improved, promoted := 0, 0, 0
	step, minPairs := 1, 160
	if testmode.Quick() {
		step, minPairs = 5, 30
	}
	for i, p := range testprog.ShippedPairs(t, "..") {
		if i%step != 0 {
			continue
		}
		prog, h := p.Prog, p.HW.Name
		for _, order := range []actions.Order{actions.WorkloadOrder, actions.KindOrder} {
			lay, ok := initial(t, p, order)
			if !ok {
				continue
			}
			in := lay.Clone()
			r, err := repack.Run(context.Background(), p, lay, &repack.Settings{Check: true})
			require.NoError(t, err)
			assert.True(t, in.Equal(lay), "the input layout is not changed")
			sameWithWorkers(t, p, lay, &repack.Settings{}, r)
			valid(t, p, r)
			assert.Equal(t, costmodel.Total(costmodel.Seed003{}, p, lay), r.InputCost)
			if r.Layout.Equal(lay) {
				assert.Equal(t, r.InputCost, r.Cost)
				assert.Zero(t, r.Stats.Promoted)
			} else {
				assert.Less(t, r.Cost, r.InputCost, "%s on %s: changed but not cheaper", prog.Name, h)
				assert.Positive(t, r.Stats.Promoted)
				improved++
			}
			assert.LessOrEqual(t, r.Stats.Packings, repack.DefaultPackings*p.Levels()*repack.DefaultRounds)
			assert.LessOrEqual(t, r.Stats.Inserted, r.Stats.Promoted)
			promoted += r.Stats.Promoted
			pairs++
		}
	}
	assert.GreaterOrEqual(t, pairs, minPairs)
	assert.Greater(t, improved, pairs/3, "repacking improves many initial plans")
	t.Logf("%d plans, %d improved, %d blocks promoted", pairs, improved, promoted)
}

// sameWithWorkers repacks lay again with 3 workers probing ahead and
// checks that the result and the statistics are want's.
func sameWithWorkers(t *testing.T, p *state.Problem, lay *state.Layout, s *repack.Settings, want *repack.Result) {
	t.Helper()
	c := *s
	c.Workers = 3
	got, err := repack.Run(context.Background(), p, lay, &c)
	require.NoError(t, err)
	require.True(t, want.Layout.Equal(got.Layout), "%s on %s: 3 workers repack differently", p.Prog.Name, p.HW.Name)
	require.Equal(t, want.Cost, got.Cost)
	ws, gs := want.Stats, got.Stats
	ws.Time, gs.Time = 0, 0
	require.Equal(t, ws, gs, "%s on %s", p.Prog.Name, p.HW.Name)
}

// TestFragmentation is the case repacking is for. Four 1024-byte blocks
// fill the 4096-byte fast level at timestep 0; a and c die at 1; e (2048
// bytes) is created at 2. The initializer's boundary rule put them at
// a 0, d 1024, c 2048, b 3072, so a's and c's space is not adjacent and e
// goes to SLOW; the search, one block at a time, can only trade e for b
// (b to SLOW, e into c's and its neighbour's space). Re-packing FAST as a
// whole puts a and c together, e over them, and b in FAST.
//
// Costs (FAST: 2 + d/8 per access; SLOW: 50 + d): all in FAST,
// writes 4 x (2+128) + (2+256) = 778 and reads a, c at 1 and b, d, e at 3,
// 4 x 130 + 258 = 778: 1556, the cost lower bound. The search's plan has b
// in SLOW: 1556 - 2 x 130 + 2 x (50+1024) = 3444.
func TestFragmentation(t *testing.T) {
	p := bind(t, filepath.Join("testdata", "fragmented.json"), filepath.Join("testdata", "two-level-4k.yaml"))
	allFast := func(lay *state.Layout) bool {
		for _, segs := range lay.Segs {
			for _, s := range segs {
				if s.Level != 0 {
					return false
				}
			}
		}
		return true
	}

	// Without repacking, the search leaves a block in SLOW.
	off, err := hieropt.Plan(context.Background(), p.Prog, p.HW, &hieropt.Settings{Repack: new(0), Search: search.Settings{Check: true}})
	require.NoError(t, err)
	assert.False(t, allFast(off.Layout))
	assert.Equal(t, 3444.0, off.Plan.Cost.Final)
	assert.Nil(t, off.Repack)

	// With it (the default), everything is in FAST.
	on, err := hieropt.Plan(context.Background(), p.Prog, p.HW, &hieropt.Settings{Search: search.Settings{Check: true}})
	require.NoError(t, err)
	assert.True(t, allFast(on.Layout))
	assert.Equal(t, 1556.0, on.Plan.Cost.Final)
	assert.Equal(t, 1, on.Repack.Stats.Promoted)
	assert.Equal(t, 0, on.Repack.Stats.Inserted, "e fits no free space as packed: the packing makes room")
	assert.Equal(t, 1, on.Repack.Stats.Packings)
	assert.Equal(t, 3444.0, on.Repack.InputCost)
	assert.Equal(t, 1556.0, on.Repack.Cost)
	r := &repack.Result{Layout: on.Layout, InputCost: on.Initial.Cost, Cost: on.Plan.Cost.Final}
	valid(t, p, r)

	// hieropt.Settings.Repack means what --repack means: nil is the
	// default budget, 0 is off, n is n packings per level; less than 0 is
	// refused.
	for _, c := range []struct {
		s      *hieropt.Settings
		budget int
		cost   float64
	}{
		{nil, hieropt.DefaultRepack, 1556},
		{&hieropt.Settings{}, hieropt.DefaultRepack, 1556},
		{&hieropt.Settings{Repack: new(0)}, 0, 3444},
		{&hieropt.Settings{Repack: new(1)}, 1, 1556},
	} {
		assert.Equal(t, c.budget, c.s.RepackBudget())
		res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, c.s)
		require.NoError(t, err)
		assert.Equal(t, c.cost, res.Plan.Cost.Final, "budget %d", c.budget)
		packings := 0
		if res.Repack != nil {
			packings = res.Repack.Stats.Packings
		}
		assert.Equal(t, min(c.budget, 1), packings, "budget %d", c.budget)
	}
	_, err = hieropt.Plan(context.Background(), p.Prog, p.HW, &hieropt.Settings{Repack: new(-1)})
	assert.EqualError(t, err, "Settings.Repack -1: want a number >= 0 (0 = off)")

	// Repacking the initializer's plan directly does it too: e is promoted.
	lay, ok := initial(t, p, actions.WorkloadOrder)
	require.True(t, ok)
	e, _ := p.BlockID("e")
	require.Equal(t, int32(1), lay.Segs[e][0].Level, "the initializer puts e in SLOW")
	rr, err := repack.Run(context.Background(), p, lay, &repack.Settings{Check: true})
	require.NoError(t, err)
	valid(t, p, rr)
	assert.True(t, allFast(rr.Layout))
	assert.Equal(t, 1556.0, rr.Cost)
}

// TestInPlaceChains: blocks that reuse each other's space keep doing so
// after repacking (an in-place chain is one packing buffer), so a level
// that relies on reuse still takes promotions. resnet18-int8 on Ethos-U65
// has SRAM full of in-place chains after the search.
func TestInPlaceChains(t *testing.T) {
	p := bind(t, shipped("resnet18-int8"), "ethos-u65")
	res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, &hieropt.Settings{Repack: new(0)})
	require.NoError(t, err)
	reuses := func(lay *state.Layout) int {
		n := 0
		for b, segs := range lay.Segs {
			last := segs[len(segs)-1]
			for nb, ns := range lay.Segs {
				if nb != b && ns[0].Pos() == last.Pos() && int(ns[0].From) == p.Block(b).Last && state.ReusePair(p, b, nb, p.Block(b).Last) {
					n++
				}
			}
		}
		return n
	}
	before := reuses(res.Layout)
	require.Positive(t, before)
	r, err := repack.Run(context.Background(), p, res.Layout, &repack.Settings{Check: true})
	require.NoError(t, err)
	valid(t, p, r)
	// Some promotion needed a packing of the level (its reuse counted as
	// overlap, SRAM would look over capacity and none would pack).
	assert.Greater(t, r.Stats.Promoted, r.Stats.Inserted)
	assert.Less(t, r.Cost, r.InputCost)
	assert.GreaterOrEqual(t, reuses(r.Layout), before, "no in-place reuse is lost")
}

// TestDeterministic: the same input gives the same plan bytes, and the
// search with repacking gives the same plan whatever the number of
// workers.
func TestDeterministic(t *testing.T) {
	p := bind(t, shipped("squeezenet1_1-int8"), "ascend910-core")
	var first []byte
	for w := 1; w <= 3; w++ {
		res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, &hieropt.Settings{Search: search.Settings{Workers: w}})
		require.NoError(t, err)
		assert.Positive(t, res.Repack.Stats.Promoted)
		b := valid(t, p, &repack.Result{Layout: res.Layout, InputCost: res.Initial.Cost, Cost: res.Plan.Cost.Final})
		if first == nil {
			first = b
			continue
		}
		assert.Equal(t, string(first), string(b), "workers %d", w)
	}

	lay, ok := initial(t, p, actions.KindOrder)
	require.True(t, ok)
	a, err := repack.Run(context.Background(), p, lay, nil)
	require.NoError(t, err)
	b, err := repack.Run(context.Background(), p, lay, nil)
	require.NoError(t, err)
	assert.Equal(t, valid(t, p, a), valid(t, p, b))
	a.Stats.Time, b.Stats.Time = 0, 0
	assert.Equal(t, a.Stats, b.Stats)
}

// TestSettings: a negative budget turns repacking off; a cancelled context
// stops it with the input (valid) as the result; an incomplete layout is
// an error.
func TestSettings(t *testing.T) {
	p := bind(t, filepath.Join("testdata", "fragmented.json"), filepath.Join("testdata", "two-level-4k.yaml"))
	lay, ok := initial(t, p, actions.WorkloadOrder)
	require.True(t, ok)
	r, err := repack.Run(context.Background(), p, lay, &repack.Settings{Packings: -1})
	require.NoError(t, err)
	assert.True(t, r.Layout.Equal(lay))
	assert.Equal(t, r.InputCost, r.Cost)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err = repack.Run(ctx, p, lay, nil)
	require.NoError(t, err)
	assert.True(t, r.Stopped)
	assert.True(t, r.Layout.Equal(lay))

	_, err = repack.Run(context.Background(), p, state.NewLayout(p.Blocks()), nil)
	assert.EqualError(t, err, `repack: block "a" is not placed`)

	// The fragmented example needs a packing of FAST (its buffers are
	// few). Too many buffers to pack: e stays in SLOW, the level counted.
	r, err = repack.Run(context.Background(), p, lay, &repack.Settings{MaxBuffers: 1, Check: true})
	require.NoError(t, err)
	valid(t, p, r)
	assert.Zero(t, r.Stats.Packings)
	assert.Equal(t, 1, r.Stats.Unpacked)
	assert.Equal(t, r.InputCost, r.Cost)
	// Insertions stop once they have visited MaxVisits buffers; the
	// packing still runs.
	r, err = repack.Run(context.Background(), p, lay, &repack.Settings{MaxVisits: 1, Check: true})
	require.NoError(t, err)
	valid(t, p, r)
	assert.Equal(t, 1, r.Stats.Cut)
	assert.Equal(t, 1, r.Stats.Promoted)
	assert.Less(t, r.Cost, r.InputCost)
}

// TestLongProgramLimits: on the searched plan of a generated 1,000-op
// program, with packings off (MaxBuffers), a small visit budget cuts the
// insertions (deterministically: two runs agree) and
// leaves a valid plan cheaper than the input, but costlier than without
// the cut (1 insertion instead of 38 here).
func TestLongProgramLimits(t *testing.T) {
	if testmode.Quick() {
		t.Skip("searches and repacks a 1,000-op program five times")
	}
	prog, err := gen.Generate(gen.Options{Ops: 1000, Mix: "mixed", Seed: 1})
	require.NoError(t, err)
	prof, err := hw.ReadFile(filepath.Join("..", "testdata", "hw", "seed003", "h100-sm.yaml")) // the seed model's
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, "gen")
	require.NoError(t, err)
	sr, err := hieropt.Plan(context.Background(), p.Prog, p.HW, &hieropt.Settings{Repack: new(0)})
	require.NoError(t, err)
	lay := sr.Layout
	a, err := repack.Run(context.Background(), p, lay, &repack.Settings{MaxVisits: 2000, MaxBuffers: 1})
	require.NoError(t, err)
	b, err := repack.Run(context.Background(), p, lay, &repack.Settings{MaxVisits: 2000, MaxBuffers: 1})
	require.NoError(t, err)
	assert.True(t, a.Layout.Equal(b.Layout))
	assert.Positive(t, a.Stats.Cut)
	assert.Zero(t, a.Stats.Packings)
	assert.GreaterOrEqual(t, a.Stats.Visits, int64(2000))
	assert.Positive(t, a.Stats.Inserted)
	assert.Less(t, a.Cost, a.InputCost)
	valid(t, p, a)
	full, err := repack.Run(context.Background(), p, lay, &repack.Settings{MaxBuffers: 1})
	require.NoError(t, err)
	assert.Zero(t, full.Stats.Cut)
	assert.Less(t, full.Cost, a.Cost, "the cut drops insertions")
	assert.Greater(t, full.Stats.Inserted, a.Stats.Inserted)
	// Probing ahead on workers changes neither: the cut falls at the same
	// candidate.
	sameWithWorkers(t, p, lay, &repack.Settings{MaxVisits: 2000, MaxBuffers: 1}, a)
	sameWithWorkers(t, p, lay, &repack.Settings{MaxBuffers: 1}, full)
	packed, err := repack.Run(context.Background(), p, lay, nil)
	require.NoError(t, err)
	assert.Positive(t, packed.Stats.Packings)
	sameWithWorkers(t, p, lay, &repack.Settings{}, packed)
}
