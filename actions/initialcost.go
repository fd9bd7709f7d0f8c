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
		return cost, initialName(fb), nil
	}
}

// KnownInitial is VerifyInitial for a caller that has just computed
// InitialCost itself (cost and fb are what it returned): the checker
// takes them instead of making the initializer's plan again. hieropt.Plan
// passes it under a time limit, where making that plan a second time
// could take a large part of the limit.
func KnownInitial(cost float64, fb *Fallback) func() (float64, string, error) {
	return func() (float64, string, error) { return cost, initialName(fb), nil }
}

// initialName names the plan cost.initial prices, fb being InitialPlan's.
func initialName(fb *Fallback) string {
	if fb != nil {
		return fmt.Sprintf("the fallback plan (the initializer cannot place block %q at timestep %d)", fb.Cause.Block, fb.Cause.Timestep)
	}
	return "the initializer's plan"
}
