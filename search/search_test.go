package search_test

import (
	"context"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

func load(t *testing.T, name, hwArg string) *state.Problem {
	t.Helper()
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", name+".json"))
	require.NoError(t, err)
	if _, ok := profiles.YAML(hwArg); ok {
		// The seed model's tests (a problem bound without Semantics) run
		// on the built-in's seed-model copy; the built-ins name the
		// timeline model.
		hwArg = filepath.Join("..", "testdata", "hw", "seed003", hwArg+".yaml")
	}
	prof, err := profiles.Load(hwArg)
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, name)
	require.NoError(t, err)
	return p
}

// start is the initializer's plan in the given order, the walk's start.
func start(t *testing.T, p *state.Problem, ord actions.Order, model costmodel.Model) search.Start {
	t.Helper()
	in := actions.NewInitializerOrder(p, ord)
	lay := state.NewLayout(p.Blocks())
	_, err := in.Run(lay, 0)
	require.NoError(t, err)
	return search.Start{Layout: lay, Initializer: in, Model: model}
}

// walk walks p from the initializer's plan (workload order).
func walk(t *testing.T, ctx context.Context, p *state.Problem, s *search.Settings) *search.Result {
	t.Helper()
	r, err := search.Walk(ctx, p, start(t, p, actions.WorkloadOrder, nil), s)
	require.NoError(t, err)
	return r
}

// validate checks a walk from the initializer's plan with the plan checker
// (verify: the FORMATS.md rules, the costs recomputed independently):
// cost.initial is the start's cost.
func validate(t *testing.T, p *state.Problem, r *search.Result, model costmodel.Model) {
	t.Helper()
	require.NoError(t, r.Layout.CheckComplete(p))
	pl := r.Layout.Plan(p)
	if model == nil {
		model = costmodel.Seed003{}
	}
	if model.Name() != costmodel.Default {
		pl.CostModel = model.Name()
	}
	pl.Cost = plan.Cost{Initial: r.StartCost, Final: r.Cost}
	res, err := verify.Check(p.Prog, p.HW, pl, &verify.Options{Initial: actions.VerifyInitial(context.Background(), p, model)})
	require.NoError(t, err)
	require.True(t, res.Valid(), "%s on %s: %v", p.Prog.Name, p.HW.Name, res.Violations)
	assert.LessOrEqual(t, r.Cost, r.StartCost, "the walk never makes the plan worse")
	assert.InDelta(t, costmodel.Total(model, p, r.Layout), r.Cost, 1e-9*r.Cost)
}

func TestSeed000KeepsEverythingFast(t *testing.T) {
	p := load(t, "seed000-example", filepath.Join("..", "testdata", "hw", "two-level-5k.yaml"))
	// The seed's own search: its action set, its start, one action per
	// timestep, an unbounded beam inside segments. (Greedy, with every
	// timestep a segment and a beam of 1, it takes a smaller gain at
	// timestep 0, op0.out to SLOW, and misses this layout.)
	r := walk(t, context.Background(), p, &search.Settings{Actions: actions.Seed, Beam: -1, Check: true})
	validate(t, p, r, nil)
	for b, segs := range r.Layout.Segs {
		for _, s := range segs {
			assert.Equal(t, int32(0), s.Level, "block %s", p.Block(b).Name)
		}
	}
	// The initializer alone cannot: op5.out (4096 B) finds only two
	// 2048-byte gaps at timestep 5 and goes to SLOW.
	assert.Equal(t, 10618.0, r.StartCost)
	// All fast: 6 writes (2 + d/8) and 7 reads (2 + d/8) of
	// 2048,2048,1024,2048,1024,4096 (writes: 12288 B) and
	// 2048x2,2048,1024,2048,1024,4096 (reads: 14336 B):
	// 13*2 + (12288+14336)/8 = 26 + 3328 = 3354.
	assert.Equal(t, 3354.0, r.Cost)
	assert.Equal(t, 1, r.Stats.Committed[actions.Move])
	assert.Equal(t, search.Converged, r.Status)
}

func TestWalkDeterministicAcrossWorkers(t *testing.T) {
	p := load(t, "resnet50-int8", "ethos-u55")
	var first *search.Result
	for _, w := range []int{1, 2, 3, 8} {
		r := walk(t, context.Background(), p, &search.Settings{Workers: w})
		if first == nil {
			first = r
			validate(t, p, r, nil)
			continue
		}
		assert.True(t, first.Layout.Equal(r.Layout), "workers %d", w)
		assert.Equal(t, first.Cost, r.Cost)
		assert.Equal(t, first.Stats.Committed, r.Stats.Committed)
		assert.Equal(t, first.Stats.ReplanSteps, r.Stats.ReplanSteps)
	}
}

func TestWalkImproves(t *testing.T) {
	p := load(t, "resnet50-int8", "ethos-u55")
	r := walk(t, context.Background(), p, nil)
	validate(t, p, r, nil)
	red := (r.StartCost - r.Cost) / r.StartCost
	assert.Greater(t, red, 0.15, "resnet50-int8 on Ethos-U55 from the initializer's plan: %.2f%%", 100*red)
	assert.Greater(t, r.Stats.Commits, 0)
	// The counters add up.
	for k := actions.Kind(0); k < actions.NumKinds; k++ {
		assert.LessOrEqual(t, r.Stats.Committed[k], r.Stats.Succeeded[k])
	}
	total := 0
	for _, n := range r.Stats.Succeeded {
		total += n
	}
	assert.Equal(t, total, r.Stats.Replans)
	assert.Equal(t, p.Prog.Timesteps(), r.Stats.Timesteps)
	assert.Zero(t, r.Stats.CutTimestep)
}

// TestWalkStartIsNotChanged: Walk works on its own copy of the start.
func TestWalkStartIsNotChanged(t *testing.T) {
	p := load(t, "resnet50-int8", "ethos-u55")
	from := start(t, p, actions.WorkloadOrder, nil)
	before := from.Layout.Clone()
	r, err := search.Walk(context.Background(), p, from, nil)
	require.NoError(t, err)
	assert.True(t, before.Equal(from.Layout))
	assert.False(t, r.Layout.Equal(from.Layout), "the walk changed its own copy")
	assert.Equal(t, costmodel.Total(costmodel.Seed003{}, p, from.Layout), r.StartCost)

	// A start that is not a complete layout is an error.
	_, err = search.Walk(context.Background(), p, search.Start{Layout: state.NewLayout(p.Blocks())}, nil)
	assert.ErrorContains(t, err, "search: the start:")
	_, err = search.Walk(context.Background(), p, search.Start{}, nil)
	assert.EqualError(t, err, "search: no start layout")
}

// fakeDeadline is a context whose deadline passes when the test says so
// (expire), not by the clock: the tests cut a walk at a chosen point.
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

// TestWalkStops: the context's deadline or cancellation stops the walk at
// the timestep it falls in, with the plan committed so far, valid; a
// context already done gets the start back. Progress reports timestep 0
// first, then every timestep walked.
func TestWalkStops(t *testing.T) {
	p := load(t, "resnet50-int8", "ethos-u55")
	f := newFakeDeadline()
	var seen []int
	r := walk(t, f, p, &search.Settings{Progress: func(pr search.Progress) {
		seen = append(seen, pr.Timestep)
		assert.Equal(t, p.Prog.Timesteps(), pr.Steps)
		if pr.Timestep == 40 { // timesteps 0-39 walked
			f.expire()
		}
	}})
	assert.Equal(t, search.TimeLimit, r.Status)
	assert.Equal(t, 40, r.Stats.CutTimestep)
	assert.Equal(t, 40, r.Stats.Timesteps)
	for i, ts := range seen {
		assert.Equal(t, i, ts)
	}
	assert.Len(t, seen, 41)
	validate(t, p, r, nil)

	ctx, cancel := context.WithCancel(context.Background())
	r = walk(t, ctx, p, &search.Settings{Progress: func(pr search.Progress) {
		if pr.Timestep == 20 {
			cancel()
		}
	}})
	assert.Equal(t, search.Cancelled, r.Status)
	assert.Equal(t, 20, r.Stats.Timesteps)
	assert.Equal(t, 20, r.Stats.CutTimestep)
	validate(t, p, r, nil)

	// Done before the first timestep: the start, unchanged.
	r = walk(t, ctx, p, nil)
	assert.Equal(t, search.Cancelled, r.Status)
	assert.Zero(t, r.Stats.Timesteps)
	assert.Equal(t, r.StartCost, r.Cost)
	f = newFakeDeadline()
	f.expire()
	r = walk(t, f, p, nil)
	assert.Equal(t, search.TimeLimit, r.Status)
	assert.Zero(t, r.Stats.Timesteps)

	// Cancelled as the last timestep ends: the walk converged, but says
	// it was cancelled.
	ctx, cancel = context.WithCancel(context.Background())
	T := p.Prog.Timesteps()
	r = walk(t, ctx, p, &search.Settings{Progress: func(pr search.Progress) {
		if pr.Timestep == T {
			cancel()
		}
	}})
	assert.Equal(t, search.Cancelled, r.Status)
	assert.Equal(t, T, r.Stats.Timesteps)
}

// TestCancelWhileWorking cancels from another goroutine at times that
// fall inside the workers' tasks: the result is still a valid plan, and
// the pool's helpers exit with the walk.
func TestCancelWhileWorking(t *testing.T) {
	p := load(t, "gpt2-small-like-int8", "ethos-u65")
	before := runtime.NumGoroutine()
	for _, d := range []time.Duration{0, 100 * time.Microsecond, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		stop := time.AfterFunc(d, cancel)
		r := walk(t, ctx, p, &search.Settings{Workers: 4})
		stop.Stop()
		cancel()
		validate(t, p, r, nil)
	}
	// (Not require.Eventually: it runs its condition on a goroutine.)
	for start := time.Now(); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		require.Less(t, time.Since(start), 5*time.Second, "goroutines left: %d, before: %d", runtime.NumGoroutine(), before)
	}
}

// TestWalkSettings walks with each setting in checking mode (the
// invariants verified after every commit), from each order's plan.
func TestWalkSettings(t *testing.T) {
	p := load(t, "squeezenet1_1-int8", "ethos-u65")
	for _, s := range []*search.Settings{
		{Segments: segments.Fixed(1), Beam: 1},
		{Segments: segments.Fixed(4), Beam: -1, MaxCandidates: 2},
		{Segments: segments.At{10, 20, 30}, Beam: 2},
		{Actions: actions.Set{actions.Swap: true}},
		{Actions: actions.Seed},
		{Rounds: 3},
		{MaxCandidates: -1, Horizon: -1},
	} {
		s.Check = true
		r := walk(t, context.Background(), p, s)
		validate(t, p, r, nil)
	}
	// Another model, from the kind order's plan re-planned in kind order.
	vela := costmodel.VelaDMA{}
	r, err := search.Walk(context.Background(), p, start(t, p, actions.KindOrder, vela), &search.Settings{Check: true})
	require.NoError(t, err)
	require.NoError(t, r.Layout.CheckComplete(p))
	assert.LessOrEqual(t, r.Cost, r.StartCost)
	assert.InDelta(t, costmodel.Total(vela, p, r.Layout), r.Cost, 1e-9*r.Cost)
	// The swap-only walk commits no other action.
	r = walk(t, context.Background(), p, &search.Settings{Actions: actions.Set{actions.Swap: true}})
	assert.Zero(t, r.Stats.Succeeded[actions.Move]+r.Stats.Succeeded[actions.Reuse]+r.Stats.Succeeded[actions.Evict])
	// Re-planning without rule 5 (reuse): the initializer's option.
	from := start(t, p, actions.WorkloadOrder, nil)
	from.Initializer.NoReuse = true
	r, err = search.Walk(context.Background(), p, from, &search.Settings{Check: true})
	require.NoError(t, err)
	require.NoError(t, r.Layout.CheckComplete(p))
	assert.LessOrEqual(t, r.Cost, r.StartCost)
}
