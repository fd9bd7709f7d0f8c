package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/inputerr"
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

The plan's offsets leave gaps in that level (constants it copied there,
buffers of other timesteps) that TFLM's arena would keep: they are compacted
(each tensor moved down onto the tensors below it alive at the same time,
their order kept). Where 'plan tflm' finds a smaller head at run time
(kernels' scratch buffers included), its plan is written instead, or every
tensor is left to TFLM where TFLM's own plan is the smallest or a kernel's
scratch buffers are unknown: the head is never larger than plan tflm's or
TFLM's own. A line says which was written.

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
		// The plan's offsets in its level leave gaps that a TFLM arena
		// would keep (constants the plan copied there, other timesteps'
		// buffers): compact them, and take plan tflm's packing (or TFLM's
		// own plan) where that is smaller at run time.
		offsets := m.Compact(e.Offsets)
		c := m.Check(offsets)
		if !c.Valid() {
			return internalErrorf("%s: the compacted plan breaks TFLM's rules: %s", args[0], strings.Join(c.Problems, "; "))
		}
		res, err := m.Plan(context.Background(), tflm.PlanOptions{NodeLimit: planTFLMNodeLimit, Deadline: time.Now().Add(60 * time.Second)})
		if err != nil {
			return failed(err)
		}
		how := fmt.Sprintf("%d tensors at the plan's offsets in %s compacted (the plan spans %s there)", c.Offline, e.Level, bytesOf(r.OfflineArena))
		switch {
		case len(res.Unknown) > 0:
			offsets = res.Offsets
			how = fmt.Sprintf("every tensor left to TFLM (offset -1): the scratch buffers of %s are unknown, so the plan's head at run time is not known", strings.Join(res.Unknown, ", "))
		case res.Head < c.Head && res.By == "TFLM greedy":
			offsets = res.Offsets
			how = fmt.Sprintf("every tensor left to TFLM (offset -1): the plan's offsets in %s, compacted, make a head of %s at run time, more than TFLM's own", e.Level, bytesOf(c.Head))
		case res.Head < c.Head:
			offsets = res.Offsets
			how = fmt.Sprintf("%d tensors re-packed as plan tflm does: the plan's offsets in %s, compacted, make a head of %s at run time", c.Offline, e.Level, bytesOf(c.Head))
		}
		r = m.Check(offsets)
		if err := a.writeModel(m, offsets, o.Output); err != nil {
			return err
		}
		if a.quiet {
			return nil
		}
		fmt.Fprintf(a.stderr, "wrote %s: %s; head %s at run time (TFLM's own plan %s%s)\n",
			o.Output, how, bytesOf(r.Head), bytesOf(r.Greedy), saving(r.Greedy, r.Head))
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

// parseScratch reads --scratch OP=BYTES[,BYTES...] (OP= for none).
func parseScratch(s string) (op int, sizes []int64, err error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return 0, nil, fmt.Errorf("want OP=BYTES[,BYTES...]")
	}
	if op, err = strconv.Atoi(strings.TrimSpace(k)); err != nil || op < 0 {
		return 0, nil, fmt.Errorf("operator %q: want an operator index (0, 1, ...)", k)
	}
	if strings.TrimSpace(v) == "" {
		return op, nil, nil
	}
	for _, f := range strings.Split(v, ",") {
		b, err := parseBytes(strings.TrimSpace(f))
		if err != nil || b < 0 {
			return 0, nil, fmt.Errorf("size %q: want a number of bytes (K, M, G suffixes allowed)", f)
		}
		sizes = append(sizes, b)
	}
	return op, sizes, nil
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
	Scratch   []string      `mapstructure:"scratch"`
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
    input;
  - kernels' scratch buffers (RequestScratchBufferInArena in Prepare) share
    the head, and TFLM always places them itself, at run time, around the
    offline tensors. Their sizes come from a table of TFLM's reference
    kernels (ADD_N, int4 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED,
    MIRROR_PAD, MEAN, SUM, REDUCE_MAX/MIN/ALL, SVDF, TRANSPOSE_CONV,
    UNIDIRECTIONAL_SEQUENCE_LSTM) or from --scratch OP=BYTES[,BYTES...]
    (operator OP's requests in order, in place of the table's; repeatable).
    Each packing is laid out as TFLM lays it out at run time, scratch
    buffers placed by its greedy planner, and the smallest kept;
  - where none is smaller than TFLM's own plan, or an operator's scratch
    buffers are unknown (a custom operator such as
    TFLite_Detection_PostProcess, unless --scratch gives them), every
    tensor is left to TFLM (offset -1), with the reason. So the head at run
    time is never larger than TFLM's own;
  - the head must fit --arena BYTES (K, M, G suffixes allowed), else exit 1.

It prints the head TFLM makes of the plan at run time beside TFLM's own,
scratch buffers included: the saving is what the runtime's
arena_used_bytes saves. TFLM's whole arena also holds its persistent section
(tensor structs, variables, kernels' data): give TFLM's arena that much
more. The scratch sizes are those of TFLM's reference kernels on a 64-bit
host; optimised kernels (CMSIS-NN, for one) request other sizes: give them
with --scratch.

The packer's search has a fixed node budget, so the plan is the same on any
machine; --time-limit stops it earlier if it passes (the plan then depends on
the machine's speed).`,
		Example: `  hieropt plan tflm testdata/tflite/person_detect.tflite --arena 64K -o person_detect.planned.tflite`,
		Args:    exactArgs(1),
	}
	f := cmd.Flags()
	f.String("arena", "", "the most bytes the head may take (K, M, G suffixes allowed)")
	f.StringArray("scratch", nil, "operator OP's kernel's scratch buffers, OP=BYTES[,BYTES...] in the order it requests them (repeatable; OP= for none)")
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
		for _, sc := range o.Scratch {
			op, sizes, err := parseScratch(sc)
			if err != nil {
				return usageErrorf("--scratch %q: %s", sc, err.Error())
			}
			if err := m.SetScratch(op, sizes); err != nil {
				return inputerr.New(tflm.DocName(args[0]), fmt.Sprintf("--scratch %q", sc), "%s", err.Error())
			}
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
		switch {
		case len(res.Unknown) > 0:
			fmt.Fprintf(a.stderr, "wrote %s: every tensor left to TFLM (offset -1): the scratch buffers of %s are unknown, so no plan's head at run time is (give them with --scratch OP=BYTES,...); the heads above leave them out\n", o.Output, strings.Join(res.Unknown, ", "))
		case res.By == "TFLM greedy":
			fmt.Fprintf(a.stderr, "wrote %s: every tensor left to TFLM (offset -1): no plan makes a smaller head at run time, where TFLM places the kernels' scratch buffers around the tensors\n", o.Output)
		default:
			fmt.Fprintf(a.stderr, "wrote %s: %d tensors planned offline (%d sharing an input's bytes in place)\n", o.Output, r.Offline, res.InPlace)
		}
		if len(m.Scratch) > 0 {
			fmt.Fprintf(a.stderr, "note: the heads include %s of kernels' scratch buffers (%s), which TFLM places at run time\n", bytesOf(res.Scratch), plural(len(m.Scratch), "request"))
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
			"scratch": r.Scratch, "unknown_scratch": nonNil(r.Unknown),
			"valid": r.Valid(), "problems": nonNil(r.Problems), "notes": nonNil(r.Notes),
		}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "%s: %s version %d, %d subgraphs, %d offsets for %d tensors: %d placed offline, %d left to TFLM, %d ignored (tensors TFLM never places)\n",
			path, tflm.MetadataName, off.Version, off.Subgraphs, r.N, r.Tensors, r.Offline, r.Online, r.Ignored)
		if r.Head >= 0 {
			fmt.Fprintf(a.stdout, "head %s at run time (the offline tensors span %s; TFLM's own plan %s%s), %s of kernels' scratch buffers included\n",
				bytesOf(r.Head), bytesOf(r.OfflineArena), bytesOf(r.Greedy), saving(r.Greedy, r.Head), bytesOf(r.Scratch))
			if len(r.Unknown) > 0 {
				fmt.Fprintf(a.stdout, "note: the scratch buffers of %s are unknown: both heads leave them out\n", strings.Join(r.Unknown, ", "))
			}
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
