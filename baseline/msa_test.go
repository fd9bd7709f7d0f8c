package baseline_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/baseline"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/state"
)

// TestMSASeedModel ranks three blocks by hand under the seed model. FAST
// (256 B, align 16) costs 1 + d/4 an access, SLOW (writable, the home of
// all three) 10 + d:
//
//	a, activation 64 B, written at 0, read at 1: saves 2 x (74 - 17) = 114,
//	   score 114 / sqrt(64) = 14.25
//	b, activation 128 B, written at 1, read at 2: saves 2 x (138 - 33) = 210,
//	   score 210 / sqrt(128) = 18.56
//	c, constant 100 B, alive 0-2, read at 2: saves 110 - 26 = 84,
//	   score 84 / sqrt(100) = 8.4
//
// So the order is b, a, c. b takes FAST [0, 128) over ops 1-2; a, over
// 0-1, the best fit beside it: [128, 192); c needs 112 B over 0-2, and
// only [192, 256) is free over all three: it stays in SLOW. With no
// compute section every op is memory-bound, so the benefit is the time
// saved.
func TestMSASeedModel(t *testing.T) {
	prog := testprog.New("msa", 3).
		Block("a", 64, "activation", 0, 1, testprog.Writes(0), testprog.Reads(1)).
		Block("b", 128, "activation", 1, 2, testprog.Writes(1), testprog.Reads(2)).
		Block("c", 100, "constant", 0, 2, testprog.Reads(2)).
		Program()
	prof := testprog.Profile("fs",
		testprog.Level{Name: "FAST", Capacity: 256, Align: 16, Latency: 1, Bandwidth: 4},
		testprog.Level{Name: "SLOW", Capacity: 4096, Align: 16, Latency: 10, Bandwidth: 1})
	p := testprog.Bind(prog, prof)
	res, err := baseline.MSA(p)
	require.NoError(t, err)
	assert.InDelta(t, 14.25, res.Score[0], 1e-12)
	assert.InDelta(t, 210/math.Sqrt(128), res.Score[1], 1e-12)
	assert.InDelta(t, 8.4, res.Score[2], 1e-12)
	assert.Equal(t, []int{1, 0, 2}, res.Order)
	assert.Equal(t, []int{0, 0, 1}, res.Level)
	assert.Equal(t, 2, res.Fast)
	assert.Equal(t, []state.Seg{{From: 0, Level: 0, Offset: 128}}, res.Layout.Segs[0])
	assert.Equal(t, []state.Seg{{From: 1, Level: 0, Offset: 0}}, res.Layout.Segs[1])
	assert.Equal(t, int32(1), res.Layout.Segs[2][0].Level)

	r, err := hieropt.Plan(context.Background(), prog, prof, &hieropt.Settings{Planner: hieropt.MSAPlanner})
	require.NoError(t, err)
	// Cost by hand: a 17 + 17, b 33 + 33, c read from SLOW 110.
	assert.InDelta(t, 210.0, r.Plan.Cost.Final, 1e-9)
}

// TestMSATimeline: under the timeline model only memory-bound ops count,
// and a constant is prefetched from its home as early as the space is
// free. FAST 256 B (1 + d/4), SLOW 4096 B (10 + d), FLASH read-only (20 +
// d), the constants' home; op 2 computes 100000 MACs at 1 a cycle, the
// other ops none.
//
//	x, activation 240 B, written at 0, read at 1 (both ops memory-bound):
//	   saves 2 x (250 - 61) = 378, score 378 / sqrt(240) = 24.4
//	d, constant 100 B, read at 3 (memory-bound): saves 120 - 26 = 94,
//	   score 9.4
//	c, constant 100 B, read at 2, which is compute-bound: m0(2) - c(2) =
//	   120 - 100000 < 0, so c is not ranked and stays in FLASH.
//
// x takes FAST [0, 240) over ops 0-1. d (112 B in FAST) could be copied
// from op 0 on (its lifetime), but FAST has only 16 B free until x dies:
// the copy starts at op 2, one op before its read (Lead 1), to offset 0.
func TestMSATimeline(t *testing.T) {
	prog := testprog.New("msa", 4).
		Block("x", 240, "activation", 0, 1, testprog.Writes(0), testprog.Reads(1)).
		Block("d", 100, "constant", 0, 3, testprog.Reads(3)).
		Block("c", 100, "constant", 0, 2, testprog.Reads(2)).
		Block("out", 16, "output", 3, 3, testprog.Writes(3), testprog.Reads()).
		Program()
	prog.Ops[2].MACs = 100000
	prof := testprog.Profile("fsf",
		testprog.Level{Name: "FAST", Capacity: 256, Align: 16, Latency: 1, Bandwidth: 4},
		testprog.Level{Name: "SLOW", Capacity: 4096, Align: 16, Latency: 10, Bandwidth: 1},
		testprog.Level{Name: "FLASH", Capacity: 4096, Align: 16, Latency: 20, Bandwidth: 1, ReadOnly: true})
	prof.Compute = &hw.Compute{MACsPerUnit: 1}
	p := testprog.BindTimeline(prog, prof)
	res, err := baseline.MSA(p)
	require.NoError(t, err)
	assert.InDelta(t, 378/math.Sqrt(240), res.Score[0], 1e-12)
	assert.InDelta(t, 9.4, res.Score[1], 1e-12)
	assert.Less(t, res.Score[2], 0.0)
	// out (16 B, written at 3 from SLOW: 26 - 5 = 21, score 5.25) comes
	// last, and fits beside d.
	assert.Equal(t, []int{0, 1, 3}, res.Order)
	assert.Equal(t, []int{0, 0, 2, 0}, res.Level)
	assert.Equal(t, []state.Seg{{From: 0, Level: 0, Offset: 0}}, res.Layout.Segs[0])
	require.Len(t, res.Layout.Segs[1], 2)
	assert.Equal(t, int32(2), res.Layout.Segs[1][0].Level, "d waits in FLASH")
	assert.Equal(t, state.Seg{From: 3, Level: 0, Offset: 0, Lead: 1}, res.Layout.Segs[1][1])
	assert.Equal(t, 1, res.Prefetched)
	assert.Equal(t, 1, res.Early)

	r, err := hieropt.Plan(context.Background(), prog, prof, &hieropt.Settings{Planner: hieropt.MSAPlanner, CostModel: "timeline"})
	require.NoError(t, err)
	require.Len(t, r.Plan.Transfers, 1)
	assert.Equal(t, 2, r.Plan.Transfers[0].Start)
	assert.Equal(t, 3, r.Plan.Transfers[0].At)

	// With a horizon of one op the copy could not start earlier anyway;
	// with x gone, it starts at 0, the first op of d's life.
	prog.Blocks[0].Size = 16
	p = testprog.BindTimeline(prog, prof)
	res, err = baseline.MSA(p)
	require.NoError(t, err)
	assert.Equal(t, state.Seg{From: 3, Level: 0, Offset: res.Layout.Segs[1][1].Offset, Lead: 3}, res.Layout.Segs[1][1])
	q, err := state.Bind(prog, prof, "test", state.Semantics{Timeline: true, Horizon: 1})
	require.NoError(t, err)
	res, err = baseline.MSA(q)
	require.NoError(t, err)
	assert.Equal(t, int32(1), res.Layout.Segs[1][1].Lead, "at most Horizon ops early")
}

// TestMSAHomeFirst: the blocks that stay home are set aside before the
// greedy pass, so a constant prefetched into a level never takes the
// space an activation whose home is that level needs (on a profile
// whose only writable level is the fast one, as the Ethos-U55's with its
// flash read-only).
func TestMSAHomeFirst(t *testing.T) {
	prog := testprog.New("home", 2).
		Block("w", 200, "constant", 0, 1, testprog.Reads(1)).
		Block("big", 192, "activation", 0, 1, testprog.Writes(0), testprog.Reads(1)).
		Program()
	prof := testprog.Profile("ro",
		testprog.Level{Name: "SRAM", Capacity: 256, Align: 16, Latency: 1, Bandwidth: 4},
		testprog.Level{Name: "FLASH", Capacity: 4096, Align: 16, Latency: 20, Bandwidth: 1, ReadOnly: true})
	p := testprog.BindTimeline(prog, prof)
	res, err := baseline.MSA(p)
	require.NoError(t, err)
	w, _ := p.BlockID("w")
	assert.Equal(t, []int{w}, res.Order, "big has no level faster than its home")
	assert.Equal(t, 1, res.Level[w], "w does not fit beside big")
	_, err = hieropt.Plan(context.Background(), prog, prof, &hieropt.Settings{Planner: hieropt.MSAPlanner, CostModel: "timeline"})
	require.NoError(t, err)
}
