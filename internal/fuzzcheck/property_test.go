package fuzzcheck_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/internal/fuzzcheck"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
)

// TestPropertiesOnRandomPrograms checks, over thousands of random small
// programs and profiles (fixed seeds; a quarter of them fuzzcheck.Medium),
// that every planner's plan is valid (checkPlanners: the initializer in
// both orders, every arena planner, the search in checking mode), and for
// the search with default settings and with the seed's own (beam 1, move,
// swap and reuse, from the initializer alone):
//   - the plan is byte for byte the same with 1, 2 and 4 workers, and in
//     a second run;
//   - Result.Cost equals costmodel.Total recomputed from the plan and the
//     cost verify.Check recomputes (relative 1e-9);
//   - it is never worse than the initializer's plan.
func TestPropertiesOnRandomPrograms(t *testing.T) {
	n := 3000
	if testmode.Quick() {
		n = 300
	}
	start := time.Now()
	stats := map[string]int{}
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(2026, uint64(i)))
		lim := fuzzcheck.Small
		if i%4 == 3 {
			lim = fuzzcheck.Medium
		}
		prog, prof := fuzzcheck.Problem(rng, lim)
		// Every planner's plans are valid (the search checked after every
		// commit, as with --check).
		checkPlanners(t, prog, prof, []namedSettings{
			{"defaults", hieropt.Settings{Search: search.Settings{Workers: 1, Check: true}}},
			{"seed", hieropt.Settings{Search: search.Settings{Workers: 1, Check: true, Beam: 1, Actions: actions.Seed}, Starts: initialOnly}},
		})
		if t.Failed() {
			t.Fatalf("program %d (rand.NewPCG(2026, %d))", i, i)
		}
		p, err := state.Bind(prog, prof, "random")
		if err != nil {
			stats["does not bind"]++
			continue
		}
		desc := describe(prog, prof)
		planned := false
		for _, base := range []hieropt.Settings{{}, {Search: search.Settings{Beam: 1, Actions: actions.Seed}, Starts: initialOnly}} {
			var first []byte
			for _, workers := range []int{1, 2, 4, 1} {
				s := base
				s.Search.Workers = workers
				s.Search.Check = true // a broken invariant panics, rather than giving a plan
				res, err := runSearch(p, &s)
				if err != nil {
					break // no plan: checkPlanners checked that it has none
				}
				planned = true
				pl := res.Plan
				var buf bytes.Buffer
				require.NoError(t, pl.Write(&buf))
				if first != nil {
					require.Equal(t, string(first), buf.String(), "workers=%d gives another plan\n%s", workers, desc)
					continue
				}
				first = buf.Bytes()
				final, initial := pl.Cost.Final, pl.Cost.Initial
				total := costmodel.Total(costmodel.Seed003{}, p, res.Layout)
				require.True(t, relEqual(final, total), "cost.final %v, costmodel.Total %v\n%s", final, total, desc)
				v, err := verify.Check(p.Prog, p.HW, pl, &verify.Options{Initial: actions.VerifyInitial(context.Background(), p, costmodel.Seed003{})})
				require.NoError(t, err)
				require.True(t, v.Valid(), "%v\n%s", v.Violations, desc)
				require.True(t, relEqual(final, v.Cost), "cost.final %v, verify.Check %v\n%s", final, v.Cost, desc)
				require.True(t, relEqual(initial, v.InitialCost), "cost.initial %v, verify.Check %v\n%s", initial, v.InitialCost, desc)
				require.LessOrEqual(t, final, initial*(1+1e-9), "worse than the initializer\n%s", desc)
				if final < initial*(1-1e-9) {
					stats["search improves"]++
				}
				if res.Initial.Fallback != nil {
					stats["from the fallback plan"]++
				}
			}
		}
		if planned {
			stats["planned"]++
		} else {
			stats["no plan"]++
		}
	}
	t.Logf("%d programs in %v: %v", n, time.Since(start).Round(time.Millisecond), stats)
	// The generator gives a useful mix: mostly plannable, often improved
	// by the search, sometimes infeasible.
	require.Greater(t, stats["planned"], n/2)
	require.Greater(t, stats["search improves"], n/20)
	require.Greater(t, stats["no plan"]+stats["does not bind"], 0)
	// Where the initializer fails, the search starts from the fallback plan.
	require.Greater(t, stats["from the fallback plan"], 0)
}
