package repack_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
)

// A constant read at the end sits in the slow level: the fast level is
// taken at its start and end (f1, f2), the middle one over timesteps 2-3
// (big), all pinned, so neither holds it for its life and no exchange
// makes room. Repacking puts it in MID around a detour through FAST over
// 2-3 (FAST's only free stretch), where the two transfers cost less than
// the read from SLOW.
func TestDetour(t *testing.T) {
	build := func(slowBandwidth float64) *state.Problem {
		prog := testprog.New("p", 6).
			Block("w", 256, "constant", 0, 5, testprog.Reads(5)).
			Block("f1", 256, "activation", 0, 1, testprog.Writes(0), testprog.Reads(1), testprog.Pin("FAST")).
			Block("big", 512, "activation", 2, 3, testprog.Writes(2), testprog.Reads(3), testprog.Pin("MID")).
			Block("f2", 256, "activation", 4, 5, testprog.Writes(4), testprog.Reads(5), testprog.Pin("FAST")).
			Program()
		prof := testprog.Profile("hw",
			testprog.Level{Name: "FAST", Capacity: 256, Align: 16, Latency: 1, Bandwidth: 8},
			testprog.Level{Name: "MID", Capacity: 512, Align: 16, Latency: 2, Bandwidth: 4},
			testprog.Level{Name: "SLOW", Capacity: 4096, Align: 16, Latency: 10, Bandwidth: slowBandwidth})
		return testprog.Bind(prog, prof)
	}
	lay := &state.Layout{Segs: [][]state.Seg{
		{{From: 0, Level: 2, Offset: 0}},
		{{From: 0, Level: 0, Offset: 0}},
		{{From: 2, Level: 1, Offset: 0}},
		{{From: 4, Level: 0, Offset: 0}},
	}}
	m := costmodel.Seed003{}

	// w's read from SLOW: 10 + 256/0.5 = 522. Around the detour: MID ->
	// FAST at 2, out(MID) + in(FAST) = (2 + 256/4) + (1 + 256/8) = 99,
	// back at 4, 99 again, and the read from MID, 66: 264.
	p := build(0.5)
	res := repackChecked(t, p, lay)
	assert.Equal(t, []state.Seg{{From: 0, Level: 1, Offset: 0}, {From: 2, Level: 0, Offset: 0}, {From: 4, Level: 1, Offset: 0}}, res.Layout.Segs[0])
	for b := 1; b < 4; b++ {
		assert.Equal(t, lay.Segs[b], res.Layout.Segs[b], "block %d stays", b)
	}
	assert.Equal(t, 1, res.Stats.Detoured)
	assert.InDelta(t, costmodel.Total(m, p, lay)-522+264, res.Cost, 1e-9)
	assert.InDelta(t, costmodel.Total(m, p, res.Layout), res.Cost, 1e-9)
	require.Equal(t, 2, res.Layout.Transfers())
	pl := res.Layout.Plan(p)
	pl.Cost = plan.Cost{Initial: res.InputCost, Final: res.Cost}
	vr, err := verify.Check(p.Prog, p.HW, pl, nil)
	require.NoError(t, err)
	require.True(t, vr.Valid(), "%v", vr.Violations)

	// Where the read from SLOW costs less than the detour (10 + 256/2 =
	// 138), nothing changes.
	p = build(2)
	res = repackChecked(t, p, lay)
	assert.Zero(t, res.Stats.Detoured)
	assert.True(t, res.Layout.Equal(lay))
}
