package bounds_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/bounds"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/internal/fuzzcheck"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
)

// bruteForce returns the optimum of the model the whole-program bound
// relaxes (R, in bounds/whole.go): every assignment of the live blocks to
// levels at every timestep, within each level's capacity (a reusable block
// shares at most its footprint with the reuse partners in its level at its
// last timestep), reads and writes priced by the
// level, out+in per change of level, first placements free; by dynamic
// programming over timesteps. ok is false when no assignment fits.
func bruteForce(p *state.Problem, m costmodel.Model) (float64, bool) {
	T, L := p.Prog.Timesteps(), p.Levels()
	access := make([][]map[int]float64, p.Blocks())
	for b := range access {
		access[b] = make([]map[int]float64, L)
		for l := 0; l < L; l++ {
			if !p.Allowed(b, l) {
				continue
			}
			mt := map[int]float64{}
			m.Charges(p, b, []state.Seg{{From: int32(p.Block(b).First), Level: int32(l)}}, func(c costmodel.Charge) {
				if c.Kind == costmodel.Read || c.Kind == costmodel.Write {
					mt[c.Timestep] += c.Time
				}
			})
			access[b][l] = mt
		}
	}
	type node struct {
		lv   map[int]int // block -> level
		cost float64
	}
	var prev []node
	for t := 0; t < T; t++ {
		var live []int
		for b := 0; b < p.Blocks(); b++ {
			if blk := p.Block(b); blk.First <= t && t <= blk.Last {
				live = append(live, b)
			}
		}
		var cur []node
		assign := make([]int, len(live))
		var rec func(i int)
		rec = func(i int) {
			if i < len(live) {
				for l := 0; l < L; l++ {
					if p.Allowed(live[i], l) {
						assign[i] = l
						rec(i + 1)
					}
				}
				return
			}
			use := make([]int64, L)
			lv := map[int]int{}
			var c float64
			for k, b := range live {
				l := assign[k]
				lv[b] = l
				use[l] += p.Foot(b, l)
				c += access[b][l][t]
			}
			// A reusable block ending at t shares at most its footprint
			// with the blocks in its level that may take over its space,
			// or whose space it may take, at t (state.ReusePair).
			for k, a := range live {
				if blk := p.Block(a); !blk.Reusable || blk.Last != t {
					continue
				}
				var partners int64
				for k2, b := range live {
					if b != a && assign[k2] == assign[k] && state.ReusePair(p, a, b, t) {
						partners += p.Foot(b, assign[k])
					}
				}
				use[assign[k]] -= min(p.Foot(a, assign[k]), partners)
			}
			for l := 0; l < L; l++ {
				if use[l] > p.HW.Levels[l].Capacity {
					return
				}
			}
			best := math.Inf(1)
			if t == 0 {
				best = 0
			}
			for _, s := range prev {
				mv := s.cost
				for b, a := range s.lv {
					if c2, ok := lv[b]; ok && c2 != a {
						d := p.Block(b).Size
						mv += p.HW.Levels[a].Out.Time(d) + p.HW.Levels[c2].In.Time(d)
					}
				}
				best = math.Min(best, mv)
			}
			if !math.IsInf(best, 1) {
				cur = append(cur, node{lv, best + c})
			}
		}
		rec(0)
		if len(cur) == 0 {
			return 0, false
		}
		prev = cur
	}
	best := math.Inf(1)
	for _, s := range prev {
		best = math.Min(best, s.cost)
	}
	return best, true
}

// The whole-program bound is never above the optimum of the model it
// relaxes, found by brute force on small random programs (and so never
// above any valid plan); and it is at least its own start, L(0).
func TestWholeBelowBruteForce(t *testing.T) {
	m, _ := costmodel.Lookup("seed003")
	lim := fuzzcheck.Limits{Ops: 6, Blocks: 5, Levels: 3}
	checked, tighter := 0, 0
	for i := 0; i < 800; i++ {
		prog, prof := fuzzcheck.Problem(rand.New(rand.NewPCG(1811, uint64(i/2))), lim)
		if i%2 == 1 && len(prof.Levels) > 1 {
			// Tighten the fastest level to the largest block, so that
			// capacity binds and the prices matter.
			var big int64
			for _, b := range prog.Blocks {
				big = max(big, b.Size)
			}
			prof.Levels[0].Capacity = min(prof.Levels[0].Capacity, big+big/2)
		}
		p, err := state.Bind(prog, prof, "test")
		if err != nil {
			continue
		}
		opt, ok := bruteForce(p, m)
		if !ok {
			continue
		}
		w, err := bounds.Whole(context.Background(), p, m, bounds.WholeOptions{Upper: opt})
		require.NoError(t, err)
		require.LessOrEqual(t, w.Cost, opt+1e-9*math.Abs(opt), "program %d", i)
		require.GreaterOrEqual(t, w.Cost, w.Free)
		checked++
		if w.Cost > w.Free*(1+1e-9) {
			tighter++
		}
	}
	require.Greater(t, checked, 100)
	require.Positive(t, tighter, "the prices never raised the bound above L(0): nothing was tested")
	t.Logf("%d programs, %d where the prices raised the bound", checked, tighter)
}

// On every shipped pair (the built-ins' seed-model copies) the bound is
// at most the cost of hieropt's plan, and at least the per-timestep one's
// start L(0).
func TestWholeBelowPlans(t *testing.T) {
	if testmode.Quick() {
		t.Skip("plans every shipped pair")
	}
	m, _ := costmodel.Lookup("seed003")
	for _, p := range testprog.ShippedPairs(t, "..") {
		w, err := bounds.Whole(context.Background(), p, m, bounds.WholeOptions{})
		require.NoError(t, err)
		res, err := hieropt.Plan(context.Background(), p.Prog, p.HW, &hieropt.Settings{CostModel: "seed003"})
		require.NoError(t, err, "%s/%s", p.Prog.Name, p.HW.Name)
		cost := res.Plan.Cost.Final
		require.LessOrEqual(t, w.Cost, cost*(1+1e-9), "%s/%s", p.Prog.Name, p.HW.Name)
	}
}

// A program too long for the whole-program bound is refused before any
// work (a 20,000-op generated program on h100-sm: its blocks' lifetimes
// sum to far more than MaxStates), not ground through for minutes.
func TestWholeTooLarge(t *testing.T) {
	prog, err := gen.Generate(gen.Options{Ops: 20000, Seed: 1})
	require.NoError(t, err)
	prof, err := profiles.Get("h100-sm")
	require.NoError(t, err)
	p, err := state.Bind(prog, prof, "gen")
	require.NoError(t, err)
	m, _ := costmodel.Lookup("seed003")
	start := time.Now()
	_, err = bounds.Whole(context.Background(), p, m, bounds.WholeOptions{})
	require.ErrorIs(t, err, bounds.ErrTooLarge)
	t.Logf("refused in %v", time.Since(start))
}

// The paths Whole returns (a set per ascent) are paths of the relaxation: one per block,
// starting at its first timestep, in levels it may use, stays in order of
// time within its life. Priced by the model, they cost at least L(0), the
// sum of the cheapest paths with no prices, and exactly that where no
// capacity can bind.
func TestWholePaths(t *testing.T) {
	m, _ := costmodel.Lookup("seed003")
	lim := fuzzcheck.Limits{Ops: 6, Blocks: 5, Levels: 3}
	free, priced := 0, 0
	for i := 0; i < 200; i++ {
		prog, prof := fuzzcheck.Problem(rand.New(rand.NewPCG(1812, uint64(i))), lim)
		if i%2 == 1 {
			prof.Levels[0].Capacity = min(prof.Levels[0].Capacity, prog.Blocks[0].Size)
		}
		p, err := state.Bind(prog, prof, "test")
		if err != nil {
			continue
		}
		w, err := bounds.Whole(context.Background(), p, m, bounds.WholeOptions{Paths: true})
		require.NoError(t, err)
		if w.Rows == 0 {
			require.Len(t, w.Paths, 1, "program %d: one set of paths where no capacity can bind", i)
		} else {
			require.Len(t, w.Paths, 2, "program %d: a set of paths per ascent", i)
		}
		for _, paths := range w.Paths {
			require.Len(t, paths, p.Blocks())
			var sum float64
			for b, path := range paths {
				blk := p.Block(b)
				require.NotEmpty(t, path, "program %d block %d", i, b)
				require.EqualValues(t, blk.First, path[0].From, "program %d block %d", i, b)
				segs := make([]state.Seg, len(path))
				for k, s := range path {
					require.True(t, p.Allowed(b, int(s.Level)), "program %d block %d level %d", i, b, s.Level)
					require.LessOrEqual(t, int(s.From), blk.Last)
					if k > 0 {
						require.Greater(t, s.From, path[k-1].From)
						require.NotEqual(t, s.Level, path[k-1].Level)
					}
					segs[k] = state.Seg{From: s.From, Level: int32(s.Level)}
				}
				m.Charges(p, b, segs, func(c costmodel.Charge) { sum += c.Time })
			}
			tol := 1e-9 * math.Max(1, math.Abs(w.Free))
			require.GreaterOrEqual(t, sum, w.Free-tol, "program %d", i)
			if w.Rows == 0 {
				require.InDelta(t, w.Free, sum, tol, "program %d", i)
			}
		}
		if w.Rows == 0 {
			free++
		} else {
			priced++
		}
	}
	require.Positive(t, free)
	require.Positive(t, priced)
}

// Relax-and-cut lifts the bound above the linear relaxation of R (the
// bound of WholeOptions.Linear) on small programs whose fast level holds
// about two of their blocks, and never above R's optimum (brute force).
func TestWholeCutsAboveLinear(t *testing.T) {
	m, _ := costmodel.Lookup("seed003")
	lim := fuzzcheck.Limits{Ops: 6, Blocks: 6, Levels: 2}
	checked, above := 0, 0
	for i := 0; i < 600; i++ {
		prog, prof := fuzzcheck.Problem(rand.New(rand.NewPCG(1813, uint64(i))), lim)
		if len(prof.Levels) < 2 {
			continue
		}
		// Room for about two blocks of three sizes in the fastest
		// level: whole blocks fill it less than a split one would.
		sizes := make([]int64, 0, len(prog.Blocks))
		for _, b := range prog.Blocks {
			sizes = append(sizes, b.Size)
		}
		slices.Sort(sizes)
		prof.Levels[0].Capacity = min(prof.Levels[0].Capacity, sizes[len(sizes)-1]+sizes[len(sizes)/2]-1)
		p, err := state.Bind(prog, prof, "test")
		if err != nil {
			continue
		}
		opt, ok := bruteForce(p, m)
		if !ok {
			continue
		}
		lin, err := bounds.Whole(context.Background(), p, m, bounds.WholeOptions{Upper: opt, Linear: true, Iterations: 2000})
		require.NoError(t, err)
		w, err := bounds.Whole(context.Background(), p, m, bounds.WholeOptions{Upper: opt})
		require.NoError(t, err)
		require.LessOrEqual(t, w.Cost, opt+1e-9*math.Abs(opt), "program %d", i)
		require.LessOrEqual(t, lin.Cost, opt+1e-9*math.Abs(opt), "program %d", i)
		checked++
		if w.Cost > lin.Cost+1e-6*math.Abs(opt) {
			above++
		}
	}
	require.Greater(t, checked, 100)
	require.Positive(t, above, "the cuts never lifted the bound above the linear relaxation's")
	t.Logf("%d programs, the bound above the linear relaxation's (%d steps) on %d", checked, 2000, above)
}

// BenchmarkWhole: the whole-program bound with its default steps, with
// cuts and at the linear relaxation only (WholeOptions.Linear), on a few
// shipped pairs (seed-model copies).
func BenchmarkWhole(b *testing.B) {
	m, _ := costmodel.Lookup("seed003")
	want := map[string]bool{"resnet50-int8/ethos-u55-seed003": true, "squeezenet1_1-int8/h100-sm-seed003": true,
		"gpt2-small-like-int8/tpu-v4-core-seed003": true, "mobilenet_v2-int8/ethos-u65-seed003": true}
	for _, p := range testprog.ShippedPairs(b, "..") {
		name := strings.TrimSuffix(filepath.Base(p.Prog.Name), ".json") + "/" + p.HW.Name
		if !want[name] {
			continue
		}
		for _, linear := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/linear=%v", name, linear), func(b *testing.B) {
				var w *bounds.WholeBound
				for i := 0; i < b.N; i++ {
					var err error
					w, err = bounds.Whole(context.Background(), p, m, bounds.WholeOptions{Linear: linear})
					require.NoError(b, err)
				}
				b.ReportMetric(w.Cost, "bound")
				b.ReportMetric(float64(w.Iterations), "steps")
			})
		}
	}
}
