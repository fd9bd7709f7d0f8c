package actions_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// ---------------------------------------------------------------------------
// Helpers

// spansOf lists the busy spans of level l in address order.
func spansOf(o *state.Occupancy, l int) []state.Span {
	var out []state.Span
	o.Spans(l, func(s state.Span) bool { out = append(out, s); return true })
	return out
}

// materialize turns an overlay into a layout of its own: the base with
// the patch written over it. The base is not touched.
func materialize(ov *state.Overlay) *state.Layout {
	m := ov.Base().Clone()
	for _, b := range ov.Patched() {
		m.Segs[b] = slices.Clone(ov.BlockSegs(b))
	}
	return m
}

// usedSpace returns, per level, the addresses some block of lay occupies
// at some timestep, and an EvictSpace that puts evicted constants outside
// them.
func usedSpace(p *state.Problem, lay *state.Layout) actions.EvictSpace {
	used := make([]*state.Intervals, p.Levels())
	for l := range used {
		used[l] = &state.Intervals{}
	}
	for b, segs := range lay.Segs {
		for _, s := range segs {
			used[s.Level].Add(s.Offset, s.Offset+p.Foot(b, int(s.Level)))
		}
	}
	return func(l int, size, align int64, taken []state.Gap) (int64, bool) {
		return used[l].FirstFreeAvoiding(0, size, align, p.HW.Levels[l].Capacity, taken)
	}
}

func unitPrice(c, l int) float64 { return 1 }

// candidatesOf collects what Enumerate offers for block b at t (b
// detached from the occupancy of t).
func candidatesOf(t *testing.T, p *state.Problem, lay *state.Layout, b, ts int, o actions.Options) []actions.Candidate {
	t.Helper()
	occ, err := state.OccupancyAt(p, lay, ts)
	require.NoError(t, err)
	actions.Detach(occ, lay, b, ts)
	var out []actions.Candidate
	actions.Enumerate(occ, lay, b, ts, o, func(c actions.Candidate) { out = append(out, c) })
	return out
}

func id(t *testing.T, p *state.Problem, name string) int {
	t.Helper()
	b, ok := p.BlockID(name)
	require.True(t, ok, name)
	return b
}

// handLayout places every block once, by name.
func handLayout(t *testing.T, p *state.Problem, at map[string]state.Pos) *state.Layout {
	t.Helper()
	lay := state.NewLayout(p.Blocks())
	for name, pos := range at {
		b := id(t, p, name)
		lay.SetFirst(b, state.Seg{From: int32(p.Block(b).First), Level: pos.Level, Offset: pos.Offset})
	}
	require.NoError(t, lay.CheckComplete(p))
	return lay
}

func span(off, end int64, b int) state.Span { return state.Span{Off: off, End: end, Block: int32(b)} }

func pos(l int32, off int64) state.Pos { return state.Pos{Level: l, Offset: off} }

// ---------------------------------------------------------------------------
// The property test: invariants after every action.

// randomProblem builds a random program of 5-15 ops and 5-25 blocks of
// every kind (reusable ones included) on 2-3 small levels, so that the
// fast levels fill up. ok is false when the program cannot be planned.
func randomProblem(rng *rand.Rand, n int) (*state.Problem, bool) {
	T := 5 + rng.IntN(11)
	nb := 5 + rng.IntN(21)
	nl := 2 + rng.IntN(2)
	aligns := []int64{1, 4, 16, 32}
	var levels []testprog.Level
	caps := []int64{256 + int64(rng.IntN(513)), 1024 + int64(rng.IntN(1025)), 8192}
	if nl == 2 {
		caps = []int64{caps[0], 4096 + int64(rng.IntN(4097))}
	}
	for l := 0; l < nl; l++ {
		levels = append(levels, testprog.Level{
			Name: fmt.Sprintf("L%d", l), Capacity: caps[l], Align: aligns[rng.IntN(len(aligns))],
			Latency: float64(1 + 10*l), Bandwidth: float64(int(8) >> l),
		})
	}
	prof := testprog.Profile("hw", levels...)
	bld := testprog.New(fmt.Sprintf("random%d", n), T)
	kinds := []string{"input", "output", "activation", "activation", "activation", "scratch", "scratch", "constant", "constant"}
	for i := 0; i < nb; i++ {
		kind := kinds[rng.IntN(len(kinds))]
		size := int64(8 + rng.IntN(300))
		first := rng.IntN(T)
		last := first + rng.IntN(min(T-first, 5))
		var opts []testprog.Option
		switch kind {
		case "output":
			last = T - 1
		case "scratch":
			last = first
		case "input":
			if rng.IntN(2) == 0 {
				first = 0
				last = rng.IntN(min(T, 4))
			}
		case "constant":
			if rng.IntN(3) > 0 {
				first = 0
			}
			last = first + rng.IntN(T-first)
			var reads []int
			for r := first; r <= last; r++ {
				if r == last || rng.IntN(4) == 0 {
					reads = append(reads, r)
				}
			}
			if rng.IntN(8) == 0 {
				reads = nil
			}
			opts = append(opts, testprog.Reads(reads...))
		}
		if kind != "constant" && kind != "output" && rng.IntN(2) == 0 {
			opts = append(opts, testprog.Reusable())
		}
		if rng.IntN(10) == 0 {
			opts = append(opts, testprog.Pin(levels[rng.IntN(nl)].Name))
		}
		if rng.IntN(10) == 0 {
			opts = append(opts, testprog.Align([]int64{8, 64}[rng.IntN(2)]))
		}
		bld.Block(fmt.Sprintf("b%d", i), size, kind, first, last, opts...)
	}
	p, err := state.Bind(bld.Program(), prof, "test")
	if err != nil || p.CheckCapacity() != nil {
		return nil, false
	}
	return p, true
}

type propertyStats struct {
	programs, states, eligible int
	offered, infeasible        [actions.NumKinds]int
	// idle counts the evict candidates that copy an idle activation out
	// (timeline model), early is those whose copy starts before its At.
	idle, early int
}

// agree steps the initializer through the program, as Run does, and
// checks that the state it holds at every timestep is exactly what
// state.OccupancyAt rebuilds from the layout.
func agree(t *testing.T, p *state.Problem, lay *state.Layout, ord actions.Order) {
	t.Helper()
	in := actions.NewInitializerOrder(p, ord)
	again := state.NewLayout(p.Blocks())
	occ := state.NewOccupancy(p)
	for ts := 0; ts < p.Prog.Timesteps(); ts++ {
		require.NoError(t, in.Step(occ, again, ts))
		got, err := state.OccupancyAt(p, lay, ts)
		require.NoError(t, err, "OccupancyAt(%d)", ts)
		for l := 0; l < p.Levels(); l++ {
			require.Equal(t, spansOf(occ, l), spansOf(got, l), "OccupancyAt(%d), level %d", ts, l)
		}
	}
	require.True(t, again.Equal(lay), "stepping gives Run's layout")
}

// TestCandidatesKeepInvariants runs the initializer (both orders) on a few
// hundred random programs; then at every timestep, for every eligible
// block, applies every candidate of every action to a fresh copy of the
// state and checks that (a) the occupancy is well formed, (b) it is
// exactly the occupancy the changed layout gives at that timestep, and (c)
// re-planning the later timesteps gives a plan that verify.Check accepts
// with no violation.
func TestCandidatesKeepInvariants(t *testing.T) {
	programs := 300
	if testmode.Quick() {
		programs = 60
	}
	model, ok := costmodel.Lookup(costmodel.Default)
	require.True(t, ok)
	var st propertyStats
	for seed := 0; st.programs < programs && seed < 20*programs; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
		p, ok := randomProblem(rng, seed)
		if !ok {
			continue
		}
		def := state.NewLayout(p.Blocks())
		if _, err := actions.NewInitializer(p).Run(def, 0); err != nil {
			continue
		}
		initial := costmodel.Total(model, p, def)
		st.programs++
		for _, ord := range []actions.Order{actions.WorkloadOrder, actions.KindOrder} {
			lay := state.NewLayout(p.Blocks())
			if _, err := actions.NewInitializerOrder(p, ord).Run(lay, 0); err != nil {
				continue
			}
			agree(t, p, lay, ord)
			checkEveryCandidate(t, fmt.Sprintf("seed %d, %s order", seed, ord), p, lay, ord, initial, model, &st)
		}
	}
	require.Equal(t, programs, st.programs, "not enough plannable random programs")
	t.Logf("%d programs, %d (timestep, block) states, %d eligible; candidates per kind %v, infeasible re-plans %v",
		st.programs, st.states, st.eligible, st.offered, st.infeasible)
	// The generator must exercise every action of the seed models;
	// prefetch offers nothing under them.
	for k := actions.Kind(0); k < actions.NumKinds; k++ {
		if k == actions.Prefetch {
			assert.Zero(t, st.offered[k])
			continue
		}
		assert.Positive(t, st.offered[k], "no %s candidate in %d programs", k, st.programs)
	}
}

func checkEveryCandidate(t *testing.T, name string, p *state.Problem, lay *state.Layout, ord actions.Order,
	initial float64, model costmodel.Model, st *propertyStats) {
	t.Helper()
	var where string // the candidate being checked, for failure messages
	defer func() {
		if t.Failed() {
			t.Logf("%s: %s\nprogram: %s\nlayout: %v", name, where, describe(p), lay.Segs)
		}
	}()
	snapshot := lay.Clone()
	space := usedSpace(p, lay)
	opts := actions.Options{Actions: actions.All}
	if p.Timeline() {
		opts = actions.Options{Actions: actions.TimelineAll, Dur: model.Price(p, lay).Dur}
	} else {
		opts.Actions[actions.Prefetch] = true // offers nothing: checked
	}
	in := actions.NewInitializerOrder(p, ord)
	T := p.Prog.Timesteps()
	for ts := 0; ts < T; ts++ {
		occ, err := state.OccupancyAt(p, lay, ts)
		require.NoError(t, err, "OccupancyAt(%d)", ts)
		require.NoError(t, occ.Check())
		for b := 0; b < p.Blocks(); b++ {
			st.states++
			if !actions.Eligible(p, lay, b, ts) {
				continue
			}
			st.eligible++
			where = fmt.Sprintf("block %q at timestep %d: Detach", p.Block(b).Name, ts)
			detached := occ.Clone()
			actions.Detach(detached, lay, b, ts)
			require.NoError(t, detached.Check(), "Detach %q at %d", p.Block(b).Name, ts)
			var cands []actions.Candidate
			emit := func(c actions.Candidate) { cands = append(cands, c) }
			actions.Enumerate(detached, lay, b, ts, opts, emit)
			actions.EnumerateEvict(detached, lay, b, ts, opts, unitPrice, space, emit)
			for _, c := range cands {
				st.offered[c.Kind]++
				for _, e := range c.Evicted {
					if e.Copy {
						st.idle++
						if e.Lead > 0 {
							st.early++
						}
					}
				}
				where = fmt.Sprintf("block %q at timestep %d: candidate %+v", p.Block(b).Name, ts, c)
				if checkCandidate(t, p, lay, detached, in, c, initial, model) == infeasible {
					st.infeasible[c.Kind]++
				}
			}
		}
	}
	require.True(t, snapshot.Equal(lay), "the candidates changed the base layout")
}

type outcome int

const (
	checked    outcome = iota
	infeasible         // re-planning found no room for a later block
)

// checkCandidate applies c and checks invariants (a)-(c). A candidate
// whose re-planning finds no room for a later block is a failed candidate,
// which the search counts and drops.
func checkCandidate(t *testing.T, p *state.Problem, lay *state.Layout, detached *state.Occupancy, in *actions.Initializer,
	c actions.Candidate, initial float64, model costmodel.Model) outcome {
	t.Helper()
	occ := detached.Clone()
	ov := state.NewOverlay(lay)
	actions.Apply(occ, ov, c)
	// (a) The occupancy is well formed.
	require.NoError(t, occ.Check(), "(a) Check")
	// (b) It is the state the changed layout describes at c.At.
	m := materialize(ov)
	require.NoError(t, m.CheckComplete(p))
	want, err := state.OccupancyAt(p, m, c.At)
	require.NoError(t, err, "(b) OccupancyAt on the changed layout")
	for l := 0; l < p.Levels(); l++ {
		require.Equal(t, spansOf(want, l), spansOf(occ, l), "(b) level %d", l)
	}
	// (c) Re-planned from c.At+1, the plan is valid.
	final, err := in.Run(m, c.At+1)
	var ie *actions.InfeasibleError
	if errors.As(err, &ie) {
		return infeasible
	}
	require.NoError(t, err, "(c) re-planning")
	require.NoError(t, final.Check())
	pl := m.Plan(p)
	if model.Timeline() {
		pl.CostModel = model.Name()
	}
	pl.Cost = plan.Cost{Initial: initial, Final: costmodel.Total(model, p, m)}
	res, err := verify.Check(p.Prog, p.HW, pl, &verify.Options{Initial: actions.VerifyInitial(context.Background(), p, model)})
	require.NoError(t, err)
	require.Empty(t, res.Violations, "(c) verify.Check")
	require.True(t, res.Valid())
	return checked
}

// describe prints a program compactly for failure messages.
func describe(p *state.Problem) string {
	s := fmt.Sprintf("%d ops;", p.Prog.Timesteps())
	for l := range p.HW.Levels {
		lv := p.HW.Levels[l]
		s += fmt.Sprintf(" %s cap %d align %d;", lv.Name, lv.Capacity, lv.Alignment)
	}
	for b := 0; b < p.Blocks(); b++ {
		blk := p.Block(b)
		s += fmt.Sprintf("\n  %d %s %s %d [%d,%d] reads %v reusable %v pin %q align %d",
			b, blk.Name, blk.Kind, blk.Size, blk.First, blk.Last, blk.Reads, blk.Reusable, blk.Level, blk.Align)
	}
	return s
}

// ---------------------------------------------------------------------------
// Focused tests.

func TestEligible(t *testing.T) {
	prog := testprog.New("p", 3).
		Block("a", 100, "activation", 0, 2).
		Block("s", 100, "scratch", 1, 1, testprog.Reusable()).
		Block("y", 100, "activation", 1, 2).
		Block("q", 50, "scratch", 1, 1).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	// y elsewhere: s is a one-step block created at 1, eligible there.
	lay := handLayout(t, p, map[string]state.Pos{"a": at(0), "s": at(100), "y": at(300), "q": at(500)})
	a, s, y, q := id(t, p, "a"), id(t, p, "s"), id(t, p, "y"), id(t, p, "q")
	cases := []struct {
		b, t int
		want bool
		why  string
	}{
		{a, 0, true, "created at 0"},
		{a, 1, true, "lives on after 1: a transfer at 1"},
		{a, 2, false, "at its last timestep, created earlier: moving it frees nothing"},
		{s, 0, false, "not alive yet"},
		{s, 1, true, "created at 1 (and last there): its first placement can change"},
		{s, 2, false, "dead"},
		{y, 1, true, "created at 1"},
		{y, 2, false, "last timestep, created earlier"},
		{q, 1, true, "a one-step scratch that nobody reuses"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, actions.Eligible(p, lay, c.b, c.t), "%s at %d: %s", p.Block(c.b).Name, c.t, c.why)
	}
	// y takes s's space at 1 (the kind rule: scratch space goes to an
	// activation): s is not eligible any more; y and q still are.
	lay = handLayout(t, p, map[string]state.Pos{"a": at(0), "s": at(100), "y": at(100), "q": at(500)})
	assert.False(t, actions.Eligible(p, lay, s, 1), "s's space is taken at 1")
	assert.True(t, actions.Eligible(p, lay, y, 1))
	// q (a scratch) may not take a scratch's space: q at s's offset is an
	// overlap, not a reuse (Eligible reads positions only and does not
	// check overlaps), and s stays eligible by the kind rule.
	lay = handLayout(t, p, map[string]state.Pos{"a": at(0), "s": at(100), "y": at(300), "q": at(100)})
	assert.True(t, actions.Eligible(p, lay, s, 1), "a scratch does not reuse a scratch")
}

// twoGaps is a level of 1000 bytes with E = [0,100) dying at 2 and R =
// [600,700) dying at 3; n (50 B) is created at 1. The initializer puts n
// into the smallest gap, [700,1000): R dies at 3, the edge never: against
// the edge, at 950.
func twoGaps(t *testing.T, levels ...testprog.Level) (*state.Problem, *state.Layout) {
	t.Helper()
	b := testprog.New("p", 4).
		Block("E", 100, "activation", 0, 2).
		Block("R", 100, "activation", 0, 3).
		Block("n", 50, "activation", 1, 3)
	if len(levels) > 2 {
		b.Block("S", 100, "activation", 0, 3, testprog.Pin(levels[2].Name))
	}
	p := testprog.Bind(b.Program(), testprog.Profile("hw", levels...))
	place := map[string]state.Pos{"E": at(0), "R": at(600)}
	if len(levels) > 2 {
		place["S"] = pos(2, 200)
	}
	return p, fixed(t, p, place)
}

func TestEnumerateBothBoundaries(t *testing.T) {
	p, lay := twoGaps(t, oneLevel)
	n := id(t, p, "n")
	require.Equal(t, at(950), offset(t, p, lay, "n"))
	got := candidatesOf(t, p, lay, n, 1, actions.Options{Actions: actions.All})
	// With n detached at 1 the gaps are [700,1000) (300 B) and [100,600)
	// (500 B), smallest first:
	//   [700,1000): R dies 3, edge never: right, 1000-50 = 950 (n's place:
	//               skipped); the far boundary 700.
	//   [100,600):  E dies 2, R dies 3: right, 600-50 = 550; far: 100.
	var offs []int64
	for _, c := range got {
		assert.Equal(t, actions.Move, c.Kind)
		assert.Equal(t, n, c.Block)
		assert.Equal(t, 1, c.At)
		assert.Equal(t, at(950), c.From)
		assert.Equal(t, -1, c.Reused)
		assert.Empty(t, c.Evicted)
		offs = append(offs, c.To.Offset)
	}
	assert.Equal(t, []int64{700, 550, 100}, offs)

	// At 2 n lives on: moves are transfers (From is n's place at 2), with
	// the same gaps (E is still alive at 2).
	got = candidatesOf(t, p, lay, n, 2, actions.Options{Actions: actions.All})
	offs = offs[:0]
	for _, c := range got {
		assert.Equal(t, 2, c.At)
		offs = append(offs, c.To.Offset)
	}
	assert.Equal(t, []int64{700, 550, 100}, offs)

	// Move off: nothing (one level, so no swap either).
	assert.Empty(t, candidatesOf(t, p, lay, n, 1, actions.Options{Actions: actions.Set{false, true, true, true}}))
}

func TestEnumerateBoundariesAligned(t *testing.T) {
	// Alignment 64: E (100 B -> 128) at [0,128), R (50 B -> 64) at
	// [640,704); n (50 B -> 64) is created at 1. Gaps at 1: [704,1000)
	// 296 B and [128,640) 512 B, smallest first.
	//   [704,1000): R dies 3, edge never: right, AlignDown(1000-64, 64) =
	//               896 (where the initializer put n: skipped); far
	//               AlignUp(704, 64) = 704.
	//   [128,640):  E dies 2, R dies 3: right, AlignDown(640-64, 64) = 576;
	//               far AlignUp(128, 64) = 128.
	lv := testprog.Level{Name: "L", Capacity: 1000, Align: 64, Latency: 1, Bandwidth: 1}
	prog := testprog.New("p", 4).
		Block("E", 100, "activation", 0, 2).
		Block("R", 50, "activation", 0, 3).
		Block("n", 50, "activation", 1, 3).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", lv))
	lay := fixed(t, p, map[string]state.Pos{"E": at(0), "R": at(640)})
	require.Equal(t, at(896), offset(t, p, lay, "n"))
	var offs []int64
	for _, c := range candidatesOf(t, p, lay, id(t, p, "n"), 1, actions.Options{Actions: actions.All}) {
		offs = append(offs, c.To.Offset)
	}
	assert.Equal(t, []int64{704, 576, 128}, offs)
}

func TestEnumerateMaxPerActionAndLevel(t *testing.T) {
	// Three levels of 1000 B. FAST as in TestEnumerateBothBoundaries; MID
	// empty; SLOW holds S = [200,300) (pinned there).
	//   FAST (move): 700, 550, 100 (950 is n's place).
	//   MID  (swap): one gap [0,1000), both edges never die, equally near:
	//                the lower address 0; far 1000-50 = 950.
	//   SLOW (swap): [0,200): edge never vs S (3): left, 0; far 200-50 = 150.
	//                [300,1000): S (3) vs edge: right, 950; far 300.
	lv := func(name string) testprog.Level {
		return testprog.Level{Name: name, Capacity: 1000, Align: 1, Latency: 1, Bandwidth: 1}
	}
	p, lay := twoGaps(t, lv("FAST"), lv("MID"), lv("SLOW"))
	n := id(t, p, "n")
	require.Equal(t, at(950), offset(t, p, lay, "n"))
	type lk struct {
		k actions.Kind
		l int32
	}
	collect := func(max int) map[lk][]int64 {
		out := map[lk][]int64{}
		for _, c := range candidatesOf(t, p, lay, n, 1, actions.Options{Actions: actions.All, Max: max}) {
			out[lk{c.Kind, c.To.Level}] = append(out[lk{c.Kind, c.To.Level}], c.To.Offset)
		}
		return out
	}
	assert.Equal(t, map[lk][]int64{
		{actions.Move, 0}: {700, 550, 100},
		{actions.Swap, 1}: {0, 950},
		{actions.Swap, 2}: {0, 150, 950, 300},
	}, collect(0))
	// Max 1: the first of each action in each level (the skipped current
	// place does not count).
	assert.Equal(t, map[lk][]int64{
		{actions.Move, 0}: {700},
		{actions.Swap, 1}: {0},
		{actions.Swap, 2}: {0},
	}, collect(1))
	assert.Equal(t, map[lk][]int64{
		{actions.Move, 0}: {700, 550},
		{actions.Swap, 1}: {0, 950},
		{actions.Swap, 2}: {0, 150},
	}, collect(2))
	assert.Equal(t, collect(0), collect(-1), "negative Max: no cap")

	// Only swap: no move in FAST.
	got := candidatesOf(t, p, lay, n, 1, actions.Options{Actions: actions.Set{actions.Swap: true}})
	for _, c := range got {
		assert.Equal(t, actions.Swap, c.Kind)
		assert.NotEqual(t, int32(0), c.To.Level)
	}
	assert.Len(t, got, 6)
}

func TestEnumeratePinnedBlock(t *testing.T) {
	lv := func(name string) testprog.Level {
		return testprog.Level{Name: name, Capacity: 1000, Align: 1, Latency: 1, Bandwidth: 1}
	}
	prog := testprog.New("p", 2).
		Block("n", 50, "activation", 0, 1, testprog.Pin("SLOW")).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", lv("FAST"), lv("SLOW")))
	lay := state.NewLayout(1)
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	require.Equal(t, pos(1, 0), offset(t, p, lay, "n"))
	// Empty SLOW with n detached: [0,1000), low boundary 0 (n's place,
	// skipped) and the far one 950. FAST is not allowed: no swap.
	got := candidatesOf(t, p, lay, 0, 0, actions.Options{Actions: actions.All})
	require.Len(t, got, 1)
	assert.Equal(t, actions.Candidate{Kind: actions.Move, Block: 0, At: 0, From: pos(1, 0), To: pos(1, 950), Reused: -1}, got[0])
}

func TestEnumerateReuse(t *testing.T) {
	// One level of 1000 B; at timestep 1 the dying blocks are x
	// (reusable activation), s (reusable scratch) and z (not reusable).
	// y (activation) and q (scratch) are created at 1.
	// The level is 2000 B:
	//   [0,100) y, [100,350) big, [350,450) w, [500,600) x, [600,700) s,
	//   [700,800) z, [900,950) q, [950,1000) c.
	prog := testprog.New("p", 4).
		Block("x", 100, "activation", 0, 1, testprog.Reusable()).
		Block("z", 100, "activation", 0, 1).
		Block("s", 100, "scratch", 1, 1, testprog.Reusable()).
		Block("y", 100, "activation", 1, 3).
		Block("q", 50, "scratch", 1, 1).
		Block("w", 100, "activation", 0, 2, testprog.Reusable()).
		Block("big", 250, "activation", 1, 2).
		Block("c", 50, "constant", 1, 2, testprog.Reads(2)).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", testprog.Level{Name: "L", Capacity: 2000, Align: 1, Latency: 1, Bandwidth: 1}))
	lay := handLayout(t, p, map[string]state.Pos{
		"y": at(0), "big": at(100), "w": at(350), "x": at(500), "s": at(600), "z": at(700),
		"q": at(900), "c": at(950),
	})
	reuses := func(name string, ts int) []actions.Candidate {
		var out []actions.Candidate
		for _, c := range candidatesOf(t, p, lay, id(t, p, name), ts, actions.Options{Actions: actions.All}) {
			if c.Kind == actions.Reuse {
				out = append(out, c)
			}
		}
		return out
	}
	x, s := id(t, p, "x"), id(t, p, "s")
	// y may take x's space (an activation's) and s's (a scratch's), in ID
	// order; not z's (not reusable).
	assert.Equal(t, []actions.Candidate{
		{Kind: actions.Reuse, Block: id(t, p, "y"), At: 1, From: at(0), To: at(500), Reused: x},
		{Kind: actions.Reuse, Block: id(t, p, "y"), At: 1, From: at(0), To: at(600), Reused: s},
	}, reuses("y", 1))
	// q, a scratch, may take x's space but not another scratch's.
	assert.Equal(t, []actions.Candidate{
		{Kind: actions.Reuse, Block: id(t, p, "q"), At: 1, From: at(900), To: at(500), Reused: x},
	}, reuses("q", 1))
	// big (250 B) would run from x's 500 to 750, past x's end 600 where s
	// sits: no; from s's 600 to 850, past 700 where z sits: no.
	assert.Empty(t, reuses("big", 1))
	// A constant never reuses.
	assert.Empty(t, reuses("c", 1))
	// At 2 y is not at its first timestep: w (reusable, dying at 2) is no
	// reuse target; only moves.
	assert.Empty(t, reuses("y", 2))
	// Without the reuse action: none at 1 either.
	for _, c := range candidatesOf(t, p, lay, id(t, p, "y"), 1, actions.Options{Actions: actions.Set{true, true, false, true}}) {
		assert.NotEqual(t, actions.Reuse, c.Kind)
	}
}

func TestDetachGivesReusedSpaceBack(t *testing.T) {
	// x (reusable, 200 B) at [400,600) ends at 1; y (100 B) created at 1
	// reuses it: at 1 y holds [400,500) and x its tail [500,600).
	prog := testprog.New("p", 3).
		Block("x", 200, "activation", 0, 1, testprog.Reusable()).
		Block("y", 100, "activation", 1, 2).
		Block("z", 100, "activation", 0, 2).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := fixed(t, p, map[string]state.Pos{"x": at(400), "z": at(0)})
	x, y, z := id(t, p, "x"), id(t, p, "y"), id(t, p, "z")
	require.Equal(t, at(400), offset(t, p, lay, "y"), "y reuses x")
	occ, err := state.OccupancyAt(p, lay, 1)
	require.NoError(t, err)
	require.Equal(t, []state.Span{span(0, 100, z), span(400, 500, y), span(500, 600, x)}, spansOf(occ, 0))
	actions.Detach(occ, lay, y, 1)
	require.NoError(t, occ.Check())
	assert.Equal(t, []state.Span{span(0, 100, z), span(400, 600, x)}, spansOf(occ, 0), "x's whole footprint")
	// Reuse over x again is y's current place: not offered; the moves go
	// to the gaps with x whole: [100,400) and [600,1000).
	for _, c := range candidatesOf(t, p, lay, y, 1, actions.Options{Actions: actions.All}) {
		assert.NotEqual(t, actions.Reuse, c.Kind)
		assert.True(t, c.To.Offset >= 600 || c.To.Offset >= 100 && c.To.Offset+100 <= 400, "%+v", c)
	}

	// A block that reused nothing is just released.
	occ, err = state.OccupancyAt(p, lay, 1)
	require.NoError(t, err)
	actions.Detach(occ, lay, z, 1)
	assert.Equal(t, []state.Span{span(400, 500, y), span(500, 600, x)}, spansOf(occ, 0))
}

// evictProblem: FAST (650 B) is full at timestep 2, n (created at 2) sits
// in SLOW. FAST holds, at 2:
//
//	[0,100)   c1  constant, read at 3      evictable
//	[100,200) a   activation               never evicted (not a constant)
//	[200,300) c2  constant pinned to FAST  never evicted (pinned)
//	[300,400) c3  constant, read at 1, 3   never evicted at 2 (read before)
//	[400,500) c4  constant, read at 3      evictable
//	[500,600) c5  constant, read at 3      evictable
//	[600,650) free
func evictProblem(t *testing.T, nSize int64) (*state.Problem, *state.Layout) {
	t.Helper()
	prof := testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 650, Align: 1, Latency: 1, Bandwidth: 8},
		testprog.Level{Name: "SLOW", Capacity: 10000, Align: 1, Latency: 10, Bandwidth: 1})
	prog := testprog.New("p", 4).
		Block("c1", 100, "constant", 0, 3, testprog.Reads(3)).
		Block("a", 100, "activation", 0, 3).
		Block("c2", 100, "constant", 0, 3, testprog.Reads(3), testprog.Pin("FAST")).
		Block("c3", 100, "constant", 0, 3, testprog.Reads(1, 3)).
		Block("c4", 100, "constant", 0, 3, testprog.Reads(3)).
		Block("c5", 100, "constant", 0, 3, testprog.Reads(3)).
		Block("n", nSize, "activation", 2, 3).
		Program()
	p := testprog.Bind(prog, prof)
	lay := handLayout(t, p, map[string]state.Pos{
		"c1": at(0), "a": at(100), "c2": at(200), "c3": at(300), "c4": at(400), "c5": at(500),
		"n": pos(1, 0),
	})
	return p, lay
}

func evictCandidates(t *testing.T, p *state.Problem, lay *state.Layout, ts int, o actions.Options, price func(c, l int) float64) []actions.Candidate {
	t.Helper()
	n := id(t, p, "n")
	occ, err := state.OccupancyAt(p, lay, ts)
	require.NoError(t, err)
	actions.Detach(occ, lay, n, ts)
	var out []actions.Candidate
	actions.EnumerateEvict(occ, lay, n, ts, o, price, usedSpace(p, lay), func(c actions.Candidate) {
		assert.Equal(t, actions.Evict, c.Kind)
		assert.Equal(t, pos(1, 0), c.From)
		assert.Equal(t, -1, c.Reused)
		out = append(out, c)
	})
	return out
}

func TestEnumerateEvictCheapestWindow(t *testing.T) {
	p, lay := evictProblem(t, 150)
	c4, c5 := id(t, p, "c4"), id(t, p, "c5")
	// n needs 150 B. Windows over free space and evictable constants only:
	//   from c1 [0,100): a follows: no room.
	//   from c4 [400,...): c4 + c5 reach 600 >= 400+150: {c4, c5}, price 1+1 = 2.
	//   from c5 [500,...): c5 + the free [600,650) reach 650: {c5}, price 1.
	//   from the gap [600,650): the level ends first.
	// Cheapest first: 500 (price 1), then 400 (price 2). Evicted
	// constants go to SLOW outside every address used at any timestep:
	// n's own [0,150) is used, so from 150 on, one after the other.
	got := evictCandidates(t, p, lay, 2, actions.Options{Actions: actions.All}, unitPrice)
	require.Len(t, got, 2)
	assert.Equal(t, at(500), got[0].To)
	assert.Equal(t, []actions.Eviction{{Block: c5, To: pos(1, 150)}}, got[0].Evicted)
	assert.Equal(t, at(400), got[1].To)
	assert.Equal(t, []actions.Eviction{{Block: c4, To: pos(1, 150)}, {Block: c5, To: pos(1, 250)}}, got[1].Evicted)

	// Max 1: the cheapest only.
	got = evictCandidates(t, p, lay, 2, actions.Options{Actions: actions.All, Max: 1}, unitPrice)
	require.Len(t, got, 1)
	assert.Equal(t, at(500), got[0].To)

	// Prices decide, not the count: if c5 is dear, {c4, c5} still costs
	// more than {c5} alone (both contain c5); make c4 free instead.
	got = evictCandidates(t, p, lay, 2, actions.Options{Actions: actions.All}, func(c, l int) float64 {
		assert.Equal(t, 1, l, "priced for SLOW")
		if c == c4 {
			return -5
		}
		return 1
	})
	require.Len(t, got, 2)
	assert.Equal(t, at(400), got[0].To, "-5+1 = -4 < 1")
	assert.Equal(t, at(500), got[1].To)
}

func TestEnumerateEvictNeverEvictsTheWrongBlocks(t *testing.T) {
	p, lay := evictProblem(t, 100)
	c1, c4, c5 := id(t, p, "c1"), id(t, p, "c4"), id(t, p, "c5")
	// n needs 100 B: windows c1 at 0, c4 at 400, c5 at 500, each of one
	// constant. Price c1 5, c4 3, c5 1: cheapest first 500, 400, 0. a, c2
	// (pinned) and c3 (read at 1, before 2) never appear.
	price := map[int]float64{c1: 5, c4: 3, c5: 1}
	got := evictCandidates(t, p, lay, 2, actions.Options{Actions: actions.All}, func(c, l int) float64 {
		pr, ok := price[c]
		require.True(t, ok, "priced %q, which is not evictable", p.Block(c).Name)
		return pr
	})
	var offs []int64
	var evicted []int
	for _, c := range got {
		offs = append(offs, c.To.Offset)
		for _, e := range c.Evicted {
			evicted = append(evicted, e.Block)
		}
	}
	assert.Equal(t, []int64{500, 400, 0}, offs)
	assert.Equal(t, []int{c5, c4, c1}, evicted)

	// Equal prices: by address.
	offs = offs[:0]
	for _, c := range evictCandidates(t, p, lay, 2, actions.Options{Actions: actions.All}, unitPrice) {
		offs = append(offs, c.To.Offset)
	}
	assert.Equal(t, []int64{0, 400, 500}, offs)

	// Evictable reports the rules directly.
	for _, c := range []struct {
		name string
		t    int
		want bool
	}{
		{"c1", 2, true}, {"a", 2, false}, {"c2", 2, false},
		{"c3", 1, true}, {"c3", 2, false}, // read at 1: evictable until then
		{"c4", 3, true},
	} {
		assert.Equal(t, c.want, actions.Evictable(p, lay, id(t, p, c.name), c.t), "%s at %d", c.name, c.t)
	}

	// A constant with a transfer is not evictable (placed more than once).
	lay2 := lay.Clone()
	lay2.MoveAt(c1, 1, pos(1, 5000))
	assert.False(t, actions.Evictable(p, lay2, c1, 2))

	// n already in FAST: nothing to evict for.
	p3, lay3 := evictProblem(t, 50)
	lay3.SetFirst(id(t, p3, "n"), state.Seg{From: 2, Level: 0, Offset: 600})
	assert.Empty(t, evictCandidates(t, p3, lay3, 2, actions.Options{Actions: actions.All}, unitPrice))
}

func TestApplyEvict(t *testing.T) {
	p, lay := evictProblem(t, 150)
	n, c5 := id(t, p, "n"), id(t, p, "c5")
	got := evictCandidates(t, p, lay, 2, actions.Options{Actions: actions.All}, unitPrice)
	require.NotEmpty(t, got)
	occ, err := state.OccupancyAt(p, lay, 2)
	require.NoError(t, err)
	actions.Detach(occ, lay, n, 2)
	ov := state.NewOverlay(lay)
	actions.Apply(occ, ov, got[0])
	require.NoError(t, occ.Check())
	// c5 sits in SLOW for its whole life, as if loaded there; n at 500 of
	// FAST from its first timestep.
	assert.Equal(t, []state.Seg{{From: 0, Level: 1, Offset: 150}}, ov.BlockSegs(c5))
	assert.Equal(t, []state.Seg{{From: 2, Level: 0, Offset: 500}}, ov.BlockSegs(n))
	assert.Equal(t, []int{c5, n}, ov.Patched())
}

func TestParseSet(t *testing.T) {
	s, err := actions.ParseSet("move,swap")
	require.NoError(t, err)
	assert.Equal(t, actions.Set{actions.Move: true, actions.Swap: true}, s)
	assert.Equal(t, "move,swap", s.String())

	s, err = actions.ParseSet(" reuse , evict ")
	require.NoError(t, err)
	assert.Equal(t, actions.Set{actions.Reuse: true, actions.Evict: true}, s)

	s, err = actions.ParseSet(actions.All.String())
	require.NoError(t, err)
	assert.Equal(t, actions.All, s)
	assert.Equal(t, "move,swap,reuse", actions.Seed.String())

	_, err = actions.ParseSet("jump")
	assert.EqualError(t, err, `unknown action "jump" (known: move, swap, reuse, evict, prefetch)`)
	_, err = actions.ParseSet("move,,swap")
	assert.EqualError(t, err, `unknown action "" (known: move, swap, reuse, evict, prefetch)`)
}

func TestKindNames(t *testing.T) {
	var names []string
	for k := actions.Kind(0); k < actions.NumKinds; k++ {
		names = append(names, k.String())
	}
	assert.Equal(t, []string{"move", "swap", "reuse", "evict", "prefetch"}, names)
}

// TestSeed000MoveKeepsEverythingFast is the seed-000 example on FAST of
// exactly 5120 bytes over a slow level. The initializer:
//
//	t0 op0 2048: empty FAST                          -> [0,2048)
//	t1 op1 2048: gap [2048,5120), op0 dies 2, edge never: right -> [3072,5120)
//	t2 op2 1024: gap [2048,3072) exactly             -> [2048,3072)
//	t3 op3 2048: op0 freed, gap [0,2048)             -> [0,2048)
//	t4 op4 1024: op2 freed, gap [2048,3072)          -> [2048,3072)
//	t5 op5 4096: op1, op3 freed: gaps [0,2048) and [3072,5120), none
//	   holds 4096: SLOW.
//
// At timestep 1, with op1 detached, the gap is [2048,5120): the
// initializer's boundary is 3072 (op1's place, skipped), the far one 2048.
// With op1 at [2048,4096), re-planning from 2:
//
//	t2 op2: gap [4096,5120) exactly                  -> [4096,5120)
//	t3 op3: op0 freed, gap [0,2048)                  -> [0,2048)
//	t4 op4: op2 freed, gap [4096,5120)               -> [4096,5120)
//	t5 op5: op1, op3 freed: gap [0,4096)             -> [0,4096)
//
// and every block stays in FAST.
func TestSeed000MoveKeepsEverythingFast(t *testing.T) {
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", "seed000-example.json"))
	require.NoError(t, err)
	prof := testprog.Profile("two-level-5k",
		testprog.Level{Name: "FAST", Capacity: 5120, Align: 1, Latency: 2, Bandwidth: 8},
		testprog.Level{Name: "SLOW", Capacity: 1 << 20, Align: 1, Latency: 50, Bandwidth: 1})
	p := testprog.Bind(prog, prof)
	lay := state.NewLayout(p.Blocks())
	in := actions.NewInitializer(p)
	_, err = in.Run(lay, 0)
	require.NoError(t, err)
	for name, want := range map[string]state.Pos{
		"op0.out": pos(0, 0), "op1.out": pos(0, 3072), "op2.out": pos(0, 2048),
		"op3.out": pos(0, 0), "op4.out": pos(0, 2048), "op5.out": pos(1, 0),
	} {
		require.Equal(t, want, offset(t, p, lay, name), name)
	}

	op1 := id(t, p, "op1.out")
	require.True(t, actions.Eligible(p, lay, op1, 1))
	occ, err := state.OccupancyAt(p, lay, 1)
	require.NoError(t, err)
	actions.Detach(occ, lay, op1, 1)
	var move *actions.Candidate
	actions.Enumerate(occ, lay, op1, 1, actions.Options{Actions: actions.All}, func(c actions.Candidate) {
		if c.Kind == actions.Move && c.To == pos(0, 2048) && move == nil {
			move = &c
		}
	})
	require.NotNil(t, move, "a move to the far boundary 2048")
	ov := state.NewOverlay(lay)
	actions.Apply(occ, ov, *move)
	m := materialize(ov)
	_, err = in.Run(m, 2)
	require.NoError(t, err)
	for b := range m.Segs {
		require.Len(t, m.Segs[b], 1, p.Block(b).Name)
		assert.Equal(t, int32(0), m.Segs[b][0].Level, "%s stays in FAST", p.Block(b).Name)
	}
	assert.Equal(t, pos(0, 0), m.Segs[id(t, p, "op5.out")][0].Pos())
}

// ---------------------------------------------------------------------------
// Reuse pairs never chain, and their bytes are attributed canonically
// (state.Problem.PairSpans), so that a layout says everything about the
// state of a timestep.

// TestNoReuseChains: at timestep 1, s (a scratch) takes the space of i
// (an input); y (an activation) may not take s's in turn, nor i's, so it
// gets space of its own.
func TestNoReuseChains(t *testing.T) {
	prog := testprog.New("p", 3).
		Block("i", 200, "input", 0, 1, testprog.Reusable()).
		Block("s", 150, "scratch", 1, 1, testprog.Reusable()).
		Block("y", 100, "activation", 1, 2).
		Program()
	p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
	lay := state.NewLayout(p.Blocks())
	_, err := actions.NewInitializer(p).Run(lay, 0)
	require.NoError(t, err)
	i, s, y := id(t, p, "i"), id(t, p, "s"), id(t, p, "y")
	// t0: i at 0 (empty level). t1: s reuses i; both end at 1, so the
	// larger, i, holds [0,200). y: no reuse; gap [200,1000), i (dies 1)
	// vs the level's edge (never): against the edge, at 900.
	assert.Equal(t, at(0), lay.Segs[s][0].Pos())
	assert.Equal(t, at(900), lay.Segs[y][0].Pos())
	occ, err := state.OccupancyAt(p, lay, 1)
	require.NoError(t, err)
	require.Equal(t, []state.Span{span(0, 200, i), span(900, 1000, y)}, spansOf(occ, 0))
	// s sits over i's space and can be acted on; detaching it gives i its
	// footprint: the same bytes.
	require.True(t, actions.Eligible(p, lay, s, 1))
	assert.False(t, actions.Eligible(p, lay, i, 1), "i ends at 1 (created before)")
	actions.Detach(occ, lay, s, 1)
	assert.Equal(t, []state.Span{span(0, 200, i), span(900, 1000, y)}, spansOf(occ, 0))
}

// TestReusePairsAreCanonical: however the pair formed, the state of its
// timestep is the same.
func TestReusePairsAreCanonical(t *testing.T) {
	t.Run("both end at the timestep", func(t *testing.T) {
		// a (activation, 100 B) and s (scratch, 60 B) live only at 1 and
		// may each take the other's space. In workload order a comes
		// first, then s reuses it; in kind order s comes first, then a
		// reuses it. Both end at 1: the larger, a, holds [0,100).
		prog := testprog.New("p", 2).
			Block("a", 100, "activation", 1, 1, testprog.Reusable()).
			Block("s", 60, "scratch", 1, 1, testprog.Reusable()).
			Program()
		p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
		a := id(t, p, "a")
		for _, ord := range []actions.Order{actions.WorkloadOrder, actions.KindOrder} {
			lay := state.NewLayout(p.Blocks())
			in := actions.NewInitializerOrder(p, ord)
			occ := state.NewOccupancy(p)
			require.NoError(t, in.Step(occ, lay, 0))
			require.NoError(t, in.Step(occ, lay, 1))
			require.Equal(t, []state.Span{span(0, 100, a)}, spansOf(occ, 0), "%s order", ord)
			got, err := state.OccupancyAt(p, lay, 1)
			require.NoError(t, err)
			assert.Equal(t, spansOf(occ, 0), spansOf(got, 0), "%s order", ord)
			replayed := state.NewOccupancy(p)
			in.Replay(replayed, lay, 0)
			in.Replay(replayed, lay, 1)
			assert.Equal(t, spansOf(occ, 0), spansOf(replayed, 0), "%s order", ord)
		}
	})
	t.Run("one lives on", func(t *testing.T) {
		// Kind order: s (scratch) first takes i's space; y may not chain.
		// Workload order: y first takes i's space (input to activation):
		// y lives on, so it holds its 100 B and i keeps [100,200); s finds
		// i taken and gets a gap: [200,1000), i (dies 1) vs edge: 850.
		prog := testprog.New("p", 3).
			Block("i", 200, "input", 0, 1, testprog.Reusable()).
			Block("y", 100, "activation", 1, 2).
			Block("s", 150, "scratch", 1, 1, testprog.Reusable()).
			Program()
		p := testprog.Bind(prog, testprog.Profile("hw", oneLevel))
		i, y, s := id(t, p, "i"), id(t, p, "y"), id(t, p, "s")
		lay := state.NewLayout(p.Blocks())
		in := actions.NewInitializer(p)
		occ := state.NewOccupancy(p)
		require.NoError(t, in.Step(occ, lay, 0))
		require.NoError(t, in.Step(occ, lay, 1))
		require.Equal(t, []state.Span{span(0, 100, y), span(100, 200, i), span(850, 1000, s)}, spansOf(occ, 0))
		got, err := state.OccupancyAt(p, lay, 1)
		require.NoError(t, err)
		assert.Equal(t, spansOf(occ, 0), spansOf(got, 0))
		_, err = in.Run(lay.Clone(), 2)
		assert.NoError(t, err)
	})
}

// TestEnumerateEvictOnlyWhatTheWindowCovers: FAST holds X [0,4) (an
// activation) and the constant c [4,8); [8,16) is free. n (8 B, aligned to
// 8) sits in SLOW. The window that starts at c's piece is aligned up to
// 8, so it is [8,16): it does not touch c, yet c is evicted. (The place
// itself is a plain swap, which Enumerate offers.)
func TestEnumerateEvictOnlyWhatTheWindowCovers(t *testing.T) {
	prof := testprog.Profile("hw",
		testprog.Level{Name: "FAST", Capacity: 16, Align: 1, Latency: 1, Bandwidth: 8},
		testprog.Level{Name: "SLOW", Capacity: 1000, Align: 1, Latency: 10, Bandwidth: 1})
	prog := testprog.New("p", 2).
		Block("X", 4, "activation", 0, 1).
		Block("c", 4, "constant", 0, 1, testprog.Reads(1)).
		Block("n", 8, "activation", 0, 1, testprog.Align(8)).
		Program()
	p := testprog.Bind(prog, prof)
	lay := handLayout(t, p, map[string]state.Pos{"X": at(0), "c": at(4), "n": pos(1, 0)})
	// The only window with a constant in it would start at 4, aligned up
	// to 8: it is plain free space, a swap, so evict offers nothing.
	got := evictCandidates(t, p, lay, 0, actions.Options{Actions: actions.All}, unitPrice)
	assert.Empty(t, got)
	for _, c := range got {
		for _, e := range c.Evicted {
			lo, hi := c.To.Offset, c.To.Offset+p.Foot(c.Block, 0)
			eOff := lay.Segs[e.Block][0].Offset
			assert.True(t, eOff < hi && lo < eOff+p.Foot(e.Block, 0),
				"window [%d,%d) evicts %q at %d, which it does not cover", lo, hi, p.Block(e.Block).Name, eOff)
		}
	}
}
