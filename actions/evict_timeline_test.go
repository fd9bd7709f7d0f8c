package actions_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// idleProgram: 6 ops of 0, 500, 500, 500, 0, 0 MACs; activation a (800 B)
// written by op 0 and read by ops aReads; activation b (800 B) written by
// op 4 and read by op 5. On streamProfile(800) FAST holds one of them.
func idleProgram(aReads ...int) *workload.Program {
	return withMACs(testprog.New("idle", 6).
		Block("a", 800, "activation", 0, 5, testprog.Writes(0), testprog.Reads(aReads...)).
		Block("b", 800, "activation", 4, 5, testprog.Writes(4), testprog.Reads(5)).
		Program(), 0, 500, 500, 500, 0, 0)
}

// idleEvicts returns the evict candidates for b at timestep 4 with a in
// FAST and b in SLOW, each applied to a copy of the layout and of the
// occupancy of 4, which the test checks against the layout's.
func idleEvicts(t *testing.T, p *state.Problem) ([]actions.Candidate, []*state.Layout) {
	t.Helper()
	lay := handLayout(t, p, map[string]state.Pos{"a": pos(0, 0), "b": pos(1, 0)})
	b := id(t, p, "b")
	occ, err := state.OccupancyAt(p, lay, 4)
	require.NoError(t, err)
	actions.Detach(occ, lay, b, 4)
	o := actions.Options{Actions: actions.TimelineAll}
	if p.Timeline() {
		o.Dur = costmodel.Timeline{}.Price(p, lay).Dur
	}
	var cands []actions.Candidate
	var lays []*state.Layout
	actions.EnumerateEvict(occ, lay, b, 4, o, unitPrice, usedSpace(p, lay), func(c actions.Candidate) {
		changed := lay.Clone()
		occ := occ.Clone()
		actions.Apply(occ, changed, c)
		want, err := state.OccupancyAt(p, changed, 4)
		require.NoError(t, err)
		for l := 0; l < p.Levels(); l++ {
			var got, exp []state.Span
			occ.Spans(l, func(s state.Span) bool { got = append(got, s); return true })
			want.Spans(l, func(s state.Span) bool { exp = append(exp, s); return true })
			assert.Equal(t, exp, got, "level %d: the applied occupancy is the layout's", l)
		}
		cands = append(cands, c)
		lays = append(lays, changed)
	})
	return cands, lays
}

// TestEvictIdleActivation: under the timeline model, b (created at 4)
// fits FAST only if a leaves; a is idle at 4 (written at 0, read at 1 and
// 5), so evict copies it to SLOW at 4 with its copy issued early: at s* =
// 1 (after a's write at 0; lead 3), or at 2, the latest start whose ops
// (2 and 3, 500 each) hide the copy's 102 + 850 (lead 2). The plan is
// valid. Under the seed model, or with a read at 4, or pinned, a stays.
func TestEvictIdleActivation(t *testing.T) {
	p := testprog.BindTimeline(idleProgram(1, 5), streamProfile(800))
	a, b := id(t, p, "a"), id(t, p, "b")
	cands, lays := idleEvicts(t, p)
	require.Len(t, cands, 2)
	var leads []int32
	for i, c := range cands {
		assert.Equal(t, b, c.Block)
		assert.Equal(t, pos(0, 0), c.To)
		require.Len(t, c.Evicted, 1)
		e := c.Evicted[0]
		assert.Equal(t, a, e.Block)
		assert.True(t, e.Copy)
		assert.Equal(t, pos(1, 0), e.To)
		leads = append(leads, e.Lead)
		assert.Equal(t, []state.Seg{{From: 0, Level: 0}, {From: 4, Level: 1, Lead: e.Lead}}, lays[i].Segs[a])
		assert.Equal(t, []state.Seg{{From: 4, Level: 0}}, lays[i].Segs[b])
		rep := validatedTimeline(t, p, lays[i])
		assert.True(t, rep.Valid(), "%v", rep.Violations)
	}
	assert.Equal(t, []int32{3, 2}, leads)

	none := func(p *state.Problem, why string) {
		cands, _ := idleEvicts(t, p)
		assert.False(t, slices.ContainsFunc(cands, func(c actions.Candidate) bool { return len(c.Evicted) > 0 }), why)
	}
	none(testprog.Bind(idleProgram(1, 5), streamProfile(800)), "the seed model evicts constants only")
	none(testprog.BindTimeline(idleProgram(1, 4, 5), streamProfile(800)), "a is read at 4: not idle")
	pinned := idleProgram(1, 5)
	pinned.Blocks[0].Level = "FAST"
	none(testprog.BindTimeline(pinned, streamProfile(800)), "a is pinned")
}
