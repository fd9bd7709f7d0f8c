package main

import (
	"cmp"
	"io"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/render"
)

type diffOptions struct {
	Workload string `mapstructure:"workload"`
	HW       string `mapstructure:"hw"`
	Output   string `mapstructure:"output"`
	Top      int    `mapstructure:"top"`
}

func newDiffCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "diff --workload W --hw P A.json B.json [--top N] [-o diff.txt]",
		Short: "Say what changed between two plans, what each change saved, and why a block stayed in a slow level",
		Long: `diff checks two plans of one workload and profile (say the initial plan A
and the optimized plan B), then prints:

  - both costs and what B saves, under B's cost model (both plans must
    have the same);
  - each block placed differently: whether it is in another level at some
    timestep (level), at another offset only (offset) or has a copy issued
    at another timestep (copy), where it is in each plan, and its cost in
    each under the model (what a block's accesses and moves cost; for a
    separable model, as the seed's, the blocks' savings add up to the
    plans' difference), the largest saving first;
  - under each changed block, for each of B's segments in a slower level
    than one the block may use, why it is not in the faster one: the first
    timestep of the segment at which the faster level's largest free gap
    (in B) was smaller than the block, or that the faster level had room
    at every timestep (then no one range was free throughout, or the
    planner judged the move not worth its cost).

--top N lists the N largest changes (default 30; 0 for all). Invalid plans
are not compared (exit 1); a plan for another workload or profile, or two
plans of different cost models, are bad input (exit 2).`,
		Example: `  hieropt optimize --workload resnet50-int8 --hw ethos-u55 --no-search -q -o initial.json
  hieropt optimize --workload resnet50-int8 --hw ethos-u55 -q -o final.json
  hieropt diff --workload resnet50-int8 --hw ethos-u55 initial.json final.json --top 10`,
		Args: exactArgs(2),
	}
	f := cmd.Flags()
	f.String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	f.StringP("output", "o", "-", "write the diff here (- for stdout)")
	f.Int("top", 30, "list the N largest changes (0: all)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o diffOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.Top < 0 {
			return usageErrorf("--top must be >= 0")
		}
		if (args[0] == "-" || args[1] == "-") && (o.Workload == "-" || o.HW == "-" || args[0] == args[1]) {
			return usageErrorf("only one input can read stdin")
		}
		return a.diff(&o, args[0], args[1])
	}
	return cmd
}

func (a *app) diff(o *diffOptions, pathA, pathB string) error {
	p, err := a.loadProblem(o.Workload, o.HW)
	if err != nil {
		return err
	}
	pa, la, _, err := a.validPlan(p, pathA)
	if err != nil {
		return err
	}
	pb, lb, pp, err := a.validPlan(p, pathB)
	if err != nil {
		return err
	}
	ma, mb := cmp.Or(pa.CostModel, costmodel.Default), cmp.Or(pb.CostModel, costmodel.Default)
	if ma != mb {
		return inputerr.New(plan.DocName(pathA), "cost_model",
			"%q, but %s's is %q: diff compares plans of one cost model", ma, pathB, mb)
	}
	m, ok := costmodel.Lookup(mb)
	if !ok { // checkPlan has checked it
		return internalErrorf("cost model %q", mb)
	}
	d, err := render.DiffPlans(pp, m, la, lb)
	if err != nil {
		return internalErrorf("%v", err)
	}
	return a.writeOutput(o.Output, func(w io.Writer) error {
		return d.WriteText(w, pp, pathA, pathB, o.Top)
	})
}
