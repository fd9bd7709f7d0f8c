package repack_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/baseline"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/fuzzcheck"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/repack"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
)

func timelineModel(t *testing.T) costmodel.Model {
	t.Helper()
	m, ok := costmodel.Lookup("timeline")
	require.True(t, ok)
	return m
}

// TestTimelineReservation: a segment occupies its range from its copy's
// start. Constant w is loaded into FAST (64 bytes, all of it) for its
// first timestep 2 with a load issued at 0, so FAST is reserved for it
// over timesteps 0-1; activation a, alive over 0-1 in SLOW, would fit
// FAST there if w took FAST only from timestep 2. Repacking must leave a
// in SLOW (an insertion there overlaps the reservation: rule 9).
func TestTimelineReservation(t *testing.T) {
	prog := testprog.New("res", 4).
		Block("a", 64, "activation", 0, 1, testprog.Writes(0), testprog.Reads(1)).
		Block("w", 64, "constant", 2, 3, testprog.Reads(2, 3)).
		Program()
	prof := testprog.Profile("two",
		testprog.Level{Name: "FAST", Capacity: 64, Align: 1, Latency: 1, Bandwidth: 1},
		testprog.Level{Name: "SLOW", Capacity: 4096, Align: 1, Latency: 10, Bandwidth: 1})
	p := testprog.BindTimeline(prog, prof)
	lay := state.NewLayout(p.Blocks())
	lay.Segs[0] = []state.Seg{{From: 0, Level: 1, Offset: 0}}
	lay.Segs[1] = []state.Seg{{From: 2, Level: 0, Offset: 0, Lead: 2}}
	require.NoError(t, lay.CheckComplete(p))
	for u := range 4 {
		_, err := state.OccupancyAt(p, lay, u)
		require.NoError(t, err)
	}
	m := timelineModel(t)
	r, err := repack.Run(context.Background(), p, lay, &repack.Settings{CostModel: m, Check: true})
	require.NoError(t, err)
	require.Equal(t, int32(1), r.Layout.Segs[0][0].Level, "a stays in SLOW")
	for u := range 4 {
		_, err := state.OccupancyAt(p, r.Layout, u)
		require.NoError(t, err)
	}
	require.InDelta(t, costmodel.Total(m, p, r.Layout), r.Cost, 1e-9)
}

// TestTimelineNoCopyIntoReadOnly: under the timeline model a constant
// outside its home level gets there by a load, a copy; repacking never
// promotes one into a read-only level (ROM, faster than its home DRAM,
// with room), only into a writable one (FAST, when it has room).
func TestTimelineNoCopyIntoReadOnly(t *testing.T) {
	prog := testprog.New("rom", 3).
		Block("w", 64, "constant", 0, 2, testprog.Reads(0, 1, 2)).
		Block("v", 64, "constant", 0, 2, testprog.Reads(0, 1, 2)).
		Program()
	prof := testprog.Profile("three",
		testprog.Level{Name: "FAST", Capacity: 64, Align: 1, Latency: 1, Bandwidth: 4},
		testprog.Level{Name: "ROM", Capacity: 4096, Align: 1, Latency: 2, Bandwidth: 4, ReadOnly: true},
		testprog.Level{Name: "DRAM", Capacity: 4096, Align: 1, Latency: 100, Bandwidth: 1})
	p := testprog.BindTimeline(prog, prof)
	lay := state.NewLayout(p.Blocks())
	lay.Segs[0] = []state.Seg{{From: 0, Level: 2, Offset: 0}}
	lay.Segs[1] = []state.Seg{{From: 0, Level: 2, Offset: 64}}
	m := timelineModel(t)
	r, err := repack.Run(context.Background(), p, lay, &repack.Settings{CostModel: m, Check: true})
	require.NoError(t, err)
	levels := []int32{r.Layout.Segs[0][0].Level, r.Layout.Segs[1][0].Level}
	require.ElementsMatch(t, []int32{0, 2}, levels, "one constant loaded into FAST, the other left home; none in ROM")
	require.Less(t, r.Cost, r.InputCost)
	require.InDelta(t, costmodel.Total(m, p, r.Layout), r.Cost, 1e-9)
}

// TestTimelineRandom repacks the no-planning plans of random small
// problems under the timeline model (a compute section in most, 1-3 DMA
// channels, a read-only level in two of three) in checking mode: after
// every level that changed, the running cost (each change re-priced by
// the layout's Pricer, which is derived again after it) must equal
// costmodel.Total and every timestep's occupancy must build; the result
// passes the plan checker (rules 1-10, the timeline cost), never costs
// more than its input, and some get cheaper.
func TestTimelineRandom(t *testing.T) {
	n := 1000
	if testmode.Quick() {
		n = 150
	}
	m := timelineModel(t)
	repacked, cheaper := 0, 0
	for i := range n {
		rng := rand.New(rand.NewPCG(1515, uint64(i)))
		prog, prof := fuzzcheck.Problem(rng, fuzzcheck.SmallReadOnly)
		prof.CostModel = "timeline"
		prof.DMA = hw.DMA{Channels: 1 + rng.IntN(3)}
		if rng.IntN(4) > 0 {
			prof.Compute = &hw.Compute{MACsPerUnit: 1 + float64(rng.IntN(8)), OpOverhead: float64(rng.IntN(20))}
		}
		for o := range prog.Ops {
			prog.Ops[o].MACs = rng.Int64N(3000)
		}
		p, err := state.Bind(prog, prof, "random", state.Semantics{Timeline: true})
		if err != nil {
			continue
		}
		lay, err := baseline.NoPlanning(p)
		if err != nil {
			continue
		}
		r, err := repack.Run(context.Background(), p, lay, &repack.Settings{CostModel: m, Check: true, Workers: 1 + i%2})
		require.NoError(t, err)
		require.LessOrEqual(t, r.Cost, r.InputCost, "problem %d", i)
		require.InDelta(t, costmodel.Total(m, p, r.Layout), r.Cost, 1e-9*max(1, r.Cost), "problem %d", i)
		pl := r.Layout.Plan(p)
		pl.CostModel = "timeline"
		pl.Cost = plan.Cost{Initial: r.InputCost, Final: r.Cost}
		res, err := verify.Check(p.Prog, p.HW, pl, nil)
		require.NoError(t, err)
		require.True(t, res.Valid(), "problem %d: %v", i, res.Violations)
		repacked++
		if r.Cost < r.InputCost*(1-1e-12) {
			cheaper++
		}
	}
	t.Logf("%d problems: %d repacked, %d cheaper", n, repacked, cheaper)
	require.Greater(t, repacked, n/4)
	require.Greater(t, cheaper, n/20)
}
