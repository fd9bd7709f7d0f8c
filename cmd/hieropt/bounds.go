package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/bounds"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
)

type boundsOptions struct {
	Workload  string `mapstructure:"workload"`
	HW        string `mapstructure:"hw"`
	CostModel string `mapstructure:"cost-model"`
	Plan      string `mapstructure:"plan"`
	Format    string `mapstructure:"format"`
}

func newBoundsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bounds --workload W --hw P [--plan plan.json] [--format text|json]",
		Short: "Lower bounds: memory per level, and cost",
		Long: `bounds computes what no plan of the workload on the profile can beat:

  max-live     the most bytes live at one timestep;
  spill        per level, the least bytes that must sit below it (in slower
               levels) at the worst timestep;
  cost bound   the better of two lower bounds on the cost (under the seed
               model; the second alone under the others):
    whole      the whole-program bound: each block's cheapest path through
               the levels over its life (its reads, writes and moves priced
               as a plan pays them), with each level's bytes at each
               timestep priced so that the paths respect the capacities
               (a Lagrangian relaxation improved by subgradient steps,
               in two ascents: prices in bytes, then scaled to the
               levels' capacities; every step's value is a valid bound);
    per step   for each timestep, the least cost of its reads and writes if
               the blocks accessed there could be split fractionally over
               the levels within their capacities (a small linear program),
               summed over the timesteps. Transfers only add cost, so no
               plan costs less.

Under the timeline model (FORMATS.md section 6) an op lasts at least as long
as its compute and as its least access cost, and copies only make it wait:
the cost bound is the sum over ops of max(compute, least access cost), and
the access bound line gives the linear programs' sum alone. A profile with a
compute section gets this timeline bound line under the other models too.

It also prints the cost of planning nothing (every block in the slowest
level it may use, no copies), and with --plan, how much of the possible gain
the plan captured: (nothing - plan) / (nothing - bound), against the bound
of the plan's cost model.`,
		Example: `  hieropt bounds --workload resnet50-int8 --hw ethos-u55
  hieropt bounds --workload resnet50-int8 --hw ethos-u55 --plan plan.json`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	f.String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	f.String("cost-model", "", "cost model (known: "+strings.Join(boundModels(), ", ")+"); default: the profile's cost_model, else "+costmodel.Default)
	f.String("plan", "", "a plan to measure against the bound")
	formatFlag(f, "text, or json (one object: the bounds, and the plan's place between them)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o boundsOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		var err error
		if o.Format, err = checkFormat(o.Format, nil, "text", "json"); err != nil {
			return err
		}
		return a.bounds(&o)
	}
	return cmd
}

// boundModels are the models bounds knows: the registered cost models and
// the timeline model, whose bound needs no registered model.
func boundModels() []string {
	names := costmodel.Names()
	if _, ok := costmodel.Lookup(verify.TimelineModel); !ok {
		names = append(names, verify.TimelineModel)
	}
	return names
}

// checkBoundModel rejects a model bounds does not know; where names one,
// e.g. "--cost-model" or the profile's document.
func checkBoundModel(name, where string) error {
	if name == verify.TimelineModel {
		return nil
	}
	if _, ok := costmodel.Lookup(name); !ok {
		return usageErrorf("%s %q is not known (known: %s)", where, name, strings.Join(boundModels(), ", "))
	}
	return nil
}

func (a *app) bounds(o *boundsOptions) error {
	if o.CostModel != "" {
		if err := checkBoundModel(o.CostModel, "--cost-model"); err != nil {
			return err
		}
	}
	p, err := a.loadProblem(o.Workload, o.HW)
	if err != nil {
		return err
	}
	name := cmp.Or(o.CostModel, p.HW.CostModel, costmodel.Default)
	if err := checkBoundModel(name, fmt.Sprintf("hardware profile %q: cost_model", p.HW.Name)); err != nil {
		return err
	}
	if err := p.CheckCapacity(); err != nil {
		return err
	}
	cb, err := costBoundOf(p, name)
	if err != nil {
		return err
	}
	if o.Format == "json" {
		return a.boundsJSON(p, name, cb, o.Plan)
	}
	w := a.stdout
	writeMemoryBounds(w, p, name, cb)
	cb.write(w)
	if name != verify.TimelineModel && (p.HW.Compute != nil || p.HW.CostModel == verify.TimelineModel) {
		tl, err := costBoundOf(p, verify.TimelineModel)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "timeline     bound %s %s (%s), no planning %s\n", fmtCost(tl.Cost), tl.unit, tl.how(), fmtCost(tl.None))
	}
	if o.Plan != "" {
		return a.boundsOfPlan(p, o.Plan, name, cb)
	}
	return nil
}

// writeMemoryBounds prints the heading, max-live and the spill table.
func writeMemoryBounds(w io.Writer, p *state.Problem, model string, cb *costBound) {
	fmt.Fprintf(w, "bounds of %s on %s (%s model)\n", p.Prog.Name, p.HW.Name, model)
	fmt.Fprintf(w, "max-live     %d B (%s) at timestep %d\n", cb.Access.MaxLive, fmtBytes(cb.Access.MaxLive), p.Prog.ComputeStats().MaxLiveAt)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "level\tcapacity\tmust spill below it")
	for l, lv := range p.HW.Levels {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", lv.Name, fmtBytes(lv.Capacity), fmtBytes(cb.Access.Spill[l]))
	}
	_ = tw.Flush() // its writer keeps the error: a checked stream (streams.go) or a buffer
}

// boundsOfPlan prints how the plan at path compares with the bound of its
// own cost model: cb when that is the model of the bounds printed.
func (a *app) boundsOfPlan(p *state.Problem, path, model string, cb *costBound) error {
	pl, err := a.checkedPlan(p, path)
	if err != nil {
		return err
	}
	if pm := cmp.Or(pl.CostModel, costmodel.Default); pm != model {
		if cb, err = costBoundOf(p, pm); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "plan model   %s: its cost bound %s %s, no planning %s\n", pm, fmtCost(cb.Cost), hw.Units(p.HW.TimeUnit), fmtCost(cb.None))
	}
	c := pl.Cost.Final
	fmt.Fprintf(a.stdout, "plan         %s %s: %s above the bound; captures %s of what planning can gain\n",
		fmtCost(c), hw.Units(p.HW.TimeUnit), pctOf(c-cb.Cost, cb.Cost), fmtCaptured(bounds.Captured(cb.None, c, cb.Cost)))
	return nil
}

// costBound is the lower bound on the cost of every plan of a problem
// under one cost model, and the cost of planning nothing under it: for
// the timeline model bounds.Timeline and bounds.NoPlanningTimeline, for the
// others the per-timestep bound (bounds.Compute) and bounds.NoPlanning.
type costBound struct {
	Model string
	Cost  float64
	None  float64
	// Access is the per-timestep bound: under the model, or under the
	// timeline model the least access costs (Timeline.Access).
	Access   *bounds.Bound
	Timeline *bounds.TimelineBound // under the timeline model
	// Whole is the whole-program bound (seed003 only; nil otherwise).
	Whole *bounds.WholeBound
	unit  string
	steps int
}

// costBoundOf computes the bound of p under the named model: the timeline
// model, or a registered cost model.
func costBoundOf(p *state.Problem, model string) (*costBound, error) {
	return costBoundCtx(context.Background(), p, model)
}

// costBoundCtx is costBoundOf whose whole-program bound stops when ctx
// ends (the bound is then looser, still valid).
func costBoundCtx(ctx context.Context, p *state.Problem, model string) (*costBound, error) {
	return costBoundWith(ctx, p, model, nil)
}

// costBoundWith is costBoundCtx with the whole-program bound known
// already, if known is not nil (hieropt.Result.Bound: planning computed
// it for the search's bound start, with the same options).
func costBoundWith(ctx context.Context, p *state.Problem, model string, known *bounds.WholeBound) (*costBound, error) {
	cb := &costBound{Model: model, unit: hw.Units(p.HW.TimeUnit), steps: p.Prog.Timesteps()}
	if model == verify.TimelineModel {
		tl, err := bounds.Timeline(p)
		if err != nil {
			return nil, internalErrorf("%v", err)
		}
		cb.Cost, cb.None, cb.Access, cb.Timeline = tl.Cost, bounds.NoPlanningTimeline(p), tl.Access, tl
		return cb, nil
	}
	m, ok := costmodel.Lookup(model)
	if !ok {
		return nil, usageErrorf("cost model %q is not known (known: %s)", model, strings.Join(boundModels(), ", "))
	}
	b, err := bounds.Compute(p, m)
	if err != nil {
		return nil, internalErrorf("%v", err)
	}
	cb.Cost, cb.None, cb.Access = b.Cost, bounds.NoPlanning(p, m), b
	// The whole-program bound, where it models the prices: the better
	// of the two is the bound.
	wb, err := known, error(nil)
	if wb == nil {
		wb, err = bounds.Whole(ctx, p, m, bounds.WholeOptions{})
	}
	if err == nil {
		cb.Whole = wb
		cb.Cost = max(cb.Cost, wb.Cost)
	} else if !errors.Is(err, bounds.ErrNotSeparable) && !errors.Is(err, bounds.ErrTooLarge) && ctx.Err() == nil {
		return nil, internalErrorf("%v", err)
	}
	return cb, nil
}

// noPlanningCost is the cost of planning nothing under the named model
// (without the bound, which takes longer); NaN for a model bounds does not
// know.
func noPlanningCost(p *state.Problem, model string) float64 {
	if model == verify.TimelineModel {
		return bounds.NoPlanningTimeline(p)
	}
	m, ok := costmodel.Lookup(model)
	if !ok {
		return math.NaN()
	}
	return bounds.NoPlanning(p, m)
}

// how says how the bound was found.
func (cb *costBound) how() string {
	if tl := cb.Timeline; tl != nil {
		return fmt.Sprintf("per op max(compute, least access cost); %d of %d ops compute-bound", tl.ComputeBound, cb.steps)
	}
	if cb.Whole != nil && cb.Whole.Cost > cb.Access.Cost {
		return "whole-program bound"
	}
	return "per-timestep LP"
}

// write prints the bound's lines of the bounds command.
func (cb *costBound) write(w io.Writer) {
	lps := fmt.Sprintf("%d of %d timesteps needed a linear program", cb.Access.LPs, cb.steps)
	if cb.Timeline != nil {
		fmt.Fprintf(w, "access bound %s %s (the least access costs alone; %s)\n", fmtCost(cb.Access.Cost), cb.unit, lps)
		fmt.Fprintf(w, "cost bound   %s %s (%s)\n", fmtCost(cb.Cost), cb.unit, cb.how())
		fmt.Fprintf(w, "no planning  %s %s (every block in the slowest level it may use, no copies)\n", fmtCost(cb.None), cb.unit)
		return
	}
	if wb := cb.Whole; wb != nil && wb.Cost > cb.Access.Cost {
		fmt.Fprintf(w, "cost bound   %s %s (%s: the better of the two below)\n", fmtCost(cb.Cost), cb.unit, cb.how())
		fmt.Fprintf(w, "  whole      %s %s (whole program: blocks persist and pay their moves; capacities priced, %d rows, %s, %d steps in %d ascents; without prices %s)\n",
			fmtCost(wb.Cost), cb.unit, wb.Rows, plural(wb.Cuts, "cut"), wb.Iterations, bounds.Ascents, fmtCost(wb.Free))
		fmt.Fprintf(w, "  per step   %s %s (%s)\n", fmtCost(cb.Access.Cost), cb.unit, lps)
	} else {
		fmt.Fprintf(w, "cost bound   %s %s (%s)\n", fmtCost(cb.Cost), cb.unit, lps)
	}
	fmt.Fprintf(w, "no planning  %s %s (every block in the slowest level it may use)\n", fmtCost(cb.None), cb.unit)
}

func pctOf(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*a/b)
}

func fmtCaptured(c float64) string {
	if math.IsNaN(c) {
		return "- (the bound leaves nothing to gain)"
	}
	return fmt.Sprintf("%.1f%%", 100*c)
}

// boundLine is the summary's line about the cost bound under the plan's
// model: the per-timestep LP bound, or the timeline bound; cost is the
// plan's.
func boundLine(ctx context.Context, p *state.Problem, model string, cost float64) string {
	cb, err := costBoundCtx(ctx, p, model)
	if err != nil {
		return "cost bound unavailable: " + errorText(err)
	}
	return fmt.Sprintf("%s %s (%s; no planning costs %s): the plan captures %s of what planning can gain",
		fmtCost(cb.Cost), cb.unit, cb.how(), fmtCost(cb.None), fmtCaptured(bounds.Captured(cb.None, cost, cb.Cost)))
}

// boundsJSON prints what the text of bounds says as one JSON object; with
// planPath, the plan's cost against the bound of its own cost model.
func (a *app) boundsJSON(p *state.Problem, model string, cb *costBound, planPath string) error {
	type level struct {
		Name       string `json:"name"`
		Capacity   int64  `json:"capacity"`
		SpillBytes int64  `json:"must_spill_bytes"`
	}
	type whole struct {
		Cost       float64 `json:"cost"`
		Free       float64 `json:"cost_without_prices"`
		Rows       int     `json:"rows"`
		Cuts       int     `json:"cuts"`
		Iterations int     `json:"steps"`
	}
	type timeline struct {
		Cost         float64 `json:"cost_bound"`
		NoPlanning   float64 `json:"no_planning"`
		ComputeBound int     `json:"compute_bound_ops"`
	}
	type planVsBound struct {
		File          string   `json:"file"`
		CostModel     string   `json:"cost_model"`
		Cost          float64  `json:"cost"`
		CostBound     float64  `json:"cost_bound"`
		NoPlanning    float64  `json:"no_planning"`
		AboveBoundPct *float64 `json:"above_bound_pct"`
		Captured      *float64 `json:"captured"`
	}
	out := struct {
		Workload     string       `json:"workload"`
		Hardware     string       `json:"hardware"`
		CostModel    string       `json:"cost_model"`
		TimeUnit     string       `json:"time_unit"`
		MaxLive      int64        `json:"max_live_bytes"`
		MaxLiveAt    int          `json:"max_live_timestep"`
		Levels       []level      `json:"levels"`
		CostBound    float64      `json:"cost_bound"`
		How          string       `json:"cost_bound_how"`
		PerStep      float64      `json:"per_step_bound"`
		LPs          int          `json:"per_step_lps"`
		Timesteps    int          `json:"timesteps"`
		Whole        *whole       `json:"whole_program_bound,omitempty"`
		ComputeBound *int         `json:"compute_bound_ops,omitempty"`
		NoPlanning   float64      `json:"no_planning"`
		Timeline     *timeline    `json:"timeline,omitempty"`
		Plan         *planVsBound `json:"plan,omitempty"`
	}{
		Workload: p.Prog.Name, Hardware: p.HW.Name, CostModel: model, TimeUnit: cb.unit,
		MaxLive: cb.Access.MaxLive, MaxLiveAt: p.Prog.ComputeStats().MaxLiveAt,
		CostBound: cb.Cost, How: cb.how(), PerStep: cb.Access.Cost, LPs: cb.Access.LPs, Timesteps: cb.steps,
		NoPlanning: cb.None,
	}
	for l, lv := range p.HW.Levels {
		out.Levels = append(out.Levels, level{lv.Name, lv.Capacity, cb.Access.Spill[l]})
	}
	if wb := cb.Whole; wb != nil {
		out.Whole = &whole{wb.Cost, wb.Free, wb.Rows, wb.Cuts, wb.Iterations}
	}
	if tl := cb.Timeline; tl != nil {
		out.ComputeBound = &tl.ComputeBound
	}
	if model != verify.TimelineModel && (p.HW.Compute != nil || p.HW.CostModel == verify.TimelineModel) {
		tl, err := costBoundOf(p, verify.TimelineModel)
		if err != nil {
			return err
		}
		out.Timeline = &timeline{tl.Cost, tl.None, tl.Timeline.ComputeBound}
	}
	if planPath != "" {
		pl, err := a.checkedPlan(p, planPath)
		if err != nil {
			return err
		}
		pb := cb
		if pm := cmp.Or(pl.CostModel, costmodel.Default); pm != model {
			if pb, err = costBoundOf(p, pm); err != nil {
				return err
			}
		}
		c := pl.Cost.Final
		var above *float64
		if pb.Cost != 0 {
			above = finite(100 * (c - pb.Cost) / pb.Cost)
		}
		out.Plan = &planVsBound{File: planPath, CostModel: pb.Model, Cost: c, CostBound: pb.Cost, NoPlanning: pb.None,
			AboveBoundPct: above, Captured: finite(bounds.Captured(pb.None, c, pb.Cost))}
	}
	return a.printJSON(out)
}
