package search_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/search"
)

// fakeDeadline is a context whose deadline passes when the test says so
// (expire), not by the clock: the tests cut a run at a chosen point.
type fakeDeadline struct {
	context.Context
	once sync.Once
	done chan struct{}
}

func newFakeDeadline() *fakeDeadline {
	return &fakeDeadline{Context: context.Background(), done: make(chan struct{})}
}

func (f *fakeDeadline) expire()                     { f.once.Do(func() { close(f.done) }) }
func (f *fakeDeadline) Done() <-chan struct{}       { return f.done }
func (f *fakeDeadline) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (f *fakeDeadline) Value(key any) any           { return nil }
func (f *fakeDeadline) Err() error {
	select {
	case <-f.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestDeadlineAlreadyPast: a deadline that has passed before the run
// starts still gets a plan, the initializer's (before, the run returned
// the context's error and no plan): no search, no repacking, Status
// TimeLimit, and the cut named.
func TestDeadlineAlreadyPast(t *testing.T) {
	p := load(t, "resnet50-int8", "ethos-u55")
	for name, ctx := range map[string]func() (context.Context, context.CancelFunc){
		"fake": func() (context.Context, context.CancelFunc) { f := newFakeDeadline(); f.expire(); return f, func() {} },
		"clock": func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		},
	} {
		t.Run(name, func(t *testing.T) {
			c, cancel := ctx()
			defer cancel()
			r, err := search.RunProblem(c, p, nil)
			require.NoError(t, err)
			assert.Equal(t, search.TimeLimit, r.Status)
			assert.Equal(t, search.PhaseInit, r.Stats.Cut)
			assert.Zero(t, r.Stats.Timesteps)
			assert.True(t, r.Stats.RepackSkipped)
			assert.Equal(t, r.Stats.StartCost, r.Cost, "the start plan")
			validate(t, p, r, nil)
		})
	}
}

// TestDeadlineCutsTheSearch: the deadline passes at a chosen timestep of
// the search (a fake clock, so the cut is where the test puts it): the
// search stops there, repacking is skipped (the limit covers it: before,
// it ran after the limit whatever the time), and the plan is the best
// committed, valid.
func TestDeadlineCutsTheSearch(t *testing.T) {
	p := load(t, "resnet50-int8", "ethos-u55")
	f := newFakeDeadline()
	r, err := search.RunProblem(f, p, &search.Settings{Progress: func(pr search.Progress) {
		if pr.Timestep == 40 { // timesteps 0-39 walked
			f.expire()
		}
	}})
	require.NoError(t, err)
	assert.Equal(t, search.TimeLimit, r.Status)
	assert.Equal(t, search.PhaseSearch, r.Stats.Cut)
	assert.Equal(t, 40, r.Stats.CutTimestep)
	assert.Equal(t, 40, r.Stats.Timesteps)
	assert.True(t, r.Stats.RepackSkipped)
	assert.Zero(t, r.Stats.Repack)
	validate(t, p, r, nil)
}

// TestDeadlineAfterTheSearch: the deadline passes as the search walks its
// last timestep: the search converged, repacking is skipped, and the run
// says the limit fell there.
func TestDeadlineAfterTheSearch(t *testing.T) {
	p := load(t, "resnet50-int8", "ethos-u55")
	f := newFakeDeadline()
	T := p.Prog.Timesteps()
	r, err := search.RunProblem(f, p, &search.Settings{Progress: func(pr search.Progress) {
		if pr.Timestep == T { // all walked
			f.expire()
		}
	}})
	require.NoError(t, err)
	assert.Equal(t, search.TimeLimit, r.Status)
	assert.Equal(t, search.PhaseRepack, r.Stats.Cut)
	assert.Equal(t, T, r.Stats.Timesteps)
	assert.True(t, r.Stats.RepackSkipped)
	validate(t, p, r, nil)

	// With no repacking to do, the limit cut nothing.
	f = newFakeDeadline()
	r, err = search.RunProblem(f, p, &search.Settings{Repack: new(0), Progress: func(pr search.Progress) {
		if pr.Timestep == T { // all walked
			f.expire()
		}
	}})
	require.NoError(t, err)
	assert.Equal(t, search.Converged, r.Status)
	assert.Equal(t, search.PhaseNone, r.Stats.Cut)
}

// TestPhaseTimesAddUp: the three phases' times are back to back.
func TestPhaseTimesAddUp(t *testing.T) {
	p := load(t, "resnet50-int8", "ethos-u55")
	start := time.Now()
	r, err := search.RunProblem(context.Background(), p, nil)
	total := time.Since(start)
	require.NoError(t, err)
	st := r.Stats
	sum := st.InitTime + st.SearchTime + st.RepackTime
	assert.LessOrEqual(t, sum, total)
	assert.Greater(t, sum, total-time.Millisecond, "the phases cover the run")
	assert.GreaterOrEqual(t, st.RepackTime, st.Repack.Time)
}
