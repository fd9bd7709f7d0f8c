package plan_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// fastSlow is the two-level profile the hand-written tests use:
//
//	FAST: 4096 B, alignment 16, in/out(d) = 1 + d/4
//	SLOW: 1 MiB,  alignment 64, in/out(d) = 10 + d/1
func fastSlow(t testing.TB) *hw.Profile {
	t.Helper()
	prof := &hw.Profile{Name: "fast-slow", TimeUnit: hw.Cycle, Levels: []hw.Level{
		{Name: "FAST", Capacity: 4096, Alignment: 16,
			In: hw.Link{Latency: 1, Bandwidth: 4}, Out: hw.Link{Latency: 1, Bandwidth: 4}},
		{Name: "SLOW", Capacity: 1 << 20, Alignment: 64,
			In: hw.Link{Latency: 10, Bandwidth: 1}, Out: hw.Link{Latency: 10, Bandwidth: 1}},
	}}
	require.NoError(t, prof.Validate("test"))
	return prof
}

// testProgram is a five-op program with every kind of block:
//
//	id block kind        size  life   writes reads  notes
//	0  x     input         64  [0,0]  -      0      reusable: op0 may write a0 over it
//	1  a0    activation    64  [0,2]  0      1,2
//	2  w     constant      32  [1,1]  -      1      align 128 (footprint 128 in both levels)
//	3  s     scratch       48  [1,1]  1      1
//	4  a1    activation   128  [1,3]  1      3      reusable: op3 may write y over it
//	5  p     activation    16  [2,3]  2      3      pinned to SLOW (footprint 64 there)
//	6  y     output       128  [3,4]  3      4
//	7  c     constant      64  [2,4]  -      4
//
// mods edit the program before it is validated (variants for single tests).
func testProgram(t testing.TB, mods ...func(*workload.Program)) *workload.Program {
	t.Helper()
	prog := &workload.Program{
		Name: "test",
		Ops:  []workload.Op{{Name: "op0"}, {Name: "op1"}, {Name: "op2"}, {Name: "op3"}, {Name: "op4"}},
		Blocks: []workload.Block{
			{Name: "x", Size: 64, Kind: workload.Input, First: 0, Last: 0, Reads: []int{0}, Reusable: true},
			{Name: "a0", Size: 64, Kind: workload.Activation, First: 0, Last: 2, Writes: []int{0}, Reads: []int{1, 2}},
			{Name: "w", Size: 32, Kind: workload.Constant, First: 1, Last: 1, Reads: []int{1}, Align: 128},
			{Name: "s", Size: 48, Kind: workload.Scratch, First: 1, Last: 1, Writes: []int{1}, Reads: []int{1}},
			{Name: "a1", Size: 128, Kind: workload.Activation, First: 1, Last: 3, Writes: []int{1}, Reads: []int{3}, Reusable: true},
			{Name: "p", Size: 16, Kind: workload.Activation, First: 2, Last: 3, Writes: []int{2}, Reads: []int{3}, Level: "SLOW"},
			{Name: "y", Size: 128, Kind: workload.Output, First: 3, Last: 4, Writes: []int{3}, Reads: []int{4}},
			{Name: "c", Size: 64, Kind: workload.Constant, First: 2, Last: 4, Reads: []int{4}},
		},
	}
	for _, m := range mods {
		m(prog)
	}
	require.NoError(t, prog.Validate("test"))
	return prog
}

// block returns a mod that edits the block named name.
func block(name string, edit func(*workload.Block)) func(*workload.Program) {
	return func(prog *workload.Program) {
		for i := range prog.Blocks {
			if prog.Blocks[i].Name == name {
				edit(&prog.Blocks[i])
				return
			}
		}
		panic("test program has no block " + name)
	}
}

// reusable is a mod that marks the block named name reusable.
func reusable(name string) func(*workload.Program) {
	return block(name, func(b *workload.Block) { b.Reusable = true })
}

// testProblem binds testProgram(mods...) to fastSlow.
func testProblem(t testing.TB, mods ...func(*workload.Program)) *state.Problem {
	t.Helper()
	p, err := state.Bind(testProgram(t, mods...), fastSlow(t), "test")
	require.NoError(t, err)
	return p
}

// Costs of the hand plan (FAST: 1 + d/4, SLOW: 10 + d/1, per read, write
// and transfer side):
//
//	x   read@0 FAST 64                           1+16 = 17
//	a0  write@0 + read@1 FAST 64             2*(1+16) = 34
//	    transfer@2 out FAST 64 + in SLOW 64  17 + (10+64) = 91
//	    read@2 SLOW 64                          10+64 = 74   (a0: 199)
//	w   read@1 FAST 32                           1+8 = 9
//	s   write@1 + read@1 FAST 48             2*(1+12) = 26
//	a1  write@1 + read@3 FAST 128            2*(1+32) = 66
//	p   write@2 + read@3 SLOW 16            2*(10+16) = 52
//	y   write@3 + read@4 FAST 128            2*(1+32) = 66
//	c   read@4 FAST 64 (first placement free)     1+16 = 17
//	total 17+199+9+26+66+52+66+17 = 452
//
// The initializer keeps everything but the pinned p in FAST and moves
// nothing: the same sum with a0 read@2 in FAST (17) and no transfer,
// 452 - 74 - 91 + 17 = 304.
const (
	handFinal   = 452.0
	handInitial = 304.0
)

// handPlan is a valid plan of testProblem with one transfer (a0 moves from
// FAST to SLOW at timestep 2) and one in-place reuse (y takes a1's space at
// timestep 3). FAST by timestep:
//
//	t0: x [0,64)  a0 [64,128)
//	t1: a0 [64,128)  w [128,256)  s [256,304)  a1 [320,448)
//	t2: a1 [320,448)  c [512,576)            SLOW: a0 [0,64)  p [64,128)
//	t3: a1 = y [320,448) (reuse)  c           SLOW: p
//	t4: y [320,448)  c [512,576)
func handPlan() *plan.Plan {
	return &plan.Plan{
		Workload: "test", Hardware: "fast-slow", TimeUnit: "cycle",
		Cost: plan.Cost{Initial: handInitial, Final: handFinal},
		Placements: []plan.Placement{
			{Block: "x", From: 0, To: 0, Level: "FAST", Offset: 0},
			{Block: "a0", From: 0, To: 1, Level: "FAST", Offset: 64},
			{Block: "a0", From: 2, To: 2, Level: "SLOW", Offset: 0},
			{Block: "w", From: 1, To: 1, Level: "FAST", Offset: 128},
			{Block: "s", From: 1, To: 1, Level: "FAST", Offset: 256},
			{Block: "a1", From: 1, To: 3, Level: "FAST", Offset: 320},
			{Block: "p", From: 2, To: 3, Level: "SLOW", Offset: 64},
			{Block: "y", From: 3, To: 4, Level: "FAST", Offset: 320},
			{Block: "c", From: 2, To: 4, Level: "FAST", Offset: 512},
		},
		Transfers: []plan.Transfer{
			{Block: "a0", At: 2, FromLevel: "FAST", FromOffset: 64, ToLevel: "SLOW", ToOffset: 0},
		},
	}
}

// place returns the index of the placement of block name that covers t.
func place(t testing.TB, pl *plan.Plan, name string, at int) *plan.Placement {
	t.Helper()
	for i := range pl.Placements {
		pp := &pl.Placements[i]
		if pp.Block == name && pp.From <= at && at <= pp.To {
			return pp
		}
	}
	require.FailNow(t, "no placement", "block %q at %d", name, at)
	return nil
}

// initialCost is the cost under model of the initializer's own plan,
// computed with package costmodel (what --no-search prints).
func initialCost(t testing.TB, p *state.Problem, model costmodel.Model) float64 {
	t.Helper()
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	return costmodel.Total(model, p, lay)
}

// layoutOf builds the layout of a plan whose placements tile every lifetime,
// without package plan: segments are the placements sorted by from.
func layoutOf(t testing.TB, p *state.Problem, pl *plan.Plan) *state.Layout {
	t.Helper()
	lay := state.NewLayout(p.Blocks())
	for _, pp := range pl.Placements {
		b, ok := p.BlockID(pp.Block)
		require.True(t, ok, pp.Block)
		l, ok := p.HW.LevelIndex(pp.Level)
		require.True(t, ok, pp.Level)
		lay.Segs[b] = append(lay.Segs[b], state.Seg{From: int32(pp.From), Level: int32(l), Offset: pp.Offset})
	}
	for b := range lay.Segs {
		slices.SortFunc(lay.Segs[b], func(x, y state.Seg) int { return cmp.Compare(x.From, y.From) })
	}
	return lay
}

// priced sets pl's costs under the seed003 model from package costmodel:
// the initializer's plan and the plan's own placements.
func priced(t testing.TB, p *state.Problem, pl *plan.Plan) *plan.Plan {
	t.Helper()
	pl.Cost.Initial = initialCost(t, p, costmodel.Seed003{})
	pl.Cost.Final = costmodel.Total(costmodel.Seed003{}, p, layoutOf(t, p, pl))
	return pl
}

// validate runs plan.Validate and requires that it returns a result.
func validate(t testing.TB, p *state.Problem, pl *plan.Plan) *plan.Result {
	t.Helper()
	res, err := plan.Validate(p, pl, plan.DocName("t.json"))
	require.NoError(t, err)
	require.NotNil(t, res)
	return res
}

// lines renders the violations as "rule N: message" lines.
func lines(res *plan.Result) []string {
	out := make([]string, 0, len(res.Violations))
	for _, v := range res.Violations {
		out = append(out, v.String())
	}
	return out
}

// requireValid requires that res lists no violation.
func requireValid(t testing.TB, res *plan.Result) {
	t.Helper()
	require.Empty(t, lines(res))
	require.Zero(t, res.Omitted)
	require.True(t, res.Valid())
}

// relDiff is |a-b| / |b|.
func relDiff(a, b float64) float64 {
	d := a - b
	if d < 0 {
		d = -d
	}
	if b < 0 {
		b = -b
	}
	return d / b
}
