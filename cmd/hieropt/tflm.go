package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/tflm"
)

// TFLite Micro's side: export tflm, plan tflm, verify --model.

type exportTFLMOptions struct {
	Workload string `mapstructure:"workload"`
	HW       string `mapstructure:"hw"`
	Model    string `mapstructure:"model"`
	Output   string `mapstructure:"output"`
}

func newExportTFLMCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tflm --workload W --hw P plan.json --model in.tflite -o out.tflite",
		Short: "Write a plan into a TFLite model as TFLite Micro's offline memory plan",
		Long: `export tflm writes the plan's arena into a copy of the model as the
metadata entry "OfflineMemoryAllocation", which TensorFlow Lite Micro (TFLM)
reads at AllocateTensors: int32 [version, subgraphs, N, N offsets], one
offset per tensor from the start of the arena's non-persistent section, -1
where TFLM plans the tensor itself. An existing entry is replaced; the
original model's bytes are all kept, unchanged and as aligned as they were,
after a new header (a root table that points into them, the buffers and
metadata lists with the plan's added).

The workload must be the model's ('hieropt import tflite in.tflite'), the
plan a valid plan of it on the profile. Every tensor TFLM places (a block
that is not a constant) must sit in one level at one offset for its whole
life, all of them in one level: that level is the arena. Constants stay in
the model (TFLM reads them there); a line says how many the plan had placed
in the arena level. The offsets are then checked the way TFLM uses them and
for what TFLM does not check ('hieropt verify --model'): a plan that breaks
a rule is not written.

Exit status: 0 written; 1 the plan cannot be TFLM's (it moves a tensor, uses
two levels, or breaks a rule); 2 bad input.`,
		Example: `  hieropt import tflite person_detect.tflite -o pd.json
  hieropt optimize --workload pd.json --hw arena.yaml -o pd.plan.json
  hieropt export tflm --workload pd.json --hw arena.yaml pd.plan.json --model person_detect.tflite -o pd.planned.tflite`,
		Args: exactArgs(1),
	}
	f := cmd.Flags()
	f.String("workload", "", "the model's workload (hieropt import tflite): a JSON file or - for stdin")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	f.String("model", "", "the .tflite model the workload was imported from")
	f.StringP("output", "o", "", "write the planned model here")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o exportTFLMOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.Model == "" || o.Output == "" {
			return usageErrorf("export tflm needs --model in.tflite and -o out.tflite")
		}
		pl, _, p, err := a.loadPlan(o.Workload, o.HW, args[0])
		if err != nil {
			return err
		}
		a.noteInput(tflm.DocName(o.Model), o.Model)
		m, err := tflm.ReadFile(o.Model)
		if err != nil {
			return err
		}
		e, err := m.FromPlan(p.Prog, pl)
		if err != nil {
			return failed(fmt.Errorf("%s: %w", args[0], err))
		}
		r := m.Check(e.Offsets)
		if !r.Valid() {
			return failed(fmt.Errorf("%s: breaks TFLM's rules: %s%s", args[0], r.Problems[0], more(len(r.Problems)-1)))
		}
		if err := a.writeModel(m, e.Offsets, o.Output); err != nil {
			return err
		}
		if a.quiet {
			return nil
		}
		fmt.Fprintf(a.stderr, "wrote %s: %d tensors at the plan's offsets in %s, %d left to TFLM; head %s (TFLM's own plan %s%s)\n",
			o.Output, r.Offline, e.Level, r.Online, bytesOf(r.Head), bytesOf(r.Greedy), saving(r.Greedy, r.Head))
		if e.Constants > 0 {
			fmt.Fprintf(a.stderr, "note: the plan places %s in %s; TFLM reads constants where the model holds them, so their space stays unused\n", plural(e.Constants, "constant"), e.Level)
		}
		return nil
	}
	return cmd
}

// writeModel writes m with offsets as its offline plan to path.
func (a *app) writeModel(m *tflm.Model, offsets []int32, path string) error {
	out, err := m.Write(offsets)
	if err != nil {
		return failed(err)
	}
	return a.writeOutput(path, func(w io.Writer) error {
		_, err := w.Write(out)
		return err
	})
}

func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" (and %d more)", n)
}

func bytesOf(n int64) string { return fmt.Sprintf("%d B", n) }

// saving says what head saves against TFLM's greedy.
func saving(greedy, head int64) string {
	if greedy <= 0 || head < 0 {
		return ""
	}
	if head > greedy {
		return fmt.Sprintf(": %d B more than it", head-greedy)
	}
	return fmt.Sprintf(": saves %d B, %.1f%%", greedy-head, 100*float64(greedy-head)/float64(greedy))
}

func newPlanCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan tflm in.tflite --arena BYTES -o out.tflite",
		Short: "Plan a model for a runtime in one step",
		Long: `plan imports, plans and exports in one step, for a runtime.

  plan tflm   a TFLite model's arena for TensorFlow Lite Micro`,
		Args: exactArgs(0),
	}
	cmd.AddCommand(newPlanTFLMCmd(a))
	return cmd
}

type planTFLMOptions struct {
	Arena     string        `mapstructure:"arena"`
	Output    string        `mapstructure:"output"`
	TimeLimit time.Duration `mapstructure:"time-limit"`
}

// planTFLMNodeLimit is plan tflm's branch-and-bound budget: nodes over
// all probes of both packings, so that the plan is the same on any
// machine (the time limit is a safety net).
const planTFLMNodeLimit = 1 << 18

func newPlanTFLMCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tflm in.tflite --arena BYTES -o out.tflite",
		Short: "Plan a TFLite model's arena for TFLite Micro and write it into the model",
		Long: `plan tflm lays out the tensors that TensorFlow Lite Micro (TFLM) places in
its arena's non-persistent section (the head) and writes the plan into a
copy of the model as its offline memory plan (see 'hieropt export tflm'):

  - the tensors are TFLM's: those without data in the model, variables
    aside (TFLM keeps them in its persistent section), each at its size
    rounded up to 16 bytes, alive over TFLM's lifetimes (op order; graph
    inputs from the start, outputs to the end);
  - hieropt's exact packer (as in 'hieropt pack --minimize') finds the
    smallest head, once with every tensor apart and once with an op that
    runs in place (elementwise, reshape) writing its output over its last
    input; the smaller is kept. Where neither is smaller than TFLM's own
    greedy plan, every tensor is left to TFLM (offset -1): TFLM's plan is
    as small, and at run time it also places kernels' scratch buffers
    among the tensors (around offline ones, they can cost their bytes
    more). So the head is never larger than TFLM's;
  - the head must fit --arena BYTES (K, M, G suffixes allowed), else exit 1.

It prints the head it needs beside what TFLM's own planner needs. TFLM's
whole arena also holds its persistent section (tensor structs, variables,
kernels' data) and kernels' scratch buffers, which TFLM places around the
offline tensors at run time: give TFLM's arena that much more.

The packer's search has a fixed node budget, so the plan is the same on any
machine; --time-limit stops it earlier if it passes (the plan then depends on
the machine's speed).`,
		Example: `  hieropt plan tflm testdata/tflite/person_detect.tflite --arena 64K -o person_detect.planned.tflite`,
		Args:    exactArgs(1),
	}
	f := cmd.Flags()
	f.String("arena", "", "the most bytes the head may take (K, M, G suffixes allowed)")
	f.StringP("output", "o", "", "write the planned model here")
	f.Duration("time-limit", 60*time.Second, "stop the packer's search after this long and keep the best plan (0 = none)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o planTFLMOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.Arena == "" || o.Output == "" {
			return usageErrorf("plan tflm needs --arena BYTES and -o out.tflite")
		}
		arena, err := parseBytes(o.Arena)
		if err != nil || arena <= 0 {
			return usageErrorf("--arena %q: want a positive number of bytes (K, M, G suffixes allowed)", o.Arena)
		}
		a.noteInput(tflm.DocName(args[0]), args[0])
		m, err := tflm.ReadFile(args[0])
		if err != nil {
			return err
		}
		// Planning takes up to --time-limit: an output that would be
		// refused is refused first.
		if err := a.checkOutput(o.Output); err != nil {
			return err
		}
		po := tflm.PlanOptions{Capacity: arena, NodeLimit: planTFLMNodeLimit}
		if o.TimeLimit > 0 {
			po.Deadline = time.Now().Add(o.TimeLimit)
		}
		res, err := m.Plan(context.Background(), po)
		if err != nil {
			return failed(err)
		}
		if m.Offline != nil {
			if old := m.Check(m.Offline.Offsets); old.Valid() && old.Head < res.Head {
				return failed(fmt.Errorf("%s: its own offline plan needs a head of %s, less than hieropt's %s (it shares bytes hieropt's rules do not allow: see hieropt verify --model): not replaced", args[0], bytesOf(old.Head), bytesOf(res.Head)))
			}
		}
		r := m.Check(res.Offsets)
		if !r.Valid() {
			return internalErrorf("%s: the plan breaks TFLM's rules: %s", args[0], strings.Join(r.Problems, "; "))
		}
		if err := a.writeModel(m, res.Offsets, o.Output); err != nil {
			return err
		}
		proof := "optimal"
		if !res.Optimal {
			proof = fmt.Sprintf("not proven optimal; max-live %s", bytesOf(res.MaxLive))
		}
		fmt.Fprintf(a.stdout, "%s: head %s by %s (%s); TFLM's own plan %s%s\n", args[0], bytesOf(res.Head), res.By, proof, bytesOf(res.Greedy), saving(res.Greedy, res.Head))
		if a.quiet {
			return nil
		}
		if res.By == "TFLM greedy" {
			fmt.Fprintf(a.stderr, "wrote %s: every tensor left to TFLM (offset -1): its own plan is as small, and it places kernels' scratch buffers among the tensors\n", o.Output)
		} else {
			fmt.Fprintf(a.stderr, "wrote %s: %d tensors planned offline (%d sharing an input's bytes in place)\n", o.Output, r.Offline, res.InPlace)
		}
		if m.Offline != nil {
			fmt.Fprintf(a.stderr, "note: it replaces the model's offline plan\n")
		}
		return nil
	}
	return cmd
}

// verifyModel checks the offline plan of a .tflite model.
func (a *app) verifyModel(path, format string) error {
	m, err := tflm.ReadFile(path)
	if err != nil {
		return err
	}
	if m.Offline == nil {
		_, greedy := m.Greedy()
		if format == "json" {
			return a.printJSON(map[string]any{"model": path, "offline_plan": false, "valid": true, "tflm_greedy_head": greedy})
		}
		fmt.Fprintf(a.stdout, "%s: no %s: TFLM plans every tensor at run time (its head: %s)\n", path, tflm.MetadataName, bytesOf(greedy))
		return nil
	}
	off := m.Offline
	r := m.Check(off.Offsets)
	if format == "json" {
		if err := a.printJSON(map[string]any{
			"model": path, "offline_plan": true, "version": off.Version, "subgraphs": off.Subgraphs,
			"offsets": r.N, "tensors": r.Tensors, "offline": r.Offline, "online": r.Online, "ignored": r.Ignored,
			"offline_span": r.OfflineArena, "head": r.Head, "tflm_greedy_head": r.Greedy,
			"valid": r.Valid(), "problems": nonNil(r.Problems), "notes": nonNil(r.Notes),
		}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "%s: %s version %d, %d subgraphs, %d offsets for %d tensors: %d placed offline, %d left to TFLM, %d ignored (tensors TFLM never places)\n",
			path, tflm.MetadataName, off.Version, off.Subgraphs, r.N, r.Tensors, r.Offline, r.Online, r.Ignored)
		if r.Head >= 0 {
			fmt.Fprintf(a.stdout, "head %s (the offline tensors span %s; TFLM's own plan %s%s), kernels' scratch buffers aside\n",
				bytesOf(r.Head), bytesOf(r.OfflineArena), bytesOf(r.Greedy), saving(r.Greedy, r.Head))
		}
		for _, n := range r.Notes {
			fmt.Fprintln(a.stdout, "note: "+n)
		}
		for _, p := range r.Problems {
			fmt.Fprintln(a.stdout, p)
		}
	}
	if !r.Valid() {
		return failed(fmt.Errorf("%s: the offline plan is invalid: %s", path, plural(len(r.Problems), "problem")))
	}
	if format != "json" {
		fmt.Fprintln(a.stdout, "valid")
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (a *app) printJSON(v any) error {
	data, err := marshalJSON(v)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s\n", data)
	return nil
}
