package state_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
)

// planProblem is a five-op program on two levels, FAST (4096 B,
// alignment 16) and SLOW (1 MiB, alignment 64):
//
//	id block  size  life
//	0  x        64  [0,0]
//	1  a0       64  [0,2]
//	2  w        32  [1,1]
//	3  a1      128  [1,3]
//	4  c        64  [2,4]
func planProblem() *state.Problem {
	prog := testprog.New("p", 5).
		Block("x", 64, "input", 0, 0).
		Block("a0", 64, "activation", 0, 2).
		Block("w", 32, "constant", 1, 1).
		Block("a1", 128, "activation", 1, 3).
		Block("c", 64, "constant", 2, 4).
		Program()
	return testprog.Bind(prog, testprog.Profile("fast-slow",
		testprog.Level{Name: "FAST", Capacity: 4096, Align: 16, Latency: 1, Bandwidth: 4},
		testprog.Level{Name: "SLOW", Capacity: 1 << 20, Align: 64, Latency: 10, Bandwidth: 1}))
}

// planLayout places planProblem's blocks: a0 moves to SLOW at 2, c
// moves inside FAST at 3, a1 moves to SLOW at 2.
func planLayout() *state.Layout {
	return &state.Layout{Segs: [][]state.Seg{
		{{From: 0, Level: 0, Offset: 0}},
		{{From: 0, Level: 0, Offset: 64}, {From: 2, Level: 1, Offset: 0}},
		{{From: 1, Level: 0, Offset: 128}},
		{{From: 1, Level: 0, Offset: 320}, {From: 2, Level: 1, Offset: 256}},
		{{From: 2, Level: 0, Offset: 512}, {From: 3, Level: 1, Offset: 128}},
	}}
}

// TestLayoutPlan: placements by block ID, then time, each to the next
// one's start or the block's last timestep; transfers by time, then block
// ID; no costs, no cost model, no planner.
func TestLayoutPlan(t *testing.T) {
	p := planProblem()
	got := planLayout().Plan(p)
	assert.Equal(t, &plan.Plan{
		Workload: "p", Hardware: "fast-slow", TimeUnit: "cycle",
		Placements: []plan.Placement{
			{Block: "x", From: 0, To: 0, Level: "FAST", Offset: 0},
			{Block: "a0", From: 0, To: 1, Level: "FAST", Offset: 64},
			{Block: "a0", From: 2, To: 2, Level: "SLOW", Offset: 0},
			{Block: "w", From: 1, To: 1, Level: "FAST", Offset: 128},
			{Block: "a1", From: 1, To: 1, Level: "FAST", Offset: 320},
			{Block: "a1", From: 2, To: 3, Level: "SLOW", Offset: 256},
			{Block: "c", From: 2, To: 2, Level: "FAST", Offset: 512},
			{Block: "c", From: 3, To: 4, Level: "SLOW", Offset: 128},
		},
		Transfers: []plan.Transfer{
			{Block: "a0", At: 2, Start: 2, FromLevel: "FAST", FromOffset: 64, ToLevel: "SLOW", ToOffset: 0},
			{Block: "a1", At: 2, Start: 2, FromLevel: "FAST", FromOffset: 320, ToLevel: "SLOW", ToOffset: 256},
			{Block: "c", At: 3, Start: 3, FromLevel: "FAST", FromOffset: 512, ToLevel: "SLOW", ToOffset: 128},
		},
	}, got)

	// A layout without moves has an empty transfer list, not a nil one
	// (the document writes "transfers": []).
	still := &state.Layout{Segs: [][]state.Seg{{{}}, {{}}, {{From: 1}}, {{From: 1}}, {{From: 2}}}}
	pl := still.Plan(p)
	assert.NotNil(t, pl.Transfers)
	assert.Empty(t, pl.Transfers)
	assert.Len(t, pl.Placements, 5)
}

// TestLayoutOf: the layout of a plan is the layout it was written from,
// whatever the order of its placements.
func TestLayoutOf(t *testing.T) {
	p := planProblem()
	lay := planLayout()
	pl := lay.Plan(p)
	got, err := state.LayoutOf(p, pl)
	require.NoError(t, err)
	assert.True(t, got.Equal(lay))

	for i, j := 0, len(pl.Placements)-1; i < j; i, j = i+1, j-1 {
		pl.Placements[i], pl.Placements[j] = pl.Placements[j], pl.Placements[i]
	}
	got, err = state.LayoutOf(p, pl)
	require.NoError(t, err)
	assert.True(t, got.Equal(lay), "placements in reverse order")
}

// TestLayoutOfBrokenPlan: on a plan that does not describe a complete
// layout of the problem, LayoutOf returns an error naming what is wrong,
// never panics.
func TestLayoutOfBrokenPlan(t *testing.T) {
	tests := []struct {
		name string
		edit func(pl *plan.Plan)
		want string
	}{
		{"another workload", func(pl *plan.Plan) { pl.Workload = "q" },
			`plan of "q" on "fast-slow" is not for "p" on "fast-slow"`},
		{"unknown block", func(pl *plan.Plan) { pl.Placements[3].Block = "zz" },
			`placements[3]: block "zz" is not in workload "p"`},
		{"unknown level", func(pl *plan.Plan) { pl.Placements[3].Level = "L3" },
			`placements[3]: level "L3" is not in hardware profile "fast-slow"`},
		{"no placement", func(pl *plan.Plan) { pl.Placements = pl.Placements[1:] },
			`block "x": the placements do not tile the lifetime [0,0] (timestep 0)`},
		{"gap", func(pl *plan.Plan) { pl.Placements[1].To = 0 },
			`block "a0": the placements do not tile the lifetime [0,2] (timestep 1)`},
		{"overlap", func(pl *plan.Plan) { pl.Placements[1].To = 2 },
			`block "a0": the placements do not tile the lifetime [0,2] (timestep 3)`},
		{"gap at the end", func(pl *plan.Plan) { pl.Placements[7].To = 3 },
			`block "c": the placements do not tile the lifetime [2,4] (timestep 4)`},
		{"before the lifetime", func(pl *plan.Plan) { pl.Placements[3].From = 0 },
			`placements[3]: block "w": timesteps [0,1] are not a placement in the lifetime [1,1]`},
		{"past the lifetime", func(pl *plan.Plan) { pl.Placements[7].To = 1 << 40 },
			`placements[7]: block "c": timesteps [3,1099511627776] are not a placement in the lifetime [2,4]`},
		{"empty", func(pl *plan.Plan) { pl.Placements[0].To = -1 },
			`placements[0]: block "x": timesteps [0,-1] are not a placement in the lifetime [0,0]`},
		{"timestep beyond int32", func(pl *plan.Plan) { pl.Placements[3].From, pl.Placements[3].To = 1<<32+1, 1<<32+1 },
			`placements[3]: block "w": timesteps [4294967297,4294967297] are not a placement in the lifetime [1,1]`},
		{"a move to the same place", func(pl *plan.Plan) { pl.Placements[2].Level, pl.Placements[2].Offset = "FAST", 64 },
			`block "a0": segment 1 does not move the block`},
		{"a prefetch", func(pl *plan.Plan) { pl.Transfers[1].Start = 1 },
			`transfers[1]: block "a1": a copy issued at timestep 1 for timestep 2 (the timeline model's) is not representable in a layout`},
		{"a load", func(pl *plan.Plan) {
			pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w", At: 1, Start: 1, FromLevel: "SLOW", ToLevel: "FAST", ToOffset: 128, Load: true})
		}, `transfers[3]: block "w": a load (the timeline model's) is not representable in a layout`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planProblem()
			pl := planLayout().Plan(p)
			tt.edit(pl)
			var lay *state.Layout
			var err error
			require.NotPanics(t, func() { lay, err = state.LayoutOf(p, pl) })
			require.Error(t, err)
			assert.Nil(t, lay)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestPlanRoundTripShippedPairs: on a layout of every shipped pair,
// LayoutOf inverts Plan.
func TestPlanRoundTripShippedPairs(t *testing.T) {
	n := 0
	for _, p := range testprog.ShippedPairs(t, "..") {
		lay := state.NewLayout(p.Blocks())
		// A layout of one segment per block at offset 0 of the slowest
		// level each block may use: not a valid plan (blocks overlap),
		// but a complete layout, which is all Plan and LayoutOf need.
		for b := range lay.Segs {
			l := p.Levels() - 1
			for !p.Allowed(b, l) {
				l--
			}
			lay.SetFirst(b, state.Seg{From: int32(p.Block(b).First), Level: int32(l)})
		}
		pl := lay.Plan(p)
		back, err := state.LayoutOf(p, pl)
		require.NoError(t, err, fmt.Sprintf("%s on %s", p.Prog.Name, p.HW.Name))
		require.True(t, back.Equal(lay))
		n++
	}
	assert.Positive(t, n)
}
