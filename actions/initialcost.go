package actions

import (
	"context"
	"fmt"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/state"
)

// InitialCost returns what a plan of p priced by model m states as
// cost.initial (FORMATS.md section 3, rule 6): the cost of InitialPlan's
// plan under m, as costmodel.Total gives it (for a separable model the
// sum of BlockCost over the blocks in ID order; for the timeline model
// its simulation, which no sum over blocks gives). fb and the error are
// InitialPlan's.
func InitialCost(ctx context.Context, p *state.Problem, m costmodel.Model) (cost float64, fb *Fallback, err error) {
	lay, fb, err := InitialPlan(ctx, p, m)
	if err != nil {
		return 0, nil, err
	}
	return costmodel.Total(m, p, lay), fb, nil
}

// VerifyInitial returns InitialCost as the plan checker takes it
// (verify.Options.Initial): the checker cannot make the initializer's plan
// itself, so the caller that knows the planner passes this. m is the
// plan's cost model. The plan it prices is named "the initializer's plan",
// or, where the initializer cannot place a block, the fallback plan and
// why; an error says the initializer finds no plan.
func VerifyInitial(ctx context.Context, p *state.Problem, m costmodel.Model) func() (float64, string, error) {
	return func() (float64, string, error) {
		cost, fb, err := InitialCost(ctx, p, m)
		if err != nil {
			return 0, "", fmt.Errorf("the initializer finds no plan (%w)", err)
		}
		if fb != nil {
			return cost, fmt.Sprintf("the fallback plan (the initializer cannot place block %q at timestep %d)", fb.Cause.Block, fb.Cause.Timestep), nil
		}
		return cost, "the initializer's plan", nil
	}
}
