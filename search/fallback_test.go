package search_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
)

// fragmented is actions' test program of the same name (see
// actions/fallback_test.go for the arithmetic): in one 1000 B level the
// initializer leaves 700 B free in two pieces at timestep 2, where d needs
// 600, although a packing exists. With levels, d is pinned to the first.
func fragmented(levels ...testprog.Level) *state.Problem {
	var pin []testprog.Option
	if len(levels) > 1 {
		pin = append(pin, testprog.Pin(levels[0].Name))
	}
	b := testprog.New("fragmented", 4).
		Block("a", 300, "activation", 0, 1).
		Block("b", 400, "activation", 0, 1).
		Block("c", 300, "activation", 0, 3).
		Block("d", 600, "activation", 2, 3, pin...)
	if len(levels) > 1 {
		b.Block("x", 100, "activation", 2, 3, testprog.Reads(2, 3)).
			Block("y", 100, "activation", 2, 3)
	}
	prog := b.Program()
	return testprog.Bind(prog, testprog.Profile("hw", levels...))
}

// TestStartsFromFallback: where the initializer cannot place a block, the
// search starts from the fallback plan, whose cost is InitialCost, and
// returns a valid plan no worse; the same on any number of workers.
func TestStartsFromFallback(t *testing.T) {
	one := testprog.Level{Name: "L", Capacity: 1000, Align: 1, Latency: 1, Bandwidth: 1}
	fast := testprog.Level{Name: "FAST", Capacity: 1000, Align: 1, Latency: 1, Bandwidth: 10}
	slow := testprog.Level{Name: "SLOW", Capacity: 4000, Align: 1, Latency: 10, Bandwidth: 1}
	for _, tc := range []struct {
		name   string
		p      *state.Problem
		levels int // levels the fallback packs
		// The costs of the fallback and of the search's plan. One level:
		// every plan costs 3208 (see actions' test). Two levels: the
		// fallback keeps x and y in FAST, by their saving per byte, and
		// sends c down, 941 (see actions' TestFallbackSendsDown); the
		// search keeps c in FAST and sends y down instead: y 2(10+100) =
		// 220 instead of 22, c 2(1+30) = 62 instead of 620, 941 + 198 -
		// 558 = 581, the optimum (all in FAST needs 1100 B at timesteps
		// 2-3, and of c, x and y, y costs least to send down).
		initial, final float64
	}{
		{"one level", fragmented(one), 1, 3208, 3208},
		{"two levels", fragmented(fast, slow), 2, 941, 581},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			_, err := actions.NewInitializer(p).Run(state.NewLayout(p.Blocks()), 0)
			var ie *actions.InfeasibleError
			require.ErrorAs(t, err, &ie, "the initializer fails")
			var first *search.Result
			for _, workers := range []int{1, 2} {
				r, err := search.RunProblem(context.Background(), p, &search.Settings{Check: true, Workers: workers})
				require.NoError(t, err)
				require.NotNil(t, r.Stats.Fallback)
				assert.Equal(t, "d", r.Stats.Fallback.Cause.Block)
				assert.Len(t, r.Stats.Fallback.Levels, tc.levels)
				assert.Equal(t, search.Converged, r.Status)
				validate(t, p, r, nil) // cost.initial is the fallback's: checked against VerifyInitial
				assert.Equal(t, tc.initial, r.InitialCost)
				assert.Equal(t, tc.final, r.Cost)
				if first == nil {
					first = r
					continue
				}
				assert.True(t, first.Layout.Equal(r.Layout), "the plan does not depend on the workers")
				assert.Equal(t, first.InitialCost, r.InitialCost)
			}
		})
	}
}
