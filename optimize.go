package hieropt

import (
	"context"
	"fmt"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// Result is a planned program.
type Result struct {
	// Plan is the plan document (FORMATS.md section 3), already checked
	// against every rule; write it with Plan.Write.
	Plan *plan.Plan
	// Problem and Layout give the plan by dense IDs: Layout.Segs[b] are
	// block b's placements, Problem.HW.Levels[seg.Level] their levels.
	Problem *state.Problem
	Layout  *state.Layout
	// Search has the search's statistics and how it ended.
	Search *search.Result
}

// Optimize plans prog on prof, the way `hieropt optimize` does: the
// initializer, then the search and its repacking step (settings nil: the
// documented defaults; search.Settings.Repack sets or turns off the
// repacking), then a check of the plan against FORMATS.md.
//
// prog and prof are checked here (state.Bind): the error is an
// *inputerr.Error naming the item and the rule if prog breaks a rule of
// FORMATS.md section 1, prof one of section 2, or prog cannot be bound to
// prof; a *state.CapacityError if no plan exists, an
// *actions.InfeasibleError if neither the initializer nor the fallback
// plan (actions.FallbackPlan, from which the search then starts) finds
// one, or ctx's error if it was cancelled before a plan existed; a
// cancelled search returns the best plan so far (Search.Status says so).
func Optimize(ctx context.Context, prog *workload.Program, prof *hw.Profile, s *search.Settings) (*Result, error) {
	doc := "workload"
	if prog != nil {
		doc = workload.DocName(prog.Name)
	}
	p, err := state.Bind(prog, prof, doc)
	if err != nil {
		return nil, err
	}
	r, err := search.RunProblem(ctx, p, s)
	if err != nil {
		return nil, err
	}
	model := costmodel.Model(costmodel.Seed003{})
	if s != nil && s.CostModel != nil {
		model = s.CostModel
	}
	pl := r.Layout.Plan(p)
	pl.Planner = "search"
	pl.Cost = plan.Cost{Initial: r.InitialCost, Final: r.Cost}
	if model.Name() != costmodel.Default {
		pl.CostModel = model.Name()
	}
	// The checker recomputes cost.initial with the planner's initializer:
	// never cancelled, as a cancelled search still returns its plan.
	check, err := verify.Check(p.Prog, p.HW, pl, &verify.Options{Initial: actions.VerifyInitial(context.Background(), p, model)})
	if err != nil {
		return nil, fmt.Errorf("hieropt: internal error: checking the plan: %w", err)
	}
	if !check.Valid() {
		return nil, fmt.Errorf("hieropt: internal error: the plan breaks %s", check.Violations[0])
	}
	return &Result{Plan: pl, Problem: p, Layout: r.Layout, Search: r}, nil
}
