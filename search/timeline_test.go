package search_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/fuzzcheck"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// timelineModel is the registered timeline cost model.
func timelineModel(t *testing.T) costmodel.Model {
	t.Helper()
	m, ok := costmodel.Lookup("timeline")
	require.True(t, ok)
	return m
}

// TestTimelineCommittedCostIsTotal walks random small problems under the
// timeline model with Check on: after every commit the walk compares the
// committed state's running cost (each candidate re-priced by its
// parent's Pricer, the beam's pricers derived) with costmodel.Total of the
// committed layout, and its occupancy with the layout's, and panics on a
// difference. The walk's Cost is Total, never above its start, and the
// walks commit something (or the check would check nothing).
func TestTimelineCommittedCostIsTotal(t *testing.T) {
	n := 300
	if testmode.Quick() {
		n = 40
	}
	m := timelineModel(t)
	settings := []search.Settings{
		{Workers: 1, Check: true},
		{Workers: 2, Check: true, Segments: segments.Fixed(2), Beam: 8, Rounds: 2, MaxCandidates: -1},
	}
	commits, walks := 0, 0
	for i := range n {
		rng := rand.New(rand.NewPCG(77, uint64(i)))
		prog, prof := fuzzcheck.Problem(rng, fuzzcheck.SmallReadOnly)
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
		in := actions.NewInitializer(p)
		lay := state.NewLayout(p.Blocks())
		if _, err := in.Run(lay, 0); err != nil {
			continue
		}
		for k, s := range settings {
			r, err := search.Walk(context.Background(), p, search.Start{Layout: lay, Initializer: in, Model: m}, &s)
			require.NoError(t, err)
			require.InDelta(t, costmodel.Total(m, p, r.Layout), r.Cost, 1e-9*max(1, r.Cost), "problem %d, settings %d", i, k)
			require.LessOrEqual(t, r.Cost, r.StartCost*(1+1e-12), "problem %d, settings %d", i, k)
			require.NoError(t, r.Layout.CheckComplete(p))
			commits += r.Stats.Commits
			walks++
		}
	}
	t.Logf("%d walks, %d commits", walks, commits)
	require.Greater(t, walks, n/3)
	require.Greater(t, commits, walks/4)
}

// TestTimelineBeatsGreedyInitializer is a problem whose initializer plan
// is bad under the timeline model, and which only exact pricing finds the
// way out of. FAST holds one block of 64 bytes. a is created at op 0 and
// read by ops 3-5; b is written at ops 1 and 2 and read at 2. The
// initializer puts a into FAST (it is first) and b, which finds FAST
// full, into SLOW: cost 65 + 74 + 148 + 3 x 1000 = 3287 (ops 3-5 compute
// for 1000, longer than any access). Putting a into SLOW at op 0 and b
// into FAST costs 74 + 65 + 130 + 3000 = 3269: a's reads in SLOW are
// hidden behind the compute of ops 3-5, only its write at op 0 costs 9
// more, and b's three accesses save 27. Priced block by block (the seed
// model's BlockCost, each block's work), the same change looks 9 dearer:
// a's four accesses cost 36 more, b's save 27; so a search that sums
// BlockCost deltas keeps the initializer's plan, and one that re-prices
// the timeline finds 3269.
func TestTimelineBeatsGreedyInitializer(t *testing.T) {
	prog := testprog.New("greedy", 6).
		Block("a", 64, "activation", 0, 5, testprog.Writes(0), testprog.Reads(3, 4, 5)).
		Block("b", 64, "activation", 1, 2, testprog.Writes(1, 2), testprog.Reads(2)).
		Program()
	for o := 3; o <= 5; o++ {
		prog.Ops[o].MACs = 1000
	}
	prof := testprog.Profile("two",
		testprog.Level{Name: "FAST", Capacity: 64, Align: 1, Latency: 1, Bandwidth: 1},
		testprog.Level{Name: "SLOW", Capacity: 4096, Align: 1, Latency: 10, Bandwidth: 1})
	prof.Compute = &hw.Compute{MACsPerUnit: 1}
	prof.CostModel = "timeline"
	p := testprog.BindTimeline(prog, prof)
	m := timelineModel(t)
	st := start(t, p, actions.WorkloadOrder, m)
	a, b := 0, 1
	require.Equal(t, int32(0), st.Layout.Segs[a][0].Level, "the initializer puts a into FAST")
	require.Equal(t, int32(1), st.Layout.Segs[b][0].Level, "and b into SLOW")
	require.InDelta(t, 3287, costmodel.Total(m, p, st.Layout), 1e-9)
	r, err := search.Walk(context.Background(), p, st, &search.Settings{Workers: 1, Check: true})
	require.NoError(t, err)
	require.InDelta(t, 3269, r.Cost, 1e-9)
	require.InDelta(t, 3269, costmodel.Total(m, p, r.Layout), 1e-9)
	require.Equal(t, int32(1), r.Layout.Segs[a][0].Level)
	require.Equal(t, int32(0), r.Layout.Segs[b][0].Level)
	require.Equal(t, workload.Activation, p.Block(a).Kind)
}

// TestTimelineReplanReachesBack walks generated 80-op programs on the
// built-in Ethos-U55 under the timeline model (the
// initializer streaming weights into SRAM up to Horizon ops early) with
// Check on. Re-planning a candidate must go on while a copy of the
// parent's later plan has its reservation start in the period the
// candidate changed: stopped as soon as the changed blocks had died, the
// walk kept such a copy where a re-planned block had been put, and broke
// (an overlap in the occupancy: cnn seed 1, mixed seeds 1 and 2).
func TestTimelineReplanReachesBack(t *testing.T) {
	prof, err := profiles.Get("ethos-u55")
	require.NoError(t, err)
	m := timelineModel(t)
	opts := []gen.Options{{Ops: 80, Mix: gen.MixCNN, Seed: 1}, {Ops: 80, Mix: gen.MixMixed, Seed: 1}, {Ops: 80, Mix: gen.MixMixed, Seed: 2}}
	if testmode.Quick() {
		opts = opts[:1]
	}
	for _, o := range opts {
		prog, err := gen.Generate(o)
		require.NoError(t, err)
		p, err := state.Bind(prog, prof, prog.Name, state.Semantics{Timeline: true})
		require.NoError(t, err)
		st := start(t, p, actions.WorkloadOrder, m)
		r, err := search.Walk(context.Background(), p, st, &search.Settings{Workers: 2, Check: true})
		require.NoError(t, err)
		require.NoError(t, r.Layout.CheckComplete(p))
		for u := range p.Prog.Timesteps() {
			_, err := state.OccupancyAt(p, r.Layout, u)
			require.NoError(t, err, "%s at %d", prog.Name, u)
		}
		require.LessOrEqual(t, r.Cost, r.StartCost)
		require.InDelta(t, costmodel.Total(m, p, r.Layout), r.Cost, 1e-9*r.Cost)
		t.Logf("%s: %d re-plans, %d timesteps re-planned, %.0f -> %.0f", prog.Name, r.Stats.Replans, r.Stats.ReplanSteps, r.StartCost, r.Cost)
	}
}

// TestTimelinePrefetchAtLastRead: a constant read once, at its last
// timestep, is what the timeline model streams, and the search must be
// able to prefetch it there although no other action may move a block at
// its last timestep. w (64 bytes) sits in its home SLOW and is read by
// op 3; ops 0-2 compute for 1000 each. Read from SLOW it costs op 3
// out(SLOW) = 74: 3074 in all. Copied into FAST for op 3 with the copy
// issued at op 0 or later (x = 74 + 65 = 139, hidden behind the ops'
// compute), op 3 reads it for 65: 3065. A synchronous copy at op 3 would
// cost 3204. The walk starts from the plan without the copy (the
// initializer's own plan streams w already).
func TestTimelinePrefetchAtLastRead(t *testing.T) {
	prog := testprog.New("last", 4).
		Block("w", 64, "constant", 0, 3, testprog.Reads(3)).
		Program()
	for o := 0; o < 3; o++ {
		prog.Ops[o].MACs = 1000
	}
	// SLOW holds w only where it is: no move at op 0 (whose re-planning
	// would reach op 3 and stream w there by the initializer's decision).
	prof := testprog.Profile("two",
		testprog.Level{Name: "FAST", Capacity: 64, Align: 1, Latency: 1, Bandwidth: 1},
		testprog.Level{Name: "SLOW", Capacity: 64, Align: 1, Latency: 10, Bandwidth: 1})
	prof.Compute = &hw.Compute{MACsPerUnit: 1}
	prof.CostModel = "timeline"
	p := testprog.BindTimeline(prog, prof)
	m := timelineModel(t)
	lay := state.NewLayout(p.Blocks())
	lay.Segs[0] = []state.Seg{{From: 0, Level: 1}}
	require.InDelta(t, 3074, costmodel.Total(m, p, lay), 1e-9)
	st := search.Start{Layout: lay, Initializer: actions.NewInitializer(p), Model: m}
	r, err := search.Walk(context.Background(), p, st, &search.Settings{Workers: 1, Check: true})
	require.NoError(t, err)
	require.InDelta(t, 3065, r.Cost, 1e-9)
	segs := r.Layout.Segs[0]
	require.Len(t, segs, 2)
	require.Equal(t, int32(1), segs[0].Level, "in SLOW until the copy")
	require.Equal(t, int32(3), segs[1].From)
	require.Equal(t, int32(0), segs[1].Level)
	require.Positive(t, segs[1].Lead, "the copy is issued before op 3")
	require.Equal(t, 1, r.Stats.Committed[actions.Prefetch])
	// With the seed's action set (no prefetch) nothing changes.
	r, err = search.Walk(context.Background(), p, st, &search.Settings{Workers: 1, Check: true, Actions: actions.All})
	require.NoError(t, err)
	require.InDelta(t, 3074, r.Cost, 1e-9)
}
