package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	hwconfig "github.com/hieropt/hieropt/configs/hw"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
)

type benchOptions struct {
	Workloads []string `mapstructure:"workloads"`
	HW        []string `mapstructure:"hw"`
	NoSearch  bool     `mapstructure:"no-search"`
	Format    string   `mapstructure:"format"`
	Repeat    int      `mapstructure:"repeat"`
}

func newBenchCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench [--workloads W1,W2] [--hw P1,P2] [--format md|csv]",
		Short: "Plan every workload on every profile and print a results table",
		Long: `bench plans each workload on each profile (by default every built-in
workload on every built-in profile) and prints one row per pair: the cost of
the plan, the busiest level's peak, the number of transfers, the planning
time, and whether the plan passed the validator. Pairs that cannot fit are
listed with the reason.

Every plan is checked against FORMATS.md before it is counted. Times are
the median of --repeat runs of the planner alone (loading excluded).`,
		Example: `  hieropt bench --no-search
  hieropt bench --workloads resnet50-int8 --hw ethos-u55,ethos-u65 --format csv`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	f.StringSlice("workloads", nil, "workloads (files or built-in names); default: every built-in")
	f.StringSlice("hw", nil, "profiles (files or built-in names); default: every built-in")
	f.Bool("no-search", false, "plan with the initializer alone")
	f.String("format", "md", "table format: md (Markdown) or csv")
	f.Int("repeat", 5, "runs per pair; the median time is reported")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o benchOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.Format != "md" && o.Format != "csv" {
			return usageErrorf("--format %q: want md or csv", o.Format)
		}
		if o.Repeat < 1 {
			return usageErrorf("--repeat %d: want at least 1", o.Repeat)
		}
		if len(o.Workloads) == 0 {
			o.Workloads = hieropt.ExampleWorkloads()
		}
		if len(o.HW) == 0 {
			o.HW = hwconfig.Names()
		}
		return a.bench(&o)
	}
	return cmd
}

type benchRow struct {
	workload, hw string
	cost         float64
	peakLevel    string
	peakPct      float64
	transfers    int
	elapsed      time.Duration
	status       string // "valid", or why there is no plan
}

func (a *app) bench(o *benchOptions) error {
	var rows []benchRow
	for _, w := range o.Workloads {
		prog, doc, err := a.loadWorkload(w)
		if err != nil {
			return err
		}
		for _, h := range o.HW {
			prof, err := a.loadProfile(h)
			if err != nil {
				return err
			}
			row := benchRow{workload: prog.Name, hw: prof.Name}
			p, err := bindProblem(prog, prof, doc)
			if err == nil {
				err = p.CheckCapacity()
			}
			if err != nil {
				row.status = shortReason(err)
				rows = append(rows, row)
				continue
			}
			if err := benchOne(p, o, &row); err != nil {
				return err
			}
			rows = append(rows, row)
		}
	}
	if o.Format == "csv" {
		return writeBenchCSV(a, rows)
	}
	writeBenchMD(a, rows)
	return nil
}

func benchOne(p *state.Problem, o *benchOptions, row *benchRow) error {
	model, _ := costmodel.Lookup(costmodel.Default)
	var times []time.Duration
	var lay *state.Layout
	for i := 0; i < o.Repeat; i++ {
		start := time.Now()
		l := state.NewLayout(p.Blocks())
		_, err := actions.NewInitializer(p).Run(l, 0)
		times = append(times, time.Since(start))
		if err != nil {
			var ie *actions.InfeasibleError
			if errors.As(err, &ie) {
				row.status = "no plan: " + shortReason(err)
				return nil
			}
			return err
		}
		lay = l
	}
	row.elapsed = median(times)
	row.cost = costmodel.Total(model, p, lay)
	pl := plan.FromLayout(p, lay)
	pl.Cost = plan.Cost{Initial: row.cost, Final: row.cost}
	res, err := plan.Validate(p, pl, "bench")
	if err != nil {
		return internalErrorf("bench %s on %s: %v", p.Prog.Name, p.HW.Name, err)
	}
	if !res.Valid() {
		return internalErrorf("bench %s on %s: plan breaks %s", p.Prog.Name, p.HW.Name, res.Violations[0])
	}
	row.status = "valid"
	row.transfers = lay.Transfers()
	peaks := costmodel.PeakBytes(p, lay)
	row.peakLevel = p.HW.Levels[0].Name
	row.peakPct = pct(float64(peaks[0]), float64(p.HW.Levels[0].Capacity))
	return nil
}

func median(ts []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ts...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// shortReason turns a feasibility error into a table cell.
func shortReason(err error) string {
	var ce *state.CapacityError
	var ie *actions.InfeasibleError
	var te *state.TooLargeError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("does not fit: block %s (%s) is larger than every level", te.Block, fmtBytes(te.Size))
	case errors.As(err, &ce):
		return fmt.Sprintf("does not fit: %s live at step %d, %s in all levels", fmtBytes(ce.Need), ce.Timestep, fmtBytes(ce.Have))
	case errors.As(err, &ie):
		return fmt.Sprintf("block %s fits no level at step %d", ie.Block, ie.Timestep)
	case inputerr.Is(err):
		var e *inputerr.Error
		errors.As(err, &e)
		return e.Item + ": " + e.Rule
	}
	return err.Error()
}

func writeBenchMD(a *app, rows []benchRow) {
	w := a.stdout
	fmt.Fprintln(w, "| workload | profile | cost | fastest level peak | transfers | time | plan |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | --- |")
	for _, r := range rows {
		if r.status != "valid" {
			fmt.Fprintf(w, "| %s | %s | | | | | %s |\n", r.workload, r.hw, strings.ReplaceAll(r.status, "|", "/"))
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %.2f | %s %.1f%% | %d | %s | valid |\n",
			r.workload, r.hw, r.cost, r.peakLevel, r.peakPct, r.transfers, fmtDuration(r.elapsed))
	}
}

func writeBenchCSV(a *app, rows []benchRow) error {
	cw := csv.NewWriter(a.stdout)
	if err := cw.Write([]string{"workload", "profile", "cost", "fast_level", "fast_peak_pct", "transfers", "seconds", "status"}); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.workload, r.hw, "", "", "", "", "", r.status}
		if r.status == "valid" {
			rec = []string{r.workload, r.hw, strconv.FormatFloat(r.cost, 'f', -1, 64), r.peakLevel,
				strconv.FormatFloat(r.peakPct, 'f', 2, 64), strconv.Itoa(r.transfers),
				strconv.FormatFloat(r.elapsed.Seconds(), 'f', 6, 64), r.status}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}
