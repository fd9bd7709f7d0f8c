package main

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

type renderOptions struct {
	Workload string `mapstructure:"workload"`
	HW       string `mapstructure:"hw"`
	Output   string `mapstructure:"output"`
	Compare  string `mapstructure:"compare"`
	ASCII    bool   `mapstructure:"ascii"`
	Timeline bool   `mapstructure:"timeline"`
	Width    int    `mapstructure:"width"`
	Rows     int    `mapstructure:"rows"`
	From     string `mapstructure:"from"`
	To       string `mapstructure:"to"`
}

func newRenderCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "render --workload W --hw P plan.json [-o plan.svg] [--compare other.json] [--ascii | --timeline] [--from T] [--to T]",
		Short: "Draw a plan as a time-space diagram (SVG) or a text map",
		Long: `render draws a plan the way the seed documents do: one panel per memory
level, timesteps across, addresses up (0 at the bottom, the capacity marked),
one rectangle per placement coloured by block kind (hover for the block's name,
size, lifetime and level), reused space hatched, transfers as arrows between
panels. --compare REF draws the reference plan REF (say the initial plan) on
the left and the plan on the right, as the HTML report puts the initial plan
before the final one; the pair is 1400 px wide unless --width sets each
plot's width.

--ascii prints a compact text map of each level over time instead, for
terminals and CI logs: each cell shows how full that slice of addresses was
over those timesteps.

--timeline draws the plan's timeline instead, for a plan of the timeline
model (FORMATS.md section 6), as seed 004's figures 3 and 4 draw weight
loading: time across, a lane per DMA channel (a bar per copy, from its
begin to its end, its wait for the channel above it) over the compute
unit's lane (a bar per op, compute time above, memory time below, stalls in
red). With --compare both plans are drawn, the reference above, on one time
scale. Under a timeline model the time-space diagram hatches each copy in
flight: its destination reserved from the copy's start to its timestep.

--from T and --to T draw only a window of time, timesteps T to T (both
included; an op's name works too): the placements that meet it, cut to it,
with the window's timesteps and op or group names on the axis. One of them
alone runs the window to the program's end or from its start. A bound
outside the program, or --from after --to, is bad input (exit 2).

Each level is drawn to the addresses the plans use, not to its capacity:
empty stretches of a quarter or more of the drawn range are cut out (a
zigzag mark; hover for the addresses left out), the capacity is a red line
when the top of the range reaches it, else named above the panel. Under
each panel the ops are named, or for a long program their groups: runs of
ops whose names share a prefix up to a '.' or '/' (or '_' for torch.fx
names), such as h.12. or layer3_.

The plans are checked against FORMATS.md first: an invalid plan is not drawn
(exit 1); a plan for another workload or profile is bad input (exit 2).`,
		Example: `  hieropt render --workload resnet50-int8 --hw ethos-u55 plan.json -o plan.svg
  hieropt render --workload resnet50-int8 --hw ethos-u55 optimized.json --compare initial.json -o both.svg
  hieropt render --workload resnet50-int8 --hw ethos-u55 plan.json --ascii
  hieropt render --workload resnet50-int8 --hw ethos-u55 plan.json --from 40 --to 80 -o window.svg
  hieropt render --workload net.json --hw npu.yaml plan.json --timeline -o timeline.svg`,
		Args: exactArgs(1),
	}
	f := cmd.Flags()
	f.String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	f.StringP("output", "o", "-", "write the drawing here (- for stdout)")
	f.String("compare", "", "a reference plan (e.g. the initial one) to draw on the left, the plan on the right")
	f.Bool("ascii", false, "print a text map instead of SVG")
	f.Bool("timeline", false, "draw the plan's timeline (DMA channels over compute) instead of the time-space diagram; plans of the timeline model only")
	f.Int("width", 0, "width of one diagram's plot in pixels (SVG, default 960) or columns (ASCII, default 100)")
	f.Int("rows", 8, "rows per level (ASCII)")
	f.String("from", "", "draw from this timestep (or op name) on (default: the start)")
	f.String("to", "", "draw up to this timestep (or op name), included (default: the end)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o renderOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.Width < 0 || o.Rows < 1 {
			return usageErrorf("--width must be >= 0 and --rows >= 1")
		}
		if o.ASCII && o.Timeline {
			return usageErrorf("--ascii and --timeline exclude each other: a text map or a timeline")
		}
		if o.Timeline && (o.From != "" || o.To != "") {
			return usageErrorf("--from and --to draw a window of the time-space diagram or the text map, not of --timeline")
		}
		return a.render(&o, args[0])
	}
	return cmd
}

// validPlan reads a plan and checks it against the problem: it returns
// the plan's layout and the problem bound for the plan's cost model
// (planProblem), or an input error (exit 2) or the first violations
// (exit 1).
// loadPlan loads the workload and the profile and checks the plan at
// planArg against them (validPlan): the inputs of the commands that read
// one plan of one problem. Only one of the three may be stdin.
func (a *app) loadPlan(workloadArg, hwArg, planArg string) (*plan.Plan, *state.Layout, *state.Problem, error) {
	if planArg == "-" && (workloadArg == "-" || hwArg == "-") {
		return nil, nil, nil, usageErrorf("only one input can read stdin")
	}
	p, err := a.loadProblem(workloadArg, hwArg)
	if err != nil {
		return nil, nil, nil, err
	}
	return a.validPlan(p, planArg)
}

func (a *app) validPlan(p *state.Problem, path string) (*plan.Plan, *state.Layout, *state.Problem, error) {
	pl, err := a.checkedPlan(p, path)
	if err != nil {
		return nil, nil, nil, err
	}
	if p, err = planProblem(p, pl); err != nil {
		return nil, nil, nil, err
	}
	lay, err := state.LayoutOf(p, pl) // valid: LayoutOf's precondition
	if err != nil {
		return nil, nil, nil, internalErrorf("%s: %v", path, err)
	}
	return pl, lay, p, nil
}

// checkedPlan reads the plan at path and checks it against p (package
// verify): an invalid plan is an error naming its first violation.
func (a *app) checkedPlan(p *state.Problem, path string) (*plan.Plan, error) {
	pl, err := a.readPlan(path)
	if err != nil {
		return nil, err
	}
	res, err := checkPlan(p, pl, plan.DocName(path))
	if err != nil {
		return nil, err
	}
	if !res.Valid() {
		return nil, failed(fmt.Errorf("%s is invalid (%s; run verify for all): %s",
			path, plural(len(res.Violations)+res.Omitted, "violation"), res.Violations[0]))
	}
	return pl, nil
}

func (a *app) render(o *renderOptions, planArg string) error {
	if planArg == "-" && (o.Workload == "-" || o.HW == "-" || o.Compare == "-") {
		return usageErrorf("only one input can read stdin")
	}
	p, err := a.loadProblem(o.Workload, o.HW)
	if err != nil {
		return err
	}
	pl, lay, p, err := a.validPlan(p, planArg)
	if err != nil {
		return err
	}
	win, err := timeWindow(p.Prog, o.From, o.To)
	if err != nil {
		return err
	}
	if o.ASCII {
		return a.writeOutput(o.Output, func(w io.Writer) error { return render.ASCII(w, p, lay, o.Width, o.Rows, win) })
	}
	if o.Timeline {
		return a.renderTimeline(o, p, planArg, pl, lay)
	}
	ds := []render.Diagram{{Title: title(planArg, pl), Layout: lay}}
	if o.Compare != "" {
		ref, rlay, _, err := a.validPlan(p, o.Compare)
		if err != nil {
			return err
		}
		// The reference first (left), as in the report: initial, then final.
		ds = append([]render.Diagram{{Title: title(o.Compare, ref), Layout: rlay}}, ds...)
	}
	return a.writeOutput(o.Output, func(w io.Writer) error {
		return render.SVG(w, p, ds, render.Options{Width: o.Width, Window: win})
	})
}

// timeWindow reads --from and --to (a timestep or an op's name each, ""
// for the program's start or end): nil when neither is given, else the
// window, or a usage error naming the flag and the rule.
func timeWindow(prog *workload.Program, from, to string) (*render.Window, error) {
	if from == "" && to == "" {
		return nil, nil
	}
	T := prog.Timesteps()
	at := func(flag, v string, def int) (int, error) {
		if v == "" {
			return def, nil
		}
		if t, err := strconv.Atoi(v); err == nil {
			if t < 0 || t >= T {
				return 0, usageErrorf("%s %d: workload %q has timesteps 0 to %d", flag, t, prog.Name, T-1)
			}
			return t, nil
		}
		for t, op := range prog.Ops {
			if op.Name == v {
				return t, nil
			}
		}
		return 0, usageErrorf("%s %q: not a timestep (0 to %d) nor an op of workload %q", flag, v, T-1, prog.Name)
	}
	t0, err := at("--from", from, 0)
	if err != nil {
		return nil, err
	}
	t1, err := at("--to", to, T-1)
	if err != nil {
		return nil, err
	}
	if t0 > t1 {
		return nil, usageErrorf("--from %s (timestep %d) is after --to %s (timestep %d): the window would be empty", from, t0, to, t1)
	}
	return &render.Window{From: t0, To: t1}, nil
}

// renderTimeline writes the timeline of the plan (after the reference's,
// with --compare): both plans must be of the timeline model.
func (a *app) renderTimeline(o *renderOptions, p *state.Problem, planArg string, pl *plan.Plan, lay *state.Layout) error {
	model, err := timelineModel(planArg, pl)
	if err != nil {
		return err
	}
	run, err := render.PlanTimeline(p, title(planArg, pl), costmodel.Breakdown(model, p, lay))
	if err != nil {
		return internalErrorf("%s: %v", planArg, err)
	}
	runs := []*render.Timeline{run}
	if o.Compare != "" {
		ref, rlay, _, err := a.validPlan(p, o.Compare)
		if err != nil {
			return err
		}
		rmodel, err := timelineModel(o.Compare, ref)
		if err != nil {
			return err
		}
		rrun, err := render.PlanTimeline(p, title(o.Compare, ref), costmodel.Breakdown(rmodel, p, rlay))
		if err != nil {
			return internalErrorf("%s: %v", o.Compare, err)
		}
		// The reference first (above), as in the report.
		runs = []*render.Timeline{rrun, run}
	}
	return a.writeOutput(o.Output, func(w io.Writer) error {
		if err := render.TimelinesSVG(w, runs, render.TimelineOptions{Width: o.Width}); err != nil {
			return internalErrorf("drawing the timeline: %v", err)
		}
		return nil
	})
}

// timelineModel returns the cost model of pl, the plan at path, if it is
// a timeline model, else an input error naming the plan and the rule.
func timelineModel(path string, pl *plan.Plan) (costmodel.Model, error) {
	name := cmp.Or(pl.CostModel, costmodel.Default)
	m, ok := costmodel.Lookup(name)
	if !ok { // checkPlan has checked it
		return nil, internalErrorf("%s: cost model %q", path, name)
	}
	if !m.Timeline() {
		return nil, inputerr.New(plan.DocName(path), "cost_model",
			"%q has no timeline: --timeline draws only plans of the timeline model (cost_model \"timeline\", FORMATS.md section 6)", name)
	}
	return m, nil
}

// title names a plan in a drawing: its file and what made it.
func title(path string, pl *plan.Plan) string {
	t := filepath.Base(path)
	if pl.Planner != "" {
		t += " (" + pl.Planner + ")"
	}
	return fmt.Sprintf("%s: cost %s %s", t, fmtCost(pl.Cost.Final), hw.Units(pl.TimeUnit))
}

// readPlan reads a plan document from a file or, for "-", stdin.
func (a *app) readPlan(path string) (*plan.Plan, error) {
	a.noteInput(plan.DocName(path), path)
	if path != "-" {
		if err := a.checkInputSize(plan.DocName(path), path); err != nil {
			return nil, err
		}
		return plan.ReadFile(path)
	}
	data, err := a.readStdin(plan.DocName("-"))
	if err != nil {
		return nil, err
	}
	return plan.Parse("-", data)
}
