package repack_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/repack"
	"github.com/hieropt/hieropt/state"
)

// A block read often sits in the slow level because two blocks read once
// take the fast level's room over its life: no packing of the fast level
// takes it (the max-live screen rules it out), but sending the two down
// and packing it in saves more than they lose. Repacking makes the
// exchange; the layout is valid and cheaper.
func TestExchange(t *testing.T) {
	prog := testprog.New("p", 4).
		Block("x", 256, "activation", 0, 3, testprog.Writes(0), testprog.Reads(1, 2, 3)).
		Block("a", 128, "activation", 0, 3, testprog.Writes(0), testprog.Reads(3)).
		Block("b", 128, "activation", 0, 3, testprog.Writes(0), testprog.Reads(3)).
		Program()
	p := testprog.Bind(prog, fastSlow())
	lay := &state.Layout{Segs: [][]state.Seg{
		{{From: 0, Level: 1, Offset: 0}},
		{{From: 0, Level: 0, Offset: 0}},
		{{From: 0, Level: 0, Offset: 128}},
	}}
	m := costmodel.Seed003{}
	res := repackChecked(t, p, lay)
	assert.Equal(t, int32(0), res.Layout.Segs[0][0].Level, "x promoted")
	assert.Equal(t, int32(1), res.Layout.Segs[1][0].Level, "a sent down")
	assert.Equal(t, int32(1), res.Layout.Segs[2][0].Level, "b sent down")
	assert.Equal(t, 2, res.Stats.Exchanged)
	assert.Less(t, res.Cost, costmodel.Total(m, p, lay))
	assert.InDelta(t, costmodel.Total(m, p, res.Layout), res.Cost, 1e-9)

	// Where the two lose more than the block saves, nothing changes.
	cheap := testprog.New("p", 4).
		Block("x", 256, "activation", 0, 3, testprog.Writes(0), testprog.Reads(3)).
		Block("a", 128, "activation", 0, 3, testprog.Writes(0), testprog.Reads(1, 2, 3)).
		Block("b", 128, "activation", 0, 3, testprog.Writes(0), testprog.Reads(1, 2, 3)).
		Program()
	p = testprog.Bind(cheap, fastSlow())
	res = repackChecked(t, p, lay)
	assert.Zero(t, res.Stats.Exchanged)
	assert.True(t, res.Layout.Equal(lay))
}

// Two blocks read often sit in the slow level; each alone saves less than
// the block that takes the fast level's room would lose, together more:
// repacking sends that block down and promotes both (groupExchange).
func TestGroupExchange(t *testing.T) {
	prog := testprog.New("p", 4).
		Block("x", 128, "activation", 0, 3, testprog.Writes(0), testprog.Reads(1, 2, 3)).
		Block("y", 128, "activation", 0, 3, testprog.Writes(0), testprog.Reads(1, 2, 3)).
		Block("v", 256, "activation", 0, 3, testprog.Writes(0), testprog.Reads(1, 2)).
		Program()
	p := testprog.Bind(prog, fastSlow())
	m := costmodel.Seed003{}
	lay := &state.Layout{Segs: [][]state.Seg{
		{{From: 0, Level: 1, Offset: 0}},
		{{From: 0, Level: 1, Offset: 128}},
		{{From: 0, Level: 0, Offset: 0}},
	}}
	at := func(b int, l int32) float64 {
		return m.BlockCost(p, b, []state.Seg{{From: 0, Level: l}})
	}
	saveX, loseV := at(0, 1)-at(0, 0), at(2, 1)-at(2, 0)
	require.Less(t, saveX, loseV, "one alone does not pay")
	require.Greater(t, 2*saveX, loseV, "both together do")
	res := repackChecked(t, p, lay)
	assert.Equal(t, int32(0), res.Layout.Segs[0][0].Level, "x promoted")
	assert.Equal(t, int32(0), res.Layout.Segs[1][0].Level, "y promoted")
	assert.Equal(t, int32(1), res.Layout.Segs[2][0].Level, "v sent down")
	assert.InDelta(t, costmodel.Total(m, p, lay)-2*saveX+loseV, res.Cost, 1e-9)
}

// A block written and read at once and read again after a wait, placed in
// the slow level for its life because the fast level is taken during the
// wait: repacking puts its head in the fast level and sends it down by a
// transfer after its first read (a split candidate).
func TestSplit(t *testing.T) {
	prog := testprog.New("p", 6).
		Block("r", 200, "activation", 0, 5, testprog.Writes(0), testprog.Reads(1, 5)).
		Block("z", 200, "activation", 2, 4, testprog.Writes(2), testprog.Reads(3, 4)).
		Program()
	p := testprog.Bind(prog, fastSlow())
	m := costmodel.Seed003{}
	lay := &state.Layout{Segs: [][]state.Seg{
		{{From: 0, Level: 1, Offset: 0}},
		{{From: 2, Level: 0, Offset: 0}},
	}}
	res := repackChecked(t, p, lay)
	assert.Equal(t, []state.Seg{{From: 0, Level: 0, Offset: 0}, {From: 2, Level: 1, Offset: 0}}, res.Layout.Segs[0], "r: FAST for its write and first read, then SLOW")
	assert.Equal(t, lay.Segs[1], res.Layout.Segs[1], "z stays")
	assert.Less(t, res.Cost, costmodel.Total(m, p, lay))
	assert.Equal(t, 1, res.Layout.Transfers())
}

// Four small weights (S1-S4) together save more than the weight V that
// takes FAST over their life loses; the densest candidate, P, would need V
// and E sent down, which lose more than it saves, and taking P first
// leaves no room for the small ones: the group in density order promotes
// nothing. The group smallest first promotes the four and sends V down:
// 4 x ((10 + 64) - (1 + 8)) = 260 saved, (10 + 256) - (1 + 32) = 233
// lost.
func TestGroupExchangeSmallFirst(t *testing.T) {
	prog := testprog.New("p", 4).
		Block("V", 256, "constant", 0, 1, testprog.Reads(1)).
		Block("E", 256, "activation", 2, 3, testprog.Writes(2), testprog.Reads(3)).
		Block("P", 256, "activation", 1, 2, testprog.Writes(1), testprog.Reads(2)).
		Block("S1", 64, "constant", 0, 1, testprog.Reads(1)).
		Block("S2", 64, "constant", 0, 1, testprog.Reads(1)).
		Block("S3", 64, "constant", 0, 1, testprog.Reads(1)).
		Block("S4", 64, "constant", 0, 1, testprog.Reads(1)).
		Program()
	p := testprog.Bind(prog, fastSlow())
	lay := &state.Layout{Segs: [][]state.Seg{
		{{From: 0, Level: 0, Offset: 0}},
		{{From: 2, Level: 0, Offset: 0}},
		{{From: 1, Level: 1, Offset: 0}},
		{{From: 0, Level: 1, Offset: 256}},
		{{From: 0, Level: 1, Offset: 320}},
		{{From: 0, Level: 1, Offset: 384}},
		{{From: 0, Level: 1, Offset: 448}},
	}}
	m := costmodel.Seed003{}
	res := repackChecked(t, p, lay)
	assert.Equal(t, int32(1), res.Layout.Segs[0][0].Level, "V sent down")
	assert.Equal(t, lay.Segs[1], res.Layout.Segs[1], "E stays")
	assert.Equal(t, int32(1), res.Layout.Segs[2][0].Level, "P stays down")
	for b := 3; b < 7; b++ {
		assert.Equal(t, int32(0), res.Layout.Segs[b][0].Level, "S%d promoted", b-2)
	}
	assert.InDelta(t, costmodel.Total(m, p, lay)-260+233, res.Cost, 1e-9)
}

// The block that makes room for a candidate goes where the candidate
// was: x, read often, sits in MID, and v, read once, in FAST, each level
// full with one. Exchanging them saves 4 x 33 cycles on x's accesses and
// loses 2 x 33 on v's; v sent to SLOW instead (MID as it is has no room)
// would lose 2 x 233, more than x saves.
func TestExchangeIntoTheCandidatesPlace(t *testing.T) {
	prog := testprog.New("p", 4).
		Block("x", 256, "activation", 0, 3, testprog.Writes(0), testprog.Reads(1, 2, 3)).
		Block("v", 256, "activation", 0, 3, testprog.Writes(0), testprog.Reads(3)).
		Program()
	prof := testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 256, Align: 16, Latency: 1, Bandwidth: 8},
		testprog.Level{Name: "MID", Capacity: 256, Align: 16, Latency: 2, Bandwidth: 4},
		testprog.Level{Name: "SLOW", Capacity: 4096, Align: 16, Latency: 10, Bandwidth: 1})
	p := testprog.Bind(prog, prof)
	lay := &state.Layout{Segs: [][]state.Seg{
		{{From: 0, Level: 1, Offset: 0}},
		{{From: 0, Level: 0, Offset: 0}},
	}}
	m := costmodel.Seed003{}
	res := repackChecked(t, p, lay)
	assert.Equal(t, []state.Seg{{From: 0, Level: 0, Offset: 0}}, res.Layout.Segs[0], "x in FAST")
	assert.Equal(t, []state.Seg{{From: 0, Level: 1, Offset: 0}}, res.Layout.Segs[1], "v in MID, where x was")
	assert.Equal(t, 1, res.Stats.Exchanged)
	assert.InDelta(t, costmodel.Total(m, p, lay)-4*33+2*33, res.Cost, 1e-9)
}

// repackChecked repacks lay (checking the repacker's invariants as it
// goes) and checks that the result is a complete layout whose occupancy,
// rebuilt timestep by timestep, never overlaps.
func repackChecked(t *testing.T, p *state.Problem, lay *state.Layout) *repack.Result {
	t.Helper()
	res, err := repack.Run(context.Background(), p, lay, &repack.Settings{Check: true})
	require.NoError(t, err)
	require.NoError(t, res.Layout.CheckComplete(p))
	_, err = state.OccupancyAt(p, res.Layout, p.Prog.Timesteps()-1)
	require.NoError(t, err)
	return res
}

// fastSlow is the exchange tests' machine: a 256-byte fast level over a
// slow one ten times the latency and an eighth of the bandwidth.
func fastSlow() *hw.Profile {
	return testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 256, Align: 16, Latency: 1, Bandwidth: 8},
		testprog.Level{Name: "SLOW", Capacity: 4096, Align: 16, Latency: 10, Bandwidth: 1})
}
