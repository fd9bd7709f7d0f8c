package actions_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
)

// fragmented is a program that the initializer cannot plan in the 1000 B
// level oneLevel, although a packing exists.
//
// At timestep 0, in workload order: a (300 B) goes to [0,300) (both sides
// of the empty level are edges: the lower address); b (400 B) to the far
// side of the gap [300,1000), [600,1000), since a dies before the level's
// edge; c (300 B) fills [300,600) exactly. At timestep 2, a and b have
// died: the free space is [0,300) and [600,1000), 700 B, but no 600 B
// piece for d.
//
// A packing: c [0,300), a [300,600), b [600,1000); at timestep 2, d
// [300,900). The bytes live are 1000 at timesteps 0 and 1 and 900 at 2.
func fragmented() *state.Problem {
	prog := testprog.New("fragmented", 3).
		Block("a", 300, "activation", 0, 1).
		Block("b", 400, "activation", 0, 1).
		Block("c", 300, "activation", 0, 2).
		Block("d", 600, "activation", 2, 2).
		Program()
	return testprog.Bind(prog, testprog.Profile("hw", oneLevel))
}

// validated writes lay as a plan with the given cost.initial and returns what
// the plan checker says, cost.initial checked by actions.VerifyInitial.
func validated(t *testing.T, p *state.Problem, lay *state.Layout, initial float64) *verify.Report {
	t.Helper()
	pl := lay.Plan(p)
	pl.Cost = plan.Cost{Initial: initial, Final: costmodel.Total(costmodel.Seed003{}, p, lay)}
	rep, err := verify.Check(p.Prog, p.HW, pl, &verify.Options{Initial: actions.VerifyInitial(context.Background(), p, costmodel.Seed003{})})
	require.NoError(t, err)
	return rep
}

func TestFallbackOneLevel(t *testing.T) {
	p := fragmented()
	_, err := actions.NewInitializer(p).Run(state.NewLayout(p.Blocks()), 0)
	var ie *actions.InfeasibleError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "d", ie.Block)
	require.Equal(t, 2, ie.Timestep)

	lay, fb, err := actions.InitialPlan(context.Background(), p, costmodel.Seed003{})
	require.NoError(t, err)
	require.NotNil(t, fb, "the initializer failed: the plan is the fallback's")
	assert.Equal(t, "d", fb.Cause.Block)
	require.Len(t, fb.Levels, 1)
	assert.Equal(t, actions.FallbackLevel{Level: 0, Blocks: 4, Peak: 1000, Packings: 1, Nodes: fb.Levels[0].Nodes}, fb.Levels[0])
	for b := range lay.Segs {
		require.Len(t, lay.Segs[b], 1, "placed once for its whole life")
	}
	// One level: every access costs latency 1 + size/bandwidth 1, a write
	// at first and a read at last: a 2*301 = 602, b 2*401 = 802, c 602,
	// d 2*601 = 1202; 602+802+602+1202 = 3208.
	const want = 3208.0
	assert.Equal(t, want, costmodel.Total(costmodel.Seed003{}, p, lay))

	// InitialCost is the fallback's cost, and the checker accepts it as
	// cost.initial, and only it.
	cost, ifb, err := actions.InitialCost(context.Background(), p, costmodel.Seed003{})
	require.NoError(t, err)
	assert.Equal(t, want, cost)
	require.NotNil(t, ifb)
	assert.Equal(t, "d", ifb.Cause.Block)
	res := validated(t, p, lay, want)
	assert.Empty(t, res.Violations)
	assert.Equal(t, want, res.InitialCost)
	res = validated(t, p, lay, want+1)
	require.Len(t, res.Violations, 1)
	assert.Equal(t, `rule 6: cost.initial 3209 differs from the cost 3208 of the fallback plan (the initializer cannot place block "d" at timestep 2)`, res.Violations[0].String())

	// The same plan again: deterministic.
	again, _, err := actions.InitialPlan(context.Background(), p, costmodel.Seed003{})
	require.NoError(t, err)
	assert.True(t, again.Equal(lay))
}

func TestFallbackSendsDown(t *testing.T) {
	// fragmented with a pinned d, a slower level, and two small blocks
	// x and y. FAST: latency 1, 10 B/cycle; SLOW: latency 10, 1 B/cycle.
	// The initializer puts a, b and c in FAST as in fragmented (FAST is
	// then full until timestep 1), and at timestep 2 d, pinned to FAST,
	// finds no 600 B there.
	prof := testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 1000, Align: 1, Latency: 1, Bandwidth: 10},
		testprog.Level{Name: "SLOW", Capacity: 4000, Align: 1, Latency: 10, Bandwidth: 1})
	prog := testprog.New("p", 4).
		Block("a", 300, "activation", 0, 1).
		Block("b", 400, "activation", 0, 1).
		Block("c", 300, "activation", 0, 3).
		Block("d", 600, "activation", 2, 3, testprog.Pin("FAST")).
		Block("x", 100, "activation", 2, 3, testprog.Reads(2, 3)).
		Block("y", 100, "activation", 2, 3).
		Program()
	p := testprog.Bind(prog, prof)
	_, err := actions.NewInitializer(p).Run(state.NewLayout(p.Blocks()), 0)
	var ie *actions.InfeasibleError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "d", ie.Block)

	// The fallback keeps d in FAST (pinned) and takes the others by their
	// saving per byte in FAST over SLOW. One access saves (10 + s) -
	// (1 + s/10) = 9 + 0.9s cycles, so n accesses save n(9/s + 0.9) per
	// byte: x 3(0.09 + 0.9) = 2.97, y 2(0.09 + 0.9) = 1.98, a and c
	// 2(0.03 + 0.9) = 1.86, b 2(0.0225 + 0.9) = 1.845. In that order,
	// while the bytes live fit: d 600 at 2-3; x 700; y 800; a 300 at 0-1;
	// c (0-3) would make 1100 at 2-3: sent down; b 700 at 0-1. The packer
	// packs d, x, y, a and b at once.
	lay, fb, err := actions.InitialPlan(context.Background(), p, costmodel.Seed003{})
	require.NoError(t, err)
	require.NotNil(t, fb)
	require.Len(t, fb.Levels, 2)
	assert.Equal(t, 5, fb.Levels[0].Blocks)
	assert.Equal(t, 1, fb.Levels[0].Sent)
	assert.Equal(t, 1, fb.Levels[0].Packings)
	assert.Equal(t, 1, fb.Levels[1].Blocks)
	for _, name := range []string{"a", "b", "d", "x", "y"} {
		assert.Equal(t, int32(0), offset(t, p, lay, name).Level, name)
	}
	assert.Equal(t, int32(1), offset(t, p, lay, "c").Level)
	// FAST: a 2(1+30) = 62, b 2(1+40) = 82, d 2(1+60) = 122, x 3(1+10) =
	// 33, y 2(1+10) = 22; SLOW: c 2(10+300) = 620. 62+82+122+33+22+620 = 941.
	assert.Equal(t, 941.0, costmodel.Total(costmodel.Seed003{}, p, lay))
	res := validated(t, p, lay, 941)
	assert.Empty(t, res.Violations)
	assert.Contains(t, fb.Describe(p), "FAST 5 blocks, 1 sent down (1 packing, ")
}

func TestFallbackFails(t *testing.T) {
	// a is reusable, but b, an input, may not take over its space (the
	// kind rule), so the initializer finds 400 B for b's 600 at timestep
	// 1. CheckCapacity lets it through (it does not apply the kind rule:
	// 1200 - 600 reusable <= 1000), and the fallback, which never reuses,
	// needs 1200 B there: no plan.
	prog := testprog.New("p", 2).
		Block("a", 600, "activation", 0, 1, testprog.Reusable()).
		Block("b", 600, "input", 1, 1).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	require.NoError(t, p.CheckCapacity())
	_, _, err := actions.InitialPlan(context.Background(), p, costmodel.Seed003{})
	var ie *actions.InfeasibleError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, "b", ie.Block)
	assert.True(t, strings.HasSuffix(err.Error(), "; no fallback plan either: the blocks that can go nowhere but L need 1200 B at one timestep, more than its 1000 B"), err.Error())
}

// TestVerifyInitial: what the plan checker is given for cost.initial is the
// cost of the initializer's plan under the model, or of the fallback plan
// (named with its cause), or an error where neither exists.
func TestVerifyInitial(t *testing.T) {
	ctx := context.Background()
	// Two blocks of 300 B in the 1000 B level: the initializer places both.
	// a: write@0, read@1 2(1+300); b: write@1, read@1 2(1+300): 1204.
	p := testprog.Bind(testprog.New("p", 2).
		Block("a", 300, "activation", 0, 1).
		Block("b", 300, "activation", 1, 1).
		Program(), testprog.Profile("hw", oneLevel))
	cost, of, err := actions.VerifyInitial(ctx, p, costmodel.Seed003{})()
	require.NoError(t, err)
	assert.Equal(t, 1204.0, cost)
	assert.Equal(t, "the initializer's plan", of)

	cost, of, err = actions.VerifyInitial(ctx, fragmented(), costmodel.Seed003{})()
	require.NoError(t, err)
	assert.Equal(t, 3208.0, cost, "the fallback's, see TestFallbackOneLevel")
	assert.Equal(t, `the fallback plan (the initializer cannot place block "d" at timestep 2)`, of)

	// TestFallbackFails's program: no plan at all.
	p = testprog.Bind(testprog.New("p", 2).
		Block("a", 600, "activation", 0, 1, testprog.Reusable()).
		Block("b", 600, "input", 1, 1).
		Program(), testprog.Profile("hw", oneLevel))
	_, _, err = actions.VerifyInitial(ctx, p, costmodel.Seed003{})()
	var ie *actions.InfeasibleError
	require.ErrorAs(t, err, &ie)
	assert.True(t, strings.HasPrefix(err.Error(), `the initializer finds no plan (block "b" (600 B) created at timestep 1 fits no level`), err.Error())
}
