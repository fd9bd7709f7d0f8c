package fuzzcheck_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/internal/fuzzcheck"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// TestPropertiesReadOnly runs checkPlanners (the initializer in both
// orders, the fallback plan, every arena planner and the search, every
// plan checked by verify, rule 7 included) on random problems whose
// profiles often have a read-only level (fuzzcheck.SmallReadOnly): no
// planner ever places a block other than a constant there, and where none
// finds a plan the error is the infeasibility (or capacity) error.
func TestPropertiesReadOnly(t *testing.T) {
	n := 2000
	if testmode.Quick() {
		n = 200
	}
	stats := map[string]int{}
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(15, uint64(i)))
		prog, prof := fuzzcheck.Problem(rng, fuzzcheck.SmallReadOnly)
		checkPlanners(t, prog, prof, []namedSettings{
			{"defaults", hieropt.Settings{Search: search.Settings{Workers: 1, Check: true}}},
			{"seed", hieropt.Settings{Search: search.Settings{Workers: 1, Check: true, Beam: 1, Actions: actions.Seed}, Starts: initialOnly}},
		})
		if t.Failed() {
			t.Fatalf("program %d (rand.NewPCG(15, %d))", i, i)
		}
		readOnly := -1
		for l := range prof.Levels {
			if prof.Levels[l].ReadOnly {
				readOnly = l
			}
		}
		p, err := state.Bind(prog, prof, "random")
		switch {
		case readOnly < 0:
			stats["no read-only level"]++
		case err != nil:
			stats["read-only, does not bind"]++
		default:
			// Would a block other than a constant have fitted the read-only
			// level? Then the planners had to keep it out of a place they
			// could have used.
			for b := range prog.Blocks {
				if prog.Blocks[b].Kind != workload.Constant && p.Foot(b, readOnly) <= prof.Levels[readOnly].Capacity &&
					(prog.Blocks[b].Level == "" || prog.Blocks[b].Level == prof.Levels[readOnly].Name) {
					stats["read-only, kept out"]++
					break
				}
			}
			if _, err := runSearch(p, &hieropt.Settings{Search: search.Settings{Workers: 1}}); err == nil {
				stats["read-only, planned"]++
			} else {
				stats["read-only, no plan"]++
			}
		}
	}
	t.Logf("%d programs: %v", n, stats)
	require.Greater(t, stats["read-only, planned"], n/4)
	require.Greater(t, stats["read-only, kept out"], n/4)
	require.Greater(t, stats["read-only, no plan"]+stats["read-only, does not bind"], 0)
}
