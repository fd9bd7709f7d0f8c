package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/baseline"
	"github.com/hieropt/hieropt/bounds"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
)

type compareOptions struct {
	Workload      string `mapstructure:"workload"`
	HW            string `mapstructure:"hw"`
	Format        string `mapstructure:"format"`
	searchOptions `mapstructure:",squash"`
}

// compareRow is one planner's result.
type compareRow struct {
	Planner   string  `json:"planner"`
	Cost      float64 `json:"cost"`
	Reduction float64 `json:"reduction_vs_no_planning_pct"`
	Gap       float64 `json:"gap_to_bound_pct"`
	// Captured is the share of what planning can gain that the plan
	// captures: (no planning - cost) / (no planning - bound).
	Captured float64 `json:"captured"`
	// Stall is, under the timeline model, the time ops wait for copies
	// (FORMATS.md 6.3); NaN (null in JSON) under the other models.
	Stall float64 `json:"stall"`
	// FastTraffic is the bytes read from or written to the fastest level
	// (not the bytes it holds).
	FastTraffic int64   `json:"fast_level_traffic_bytes"`
	Seconds     float64 `json:"seconds"`
	Validated   bool    `json:"validated"`
	Note        string  `json:"note,omitempty"`
	Infeasible  bool    `json:"infeasible,omitempty"`
	// why heads an infeasible row's note in the table: "does not fit", or
	// "not for this model" for a planner that refuses the plan's model.
	why string
}

func newCompareCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare --workload W --hw P [--format text|csv|json]",
		Short: "Plan a workload with every baseline and planner, side by side",
		Long: `compare plans the same workload on the same profile with:

  no planning      every block in the slowest level
  LRU cache        every block in the slowest level behind a block-granular,
                   write-back LRU cache the size of the fastest level: the
                   "natural hit" prior art seed 003 argues against (simulated,
                   not a plan; priced by the seed model's formulas, so
                   listed only under seed003)
  pack arena       hieropt's exact packer (least peak, fixed node budget),
  seed000 arena    seed 000's lifetime best-fit arena, seed001 block ids,
  seed001, seed004 seed 004's greedy by size (best fit),
  tflm arena       TFLite Micro's runtime planner (GreedyMemoryPlanner): by
                   decreasing size, first fit; each in the fastest level
                   that holds its arena
  initializer      seed 003's rules 1-5
  seed004-pipeline seed 004's pipelined weight loading: each op's weights
                   copied into the fastest writable level while the op
                   before computes, two halves of one region in turns
                   (timeline model only: under the others the row says so)
  xla-msa          a memory-space assignment in the manner of XLA's: blocks
                   ranked by time saved over the square root of their size,
                   given the fast level greedily in space and time,
                   constants prefetched as early as the space allows
  search           hieropt's search (the search flags apply)

and prints, for each: the cost, the reduction against no planning, the gap to
the cost lower bound of 'hieropt bounds', the share of what planning can gain
that the plan captures ((no planning - cost) / (no planning - bound)), under
the timeline model the time ops stall waiting for copies, the traffic of the
fastest level (bytes read from or written to it, moves included; the column
is named after the level), and the planning time. Every plan (all but the cache) is
checked against FORMATS.md.`,
		Example: `  hieropt compare --workload resnet50-int8 --hw ethos-u55
  hieropt compare --workload resnet50-int8 --hw ethos-u55 --format csv`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	f.String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	formatFlag(f, "text (a Markdown table; also md), csv or json")
	searchFlags(f)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o compareOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		var err error
		// table is the old name of text, the Markdown table.
		if o.Format, err = checkFormat(o.Format, map[string]string{"table": "text", "md": "text"}, "text", "csv", "json"); err != nil {
			return err
		}
		s, err := o.settings()
		if err != nil {
			return err
		}
		return a.compare(&o, s)
	}
	return cmd
}

func (a *app) compare(o *compareOptions, s *hieropt.Settings) error {
	prog, prof, doc, err := a.loadDocuments(o.Workload, o.HW)
	if err != nil {
		return err
	}
	p, err := bindProblem(prog, prof, doc)
	if err != nil {
		return err
	}
	if err := p.CheckCapacity(); err != nil {
		return err
	}
	m, err := s.Model(prof)
	if err != nil {
		return err
	}
	// The bound of the plans' model: under the timeline model the sum
	// over ops of max(compute, least access cost), as hieropt bounds
	// prints it (bounds.Compute alone is the access bound).
	b, err := costBoundOf(p, m.Name())
	if err != nil {
		return err
	}
	var rows []compareRow
	// row plans with a planner (hieropt.Plan, which checks the plan) and
	// adds its row; a planner that finds no plan gets a row that says why.
	// Its time is the planner's, cost.initial's plan included.
	row := func(name, planner string, note func(*hieropt.Result) string) (*hieropt.Result, error) {
		sc := *s
		sc.Planner, sc.Document = planner, doc
		res, err := hieropt.Plan(context.Background(), prog, prof, &sc)
		var pe *hieropt.PlannerError
		if errors.As(err, &pe) {
			why := "does not fit"
			if errors.Is(err, baseline.ErrTimelineOnly) || errors.Is(err, hieropt.ErrResidentTimelineOnly) {
				why = "not for this model"
			}
			rows = append(rows, compareRow{Planner: name, Infeasible: true, Note: err.Error(), why: why})
			return nil, nil
		}
		if err != nil {
			return nil, planError(err)
		}
		t := res.Times
		rep := costmodel.Breakdown(res.Model, res.Problem, res.Layout)
		stall := math.NaN()
		if rep.Timeline != nil {
			stall = rep.Timeline.Stall
		}
		rows = append(rows, compareRow{Planner: name, Cost: res.Plan.Cost.Final, FastTraffic: rep.Levels[0].Traffic(), Stall: stall,
			Seconds: (t.Initial + t.Search + t.Repack).Seconds(), Validated: true, Note: note(res)})
		return res, nil
	}
	none, err := row("no planning", "none", func(*hieropt.Result) string { return baseline.DescribeNoPlanning(p) })
	if err != nil {
		return err
	}
	noneCost := b.None
	if none != nil {
		noneCost = none.Plan.Cost.Final
	}
	if m.Name() == costmodel.Default { // the cache is priced by seed003's formulas
		start := time.Now()
		c := baseline.Cache(p)
		rows = append(rows, compareRow{Planner: "LRU cache", Cost: c.Cost, FastTraffic: c.FastBytes, Seconds: time.Since(start).Seconds(), Stall: math.NaN(),
			Note: fmt.Sprintf("simulated: %d hits, %d misses, %d write-backs, %d bypassed", c.Hits, c.Misses, c.Writebacks, c.Bypassed)})
	}
	for _, name := range arena.Names() {
		if _, err := row(name+" arena", name, func(r *hieropt.Result) string {
			l, peak := arenaOf(r.Problem, r.Layout)
			return fmt.Sprintf("%s in %s", fmtBytes(peak), p.HW.Levels[l].Name)
		}); err != nil {
			return err
		}
	}
	// Where the initializer cannot place a block, its row (and every
	// plan's cost.initial) is the fallback plan.
	if _, err := row("initializer", "initializer", func(r *hieropt.Result) string {
		if fb := r.Initial.Fallback; fb != nil {
			return fmt.Sprintf("cannot place block %q at timestep %d: the fallback plan, %s", fb.Cause.Block, fb.Cause.Timestep, fb.Describe(r.Problem))
		}
		return "seed 003 rules 1-5"
	}); err != nil {
		return err
	}
	for _, name := range []string{hieropt.PipelinePlanner, hieropt.MSAPlanner, hieropt.ResidentAllPlanner} {
		if _, err := row(name, name, func(r *hieropt.Result) string { return r.Plan.Planner }); err != nil {
			return err
		}
	}
	if _, err := row("search", "search", func(r *hieropt.Result) string { return r.Plan.Planner }); err != nil {
		return err
	}
	for i := range rows {
		if rows[i].Infeasible {
			rows[i].Reduction, rows[i].Gap, rows[i].Captured, rows[i].Stall = math.NaN(), math.NaN(), math.NaN(), math.NaN()
			continue
		}
		rows[i].Reduction = 100 * (noneCost - rows[i].Cost) / noneCost
		rows[i].Gap = 100 * (rows[i].Cost - b.Cost) / b.Cost
		rows[i].Captured = bounds.Captured(noneCost, rows[i].Cost, b.Cost)
	}
	switch o.Format {
	case "csv":
		return writeCompareCSV(a, rows)
	case "json":
		type jsonRow struct {
			compareRow
			Captured *float64 `json:"captured"` // JSON has no NaN: null
			Stall    *float64 `json:"stall"`
		}
		out := struct {
			Workload string    `json:"workload"`
			Hardware string    `json:"hardware"`
			Model    string    `json:"cost_model"`
			Bound    float64   `json:"cost_lower_bound"`
			Rows     []jsonRow `json:"planners"`
		}{p.Prog.Name, p.HW.Name, m.Name(), b.Cost, make([]jsonRow, len(rows))}
		for i, r := range rows {
			out.Rows[i] = jsonRow{compareRow: r, Captured: finite(r.Captured), Stall: finite(r.Stall)}
			if math.IsNaN(r.Reduction) {
				out.Rows[i].Reduction, out.Rows[i].Gap = 0, 0
			}
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	unit := hw.Units(p.HW.TimeUnit)
	fmt.Fprintf(a.stdout, "%s on %s (%s model, costs in %s; cost lower bound %s)\n\n", p.Prog.Name, p.HW.Name, m.Name(), unit, fmtCost(b.Cost))
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 1, ' ', 0)
	timeline := m.Timeline()
	head, rule, dash := "| planner\t| cost\t| vs no planning\t| gap to bound\t| captured\t|", "|---\t|---:\t|---:\t|---:\t|---:\t|", "| -\t| -\t| -\t| -\t|"
	if timeline {
		head, rule, dash = head+" stall\t|", rule+"---:\t|", dash+" -\t|"
	}
	fmt.Fprintln(tw, head+" "+p.HW.Levels[0].Name+" traffic\t| time\t| plan\t|")
	fmt.Fprintln(tw, rule+"---:\t|---:\t|---\t|")
	for _, r := range rows {
		if r.Infeasible {
			fmt.Fprintf(tw, "| %s\t%s -\t| -\t| %s: %s\t|\n", r.Planner, dash, r.why, strings.ReplaceAll(r.Note, "|", "/"))
			continue
		}
		status := "valid"
		if !r.Validated {
			status = "not a plan"
		}
		cols := fmt.Sprintf("| %s\t| %s\t| %.2f%%\t| %.1f%%\t| %s\t|", r.Planner, fmtCost(r.Cost), r.Reduction, r.Gap, fmtCaptured(r.Captured))
		if timeline {
			cols += fmt.Sprintf(" %s (%s)\t|", fmtCost(r.Stall), pctOf(r.Stall, r.Cost))
		}
		fmt.Fprintf(tw, "%s %s\t| %s\t| %s: %s\t|\n", cols,
			fmtBytes(r.FastTraffic), fmtDuration(time.Duration(r.Seconds*float64(time.Second))), status, strings.ReplaceAll(r.Note, "|", "/"))
	}
	return tw.Flush()
}

func writeCompareCSV(a *app, rows []compareRow) error {
	cw := csv.NewWriter(a.stdout)
	if err := cw.Write([]string{"planner", "cost", "reduction_vs_no_planning_pct", "gap_to_bound_pct", "captured", "stall", "fast_level_traffic_bytes", "seconds", "validated", "note"}); err != nil {
		return err
	}
	num := func(v float64, prec int) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
	for _, r := range rows {
		rec := []string{r.Planner, "", "", "", "", "", "", "", "false", r.Note}
		if !r.Infeasible {
			rec = []string{r.Planner, num(r.Cost, -1), num(r.Reduction, 4), num(r.Gap, 4), num(r.Captured, 4), num(r.Stall, -1),
				strconv.FormatInt(r.FastTraffic, 10), num(r.Seconds, 6), strconv.FormatBool(r.Validated), r.Note}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// finite returns &v, or nil for NaN (JSON's null).
func finite(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

// arenaOf returns the level and the peak (the highest address used) of a
// single-arena plan: every block in one level for its whole life.
func arenaOf(p *state.Problem, lay *state.Layout) (int, int64) {
	l := 0
	var peak int64
	for b, segs := range lay.Segs {
		l = int(segs[0].Level)
		peak = max(peak, segs[0].Offset+p.Foot(b, l))
	}
	return l, peak
}
