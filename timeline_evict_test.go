package hieropt_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/verify"
)

// TestTimelineAsyncEviction: an activation must leave the fast level
// while the compute unit is busy, and the copy out hides behind the
// compute. FAST holds one block of 64 bytes; SLOW takes a write in 164
// cycles (latency 100) and gives a read in 74, FAST both in 65. a is
// written by op 0 and read by ops 3 and 7; ops 1-3 compute for 1000
// each; b is written by op 4 and read by ops 5 and 6 (no compute). The
// initializer keeps a in FAST and puts b in SLOW (3442); a put in SLOW
// from the start pays its slow write at op 0 (3433); a copied out
// synchronously at op 3 stalls op 3 by the copy's 229 cycles (3563).
// Copied out with its start at op 1 or 2 (after a's write at op 0), the
// copy hides behind ops 1-2, op 3 reads a from SLOW under its compute,
// and b is in FAST: 65 + 3000 + 3 x 65 + 74 = 3334. Before the prefetch
// action offered copies into slower levels, the search found 3433.
func TestTimelineAsyncEviction(t *testing.T) {
	prog := testprog.New("evict", 8).
		Block("a", 64, "activation", 0, 7, testprog.Writes(0), testprog.Reads(3, 7)).
		Block("b", 64, "activation", 4, 6, testprog.Writes(4), testprog.Reads(5, 6)).
		Program()
	for o := 1; o <= 3; o++ {
		prog.Ops[o].MACs = 1000
	}
	prof := fastSlowTimeline(t)

	r := planOK(t, context.Background(), prog, prof, &hieropt.Settings{})
	require.InDelta(t, 3442, r.Plan.Cost.Initial, 1e-9)
	require.InDelta(t, 3334, r.Plan.Cost.Final, 1e-9)
	copiedOutEarly(t, r.Plan, 3)

	// The same plan with the copy at its timestep is valid and dearer.
	sync := r.Layout.Clone()
	a, ok := r.Problem.BlockID("a")
	require.True(t, ok)
	segs := sync.Segs[a]
	require.Len(t, segs, 2)
	segs[1].Lead = 0
	require.NoError(t, sync.CheckComplete(r.Problem))
	require.InDelta(t, 3563, costmodel.Total(r.Model, r.Problem, sync), 1e-9)
	doc := sync.Plan(r.Problem)
	doc.CostModel = r.Plan.CostModel
	doc.Cost = plan.Cost{Initial: r.Plan.Cost.Initial, Final: 3563}
	rep, err := verify.Check(prog, prof, doc, nil)
	require.NoError(t, err)
	require.True(t, rep.Valid(), "%+v", rep.Violations)
}

// TestTimelineEvictIdleActivation: a block created at op 5 fits the fast
// level only if an activation idle there leaves, and the evict action
// copies that activation out with its copy issued early. FAST holds one
// block of 64 bytes (65 a write or a read); SLOW takes a write in 164 and
// gives a read in 74. a (a residual) is written by op 0 and read by ops 1
// and 8: at op 1 its copy out cannot start before op 1 (written at op 0),
// and ops 2-4 do not touch it, so no action at its own timesteps hides
// the copy. Ops 2-4 compute for 1000 each; b is written by op 5 and read
// by ops 6 and 7. The initializer keeps a in FAST and puts b in SLOW:
// 65 + 65 + 3000 + 164 + 2 x 74 + 65 = 3507 (a in SLOW and b in FAST
// costs the same; a swapped out at op 1 stalls op 1 by the copy's 229).
// Evict at op 5 puts b in FAST over a and copies a out with its start at
// op 1 (the earliest) or 2 (the copy's 229 hides behind op 4 alone, the
// latest start at or before op 4 that hides it, then also in FAST, or an
// op earlier): the copy hides behind ops 2-4, and only op 8 reads a from
// SLOW: 65 + 65 + 3000 + 3 x 65 + 74 = 3399. Evict moved only constants
// before: 3507.
func TestTimelineEvictIdleActivation(t *testing.T) {
	prog := testprog.New("residual", 9).
		Block("a", 64, "activation", 0, 8, testprog.Writes(0), testprog.Reads(1, 8)).
		Block("b", 64, "activation", 5, 7, testprog.Writes(5), testprog.Reads(6, 7)).
		Program()
	for o := 2; o <= 4; o++ {
		prog.Ops[o].MACs = 1000
	}
	prof := fastSlowTimeline(t)

	r := planOK(t, context.Background(), prog, prof, &hieropt.Settings{})
	require.InDelta(t, 3507, r.Plan.Cost.Initial, 1e-9)
	require.InDelta(t, 3399, r.Plan.Cost.Final, 1e-9)
	copiedOutEarly(t, r.Plan, 5)
	j := slices.IndexFunc(r.Plan.Placements, func(x plan.Placement) bool { return x.Block == "b" })
	require.GreaterOrEqual(t, j, 0)
	require.Equal(t, "FAST", r.Plan.Placements[j].Level, "b takes a's space")
	require.Contains(t, r.Plan.Planner, "evict")
}

// fastSlowTimeline is the tests' two-level timeline profile: FAST holds
// 64 bytes (latency 1, 1 B/cycle both ways), SLOW 4096 (reads latency 10,
// writes 100, 1 B/cycle), one MAC per cycle, one DMA channel.
func fastSlowTimeline(t *testing.T) *hw.Profile {
	t.Helper()
	prof := testprog.Profile("two",
		testprog.Level{Name: "FAST", Capacity: 64, Align: 1, Latency: 1, Bandwidth: 1},
		testprog.Level{Name: "SLOW", Capacity: 4096, Align: 1, Latency: 10, Bandwidth: 1})
	prof.Levels[1].In.Latency = 100
	prof.Compute = &hw.Compute{MACsPerUnit: 1}
	prof.CostModel = "timeline"
	require.NoError(t, prof.Validate("test"))
	return prof
}

// copiedOutEarly checks that pl copies block a FAST -> SLOW at timestep at,
// issued after a's write at op 0 and before at.
func copiedOutEarly(t *testing.T, pl *plan.Plan, at int) {
	t.Helper()
	i := slices.IndexFunc(pl.Transfers, func(x plan.Transfer) bool { return x.Block == "a" })
	require.GreaterOrEqual(t, i, 0, "a is copied out: %+v", pl.Transfers)
	tr := pl.Transfers[i]
	require.Equal(t, "FAST", tr.FromLevel)
	require.Equal(t, "SLOW", tr.ToLevel)
	require.Equal(t, at, tr.At)
	require.Less(t, tr.Start, tr.At, "the copy is issued before op %d", at)
	require.GreaterOrEqual(t, tr.Start, 1, "after a's write at op 0")
}
