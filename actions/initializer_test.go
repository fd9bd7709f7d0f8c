package actions_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// oneLevel is a level of 1000 bytes at alignment 1, so that offsets are
// plain arithmetic.
var oneLevel = testprog.Level{Name: "L", Capacity: 1000, Align: 1, Latency: 1, Bandwidth: 1}

// fixed places the blocks created at timestep 0 by hand, then runs the
// initializer from timestep 1 (the initializer runs from any state).
func fixed(t *testing.T, p *state.Problem, at map[string]state.Pos) *state.Layout {
	t.Helper()
	lay := state.NewLayout(p.Blocks())
	for name, pos := range at {
		b, ok := p.BlockID(name)
		require.True(t, ok, name)
		require.Equal(t, 0, p.Block(b).First, "hand-placed blocks start at 0")
		lay.SetFirst(b, state.Seg{From: 0, Level: pos.Level, Offset: pos.Offset})
	}
	_, err := actions.NewInitializer(p).Run(lay, 1)
	require.NoError(t, err)
	return lay
}

func offset(t *testing.T, p *state.Problem, lay *state.Layout, name string) state.Pos {
	t.Helper()
	b, ok := p.BlockID(name)
	require.True(t, ok, name)
	require.Len(t, lay.Segs[b], 1)
	return lay.Segs[b][0].Pos()
}

func at(off int64) state.Pos { return state.Pos{Level: 0, Offset: off} }

func TestRule1HighestLevelFirst(t *testing.T) {
	prof := testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 256, Align: 16, Latency: 1, Bandwidth: 8},
		testprog.Level{Name: "SLOW", Capacity: 4096, Align: 16, Latency: 10, Bandwidth: 1})
	prog := testprog.New("p", 2).
		Block("a", 200, "activation", 0, 1). // FAST: 200 -> footprint 208
		Block("b", 100, "activation", 0, 1). // FAST has 256-208 = 48 left: SLOW
		Block("c", 16, "activation", 0, 1, testprog.Pin("SLOW")).
		Block("d", 48, "activation", 0, 1). // fits the 48 left in FAST
		Program()
	p := testprog.Bind(prog, prof)
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	assert.Equal(t, int32(0), offset(t, p, lay, "a").Level)
	assert.Equal(t, int32(1), offset(t, p, lay, "b").Level, "FAST cannot hold it: the next level down")
	assert.Equal(t, int32(1), offset(t, p, lay, "c").Level, "pinned to SLOW although FAST has room")
	assert.Equal(t, state.Pos{Level: 0, Offset: 208}, offset(t, p, lay, "d"))
}

func TestRule2BestFit(t *testing.T) {
	// Busy at t=0: p0 [300,500), p1 [600,700). Gaps: [0,300) 300 B,
	// [500,600) 100 B, [700,1000) 300 B. An 80 B block takes the smallest
	// gap that holds it, [500,600), though [0,300) comes first by address.
	prog := testprog.New("p", 2).
		Block("p0", 200, "activation", 0, 1).
		Block("p1", 100, "activation", 0, 1).
		Block("n", 80, "activation", 1, 1).
		Block("m", 300, "activation", 1, 1). // both 300 B gaps fit: the lower address wins
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := fixed(t, p, map[string]state.Pos{"p0": at(300), "p1": at(600)})
	// In [500,600) both neighbours die at 1: tie. Distances to the level's
	// edges: 500 from 0, 1000-600 = 400 from the capacity: the right side is
	// nearer, so n goes to 600-80 = 520.
	assert.Equal(t, at(520), offset(t, p, lay, "n"))
	assert.Equal(t, at(0), offset(t, p, lay, "m"))
}

func TestRule4LaterDyingNeighbour(t *testing.T) {
	cases := []struct {
		name       string
		leftLast   int
		rightLast  int
		want       int64
		commentary string
	}{
		// Gap [200,500) between L = [100,200) and R = [500,600).
		{"left dies later", 3, 2, 200, "against L: n starts at 200"},
		{"right dies later", 2, 3, 500 - 50, "against R: n ends at 500, starts at 450"},
		// Same death: distance 200 to address 0 vs 1000-500 = 500 to the
		// capacity: the left side is nearer the level's edge.
		{"same death, nearer edge", 3, 3, 200, "left is nearer address 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog := testprog.New("p", 4).
				Block("E", 100, "activation", 0, 3). // [0,100)
				Block("L", 100, "activation", 0, c.leftLast).
				Block("R", 100, "activation", 0, c.rightLast).
				Block("G", 400, "activation", 0, 3). // [600,1000)
				Block("n", 50, "activation", 1, 1).
				Program()
			p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
			lay := fixed(t, p, map[string]state.Pos{"E": at(0), "L": at(100), "R": at(500), "G": at(600)})
			assert.Equal(t, at(c.want), offset(t, p, lay, "n"), c.commentary)
		})
	}
}

func TestRule4LevelEdgeNeverDies(t *testing.T) {
	// Busy: R = [300,1000) dying at 5. The gap [0,300) has the level's
	// edge on its left, which never dies, and R on its right: n goes
	// against the edge, at 0.
	prog := testprog.New("p", 6).
		Block("R", 700, "activation", 0, 5).
		Block("n", 50, "activation", 1, 1).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := fixed(t, p, map[string]state.Pos{"R": at(300)})
	assert.Equal(t, at(0), offset(t, p, lay, "n"))

	// Mirror: L = [0,700) dying at 5; the gap [700,1000) has the capacity
	// on its right: n goes against it, at 1000-50 = 950.
	prog = testprog.New("p", 6).
		Block("L", 700, "activation", 0, 5).
		Block("n", 50, "activation", 1, 1).
		Program()
	p = testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay = fixed(t, p, map[string]state.Pos{"L": at(0)})
	assert.Equal(t, at(950), offset(t, p, lay, "n"))
}

func TestRule4EmptyLevelGoesLow(t *testing.T) {
	// Both sides are level edges: a tie, equally near; the lower address.
	prog := testprog.New("p", 1).Block("n", 50, "activation", 0, 0).Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := state.NewLayout(1)
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	assert.Equal(t, at(0), offset(t, p, lay, "n"))
}

func TestBoundaryAlignment(t *testing.T) {
	// Level alignment 64. Busy: A = [0,192) (3 x 64), B = [512,960).
	// Gaps [192,512) and [960,1000) (40 B, too small). n (100 B -> footprint 128) against R, which dies
	// later: the highest aligned start with 128 B before 512 is 384.
	lv := testprog.Level{Name: "L", Capacity: 1000, Align: 64, Latency: 1, Bandwidth: 1}
	prog := testprog.New("p", 4).
		Block("A", 192, "activation", 0, 1).
		Block("B", 448, "activation", 0, 3).
		Block("n", 100, "activation", 1, 1).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", lv))
	lay := fixed(t, p, map[string]state.Pos{"A": at(0), "B": at(512)})
	assert.Equal(t, at(384), offset(t, p, lay, "n"))
	// The capacity 1000 is not a multiple of 64: against the top edge, a
	// block ends at or below 1000 and starts aligned (1000-128 = 872 ->
	// aligned down to 832).
	prog = testprog.New("p", 4).
		Block("A", 192, "activation", 0, 3).
		Block("n", 100, "activation", 1, 1).
		Block("m", 100, "activation", 1, 1).
		Program()
	p = testprog.Bind(prog, testprog.Profile("hw", lv))
	lay = fixed(t, p, map[string]state.Pos{"A": at(0)})
	// Gap [192,1000): left A dies at 3, right edge never: n goes right at 832.
	assert.Equal(t, at(832), offset(t, p, lay, "n"))
	// Then gap [192,832): A (3) vs n (1): left, at 192.
	assert.Equal(t, at(192), offset(t, p, lay, "m"))
}

func TestRule5Reuse(t *testing.T) {
	// x (reusable, 100 B) sits at [400,500) and ends at 1. The op at 1
	// creates y (100 B): it starts at x's offset, in place, though the
	// free gaps [0,400) and [500,1000) could hold it.
	base := func(ySize int64, yKind string, xOpts ...testprog.Option) *state.Problem {
		b := testprog.New("p", 3).
			Block("x", 100, "activation", 0, 1, xOpts...).
			Block("y", ySize, yKind, 1, 1)
		return testprog.Bind(b.Program(), testprog.Profile("hw", oneLevel))
	}
	p := base(100, "activation", testprog.Reusable())
	lay := fixed(t, p, map[string]state.Pos{"x": at(400)})
	assert.Equal(t, at(400), offset(t, p, lay, "y"))

	// y larger than x (150 B): the rest [500,550) is free, so it still
	// starts at 400.
	p = base(150, "activation", testprog.Reusable())
	lay = fixed(t, p, map[string]state.Pos{"x": at(400)})
	assert.Equal(t, at(400), offset(t, p, lay, "y"))

	// Not reusable: best fit instead. Gaps at t=1: [0,400), [500,1000);
	// the smaller [0,400) holds 100 B; edge on the left never dies: at 0.
	p = base(100, "activation")
	lay = fixed(t, p, map[string]state.Pos{"x": at(400)})
	assert.Equal(t, at(0), offset(t, p, lay, "y"))

	// The kind rule: a scratch may take an activation's space...
	p = base(100, "scratch", testprog.Reusable())
	lay = fixed(t, p, map[string]state.Pos{"x": at(400)})
	assert.Equal(t, at(400), offset(t, p, lay, "y"))

	// ...but a constant never reuses (constants are loaded before the run).
	b := testprog.New("p", 3).
		Block("x", 100, "activation", 0, 1, testprog.Reusable()).
		Block("y", 100, "activation", 1, 2).
		Block("c", 100, "constant", 0, 2, testprog.Reads(2))
	p = testprog.Bind(b.Program(), testprog.Profile("hw", oneLevel))
	lay = fixed(t, p, map[string]state.Pos{"x": at(400), "c": at(0)})
	assert.Equal(t, at(400), offset(t, p, lay, "y"))
}

func TestRule5LargerBlockNeedsFreeTail(t *testing.T) {
	// x (reusable) at [400,500), z busy at [500,600): y of 150 B cannot
	// extend past x, so it does not reuse. Gaps at 1: [0,400) and
	// [600,1000), both 400 B: the lower address, against the level edge.
	prog := testprog.New("p", 3).
		Block("x", 100, "activation", 0, 1, testprog.Reusable()).
		Block("z", 100, "activation", 0, 2).
		Block("y", 150, "activation", 1, 1).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := fixed(t, p, map[string]state.Pos{"x": at(400), "z": at(500)})
	assert.Equal(t, at(0), offset(t, p, lay, "y"))
}

func TestRule5ScratchSpaceOnlyToOutputs(t *testing.T) {
	// At op 1: scratch s (reusable) is placed first (scratch before
	// results), then activation a may take s's space; a second scratch
	// s2 may not (scratch space goes only to activations and outputs).
	prog := testprog.New("p", 3).
		Block("a", 64, "activation", 1, 2).
		Block("s2", 64, "scratch", 1, 1).
		Block("s", 64, "scratch", 1, 1, testprog.Reusable()).
		Block("E", 500, "activation", 0, 2). // [0,500)
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := state.NewLayout(p.Blocks())
	lay.SetFirst(3, state.Seg{From: 0, Level: 0, Offset: 0})
	_, err := actions.NewInitializerOrder(p, actions.KindOrder).Run(lay, 1)
	require.NoError(t, err)
	// In kind order scratches go first, in block order: s2 then s. Gap [500,1000): left E
	// (dies 2), right edge (never): s2 -> [936,1000). Then gap [500,936):
	// E (2) vs s2 (1): left, s -> [500,564). Then a reuses s: [500,564).
	assert.Equal(t, at(936), offset(t, p, lay, "s2"))
	assert.Equal(t, at(500), offset(t, p, lay, "s"))
	assert.Equal(t, at(500), offset(t, p, lay, "a"))

	// In workload order a comes first, while s does not exist yet: gap
	// [500,1000), E (2) vs edge: right, a -> [936,1000); s2: gap [500,936),
	// E (2) vs a (2): tie; 500 from 0 vs 64 from the capacity: right,
	// [872,936); s: E (2) vs s2 (1): left, [500,564).
	lay = fixed(t, p, map[string]state.Pos{"E": at(0)})
	assert.Equal(t, at(936), offset(t, p, lay, "a"))
	assert.Equal(t, at(872), offset(t, p, lay, "s2"))
	assert.Equal(t, at(500), offset(t, p, lay, "s"))
}

func TestNoReuseOption(t *testing.T) {
	prog := testprog.New("p", 2).
		Block("x", 100, "activation", 0, 1, testprog.Reusable()).
		Block("y", 100, "activation", 1, 1).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := state.NewLayout(p.Blocks())
	in := actions.NewInitializer(p)
	in.NoReuse = true
	_, err := in.Run(lay, 0)
	require.NoError(t, err)
	// x at [0,100) (empty level: low). y: gap [100,1000), left x dies at 1,
	// right edge never: against the edge, at 900.
	assert.Equal(t, at(900), offset(t, p, lay, "y"))
}

func TestFreeingMergesNeighbours(t *testing.T) {
	// a [0,300) dies at 0, b [300,600) dies at 0: at t=1 both are freed
	// and merge with [600,1000) into one 1000 B gap; n (900 B) fits only
	// because the three spaces merged.
	prog := testprog.New("p", 2).
		Block("a", 300, "activation", 0, 0).
		Block("b", 300, "activation", 0, 0).
		Block("n", 900, "activation", 1, 1).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := fixed(t, p, map[string]state.Pos{"a": at(0), "b": at(300)})
	assert.Equal(t, at(0), offset(t, p, lay, "n"))
}

// TestSeed000OneLevel is the seed-000 worked example on one level of 8192
// bytes. Step by step:
//
//	t0 op0 2048: empty level             -> [0,2048)
//	t1 op1 2048: gap [2048,8192), op0 dies 2, edge never: right -> [6144,8192)
//	t2 op2 1024: gap [2048,6144), op0 (2) vs op1 (4): right      -> [5120,6144)
//	t3 op0 freed: gap [0,5120); edge vs op2 (3): left            -> op3 [0,2048)
//	t4 op2 freed: gap [2048,6144); op3 (4) vs op1 (4): tie; 2048 from 0,
//	   2048 from 8192: tie; lower address                        -> op4 [2048,3072)
//	t5 op1, op3 freed: gaps [0,2048), [3072,8192); op5 4096 fits only the
//	   second; op4 (5) vs edge (never): right                    -> [4096,8192)
func TestSeed000OneLevel(t *testing.T) {
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", "seed000-example.json"))
	require.NoError(t, err)
	p := testprog.Bind(prog, testprog.Profile("one", testprog.Level{Name: "MEM", Capacity: 8192, Align: 1, Latency: 1, Bandwidth: 1}))
	lay := state.NewLayout(p.Blocks())
	_, err = actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	want := map[string]int64{"op0.out": 0, "op1.out": 6144, "op2.out": 5120, "op3.out": 0, "op4.out": 2048, "op5.out": 4096}
	for name, off := range want {
		assert.Equal(t, at(off), offset(t, p, lay, name), name)
	}
	assert.Equal(t, int64(5120), prog.ComputeStats().MaxLive)
}

func TestInfeasible(t *testing.T) {
	// Two 400 B blocks live together in a 1000 B level leave gaps of
	// 100 B ([400,500) after the first... ): here a[0,400) and b[600,1000)
	// are fixed, so the 300 B block c finds only the 200 B gap.
	prog := testprog.New("p", 2).
		Block("a", 400, "activation", 0, 1).
		Block("b", 400, "activation", 0, 1).
		Block("c", 300, "activation", 1, 1).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := state.NewLayout(p.Blocks())
	lay.SetFirst(0, state.Seg{From: 0, Level: 0, Offset: 0})
	lay.SetFirst(1, state.Seg{From: 0, Level: 0, Offset: 600})
	_, err := actions.NewInitializer(p).Run(lay, 1)
	var ie *actions.InfeasibleError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, `block "c" (300 B) created at timestep 1 fits no level: L needs 300 B, largest free 200 B of 200 B free; largest blocks live there: "a" (400 B, L), "b" (400 B, L)`, err.Error())
}

// TestRunFromAnyTimestep re-runs the initializer from every timestep of its
// own plan, on every shipped workload that fits Ethos-U55: the result must
// be the same plan (re-planning is deterministic and depends only on the
// state at the start timestep).
func TestRunFromAnyTimestep(t *testing.T) {
	prof, err := profiles.Get("ethos-u55")
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join("..", "workloads", "*.json"))
	require.NoError(t, err)
	for _, f := range files {
		prog, err := workload.ReadFile(f)
		require.NoError(t, err)
		p, err := state.Bind(prog, prof, f)
		if err != nil {
			continue // fp32 networks larger than the device
		}
		full := state.NewLayout(p.Blocks())
		if _, err := actions.NewInitializer(p).Run(full, 0); err != nil {
			continue
		}
		t.Run(prog.Name, func(t *testing.T) {
			for from := 1; from < prog.Timesteps(); from++ {
				again := full.Clone()
				occ, err := actions.NewInitializer(p).Run(again, from)
				require.NoError(t, err)
				require.True(t, full.Equal(again), "from %d", from)
				require.NoError(t, occ.Check())
			}
		})
	}
}

func TestReuseOfUnplacedOneStepBlock(t *testing.T) {
	// x (input, reusable, alive only at 0) has a higher ID than a, so a
	// is placed first while x has no placement yet: no reuse, no crash.
	prog := testprog.New("p", 2).
		Block("a", 100, "activation", 0, 1).
		Block("x", 100, "input", 0, 0, testprog.Reusable()).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	// a at 0 (empty level); x: gap [100,1000), a dies at 1, edge never: 900.
	assert.Equal(t, at(0), offset(t, p, lay, "a"))
	assert.Equal(t, at(900), offset(t, p, lay, "x"))
}
