package fuzzcheck_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/baseline"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/fuzzcheck"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// TestBaselinesRandom plans random small problems (fuzzcheck.Small and
// SmallReadOnly programs, with a compute section and MACs on most
// problems, 1-2 DMA channels) with seed004-pipeline and xla-msa under
// the timeline model, for the default horizon and horizons of 1 and 3
// ops (xla-msa finds a plan wherever no planning does), and checks every
// plan with verify.Check (rules 1-10, the timeline
// cost equal to costmodel.Total's); xla-msa also under the seed model,
// and both through hieropt.Plan (which checks its plans itself). Where
// one finds no plan the error says why in one line. Enough plans must
// copy a weight early for the test to mean something.
func TestBaselinesRandom(t *testing.T) {
	n := 1500
	if testmode.Quick() {
		n = 150
	}
	tl, ok := costmodel.Lookup("timeline")
	require.True(t, ok)
	stats := map[string]int{}
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(4015, uint64(i)))
		lim := fuzzcheck.Small
		if i%2 == 1 {
			lim = fuzzcheck.SmallReadOnly
		}
		prog, prof := fuzzcheck.Problem(rng, lim)
		prof.DMA = hw.DMA{Channels: 1 + rng.IntN(2)}
		if rng.IntN(4) > 0 {
			prof.Compute = &hw.Compute{MACsPerUnit: []float64{0.5, 1, 4, 16}[rng.IntN(4)], OpOverhead: []float64{0, 3, 40}[rng.IntN(3)]}
		}
		for t := range prog.Ops {
			if rng.IntN(4) > 0 {
				prog.Ops[t].MACs = rng.Int64N(4000)
			}
		}
		desc := describe(prog, prof)
		for _, h := range []int{0, 1, 3} {
			p, err := state.Bind(prog, prof, "fuzz", state.Semantics{Timeline: true, Horizon: h})
			if err != nil {
				stats["does not bind"]++
				break
			}
			if res, err := baseline.MSA(p); err != nil {
				require.NotContains(t, err.Error(), "\n")
				_, nerr := baseline.NoPlanning(p)
				require.Error(t, nerr, "xla-msa finds no plan (%v) where no planning does\n%s", err, desc)
				stats["xla-msa: no plan"]++
			} else {
				requireValidTimeline(t, p, tl, res.Layout, "xla-msa", desc)
				stats["xla-msa: planned"]++
				if res.Early > 0 {
					stats["xla-msa: copies early"]++
				}
			}
			if res, err := baseline.Pipeline(context.Background(), p); err != nil {
				require.NotContains(t, err.Error(), "\n")
				stats["seed004-pipeline: no plan"]++
			} else {
				requireValidTimeline(t, p, tl, res.Layout, "seed004-pipeline", desc)
				stats["seed004-pipeline: planned"]++
				if res.Streamed > 0 {
					stats["seed004-pipeline: streams"]++
				}
			}
		}
		for _, model := range []string{"timeline", "seed003"} {
			for _, pl := range []string{hieropt.PipelinePlanner, hieropt.MSAPlanner} {
				_, err := hieropt.Plan(context.Background(), prog, prof, &hieropt.Settings{Planner: pl, CostModel: model})
				var pe *hieropt.PlannerError
				switch {
				case err == nil:
					require.False(t, pl == hieropt.PipelinePlanner && model == "seed003", "seed004-pipeline planned under the seed model\n%s", desc)
				case errors.As(err, &pe):
					require.NotContains(t, err.Error(), "\n")
					if model == "seed003" && pl == hieropt.PipelinePlanner {
						require.ErrorIs(t, err, baseline.ErrTimelineOnly)
					}
				default:
					// Binding or capacity: no planner can plan it.
					var ie *hieropt.InternalError
					require.False(t, errors.As(err, &ie), "%s under %s: %v\n%s", pl, model, err, desc)
				}
			}
		}
		if t.Failed() {
			t.Fatalf("program %d (rand.NewPCG(4015, %d))", i, i)
		}
	}
	t.Logf("%d programs: %v", n, stats)
	// (1,500 programs: 183 with an early copy of xla-msa's and 486 with a
	// stream of the pipeline's; the first 150, -short: 12 and 39.)
	require.Greater(t, stats["xla-msa: copies early"], n/20)
	require.Greater(t, stats["seed004-pipeline: streams"], n/20)
}

// requireValidTimeline writes lay as a timeline plan of p and checks it
// with verify.Check: no violation, and the cost it recomputes is
// costmodel.Total's.
func requireValidTimeline(t *testing.T, p *state.Problem, tl costmodel.Model, lay *state.Layout, what, desc string) {
	t.Helper()
	require.NoError(t, lay.CheckComplete(p), "%s\n%s", what, desc)
	pl := lay.Plan(p)
	pl.CostModel = tl.Name()
	cost := costmodel.Total(tl, p, lay)
	pl.Cost = plan.Cost{Initial: cost, Final: cost}
	res, err := verify.Check(p.Prog, p.HW, pl, &verify.Options{Doc: what})
	require.NoError(t, err, "%s\n%s", what, desc)
	var bad []string
	for _, v := range res.Violations {
		bad = append(bad, v.String())
	}
	require.Empty(t, bad, "%s (horizon %d): invalid plan\n%s", what, p.Horizon(), desc)
	require.True(t, relEqual(res.Cost, cost), "%s: verify.Check recomputes %v, costmodel.Total says %v\n%s", what, res.Cost, cost, desc)
	// Never a copy into a read-only level: not a transfer, not a load.
	for b, segs := range lay.Segs {
		for i, s := range segs {
			copied := i > 0 || p.Block(b).Kind == workload.Constant && int(s.Level) != p.Home(b) && !s.IsResident()
			require.True(t, !copied || p.CopyInto(int(s.Level)), "%s: block %d copied into read-only level %d\n%s", what, b, s.Level, desc)
		}
	}
}
