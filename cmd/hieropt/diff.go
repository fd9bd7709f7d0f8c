package main

import (
	"cmp"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/state"
)

type diffOptions struct {
	Workload string `mapstructure:"workload"`
	HW       string `mapstructure:"hw"`
	Output   string `mapstructure:"output"`
	Top      int    `mapstructure:"top"`
	Format   string `mapstructure:"format"`
}

func newDiffCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "diff --workload W --hw P A.json B.json [--top N] [-o diff.txt] [--format text|json]",
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
	formatFlag(f, "text, or json (one object: the costs and the --top changes with their reasons)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o diffOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		var err error
		if o.Format, err = checkFormat(o.Format, nil, "text", "json"); err != nil {
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
		if o.Format == "json" {
			return writeDiffJSON(w, d, pp, pathA, pathB, o.Top)
		}
		return d.WriteText(w, pp, pathA, pathB, o.Top)
	})
}

// writeDiffJSON writes the diff as one JSON object: what the text says,
// with levels by name, the --top largest changes (all with 0).
func writeDiffJSON(w io.Writer, d *render.PlanDiff, p *state.Problem, pathA, pathB string, top int) error {
	type slow struct {
		Level     string `json:"level"`
		Faster    string `json:"faster_level"`
		From      int    `json:"from"`
		To        int    `json:"to"`
		Timestep  *int   `json:"full_at"` // null: the faster level had room throughout
		NeedBytes int64  `json:"need_bytes"`
		GapBytes  int64  `json:"largest_gap_bytes"`
	}
	type change struct {
		Block string  `json:"block"`
		Kind  string  `json:"change"`
		A     string  `json:"in_a"`
		B     string  `json:"in_b"`
		CostA float64 `json:"cost_a"`
		CostB float64 `json:"cost_b"`
		Saved float64 `json:"saved"`
		Slow  []slow  `json:"slow"`
	}
	out := struct {
		A         string   `json:"a"`
		B         string   `json:"b"`
		CostModel string   `json:"cost_model"`
		TimeUnit  string   `json:"time_unit"`
		CostA     float64  `json:"cost_a"`
		CostB     float64  `json:"cost_b"`
		Saved     float64  `json:"saved"`
		Separable bool     `json:"separable"`
		Changed   int      `json:"changed_blocks"`
		Unchanged int      `json:"unchanged_blocks"`
		Changes   []change `json:"changes"`
	}{A: pathA, B: pathB, CostModel: d.Model, TimeUnit: hw.Units(p.HW.TimeUnit), CostA: d.CostA, CostB: d.CostB,
		Saved: d.CostA - d.CostB, Separable: d.Separable, Changed: len(d.Changes), Unchanged: d.Unchanged, Changes: []change{}}
	shown := d.Changes
	if top > 0 && len(shown) > top {
		shown = shown[:top]
	}
	for _, c := range shown {
		j := change{Block: c.Name, Kind: c.Kind, A: c.A, B: c.B, CostA: c.CostA, CostB: c.CostB, Saved: c.Saved, Slow: []slow{}}
		for _, r := range c.Slow {
			s := slow{Level: p.HW.Levels[r.Level].Name, Faster: p.HW.Levels[r.Faster].Name, From: r.From, To: r.To, NeedBytes: r.Need, GapBytes: r.Gap}
			if r.T >= 0 {
				t := r.T
				s.Timestep = &t
			}
			j.Slow = append(j.Slow, s)
		}
		out.Changes = append(out.Changes, j)
	}
	data, err := marshalJSON(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}
