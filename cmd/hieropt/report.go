package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/state"
)

type reportOptions struct {
	Workload string `mapstructure:"workload"`
	HW       string `mapstructure:"hw"`
	Output   string `mapstructure:"output"`
	Initial  string `mapstructure:"initial"`
}

func newReportCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report --workload W --hw P plan.json [-o report.html] [--initial initial.json]",
		Short: "Write a self-contained HTML report of a plan",
		Long: `report writes one HTML file about a plan (on stdout, or to -o FILE) that opens
offline in any browser (no scripts, no fonts, nothing fetched from the
network):

  summary      how the planner ended (optimize --report; a plan file does
               not record it), the cost bound of 'hieropt bounds' and the
               plan's gap above it, costs (initial, final, reduction), the
               max-live lower bound,
               per level: capacity, peak bytes, reads, writes, transfers,
               traffic, time and share of the cost, for both plans
  diagrams     the time-space diagrams of the initial and the final plan
               side by side (hover a rectangle for its block); under the
               timeline model a copy in flight is hatched
  timeline     under the timeline model only: both plans' timelines on one
               time scale (a lane per DMA channel over the compute unit's,
               stalls in red) and their totals: compute, memory and stall
               time, copies and transfer time per channel
  time         the cost per timestep stacked by level (where the time goes),
               and the most expensive timesteps
  occupancy    the bytes busy in each level over time, capacity marked
  blocks       the 20 most expensive blocks
  transfers    every transfer (the first 500)
  settings     planner, cost model, settings and versions

The initial plan is the one given by --initial, else the initializer's plan
(the fallback plan where the initializer cannot place a block: the one
cost.initial prices), re-planned here. Both plans are checked against
FORMATS.md first: an invalid plan is not reported on (exit 1, its first
violation and their number on stderr; run verify for all); a plan for
another workload or profile is bad input (exit 2).
'optimize --report FILE' writes the same report for the plan it makes.`,
		Example: `  hieropt report --workload resnet50-int8 --hw ethos-u55 plan.json -o report.html
  hieropt report --workload net.json --hw npu.yaml optimized.json --initial initial.json -o report.html`,
		Args: exactArgs(1),
	}
	f := cmd.Flags()
	f.String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	f.StringP("output", "o", "-", "write the report to this file (- for stdout)")
	f.String("initial", "", "the plan to compare with (default: the initializer's plan)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o reportOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		return a.report(&o, args[0])
	}
	return cmd
}

func (a *app) report(o *reportOptions, planArg string) error {
	if o.Output == "" {
		return usageErrorf("-o is required: the report's file (- for stdout)")
	}
	stdin := 0
	for _, s := range []string{o.Workload, o.HW, planArg, o.Initial} {
		if s == "-" {
			stdin++
		}
	}
	if stdin > 1 {
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
	model, ok := costmodel.Lookup(cmp.Or(pl.CostModel, costmodel.Default))
	if !ok { // checkPlan has checked it
		return internalErrorf("cost model %q", pl.CostModel)
	}
	settings := [][2]string{{"plan", planArg}}
	var initial *state.Layout
	if o.Initial != "" {
		_, initial, _, err = a.validPlan(p, o.Initial)
		if err != nil {
			return err
		}
		settings = append(settings, [2]string{"initial plan", o.Initial})
	} else {
		settings = append(settings, [2]string{"initial plan", "the initializer's, re-planned"})
	}
	settings = append(settings,
		[2]string{"cost.initial (as stated)", strconv.FormatFloat(pl.Cost.Initial, 'f', -1, 64)},
		[2]string{"cost.final (as stated)", strconv.FormatFloat(pl.Cost.Final, 'f', -1, 64)})
	return a.writeReport(o.Output, p, initial, lay, model, pl.Planner, settings, reportOutcome{})
}

// reportOutcome is what the top of the report says about how the plan was
// made: the planner's status ("" when not known) and, when SkipBound is
// not "", why the cost bound is left out.
type reportOutcome struct {
	Status, SkipBound string
}

// reportStatus is the status line of a planner's result for the report:
// "converged", "time limit (in the search at timestep 50 of 184)".
func reportStatus(p *state.Problem, r *hieropt.Result) string {
	s := r.Status.String()
	switch r.Cut {
	case hieropt.PhaseInitial:
		s += " (before the search began: the start plan, no search)"
	case hieropt.PhaseSearch:
		s += fmt.Sprintf(" (in the search at timestep %d of %d)", r.CutTimestep, p.Prog.Timesteps())
	case hieropt.PhaseRepack:
		s += " (in repacking)"
	}
	return s
}

// reportBound is the cost bound of the report, as the summary computes
// it (costBoundOf).
func reportBound(p *state.Problem, model costmodel.Model, out reportOutcome) *render.CostBound {
	if out.SkipBound != "" {
		return &render.CostBound{Skipped: out.SkipBound}
	}
	cb, err := costBoundOf(p, model.Name())
	if err != nil {
		return &render.CostBound{Skipped: errorText(err)}
	}
	return &render.CostBound{Cost: cb.Cost, None: cb.None, How: cb.how()}
}

// writeReport writes the HTML report of final (and initial, the plan to
// compare with; nil re-runs the initializer) to path atomically ("-" for
// stdout). settings are name/value pairs shown as given (see
// reportSearchSettings).
func (a *app) writeReport(path string, p *state.Problem, initial, final *state.Layout, model costmodel.Model, planner string, settings [][2]string, out reportOutcome) error {
	if initial == nil {
		// The plan cost.initial prices: the initializer's, or the
		// fallback's where the initializer cannot place a block.
		var err error
		if initial, _, err = actions.InitialPlan(context.Background(), p, model); err != nil {
			return fmt.Errorf("the initializer's plan for the report: %w", err)
		}
	}
	r := &render.Report{
		Problem:  p,
		Model:    model,
		Initial:  initial,
		Final:    final,
		Planner:  planner,
		Settings: settings,
		Version:  version(),
		Status:   out.Status,
		Bound:    reportBound(p, model, out),
	}
	return a.writeOutput(path, func(w io.Writer) error {
		if err := render.WriteReport(w, r); err != nil {
			return internalErrorf("writing the report: %v", err)
		}
		return nil
	})
}

// reportSearchSettings lists a search's settings, outcome and statistics
// for the report (as the summary prints them). s and r may be nil (no
// search); elapsed is the whole run's time, 0 to leave it out.
func reportSearchSettings(s *hieropt.Settings, r *hieropt.Result, elapsed time.Duration) [][2]string {
	var out [][2]string
	add := func(k, v string) { out = append(out, [2]string{k, v}) }
	if s != nil {
		settingsRows(s, r, add)
	}
	if r != nil && r.Search != nil {
		st := r.Search.Stats
		add("status", r.Status.String())
		add("start", fmt.Sprintf("the initializer in %s order (%s)", r.Initial.Start, fmtCost(r.Initial.StartCost)))
		if len(r.Initial.Walks) > 1 {
			add("walks", describeWalks(r.Initial.Walks, r.Initial.Start))
		}
		add("timesteps visited", strconv.Itoa(st.Timesteps))
		add("timesteps skipped", strconv.Itoa(st.Skipped))
		add("segments committed", strconv.Itoa(st.Commits))
		var acts []string
		var set actions.Set
		if s != nil {
			set = s.Search.WithDefaultsFor(r.Problem).Actions
		}
		for k := actions.Kind(0); k < actions.NumKinds; k++ {
			if s == nil || set[k] {
				acts = append(acts, fmt.Sprintf("%s %d/%d/%d", k, st.Tried[k], st.Succeeded[k], st.Committed[k]))
			}
		}
		add("actions tried/candidates/committed", strings.Join(acts, ", "))
		add("re-plans", fmt.Sprintf("%d (%d timesteps re-planned)", st.Replans, st.ReplanSteps))
		add("initializer time", r.Times.Initial.Round(time.Microsecond).String())
		add("search time", r.Times.Search.Round(time.Microsecond).String())
		if s.RepackBudget() > 0 {
			rs := repackStats(r)
			add("repack", fmt.Sprintf("%s promoted (%d into free space; %s, %s screened out): %s less, in %s",
				plural(rs.Promoted, "block"), rs.Inserted, plural(rs.Packings, "packing"), plural(rs.Screened, "candidate"),
				fmtCost(repackGain(r)), rs.Time.Round(time.Microsecond)))
		}
	}
	if elapsed > 0 {
		add("total time", elapsed.Round(time.Microsecond).String())
	}
	return out
}

// settingsRows adds the rows of the search's settings (and of the cost
// model that r was priced with).
func settingsRows(s *hieropt.Settings, r *hieropt.Result, add func(k, v string)) {
	w := s.Search
	if w.Segments != nil {
		add("segments", w.Segments.Name())
	}
	beam := strconv.Itoa(w.Beam)
	if w.Beam < 0 {
		beam = "unbounded"
	}
	add("beam", beam)
	if r != nil {
		add("actions", w.WithDefaultsFor(r.Problem).Actions.String())
	} else {
		add("actions", w.WithDefaults().Actions.String())
	}
	add("max-candidates", strconv.Itoa(w.MaxCandidates))
	add("rounds", strconv.Itoa(w.Rounds))
	add("horizon", strconv.Itoa(w.Horizon))
	add("initial-only", strconv.FormatBool(slices.Equal(s.Starts, []string{actions.WorkloadOrder.Name()})))
	rp := "off"
	if n := s.RepackBudget(); n > 0 {
		rp = fmt.Sprintf("%d packings per level", n)
	}
	add("repack", rp)
	tl := "none"
	if s.TimeLimit > 0 {
		tl = s.TimeLimit.String()
	}
	add("time-limit", tl)
	jobs := "all cores"
	if w.Workers > 0 {
		jobs = strconv.Itoa(w.Workers)
	}
	add("jobs", jobs)
	if r != nil {
		add("cost-model", r.Model.Name())
	}
}
