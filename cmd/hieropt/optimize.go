package main

import (
	"cmp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
)

type optimizeOptions struct {
	Workload  string `mapstructure:"workload"`
	HW        string `mapstructure:"hw"`
	Output    string `mapstructure:"output"`
	NoSearch  bool   `mapstructure:"no-search"`
	CostModel string `mapstructure:"cost-model"`
	Quiet     bool   `mapstructure:"quiet"`
}

func (o *optimizeOptions) validate() error {
	if _, ok := costmodel.Lookup(o.CostModel); !ok {
		return usageErrorf("--cost-model %q is not known (known: %s)", o.CostModel, strings.Join(costmodel.Names(), ", "))
	}
	return nil
}

func newOptimizeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "optimize --workload W --hw P [-o plan.json]",
		Short: "Plan a workload on a hardware profile and write the plan",
		Long: `optimize plans where every block of the workload lives at every timestep.

The initializer places each timestep's new blocks level by level, fastest
first, best fit (seed 003's rules 1-5; see docs/ALGORITHM.md). The plan is checked
against every rule of FORMATS.md before it is written; the file is written
atomically (never partially). A summary goes to stderr: the cost, per-level
peak bytes and traffic, the max-live lower bound and the time taken.

--workload and --hw take a file, '-' for stdin, or the name of a built-in
(see 'hieropt inspect --list' and 'hieropt profiles').

Exit status: 0 planned; 1 the workload cannot fit the profile; 2 bad input.`,
		Example: `  hieropt optimize --workload resnet50-int8 --hw ethos-u55 -o plan.json
  hieropt optimize --workload net.json --hw my-npu.yaml --no-search -o -`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	f.String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	f.StringP("output", "o", "", "write the plan to this file (- for stdout); without it no plan is written")
	f.Bool("no-search", false, "plan with the initializer alone")
	f.String("cost-model", costmodel.Default, "cost model to price plans with (registered: seed003, vela-dma)")
	f.BoolP("quiet", "q", false, "print no summary")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o optimizeOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if err := o.validate(); err != nil {
			return err
		}
		return a.optimize(&o)
	}
	return cmd
}

func (a *app) optimize(o *optimizeOptions) error {
	start := time.Now()
	p, err := a.loadProblem(o.Workload, o.HW)
	if err != nil {
		return err
	}
	if err := p.CheckCapacity(); err != nil {
		return err
	}
	model, _ := costmodel.Lookup(o.CostModel)
	lay := state.NewLayout(p.Blocks())
	if _, err := actions.NewInitializer(p).Run(lay, 0); err != nil {
		return err
	}
	initial := costmodel.Total(model, p, lay)
	elapsed := time.Since(start)

	pl := plan.FromLayout(p, lay)
	if model.Name() != costmodel.Default {
		pl.CostModel = model.Name()
	}
	pl.Planner = "initializer"
	pl.Cost = plan.Cost{Initial: initial, Final: costmodel.Total(model, p, lay)}
	res, err := plan.Validate(p, pl, plan.DocName(cmp.Or(o.Output, "(not written)")))
	if err != nil {
		return internalErrorf("checking the plan: %v", err)
	}
	if !res.Valid() {
		return internalErrorf("the plan breaks %s", res.Violations[0])
	}
	if o.Output != "" {
		if err := a.writeOutput(o.Output, pl.Write); err != nil {
			return err
		}
	}
	if !o.Quiet {
		s := &summary{p: p, lay: lay, model: model, plan: pl, output: o.Output, elapsed: elapsed, planner: "initializer"}
		if o.NoSearch {
			s.planner = "initializer (--no-search)"
		}
		s.write(a.stderr)
	}
	return nil
}
