package actions_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workloads"
)

// readOnlyProblem binds the seed-000 example to testdata/hw/two-level-ro.yaml
// (FAST 5120 B, exactly its max-live, over a read-only SLOW), the fast
// level's capacity set to capacity.
func readOnlyProblem(t *testing.T, capacity int64) (*state.Problem, error) {
	t.Helper()
	prog, err := workloads.Get("seed000-example")
	require.NoError(t, err)
	prof, err := hw.ReadFile(filepath.Join("..", "testdata", "hw", "two-level-ro.yaml"))
	require.NoError(t, err)
	require.True(t, prof.Levels[1].ReadOnly)
	prof.Levels[0].Capacity = capacity
	return state.Bind(prog, prof, "seed000-example")
}

// TestReadOnlyLevelPlan: on a profile whose slow level is read-only, the
// seed-000 example's blocks (none a constant) all go to the fast level,
// whose 5120 B they fill exactly at their peak; the plan (the
// initializer's, or the fallback's where the initializer fragments) is
// valid, rule 7 included. On two-level-5k, the same profile with a
// writable slow level, the initializer uses the slow level.
func TestReadOnlyLevelPlan(t *testing.T) {
	p, err := readOnlyProblem(t, 5120)
	require.NoError(t, err)
	require.NoError(t, p.CheckCapacity())
	lay, _, err := actions.InitialPlan(context.Background(), p, costmodel.Seed003{})
	require.NoError(t, err)
	for b, segs := range lay.Segs {
		for _, s := range segs {
			assert.Equal(t, int32(0), s.Level, "block %q", p.Block(b).Name)
		}
	}
	rep := validated(t, p, lay, costmodel.Total(costmodel.Seed003{}, p, lay))
	assert.True(t, rep.Valid(), "%v", rep.Violations)

	// Every candidate the actions offer an activation stays in FAST.
	for t0 := 0; t0 < p.Prog.Timesteps(); t0++ {
		for _, b := range p.Accessed(t0) {
			occ, err := state.OccupancyAt(p, lay, t0)
			require.NoError(t, err)
			actions.Detach(occ, lay, int(b), t0)
			actions.Enumerate(occ, lay, int(b), t0, actions.Options{Actions: actions.All}, func(c actions.Candidate) {
				assert.Equal(t, int32(0), c.To.Level, "candidate %+v", c)
			})
		}
	}

	writable := testprog.Bind(p.Prog, func() *hw.Profile {
		c := *p.HW
		c.Levels = append([]hw.Level(nil), p.HW.Levels...)
		c.Levels[1].ReadOnly = false
		return &c
	}())
	lay2 := state.NewLayout(writable.Blocks())
	_, err = actions.NewInitializer(writable).Run(lay2, 0)
	require.NoError(t, err)
	inSlow := 0
	for _, segs := range lay2.Segs {
		if segs[0].Level == 1 {
			inSlow++
		}
	}
	assert.Positive(t, inSlow, "with a writable slow level the initializer uses it")
}

// TestReadOnlyLevelInfeasible: when the blocks other than constants fit
// the read-only level only, there is no plan: CheckCapacity says so (the
// writable levels are too small), the initializer's error names the
// read-only level it may not use, and there is no fallback plan either.
func TestReadOnlyLevelInfeasible(t *testing.T) {
	p, err := readOnlyProblem(t, 4096)
	require.NoError(t, err)
	// At timestep 2, op0.out (2048 B), op1.out (2048 B) and op2.out (1024
	// B) are live: 5120 B.
	var ce *state.CapacityError
	require.ErrorAs(t, p.CheckCapacity(), &ce)
	assert.True(t, ce.Writable)
	assert.Equal(t, `workload "seed000-example" cannot fit hardware profile "two-level-ro": at timestep 2 its live blocks other than constants need at least 5120 B but the writable levels hold 4096 B in total (FAST 4096 B; read-only SLOW holds constants only); largest live blocks: "op0.out" (2048 B), "op1.out" (2048 B), "op2.out" (1024 B)`, ce.Error())

	_, err = actions.NewInitializer(p).Run(state.NewLayout(p.Blocks()), 0)
	var ie *actions.InfeasibleError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, []string{"SLOW"}, ie.ReadOnly)
	assert.Equal(t, []string{"FAST"}, ie.Levels)
	assert.Contains(t, ie.Error(), "fits no writable level: FAST needs")
	assert.Contains(t, ie.Error(), "; read-only SLOW holds constants only")

	_, _, err = actions.InitialPlan(context.Background(), p, costmodel.Seed003{})
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, ie.Fallback, "no fallback plan either: the blocks that can go nowhere but FAST need")
}
