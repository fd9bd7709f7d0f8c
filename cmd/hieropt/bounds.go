package main

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/bounds"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
)

type boundsOptions struct {
	Workload  string `mapstructure:"workload"`
	HW        string `mapstructure:"hw"`
	CostModel string `mapstructure:"cost-model"`
	Plan      string `mapstructure:"plan"`
}

func newBoundsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bounds --workload W --hw P [--plan plan.json]",
		Short: "Lower bounds: memory per level, and cost",
		Long: `bounds computes what no plan of the workload on the profile can beat:

  max-live     the most bytes live at one timestep;
  spill        per level, the least bytes that must sit below it (in slower
               levels) at the worst timestep;
  cost bound   for each timestep, the least cost of its reads and writes if
               the blocks accessed there could be split fractionally over
               the levels within their capacities (a small linear program),
               summed over the timesteps. Transfers only add cost, so no
               plan costs less.

It also prints the cost of planning nothing (every block in the slowest
level), and with --plan, how much of the possible gain the plan captured:
(nothing - plan) / (nothing - bound).`,
		Example: `  hieropt bounds --workload resnet50-int8 --hw ethos-u55
  hieropt bounds --workload resnet50-int8 --hw ethos-u55 --plan plan.json`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	f.String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	f.String("cost-model", costmodel.Default, "cost model")
	f.String("plan", "", "a plan to measure against the bound")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o boundsOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		model, ok := costmodel.Lookup(o.CostModel)
		if !ok {
			return usageErrorf("--cost-model %q is not known (known: %s)", o.CostModel, strings.Join(costmodel.Names(), ", "))
		}
		p, err := a.loadProblem(o.Workload, o.HW)
		if err != nil {
			return err
		}
		if err := p.CheckCapacity(); err != nil {
			return err
		}
		b, err := bounds.Compute(p, model)
		if err != nil {
			return internalErrorf("%v", err)
		}
		none := bounds.NoPlanning(p, model)
		w := a.stdout
		unit := hw.Units(p.HW.TimeUnit)
		fmt.Fprintf(w, "bounds of %s on %s (%s model)\n", p.Prog.Name, p.HW.Name, model.Name())
		fmt.Fprintf(w, "max-live     %d B (%s) at timestep %d\n", b.MaxLive, fmtBytes(b.MaxLive), p.Prog.ComputeStats().MaxLiveAt)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "level\tcapacity\tmust spill below it")
		for l, lv := range p.HW.Levels {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", lv.Name, fmtBytes(lv.Capacity), fmtBytes(b.Spill[l]))
		}
		_ = tw.Flush() // its writer keeps the error: a checked stream (streams.go) or a buffer
		fmt.Fprintf(w, "cost bound   %s %s (%d of %d timesteps needed a linear program)\n", fmtCost(b.Cost), unit, b.LPs, p.Prog.Timesteps())
		fmt.Fprintf(w, "no planning  %s %s (every block in the slowest level)\n", fmtCost(none), unit)
		if o.Plan != "" {
			pl, _, err := a.validPlan(p, o.Plan)
			if err != nil {
				return err
			}
			c := pl.Cost.Final
			fmt.Fprintf(w, "plan         %s %s: %s above the bound; captures %s of what planning can gain\n",
				fmtCost(c), unit, pctOf(c-b.Cost, b.Cost), fmtCaptured(bounds.Captured(none, c, b.Cost)))
		}
		return nil
	}
	return cmd
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

// boundLine is the summary's line about the cost bound.
func boundLine(p *state.Problem, m costmodel.Model, cost float64) string {
	b, err := bounds.Compute(p, m)
	if err != nil {
		return "cost bound unavailable: " + err.Error()
	}
	none := bounds.NoPlanning(p, m)
	return fmt.Sprintf("%s %s (per-timestep LP; no planning costs %s): the plan captures %s of what planning can gain",
		fmtCost(b.Cost), hw.Units(p.HW.TimeUnit), fmtCost(none), fmtCaptured(bounds.Captured(none, cost, b.Cost)))
}
