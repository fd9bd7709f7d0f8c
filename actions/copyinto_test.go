package actions_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
)

// TestNoCopyIntoReadOnlySeed: on testdata/hw/two-level-ro.yaml (FAST over a
// read-only SLOW) under the seed model, constant w sits in FAST and is
// read at timesteps 1 and 3. At timestep 1 sending it to SLOW would be a
// transfer, a write into the read-only level: no candidate offers it, and
// none moves it inside SLOW either once it is there. At its first
// timestep its placement is free (FORMATS.md section 4): SLOW may take it.
func TestNoCopyIntoReadOnlySeed(t *testing.T) {
	prof, err := hw.ReadFile(filepath.Join("..", "testdata", "hw", "two-level-ro.yaml"))
	require.NoError(t, err)
	prog := testprog.New("p", 4).
		Block("w", 100, "constant", 0, 3, testprog.Reads(1, 3)).
		Block("a", 100, "activation", 0, 3, testprog.Reads(1, 3)).
		Program()
	p := testprog.Bind(prog, prof)
	w := id(t, p, "w")
	lay := handLayout(t, p, map[string]state.Pos{"w": pos(0, 0), "a": pos(0, 1000)})
	all := actions.Options{Actions: actions.All}
	for _, c := range candidatesOf(t, p, lay, w, 1, all) {
		assert.Equal(t, int32(0), c.To.Level, "a transfer into read-only SLOW: %+v", c)
	}
	var atFirst []int32
	for _, c := range candidatesOf(t, p, lay, w, 0, all) {
		atFirst = append(atFirst, c.To.Level)
	}
	assert.Contains(t, atFirst, int32(1), "the first placement may be in SLOW")

	inSlow := handLayout(t, p, map[string]state.Pos{"w": pos(1, 0), "a": pos(0, 1000)})
	for _, c := range candidatesOf(t, p, inSlow, w, 1, all) {
		assert.Equal(t, int32(0), c.To.Level, "a move inside read-only SLOW: %+v", c)
	}
}

// roProfile is FAST (tiny) over a read-only ROM over a writable DRAM, the
// constants' home.
func roProfile() *hw.Profile {
	return testprog.Profile("ro3",
		testprog.Level{Name: "FAST", Capacity: 150, Align: 1, Latency: 1, Bandwidth: 8},
		testprog.Level{Name: "ROM", Capacity: 10000, Align: 1, Latency: 2, Bandwidth: 4, ReadOnly: true},
		testprog.Level{Name: "DRAM", Capacity: 10000, Align: 1, Latency: 10, Bandwidth: 1})
}

// TestNoCopyIntoReadOnlyTimeline: under the timeline model a constant
// outside its home (DRAM) is loaded, a copy: the read-only ROM between
// FAST and DRAM takes none. Constant w (200 B) does not fit FAST (150 B):
// the initializer puts it in DRAM, not ROM (a load into ROM); Enumerate
// offers no place in ROM even at its first timestep; evicting constant c
// (in FAST) to make room for activation n sends c home to DRAM, not to
// ROM. The initializer's plan passes the plan checker.
func TestNoCopyIntoReadOnlyTimeline(t *testing.T) {
	prog := testprog.New("p", 4).
		Block("w", 200, "constant", 0, 2, testprog.Reads(0, 2)).
		Block("c", 100, "constant", 0, 3, testprog.Reads(3)).
		Block("n", 100, "activation", 1, 3).
		Program()
	p := testprog.BindTimeline(prog, roProfile())
	w, c, n := id(t, p, "w"), id(t, p, "c"), id(t, p, "n")

	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	for b, segs := range lay.Segs {
		for _, s := range segs {
			assert.NotEqual(t, int32(1), s.Level, "block %q in ROM", p.Block(b).Name)
		}
	}
	assert.Equal(t, int32(2), lay.Segs[w][0].Level)
	rep := validatedTimeline(t, p, lay)
	assert.True(t, rep.Valid(), "%v", rep.Violations)

	all := actions.Options{Actions: actions.All}
	for _, cand := range candidatesOf(t, p, lay, w, 0, all) {
		assert.NotEqual(t, int32(1), cand.To.Level, "a load into ROM: %+v", cand)
	}

	hand := handLayout(t, p, map[string]state.Pos{"w": pos(2, 0), "c": pos(0, 0), "n": pos(2, 1000)})
	occ, err := state.OccupancyAt(p, hand, 1)
	require.NoError(t, err)
	actions.Detach(occ, hand, n, 1)
	found := 0
	actions.EnumerateEvict(occ, hand, n, 1, all, unitPrice, usedSpace(p, hand), func(cand actions.Candidate) {
		require.Len(t, cand.Evicted, 1)
		assert.Equal(t, c, cand.Evicted[0].Block)
		assert.Equal(t, int32(2), cand.Evicted[0].To.Level, "c goes home, not into ROM")
		found++
	})
	assert.Equal(t, 1, found)
}

// validatedTimeline writes lay, a layout of a timeline problem, as a plan
// under the timeline model, cost.initial the initializer's, and returns
// what the plan checker says.
func validatedTimeline(t *testing.T, p *state.Problem, lay *state.Layout) *verify.Report {
	t.Helper()
	require.NoError(t, lay.CheckComplete(p))
	m := costmodel.Timeline{}
	initial, _, err := actions.InitialCost(context.Background(), p, m)
	require.NoError(t, err)
	pl := lay.Plan(p)
	pl.CostModel = m.Name()
	pl.Cost = plan.Cost{Initial: initial, Final: costmodel.Total(m, p, lay)}
	rep, err := verify.Check(p.Prog, p.HW, pl, &verify.Options{Initial: actions.VerifyInitial(context.Background(), p, m)})
	require.NoError(t, err)
	return rep
}

// TestNoLevelWithoutCopyIntoReadOnly: under the timeline model a constant
// too large for its home (DRAM, 100 B) that fits only the read-only ROM
// cannot be placed (a load into ROM is a copy it cannot take): the
// initializer and the fallback say so, an error and no panic. Under the
// seed model its first placement in ROM is free.
func TestNoLevelWithoutCopyIntoReadOnly(t *testing.T) {
	prof := testprog.Profile("ro",
		testprog.Level{Name: "ROM", Capacity: 10000, Align: 1, Latency: 2, Bandwidth: 4, ReadOnly: true},
		testprog.Level{Name: "DRAM", Capacity: 100, Align: 1, Latency: 10, Bandwidth: 1})
	prog := testprog.New("p", 2).Block("w", 200, "constant", 0, 1, testprog.Reads(1)).Program()
	p := testprog.BindTimeline(prog, prof)
	_, _, err := actions.InitialPlan(context.Background(), p, costmodel.Timeline{})
	var ie *actions.InfeasibleError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, ie.Error(), `no fallback plan either: constant "w" fits no level it may be put in without a copy into a read-only level (its home "DRAM" cannot hold it)`)

	lay, _, err := actions.InitialPlan(context.Background(), testprog.Bind(prog, prof), costmodel.Seed003{})
	require.NoError(t, err)
	assert.Equal(t, int32(0), lay.Segs[0][0].Level)
}
