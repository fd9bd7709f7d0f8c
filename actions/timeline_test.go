package actions_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// streamProfile is FAST (capacity fast B; in and out 2 + d/8) over SLOW
// (in and out 50 + d/1), with a compute unit of one MAC per cycle and no
// overhead, so that an op of m MACs takes at least m cycles.
func streamProfile(fast int64) *hw.Profile {
	prof := testprog.Profile("tl",
		testprog.Level{Name: "FAST", Capacity: fast, Align: 1, Latency: 2, Bandwidth: 8},
		testprog.Level{Name: "SLOW", Capacity: 1 << 20, Align: 1, Latency: 50, Bandwidth: 1})
	prof.Compute = &hw.Compute{MACsPerUnit: 1}
	return prof
}

// withMACs gives op t of prog macs[t] MACs.
func withMACs(prog *workload.Program, macs ...int64) *workload.Program {
	for t, m := range macs {
		prog.Ops[t].MACs = m
	}
	return prog
}

// streamProgram: 6 ops; constant w (800 B) created at 0, read at 5 only
// (its stream point); activation a (800 B) lives over [0, aLast].
func streamProgram(aLast int, macs ...int64) *workload.Program {
	return withMACs(testprog.New("s", 6).
		Block("w", 800, "constant", 0, 5, testprog.Reads(5)).
		Block("a", 800, "activation", 0, aLast).
		Program(), macs...)
}

// Worked by hand: w's read from SLOW costs out(SLOW) = 50 + 800 = 850,
// from FAST 2 + 100 = 102, so streaming it saves 748; its copy takes
// x = out(SLOW) + in(FAST) = 850 + 102 = 952.
//
// TestStreamKeptWhenItPays: FAST holds both blocks (1600 B); the ops
// before the read compute 300 cycles each (dmin(u) = 300, more than
// their accesses), so a copy started at 0 hides behind 1500 cycles:
// exposed 0 < 748. The initializer puts w in its home SLOW at 0 (no
// load) and copies it into FAST at 5 with start s* = max(FreeSince = 5
// - 32, source from 0, 5 - 32, 0) = 0: lead 5.
func TestStreamKeptWhenItPays(t *testing.T) {
	p := testprog.BindTimeline(streamProgram(5, 300, 300, 300, 300, 300, 300), streamProfile(1600))
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	w := id(t, p, "w")
	require.Len(t, lay.Segs[w], 2)
	assert.Equal(t, state.Seg{From: 0, Level: 1, Offset: lay.Segs[w][0].Offset}, lay.Segs[w][0], "first in its home, no load")
	assert.Equal(t, int32(5), lay.Segs[w][1].From)
	assert.Equal(t, int32(0), lay.Segs[w][1].Level)
	assert.Equal(t, int32(5), lay.Segs[w][1].Lead, "issued at 0")
	rep := validatedTimeline(t, p, lay)
	assert.True(t, rep.Valid(), "%v", rep.Violations)
}

// TestStreamRefusedWhenExposed: the same program with ops that compute
// nothing (no MACs, no overhead): dmin(u) is the least access cost of op
// u, 102 for the write of a (in(FAST) = 2 + 800/8) at 0 and 0 for ops 1-4.
// The copy, started at 0, is exposed 952 - 102 = 850 > 748: w stays in
// SLOW, no transfer.
func TestStreamRefusedWhenExposed(t *testing.T) {
	p := testprog.BindTimeline(streamProgram(5), streamProfile(1600))
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	w := id(t, p, "w")
	assert.Equal(t, []state.Seg{{From: 0, Level: 1, Offset: lay.Segs[w][0].Offset}}, lay.Segs[w])
	rep := validatedTimeline(t, p, lay)
	assert.True(t, rep.Valid(), "%v", rep.Violations)

	// With 200 cycles of compute in ops 0-4 the copy hides behind 1000 >
	// 952 cycles: kept.
	p = testprog.BindTimeline(streamProgram(5, 200, 200, 200, 200, 200), streamProfile(1600))
	lay = state.NewLayout(p.Blocks())
	_, err = actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	assert.Len(t, lay.Segs[w], 2)
	// With 150 (op 0: max(150, 102); 750 hidden), exposed 202 < 748: still kept, later ops
	// wait 202 cycles for it, which the read saves back.
	p = testprog.BindTimeline(streamProgram(5, 150, 150, 150, 150, 150), streamProfile(1600))
	lay = state.NewLayout(p.Blocks())
	_, err = actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	assert.Len(t, lay.Segs[w], 2)
	// With 10 (op 0 still takes 102 for its write of a: 142 hidden),
	// exposed 810 > 748: refused.
	p = testprog.BindTimeline(streamProgram(5, 10, 10, 10, 10, 10), streamProfile(1600))
	lay = state.NewLayout(p.Blocks())
	_, err = actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	assert.Len(t, lay.Segs[w], 1)
}

// TestStreamStartFromFreeSince: FAST holds 800 B, one of the blocks at a
// time; activation a holds it over [0, 2] (the initializer puts a, not
// w, there: w goes home). At 5 the range is free since 3, so s* = 3: the
// copy hides behind ops 3 and 4 (300 + 300 cycles of compute), exposed
// 952 - 600 = 352 < 748, lead 2. The plan checker agrees the reservation
// [3, 4] overlaps nothing.
func TestStreamStartFromFreeSince(t *testing.T) {
	p := testprog.BindTimeline(streamProgram(2, 300, 300, 300, 300, 300, 300), streamProfile(800))
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	w, a := id(t, p, "w"), id(t, p, "a")
	assert.Equal(t, []state.Seg{{From: 0, Level: 0, Offset: 0}}, lay.Segs[a])
	require.Len(t, lay.Segs[w], 2)
	assert.Equal(t, state.Seg{From: 5, Level: 0, Offset: 0, Lead: 2}, lay.Segs[w][1])
	rep := validatedTimeline(t, p, lay)
	assert.True(t, rep.Valid(), "%v", rep.Violations)

	// Re-planning from any timestep drops the stream and decides it
	// again, the same way.
	for from := 1; from < p.Prog.Timesteps(); from++ {
		again := lay.Clone()
		_, err := actions.NewInitializer(p).Run(again, from)
		require.NoError(t, err)
		assert.True(t, again.Equal(lay), "Run from %d: %v, want %v", from, again.Segs, lay.Segs)
	}
}

// TestLoadAtFirstRead: a constant read at its first timestep is decided
// there: loaded into FAST if that pays (here its three reads save 3 *
// 748 > the copy, exposed whole at op 0), else left home.
func TestLoadAtFirstRead(t *testing.T) {
	prog := testprog.New("l", 3).
		Block("w", 800, "constant", 0, 2, testprog.Reads(0, 1, 2)).
		Block("v", 800, "constant", 0, 0, testprog.Reads(0)).
		Program()
	p := testprog.BindTimeline(prog, streamProfile(1600))
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	w, v := id(t, p, "w"), id(t, p, "v")
	assert.Equal(t, []state.Seg{{From: 0, Level: 0, Offset: lay.Segs[w][0].Offset}}, lay.Segs[w], "w loaded at 0")
	assert.Equal(t, int32(1), lay.Segs[v][0].Level, "v (one read, 748 < 952) stays home")
	rep := validatedTimeline(t, p, lay)
	assert.True(t, rep.Valid(), "%v", rep.Violations)
}

// timelineProblem is randomProblem bound under the timeline model, with a
// compute unit and random MACs (so that copies can hide), one channel or
// two, and a horizon of 2-8 timesteps.
func timelineProblem(rng *rand.Rand, n int) (*state.Problem, bool) {
	base, ok := randomProblem(rng, n)
	if !ok {
		return nil, false
	}
	prog := *base.Prog
	prog.Ops = append([]workload.Op(nil), prog.Ops...)
	for t := range prog.Ops {
		prog.Ops[t].MACs = int64(rng.IntN(400))
	}
	prof := *base.HW
	prof.Levels = append([]hw.Level(nil), prof.Levels...)
	prof.Compute = &hw.Compute{MACsPerUnit: 1, OpOverhead: float64(rng.IntN(20))}
	prof.DMA.Channels = 1 + rng.IntN(2)
	if rng.IntN(4) == 0 && len(prof.Levels) == 3 {
		prof.Levels[1].ReadOnly = true
	}
	p, err := state.Bind(&prog, &prof, "test", state.Semantics{Timeline: true, Horizon: 2 + rng.IntN(7)})
	if err != nil || p.CheckCapacity() != nil {
		return nil, false
	}
	return p, true
}

// TestTimelineInitializerRandom runs the initializer under the timeline
// model on random problems, both orders: every plan passes the plan
// checker (rules 1-10, the timeline cost, cost.initial), no copy goes
// into a read-only level, Replay rebuilds from the layout exactly the
// occupancy OccupancyAt gives at every timestep (reservations included),
// and re-planning from any timestep (Run(lay, from)) gives the same plan.
func TestTimelineInitializerRandom(t *testing.T) {
	programs := 300
	if testmode.Quick() {
		programs = 20
	}
	planned, streamed := 0, 0
	candidatePrograms := 60
	resident := map[actions.Order]int{}
	var st propertyStats
	for seed := 0; planned < programs && seed < 20*programs; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x71e))
		p, ok := timelineProblem(rng, seed)
		if !ok {
			continue
		}
		name := fmt.Sprintf("seed %d", seed)
		for _, ord := range []actions.Order{actions.WorkloadOrder, actions.KindOrder, actions.ResidentOrder, actions.ResidentHalfOrder, actions.ResidentLevelsOrder} {
			in := actions.NewInitializerOrder(p, ord)
			lay := state.NewLayout(p.Blocks())
			if _, err := in.Run(lay, 0); err != nil {
				continue
			}
			if ord == actions.WorkloadOrder {
				planned++
			}
			rep := validatedTimeline(t, p, lay)
			require.True(t, rep.Valid(), "%s, %s order: %v", name, ord, rep.Violations)
			for b, segs := range lay.Segs {
				for i, s := range segs {
					if i > 0 || s.Lead != 0 || int(s.Level) != p.Home(b) && p.Block(b).Kind == workload.Constant {
						require.True(t, p.CopyInto(int(s.Level)), "%s: a copy of %q into read-only level %d", name, p.Block(b).Name, s.Level)
					}
					if i > 0 {
						streamed++
					}
					if s.IsResident() {
						resident[ord]++
					}
				}
			}
			occ := state.NewOccupancy(p)
			for ts := 0; ts < p.Prog.Timesteps(); ts++ {
				in.Replay(occ, lay, ts)
				want, err := state.OccupancyAt(p, lay, ts)
				require.NoError(t, err, name)
				for l := 0; l < p.Levels(); l++ {
					require.Equal(t, spansOf(want, l), spansOf(occ, l), "%s, %s order: Replay at %d, level %d", name, ord, ts, l)
				}
			}
			if planned <= candidatePrograms && (ord == actions.WorkloadOrder || ord == actions.ResidentOrder) {
				// Every candidate of every action, applied to the state:
				// the occupancy is the changed layout's (Detach releases
				// the block's reservations, the search's evict leaves
				// loaded constants alone), and re-planned the plan is
				// valid.
				initial, _, err := actions.InitialCost(context.Background(), p, costmodel.Timeline{})
				require.NoError(t, err)
				checkEveryCandidate(t, name, p, lay, ord, initial, costmodel.Timeline{}, &st)
			}
			from := 1 + rng.IntN(p.Prog.Timesteps())
			again := lay.Clone()
			_, err := in.Run(again, min(from, p.Prog.Timesteps()-1))
			require.NoError(t, err, name)
			require.True(t, again.Equal(lay), "%s, %s order: Run from %d differs", name, ord, from)
		}
	}
	require.Equal(t, programs, planned, "not enough plannable random programs")
	assert.Positive(t, streamed, "no stream in %d programs", planned)
	assert.Positive(t, resident[actions.ResidentOrder], "no resident constant")
	assert.Positive(t, resident[actions.ResidentHalfOrder], "no resident constant in half the room")
	assert.Zero(t, resident[actions.KindOrder]+resident[actions.WorkloadOrder])
	for k := actions.Kind(0); k < actions.NumKinds; k++ {
		assert.Positive(t, st.offered[k], "no %s candidate", k)
	}
	assert.Positive(t, st.early, "no evict candidate copies an idle activation out early")
	t.Logf("%d programs, %d copies, residents %v; candidates per kind %v (%d programs); idle activations evicted %d, early %d",
		planned, streamed, resident, st.offered, candidatePrograms, st.idle, st.early)
}

// TestResidentOrder: FAST holds 1600 B; activation a (800 B) lives over
// the whole run, so the blocks other than constants need 800 B there at
// their peak and the room for residents is 800 B. w1 (800 B, three
// reads) saves 3 * 748 over its 800 B, w2 (800 B, one read) 748: w1 is
// made resident, at the top of FAST (offset 800), with no load; w2 is
// left to the initializer. In half the room (400 B) neither fits. Under
// the seed model the order is the kind order.
func TestResidentOrder(t *testing.T) {
	prog := testprog.New("r", 4).
		Block("w1", 800, "constant", 0, 3, testprog.Reads(1, 2, 3)).
		Block("w2", 800, "constant", 0, 2, testprog.Reads(2)).
		Block("a", 800, "activation", 0, 3).
		Program()
	p := testprog.BindTimeline(prog, streamProfile(1600))
	w1, w2 := id(t, p, "w1"), id(t, p, "w2")
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializerOrder(p, actions.ResidentOrder).Run(lay, 0)
	require.NoError(t, err)
	assert.Equal(t, []state.Seg{{From: 0, Level: 0, Offset: 800, Lead: state.Resident}}, lay.Segs[w1])
	assert.False(t, lay.Segs[w2][0].IsResident())
	rep := validatedTimeline(t, p, lay)
	assert.True(t, rep.Valid(), "%v", rep.Violations)
	for ts := 0; ts < p.Prog.Timesteps(); ts++ {
		assert.False(t, actions.Eligible(p, lay, w1, ts), "a resident constant is not acted on")
	}

	half := state.NewLayout(p.Blocks())
	_, err = actions.NewInitializerOrder(p, actions.ResidentHalfOrder).Run(half, 0)
	require.NoError(t, err)
	kind := state.NewLayout(p.Blocks())
	_, err = actions.NewInitializerOrder(p, actions.KindOrder).Run(kind, 0)
	require.NoError(t, err)
	assert.True(t, half.Equal(kind), "no room: the kind order's plan")

	seed := testprog.Bind(prog, streamProfile(1600))
	res := state.NewLayout(seed.Blocks())
	_, err = actions.NewInitializerOrder(seed, actions.ResidentOrder).Run(res, 0)
	require.NoError(t, err)
	kind = state.NewLayout(seed.Blocks())
	_, err = actions.NewInitializerOrder(seed, actions.KindOrder).Run(kind, 0)
	require.NoError(t, err)
	assert.True(t, res.Equal(kind), "under the seed model, the kind order")
}

// TestResidentLevelsOrder: FAST holds 800 B, which activation a (800 B,
// live over the whole run) needs: no room for residents there, and
// ResidentOrder makes none. MID (writable, 2000 B; in and out 10 + d/4)
// is left whole to constants, since FAST holds a at its peak. w1 (three
// reads) saves 3 * (850 - 210) over its 800 B in MID, w2 (one read) 640:
// both fit, w1 at the top of MID (offset 1200), w2 below it (400), with
// no load. SLOW, read-only, is their home. The plan is valid and costs
// less than ResidentOrder's, which reads or streams them from SLOW.
func TestResidentLevelsOrder(t *testing.T) {
	prog := withMACs(testprog.New("rl", 4).
		Block("w1", 800, "constant", 0, 3, testprog.Reads(1, 2, 3)).
		Block("w2", 800, "constant", 0, 2, testprog.Reads(2)).
		Block("a", 800, "activation", 0, 3).
		Program(), 10, 10, 10, 10)
	prof := testprog.Profile("tl3",
		testprog.Level{Name: "FAST", Capacity: 800, Align: 1, Latency: 2, Bandwidth: 8},
		testprog.Level{Name: "MID", Capacity: 2000, Align: 1, Latency: 10, Bandwidth: 4},
		testprog.Level{Name: "SLOW", Capacity: 1 << 20, Align: 1, Latency: 50, Bandwidth: 1, ReadOnly: true})
	prof.Compute = &hw.Compute{MACsPerUnit: 1}
	p := testprog.BindTimeline(prog, prof)
	w1, w2 := id(t, p, "w1"), id(t, p, "w2")
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializerOrder(p, actions.ResidentLevelsOrder).Run(lay, 0)
	require.NoError(t, err)
	assert.Equal(t, []state.Seg{{From: 0, Level: 1, Offset: 1200, Lead: state.Resident}}, lay.Segs[w1])
	assert.Equal(t, []state.Seg{{From: 0, Level: 1, Offset: 400, Lead: state.Resident}}, lay.Segs[w2])
	rep := validatedTimeline(t, p, lay)
	assert.True(t, rep.Valid(), "%v", rep.Violations)

	fast := state.NewLayout(p.Blocks())
	_, err = actions.NewInitializerOrder(p, actions.ResidentOrder).Run(fast, 0)
	require.NoError(t, err)
	for _, b := range []int{w1, w2} {
		assert.False(t, fast.Segs[b][0].IsResident(), "no room in FAST")
	}
	m := costmodel.Timeline{}
	assert.Less(t, costmodel.Total(m, p, lay), costmodel.Total(m, p, fast))
}

// TestPrefetchCandidates: activation a (800 B) is written at 0 in SLOW and
// read at 4; ops 1-3 compute 500 cycles each (op 0 takes 850, its write
// of a to SLOW). At 4, moving a into FAST copies it in x = out(SLOW) +
// in(FAST) = 850 + 102 = 952 cycles. Prefetch offers, for each position
// in FAST, the earliest start s* = max(FreeSince = 4 - 32, the source
// from 0, the last write 0 + 1, 4 - 32, 0) = 1 (lead 3) and the start
// that just hides the copy behind ops 2-3 (500 + 500 >= 952): 2, lead 2.
// Without the ops' durations only s*; under the seed model nothing. The
// plan with the lead-2 copy passes the plan checker.
func TestPrefetchCandidates(t *testing.T) {
	prog := withMACs(testprog.New("pf", 5).
		Block("a", 800, "activation", 0, 4).
		Program(), 0, 500, 500, 500, 0)
	p := testprog.BindTimeline(prog, streamProfile(1600))
	lay := handLayout(t, p, map[string]state.Pos{"a": pos(1, 0)})
	a := id(t, p, "a")
	dur := costmodel.Timeline{}.Price(p, lay).Dur
	assert.Equal(t, 500.0, dur(2))
	leads := map[state.Pos][]int32{}
	var pick actions.Candidate
	for _, c := range candidatesOf(t, p, lay, a, 4, actions.Options{Actions: actions.TimelineAll, Dur: dur}) {
		if c.Kind == actions.Prefetch {
			assert.Equal(t, int32(0), c.To.Level)
			leads[c.To] = append(leads[c.To], c.Lead)
			pick = c
		} else {
			assert.Zero(t, c.Lead)
		}
	}
	require.NotEmpty(t, leads)
	for at, l := range leads {
		assert.Equal(t, []int32{3, 2}, l, "position %v", at)
	}
	for _, c := range candidatesOf(t, p, lay, a, 4, actions.Options{Actions: actions.TimelineAll}) {
		if c.Kind == actions.Prefetch {
			assert.Equal(t, int32(3), c.Lead, "without durations, s* only")
		}
	}
	seed := testprog.Bind(prog, streamProfile(1600))
	for _, c := range candidatesOf(t, seed, handLayout(t, seed, map[string]state.Pos{"a": pos(1, 0)}), a, 4, actions.Options{Actions: actions.TimelineAll}) {
		assert.NotEqual(t, actions.Prefetch, c.Kind, "nothing under the seed model")
	}

	occ, err := state.OccupancyAt(p, lay, 4)
	require.NoError(t, err)
	actions.Detach(occ, lay, a, 4)
	changed := lay.Clone()
	actions.Apply(occ, changed, pick)
	assert.Equal(t, []state.Seg{{From: 0, Level: 1, Offset: 0}, {From: 4, Level: 0, Offset: pick.To.Offset, Lead: 2}}, changed.Segs[a])
	rep := validatedTimeline(t, p, changed)
	assert.True(t, rep.Valid(), "%v", rep.Violations)
}

// TestRunContext: RunContext makes Run's plan when its context does not
// end, and stops with the context's error when it does.
func TestRunContext(t *testing.T) {
	prog, err := gen.Generate(gen.Options{Ops: 200, Seed: 3})
	require.NoError(t, err)
	prof, err := profiles.Load("h100-sm")
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, "w", state.Semantics{Timeline: true})
	require.NoError(t, err)
	for _, o := range []actions.Order{actions.WorkloadOrder, actions.KindOrder, actions.ResidentOrder} {
		want := state.NewLayout(p.Blocks())
		_, err := actions.NewInitializerOrder(p, o).Run(want, 0)
		require.NoError(t, err)
		got := state.NewLayout(p.Blocks())
		require.NoError(t, actions.NewInitializerOrder(p, o).RunContext(context.Background(), got))
		assert.True(t, want.Equal(got), o.Name())

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.ErrorIs(t, actions.NewInitializerOrder(p, o).RunContext(ctx, state.NewLayout(p.Blocks())), context.Canceled)
	}
}
