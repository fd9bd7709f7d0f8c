package search_test

import (
	"context"
	"math"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/testprog"
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
	prof, err := profiles.Load(hwArg)
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, name)
	require.NoError(t, err)
	return p
}

// validate checks a search result with the plan checker (verify: the
// FORMATS.md rules, the cost recomputed independently).
func validate(t *testing.T, p *state.Problem, r *search.Result, model costmodel.Model) {
	t.Helper()
	require.NoError(t, r.Layout.CheckComplete(p))
	pl := r.Layout.Plan(p)
	if model != nil && model.Name() != costmodel.Default {
		pl.CostModel = model.Name()
	}
	pl.Cost = plan.Cost{Initial: r.InitialCost, Final: r.Cost}
	if model == nil {
		model = costmodel.Seed003{}
	}
	res, err := verify.Check(p.Prog, p.HW, pl, &verify.Options{Initial: actions.VerifyInitial(context.Background(), p, model)})
	require.NoError(t, err)
	require.True(t, res.Valid(), "%s on %s: %v", p.Prog.Name, p.HW.Name, res.Violations)
	assert.LessOrEqual(t, r.Cost, r.InitialCost, "the search never makes the plan worse")
}

// TestEveryShippedPair searches every shipped workload on every built-in
// profile it fits, in checking mode (invariants verified after every
// commit), and validates every plan.
func TestEveryShippedPair(t *testing.T) {
	if testing.Short() {
		t.Skip("searches 82 pairs")
	}
	n := 0
	for _, p := range testprog.ShippedPairs(t, "..") {
		prog, h := p.Prog, p.HW.Name
		r, err := search.RunProblem(context.Background(), p, &search.Settings{Check: true})
		if err != nil {
			var ie *actions.InfeasibleError
			require.ErrorAs(t, err, &ie, "%s on %s", prog.Name, h)
			continue // no plan at all: the initializer cannot place a block
		}
		validate(t, p, r, nil)
		assert.Equal(t, search.Converged, r.Status)
		assert.InDelta(t, costmodel.Total(costmodel.Seed003{}, p, r.Layout), r.Cost, 1e-9*r.Cost)
		n++
	}
	assert.GreaterOrEqual(t, n, 80)
}

func TestSeed000KeepsEverythingFast(t *testing.T) {
	p := load(t, "seed000-example", filepath.Join("..", "testdata", "hw", "two-level-5k.yaml"))
	// The seed's own search: its action set, its start, one action per
	// timestep, an unbounded beam inside segments. (Greedy, with every
	// timestep a segment and a beam of 1, it takes a smaller gain at
	// timestep 0, op0.out to SLOW, and misses this layout.)
	r, err := search.RunProblem(context.Background(), p, &search.Settings{
		Actions: actions.Seed, InitialOnly: true, Beam: -1, Check: true})
	require.NoError(t, err)
	validate(t, p, r, nil)
	for b, segs := range r.Layout.Segs {
		for _, s := range segs {
			assert.Equal(t, int32(0), s.Level, "block %s", p.Block(b).Name)
		}
	}
	// The initializer alone cannot: op5.out (4096 B) finds only two
	// 2048-byte gaps at timestep 5 and goes to SLOW.
	assert.Equal(t, 10618.0, r.InitialCost)
	// All fast: 6 writes (2 + d/8) and 7 reads (2 + d/8) of
	// 2048,2048,1024,2048,1024,4096 (writes: 12288 B) and
	// 2048x2,2048,1024,2048,1024,4096 (reads: 14336 B):
	// 13*2 + (12288+14336)/8 = 26 + 3328 = 3354.
	assert.Equal(t, 3354.0, r.Cost)
	assert.Equal(t, 1, r.Stats.Committed[actions.Move])
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	p := load(t, "resnet50-int8", "ethos-u55")
	var first *search.Result
	for _, w := range []int{1, 2, 3, 8} {
		r, err := search.RunProblem(context.Background(), p, &search.Settings{Workers: w})
		require.NoError(t, err)
		if first == nil {
			first = r
			validate(t, p, r, nil)
			continue
		}
		assert.True(t, first.Layout.Equal(r.Layout), "workers %d", w)
		assert.Equal(t, first.Cost, r.Cost)
		assert.Equal(t, first.Stats.Committed, r.Stats.Committed)
		assert.Equal(t, first.Stats.ReplanSteps, r.Stats.ReplanSteps)
		assert.Equal(t, first.Stats.Repack.Promoted, r.Stats.Repack.Promoted)
		assert.Equal(t, first.Stats.Repack.Nodes, r.Stats.Repack.Nodes)
	}
}

func TestBeatsTheInitializer(t *testing.T) {
	p := load(t, "resnet50-int8", "ethos-u55")
	r, err := search.RunProblem(context.Background(), p, nil)
	require.NoError(t, err)
	validate(t, p, r, nil)
	red := (r.InitialCost - r.Cost) / r.InitialCost
	assert.Greater(t, red, 0.15, "resnet50-int8 on Ethos-U55: %.2f%%", 100*red)
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
}

func TestTimeLimitAndCancellation(t *testing.T) {
	p := load(t, "gpt2-small-like-int8", "ethos-u65")
	r, err := search.RunProblem(context.Background(), p, &search.Settings{TimeLimit: time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, search.TimeLimit, r.Status)
	assert.Less(t, r.Stats.Timesteps, p.Prog.Timesteps())
	assert.True(t, r.Stats.RepackSkipped, "the time limit covers repacking: nothing is left for it")
	assert.Zero(t, r.Stats.Repack, "repacking skipped")
	validate(t, p, r, nil)

	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	r, err = search.RunProblem(ctx, p, &search.Settings{Progress: func(search.Progress) {
		calls++
		if calls == 20 {
			cancel()
		}
	}})
	require.NoError(t, err)
	assert.Equal(t, search.Cancelled, r.Status)
	assert.Equal(t, 20, r.Stats.Timesteps)
	assert.Zero(t, r.Stats.Repack, "a cancelled search is not repacked")
	validate(t, p, r, nil)

	// Cancelled before anything: no plan.
	_, err = search.RunProblem(ctx, p, nil)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestCancelWhileWorking cancels from another goroutine at times that
// fall inside the workers' tasks: the result is still a valid plan (or
// the context's error, if the initializer had not finished), and the
// pool's helpers exit with the search.
func TestCancelWhileWorking(t *testing.T) {
	p := load(t, "gpt2-small-like-int8", "ethos-u65")
	before := runtime.NumGoroutine()
	for _, d := range []time.Duration{0, 100 * time.Microsecond, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
		ctx, cancel := context.WithCancel(context.Background())
		stop := time.AfterFunc(d, cancel)
		r, err := search.RunProblem(ctx, p, &search.Settings{Workers: 4})
		stop.Stop()
		cancel()
		if err != nil {
			require.ErrorIs(t, err, context.Canceled, "after %v", d)
			continue
		}
		validate(t, p, r, nil)
	}
	// (Not require.Eventually: it runs its condition on a goroutine.)
	for start := time.Now(); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		require.Less(t, time.Since(start), 5*time.Second, "goroutines left: %d, before: %d", runtime.NumGoroutine(), before)
	}
}

func TestSettings(t *testing.T) {
	p := load(t, "squeezenet1_1-int8", "ethos-u65")
	for _, s := range []*search.Settings{
		{Segments: segments.Fixed(1), Beam: 1},
		{Segments: segments.Fixed(4), Beam: -1, MaxCandidates: 2},
		{Segments: segments.At{10, 20, 30}, Beam: 2},
		{Actions: actions.Set{actions.Swap: true}},
		{Actions: actions.Seed, InitialOnly: true},
		{Rounds: 3},
		{NoReuse: true},
		{CostModel: costmodel.VelaDMA{}},
		{MaxCandidates: -1, Horizon: -1},
		{Repack: new(0)},
		{Repack: new(1)},
	} {
		s.Check = true
		r, err := search.RunProblem(context.Background(), p, s)
		require.NoError(t, err)
		validate(t, p, r, s.CostModel)
	}
	// The swap-only search commits no other action.
	r, err := search.RunProblem(context.Background(), p, &search.Settings{Actions: actions.Set{actions.Swap: true}})
	require.NoError(t, err)
	assert.Zero(t, r.Stats.Succeeded[actions.Move]+r.Stats.Succeeded[actions.Reuse]+r.Stats.Succeeded[actions.Evict])
	// The initializer's own plan in kind order is the start when cheaper.
	lay := state.NewLayout(p.Blocks())
	_, err = actions.NewInitializerOrder(p, actions.KindOrder).Run(lay, 0)
	require.NoError(t, err)
	kind := costmodel.Total(costmodel.Seed003{}, p, lay)
	assert.Equal(t, math.Min(kind, r.InitialCost), r.Stats.StartCost)
}

func TestRunBindsAndChecks(t *testing.T) {
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", "resnet50-fp32.json"))
	require.NoError(t, err)
	prof, err := profiles.Get("k210")
	require.NoError(t, err)
	_, err = search.Run(context.Background(), prog, prof, nil)
	var ce *state.CapacityError
	assert.ErrorAs(t, err, &ce)
}
