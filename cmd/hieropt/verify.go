package main

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
)

type verifyOptions struct {
	Workload string `mapstructure:"workload"`
	HW       string `mapstructure:"hw"`
	Format   string `mapstructure:"format"`
	Model    string `mapstructure:"model"`
}

func newVerifyCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify --workload W --hw P plan.json | verify --model M.tflite",
		Short: "Check a plan against every rule of FORMATS.md",
		Long: `verify checks a plan against the workload and profile it is for, rule by rule
(FORMATS.md section 3): every block's placements tile its lifetime; transfers
sit exactly at placement boundaries; offsets are aligned and inside the
level; no two blocks share an address at a timestep except by the reuse rule;
pinned blocks stay in their level; cost.final equals the cost recomputed from
the plan and cost.initial the cost of the initializer's plan. And the rules of
the timeline model (section 6): only constants in read-only levels (under
every model); copies issued no earlier than their source and not over a
write; a copy's destination reserved from its start; constants loaded from
their home or resident; no loads or early starts under the other models.

It prints every violation, one per line, or that the plan is valid.

With --model it checks the offline memory plan of a TFLite model instead
(the metadata "OfflineMemoryAllocation" that 'hieropt plan tflm' or 'export
tflm' writes, or another tool such as Arm Vela): as TensorFlow Lite Micro
uses it (one offset per tensor, -1 where TFLM plans the tensor itself) and
for what TFLM does not check: offsets multiples of 16, and no two tensors
alive at once overlapping (an op that runs in place, elementwise or reshape,
may write its output over its last input; overlaps between operands of one
custom operator, whose kernel TFLM cannot see into, are notes). It prints
the head the plan needs beside TFLM's own plan.

Exit status: 0 valid; 1 invalid; 2 bad input (unreadable files, or a plan for
another workload or profile, naming unknown blocks or levels).`,
		Example: `  hieropt verify --workload resnet50-int8 --hw ethos-u55 plan.json
  hieropt verify --model person_detect.planned.tflite`,
		Args: func(cmd *cobra.Command, args []string) error {
			if m, _ := cmd.Flags().GetString("model"); m != "" {
				return exactArgs(0)(cmd, args)
			}
			return exactArgs(1)(cmd, args)
		},
	}
	cmd.Flags().String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	cmd.Flags().String("hw", "", "hardware profile: a YAML file or a built-in name")
	cmd.Flags().String("model", "", "a .tflite model: check its offline memory plan (no workload, profile or plan)")
	cmd.Flags().String("format", "text", "text, or json: one object with the verdict and every violation (and errors as JSON)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o verifyOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.Format != "text" && o.Format != "json" {
			return usageErrorf("--format %q: want text or json", o.Format)
		}
		if o.Model != "" {
			if o.Workload != "" || o.HW != "" {
				return usageErrorf("--model checks a model's own plan: no --workload or --hw with it")
			}
			return a.verifyModel(o.Model, o.Format)
		}
		return a.verify(&o, args[0])
	}
	return cmd
}

func (a *app) verify(o *verifyOptions, planArg string) error {
	if planArg == "-" && (o.Workload == "-" || o.HW == "-") {
		return usageErrorf("only one input can read stdin")
	}
	p, err := a.loadProblem(o.Workload, o.HW)
	if err != nil {
		return err
	}
	pl, err := a.readPlan(planArg)
	if err != nil {
		return err
	}
	res, err := checkPlan(p, pl, plan.DocName(planArg))
	if err != nil {
		return err
	}
	if o.Format == "json" {
		type violation struct {
			Rule    int    `json:"rule"`
			Message string `json:"message"`
		}
		out := struct {
			Plan       string      `json:"plan"`
			Valid      bool        `json:"valid"`
			Violations []violation `json:"violations"`
			Omitted    int         `json:"omitted"`
			Cost       *float64    `json:"recomputed_cost,omitempty"`
			Initial    *float64    `json:"initializer_cost,omitempty"`
		}{Plan: planArg, Valid: res.Valid(), Violations: []violation{}, Omitted: res.Omitted}
		for _, v := range res.Violations {
			out.Violations = append(out.Violations, violation{v.Rule, v.Message})
		}
		if !math.IsNaN(res.Cost) {
			out.Cost = &res.Cost
		}
		if !math.IsNaN(res.InitialCost) {
			out.Initial = &res.InitialCost
		}
		data, err := marshalJSON(out)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s\n", data)
		if !res.Valid() {
			return &exitError{exitFailed, &silentError{fmt.Errorf("%s is invalid", planArg)}}
		}
		return nil
	}
	if !res.Valid() {
		for _, v := range res.Violations {
			fmt.Fprintln(a.stdout, v)
		}
		if res.Omitted > 0 {
			fmt.Fprintf(a.stdout, "... and %s more\n", plural(res.Omitted, "violation"))
		}
		return failed(fmt.Errorf("%s is invalid: %s", planArg, plural(len(res.Violations)+res.Omitted, "violation")))
	}
	initial := "initial " + fmtCost(res.InitialCost)
	if math.IsNaN(res.InitialCost) {
		// The checker knows a model (timeline) the planner has no
		// initializer for yet: cost.initial cannot be recomputed.
		initial = fmt.Sprintf("cost.initial not checked: the planner has no %s model", res.Model)
	}
	fmt.Fprintf(a.stdout, "%s: valid plan of %s on %s: %s, %s, cost %s %s (%s)\n",
		planArg, p.Prog.Name, p.HW.Name, plural(len(pl.Placements), "placement"), plural(len(pl.Transfers), "transfer"), fmtCost(res.Cost), hw.Units(p.HW.TimeUnit), initial)
	return nil
}

// checkPlan checks pl, a plan of p, against every rule of FORMATS.md
// section 3 with the independent checker (package verify), cost.initial
// against the plan the planner's initializer makes (or its fallback plan)
// under the plan's cost model. doc names the plan in errors. The error, an
// *inputerr.Error, says that pl cannot be checked against p at all.
func checkPlan(p *state.Problem, pl *plan.Plan, doc string) (*verify.Report, error) {
	p, err := planProblem(p, pl)
	if err != nil {
		return nil, err
	}
	opt := &verify.Options{Doc: doc}
	// An unknown model is verify's input error, before it asks for
	// cost.initial.
	if model, ok := costmodel.Lookup(cmp.Or(pl.CostModel, costmodel.Default)); ok {
		opt.Initial = actions.VerifyInitial(context.Background(), p, model)
	}
	return verify.Check(p.Prog, p.HW, pl, opt)
}
