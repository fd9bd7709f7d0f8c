package hieropt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// Plan plans prog on prof, as `hieropt optimize` does, and returns the
// checked plan. s nil means the defaults: the search (the initializer in
// two orders, the walk, repacking) priced by the profile's cost model or
// seed003, on all cores, with no time limit.
//
// Its steps, each timed in Result.Times:
//
//  1. Settings.Validate: a bad field is a *SettingError (joined, one per
//     field).
//  2. Binding: state.Bind checks prog against FORMATS.md section 1, prof
//     against section 2, and one against the other (an *inputerr.Error
//     naming the item and the rule, never a panic), builds the indexes
//     the planners read, checks that the blocks can fit at all (a
//     *state.CapacityError if not) and that the timesteps of
//     Settings.Search.Segments are the program's (a *SettingError if not).
//  3. The planner that Settings.Planner names. The search: cost.initial's
//     plan (the initializer in workload order, or where it cannot place
//     a block the fallback plan, actions.FallbackPlan) and the plans of
//     the other orders of Settings.Starts; the walk (search.Walk) from
//     the cheapest; then repacking (package repack) within
//     Settings.Repack. An *actions.InfeasibleError if neither the
//     initializer nor the fallback plan finds a plan, a *PlannerError if
//     another planner finds none.
//  4. Assembling the plan document: placements and transfers
//     (state.Layout.Plan), the planner's description with its settings,
//     the cost model (left out for the default), cost.initial and
//     cost.final.
//  5. Verification: verify.Check, every rule of FORMATS.md section 3,
//     cost.initial recomputed through actions.VerifyInitial. A plan that
//     breaks one is a bug, returned as an *InternalError.
//
// A cancelled ctx stops the search between candidates: Plan returns the
// best plan committed so far, checked, with Status Cancelled (or ctx's
// error, if it was cancelled before a plan existed). A time limit
// (Settings.TimeLimit, or ctx's deadline) is not an error: see
// Settings.TimeLimit and Result.Cut.
func Plan(ctx context.Context, prog *workload.Program, prof *hw.Profile, s *Settings) (*Result, error) {
	r := &run{res: &Result{}, begin: time.Now()}
	r.last = r.begin
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s != nil {
		r.s = *s
	}
	if err := r.bind(prog, prof); err != nil {
		return nil, err
	}
	if err := r.plan(ctx); err != nil {
		return nil, err
	}
	if err := r.verify(); err != nil {
		return nil, err
	}
	return r.res, nil
}

// run is one Plan call in progress.
type run struct {
	s     Settings // validated
	p     *state.Problem
	model costmodel.Model
	res   *Result
	// lay is the planner's layout and cost its cost; desc describes the
	// planner and its settings for the plan document.
	lay  *state.Layout
	cost float64
	desc string
	// begin is when the call began, last when the last step timed ended.
	begin, last time.Time
	// limited says the call has a deadline (a time limit, or ctx's).
	limited bool
}

// lap returns the time since the last step ended: the step that ends now.
func (r *run) lap() time.Duration {
	now := time.Now()
	d := now.Sub(r.last)
	r.last = now
	return d
}

// bind binds the documents into a problem, checks that it can fit, and
// finds the cost model.
func (r *run) bind(prog *workload.Program, prof *hw.Profile) error {
	doc := r.s.Document
	if doc == "" {
		doc = "workload"
		if prog != nil {
			doc = workload.DocName(prog.Name)
		}
	}
	m, err := r.s.Model(prof)
	if err != nil {
		return err
	}
	p, err := state.Bind(prog, prof, doc, state.Semantics{Timeline: m.Timeline()})
	if err != nil {
		return err
	}
	if err := r.s.checkSegments(p.Prog.Timesteps()); err != nil {
		return err
	}
	if err := p.CheckCapacity(); err != nil {
		return err
	}
	r.p, r.model = p, m
	r.res.Problem, r.res.Model = p, m
	r.res.Times.Bind = r.lap()
	return nil
}

// plan runs the planner. Its steps that may be cut run under lim, which
// ends at the time limit less the reserve for verification, or when ctx
// ends; those that must finish (a plan must exist) run under whole, which
// ends only when ctx is cancelled.
func (r *run) plan(ctx context.Context) error {
	lim, cancel := r.limit(ctx)
	defer cancel()
	whole, stop := withoutDeadline(ctx)
	defer stop()
	if err := whole.Err(); err != nil {
		return err // cancelled before a plan existed
	}
	desc, err := r.s.planner().plan(r, lim, whole)
	if err != nil {
		return err
	}
	r.desc = desc
	r.res.Layout = r.lay
	return nil
}

// Estimated costs of assembling and verifying a plan, per block, measured
// on the 2-core VM the README's numbers come from (generated programs of
// 20,000 and 50,000 ops on h100-sm under the timeline model, whose check
// simulates the run: 2-4 µs a block of CPU time) and doubled, as the
// machine may be busier when it counts; plus a floor for the fixed costs.
// Under a limit the check does not make the initializer's plan again
// (see verify), so this is all it needs.
const (
	verifyFloor    = 10 * time.Millisecond
	verifyPerBlock = 8 * time.Microsecond
)

// verifyReserve is the time Plan keeps out of a time limit for
// assembling and verifying the plan.
func verifyReserve(p *state.Problem) time.Duration {
	return verifyFloor + time.Duration(p.Blocks())*verifyPerBlock
}

// limit returns ctx ending also at the call's deadline (the time limit or
// ctx's deadline, the earlier) less the reserve for verification, and
// records the planner's budget.
func (r *run) limit(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if r.s.TimeLimit > 0 {
		if d := r.begin.Add(r.s.TimeLimit); !ok || d.Before(deadline) {
			deadline, ok = d, true
		}
	}
	if !ok {
		return ctx, func() {}
	}
	r.limited = true
	r.res.Reserve = verifyReserve(r.p)
	end := deadline.Add(-r.res.Reserve)
	r.res.Budget = max(time.Until(end), 0)
	return context.WithDeadline(ctx, end)
}

// withoutDeadline returns ctx without its deadline: it is cancelled when
// ctx is cancelled, but not when ctx's deadline passes. The start of a
// plan uses it: a plan must exist, however early the deadline.
func withoutDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	follow := func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	}
	if ctx.Err() != nil {
		follow() // at once: AfterFunc would do it on another goroutine
	}
	stop := context.AfterFunc(ctx, follow)
	return c, func() { stop(); cancel() }
}

// statusOf is how a planner that ctx stopped ended.
func statusOf(ctx context.Context) Status {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return TimeLimit
	}
	return Cancelled
}

// verify assembles the plan document and checks it.
func (r *run) verify() error {
	pl := r.lay.Plan(r.p)
	pl.Planner = r.desc
	if r.model.Name() != costmodel.Default {
		pl.CostModel = r.model.Name()
	}
	pl.Cost = plan.Cost{Initial: r.res.Initial.Cost, Final: r.cost}
	// The checker recomputes cost.initial with the planner's initializer:
	// never cancelled, as a cancelled search still returns its plan. Under
	// a time limit it takes the cost the planner computed with the same
	// initializer in this call (deterministic: the same value), as making
	// that plan again could take a large part of the limit.
	initial := actions.VerifyInitial(context.Background(), r.p, r.model)
	if r.limited {
		initial = actions.KnownInitial(r.res.Initial.Cost, r.res.Initial.Fallback)
	}
	rep, err := verify.Check(r.p.Prog, r.p.HW, pl, &verify.Options{Initial: initial})
	if err != nil {
		return &InternalError{fmt.Errorf("checking the plan: %w", err)}
	}
	if !rep.Valid() {
		return &InternalError{fmt.Errorf("the plan breaks %s", rep.Violations[0])}
	}
	r.res.Plan, r.res.Check = pl, rep
	r.res.Times.Verify = r.lap()
	return nil
}

// InternalError is a bug in hieropt: a plan it made breaks a rule of
// FORMATS.md, or could not be checked. Please report it.
type InternalError struct{ Err error }

func (e *InternalError) Error() string { return "internal error: " + e.Err.Error() }
func (e *InternalError) Unwrap() error { return e.Err }

// PlannerError says that a planner other than the search and the
// initializer found no plan: a single-arena planner whose arena fits no
// level, or "none" where a block cannot go to the slowest level.
type PlannerError struct {
	Planner string
	Err     error
}

func (e *PlannerError) Error() string { return e.Err.Error() }
func (e *PlannerError) Unwrap() error { return e.Err }
