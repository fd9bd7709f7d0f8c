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
	prof := testprog.Profile("two",
		testprog.Level{Name: "FAST", Capacity: 64, Align: 1, Latency: 1, Bandwidth: 1},
		testprog.Level{Name: "SLOW", Capacity: 4096, Align: 1, Latency: 10, Bandwidth: 1})
	prof.Levels[1].In.Latency = 100
	prof.Compute = &hw.Compute{MACsPerUnit: 1}
	prof.CostModel = "timeline"
	require.NoError(t, prof.Validate("test"))

	r := planOK(t, context.Background(), prog, prof, &hieropt.Settings{})
	require.InDelta(t, 3442, r.Plan.Cost.Initial, 1e-9)
	require.InDelta(t, 3334, r.Plan.Cost.Final, 1e-9)
	i := slices.IndexFunc(r.Plan.Transfers, func(x plan.Transfer) bool { return x.Block == "a" })
	require.GreaterOrEqual(t, i, 0, "a is copied out: %+v", r.Plan.Transfers)
	tr := r.Plan.Transfers[i]
	require.Equal(t, "FAST", tr.FromLevel)
	require.Equal(t, "SLOW", tr.ToLevel)
	require.Equal(t, 3, tr.At)
	require.Less(t, tr.Start, tr.At, "the copy is issued before op 3")
	require.GreaterOrEqual(t, tr.Start, 1, "after a's write at op 0")

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
