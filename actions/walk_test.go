package actions_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/state"
)

// TestWalkStepsAsStep: under the timeline model, re-planning a plan from
// a random timestep on with one Walk (which keeps the copies decide looks
// back at from one Step to the next) gives exactly the layout and the
// occupancy that Step alone gives (which collects them at each decision),
// the earlier plan's segments from that timestep on left in the layout
// as the search leaves them (stale loads and copies that decide meets),
// re-planned in another order than the plan's so that decisions change;
// and after each Step the copies the walk holds are those the layout has
// in the timesteps decide looks back at.
func TestWalkStepsAsStep(t *testing.T) {
	programs := 200
	if testmode.Quick() {
		programs = 50
	}
	planned, steps, copies := 0, 0, 0
	for seed := 0; planned < programs && seed < 20*programs; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x3a1c))
		p, ok := timelineProblem(rng, seed)
		if !ok {
			continue
		}
		lay := state.NewLayout(p.Blocks())
		if _, err := actions.NewInitializerOrder(p, actions.WorkloadOrder).Run(lay, 0); err != nil {
			continue
		}
		planned++
		T := p.Prog.Timesteps()
		from := 1 + rng.IntN(max(1, T-1))
		if from >= T {
			continue
		}
		in := actions.NewInitializerOrder(p, actions.KindOrder)
		name := fmt.Sprintf("seed %d, from %d", seed, from)
		a, b := lay.Clone(), lay.Clone()
		occA, err := state.OccupancyAt(p, a, from-1)
		require.NoError(t, err, name)
		occB, err := state.OccupancyAt(p, b, from-1)
		require.NoError(t, err, name)
		w := in.NewWalk()
		for u := from; u < T; u++ {
			errA := w.Step(occA, a, u)
			errB := in.Step(occB, b, u)
			require.Equal(t, errB, errA, "%s: step %d", name, u)
			if errA != nil {
				break
			}
			steps++
			require.True(t, a.Equal(b), "%s: layouts differ after step %d", name, u)
			// The copies the walk holds (slid from the last timestep's,
			// as Lookback collected those) are those of the layout.
			held, fresh := actions.Lookback(w, a)
			require.Equal(t, fresh, held, "%s: step %d", name, u)
			copies += len(held)
			for l := 0; l < p.Levels(); l++ {
				require.Equal(t, spansOf(occB, l), spansOf(occA, l), "%s: step %d, level %d", name, u, l)
			}
		}
	}
	require.Equal(t, programs, planned, "not enough plannable random programs")
	require.Positive(t, copies)
	t.Logf("%d programs, %d steps, %d copies looked back at", planned, steps, copies)
}
