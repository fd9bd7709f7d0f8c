package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/importer/minimalloc"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/pack"
	"github.com/hieropt/hieropt/plan"
)

type importMiniMallocOptions struct {
	Output string `mapstructure:"output"`
	Name   string `mapstructure:"name"`
}

func newImportMiniMallocCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "minimalloc in.csv -o workload.json [--name NAME]",
		Short: "Import a MiniMalloc packing problem (CSV) as a workload",
		Long: `import minimalloc reads a MiniMalloc problem (CSV with the header
id,lower,upper,size and an optional align column; each buffer alive on the
half-open [lower, upper); FORMATS.md section 5: hieropt formats 5) and writes a workload:

  - one op per distinct time point (every lower and upper value), in
    increasing order, named t<time> (t0, t1024, ...): op k is the k-th time
    point. The last op is the largest upper value, where nothing is alive;
  - one block per buffer, in file order, named by its id, with its size and
    alignment, alive from first = the op of lower to last = the op of upper
    minus one (inclusive): two blocks share a timestep exactly when the
    buffers conflict, as MiniMalloc's half-open intervals do;
  - a buffer alive for one time section (first == last) is a scratch block,
    written and read by that op; any other is an activation, written by op
    first and read by op last. None is reusable, pinned or constant.

The capacity (in the file name NAME.CAPACITY.csv) is not part of a workload:
plan it on a profile whose level has that capacity. 'hieropt export
minimalloc' turns a plan of the workload back into a MiniMalloc solution
with the original ids and times (from the op names).`,
		Example: `  hieropt import minimalloc testdata/minimalloc/A.1048576.csv -o A.json
  hieropt optimize --workload A.json --hw one-level.yaml -o A.plan.json
  hieropt export minimalloc --workload A.json --hw one-level.yaml A.plan.json -o A.solution.csv`,
		Args: exactArgs(1),
	}
	f := cmd.Flags()
	f.StringP("output", "o", "-", "write the workload here (- for stdout)")
	f.String("name", "", "workload name (default: the file's base name without .csv)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o importMiniMallocOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		path := args[0]
		p, err := a.readCSV(path)
		if err != nil {
			return err
		}
		base := filepath.Base(path)
		name := o.Name
		if name == "" {
			name = strings.TrimSuffix(base, filepath.Ext(base))
			if path == "-" {
				name = "minimalloc"
			}
		}
		if len(p.Buffers) == 0 {
			return inputerr.New(inputerr.Doc("CSV", path), "", "no buffers: a workload needs at least one")
		}
		source := fmt.Sprintf("MiniMalloc CSV %s (hieropt import minimalloc): op k is the k-th distinct time point, named t<time>; each buffer is a block alive on [lower, upper)", base)
		if c, ok := capacityFromName(path); ok {
			source += fmt.Sprintf("; capacity %d in the file name", c)
		}
		prog, err := minimalloc.Import(name, source, p)
		if err != nil {
			if inputerr.Is(err) {
				return err
			}
			return inputerr.New(inputerr.Doc("CSV", path), "", "%v", err)
		}
		if err := a.writeOutput(o.Output, prog.Write); err != nil {
			return err
		}
		if o.Output != "-" && !a.quiet {
			fmt.Fprintf(a.stderr, "wrote %s: %s, %s\n", o.Output, plural(len(prog.Ops), "op"), plural(len(prog.Blocks), "block"))
		}
		return nil
	}
	return cmd
}

func newExportCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export minimalloc|tflm|memmap --workload W --hw P plan.json ...",
		Short: "Write a plan in another tool's format",
		Long: `export writes what a plan decided in other formats.

  export minimalloc   the placements in one level as a MiniMalloc solution,
                      id,lower,upper,size,offset
  export tflm         a TFLite model's arena as TFLite Micro's offline memory
                      plan, written into a copy of the model
  export memmap       a per-op memory map (CSV): at each op, every block's
                      level, offset and size`,
		Args: exactArgs(0),
	}
	cmd.AddCommand(newExportMiniMallocCmd(a), newExportTFLMCmd(a), newExportMemmapCmd(a))
	return cmd
}

type exportMiniMallocOptions struct {
	Workload string `mapstructure:"workload"`
	HW       string `mapstructure:"hw"`
	Level    string `mapstructure:"level"`
	Output   string `mapstructure:"output"`
	InPlace  bool   `mapstructure:"in-place"`
}

func newExportMiniMallocCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "minimalloc --workload W --hw P plan.json [--level NAME] [--in-place] -o out.csv",
		Short: "Write a plan's placements in one level as a MiniMalloc solution (CSV)",
		Long: `export minimalloc checks the plan against the workload and the profile,
then writes its placements in one level (--level, default the fastest) in
MiniMalloc's output format: a header id,lower,upper,size,offset and one row
per placement, in block order:

  id      the block's name (name@from when the block has several placements
          in the level, one per stay)
  lower   the time of timestep from; upper: the time of timestep to+1, so
          that [lower, upper) is the placement's inclusive [from, to]
  size    the block's footprint in the level (its size rounded up to the
          effective alignment)
  offset  the placement's offset

Times are timesteps, except for a workload made by 'hieropt import
minimalloc' (every op named t<time>, in increasing order), whose times are
the original ones: importing a MiniMalloc problem, planning it in one level
and exporting gives a solution of the original problem. The rows are checked
with pack.Check against the level's capacity before they are written.
Placements in other levels are left out; a line on stderr says how many, in
which levels, and how many blocks are never in the level exported.

A plan that runs an op in place (a block created over a reusable block's
space at the timestep that block ends, FORMATS.md rule 4) cannot be written
as it is: MiniMalloc's buffers alive at the same time never share memory
(exit 1). With --in-place such a block ends one timestep early (upper = the
time of timestep to), where the block created over it starts: the CSV is
then a valid MiniMalloc solution of that slightly different problem.`,
		Example: `  hieropt export minimalloc --workload A.json --hw one-level.yaml A.plan.json -o A.solution.csv
  hieropt export minimalloc --workload resnet50-int8 --hw ethos-u55 plan.json --level SRAM -o -`,
		Args: exactArgs(1),
	}
	f := cmd.Flags()
	f.String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	f.String("level", "", "the level to export (default: the fastest)")
	f.StringP("output", "o", "-", "write the CSV here (- for stdout)")
	f.Bool("in-place", false, "end a block one timestep early where the plan runs an op in place over it")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o exportMiniMallocOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		pl, _, p, err := a.loadPlan(o.Workload, o.HW, args[0])
		if err != nil {
			return err
		}
		l := 0
		if o.Level != "" {
			l = -1
			var names []string
			for i, lv := range p.HW.Levels {
				names = append(names, lv.Name)
				if lv.Name == o.Level {
					l = i
				}
			}
			if l < 0 {
				return usageErrorf("--level %q: profile %s has no such level (levels: %s)", o.Level, p.HW.Name, strings.Join(names, ", "))
			}
		}
		prob, sol, err := minimalloc.Export(p, pl, l, &minimalloc.ExportOptions{InPlace: o.InPlace})
		if err != nil {
			return failed(fmt.Errorf("%s: %w", args[0], err))
		}
		if err := a.writeOutput(o.Output, func(w io.Writer) error { return pack.WriteCSV(w, prob, sol) }); err != nil {
			return err
		}
		if o.Output != "-" && !a.quiet {
			fmt.Fprintf(a.stderr, "wrote %s: %d buffers in level %s (capacity %d), peak %d, max-live %d; checked\n",
				o.Output, len(prob.Buffers), p.HW.Levels[l].Name, prob.Capacity, sol.Peak, pack.MaxLive(prob))
		}
		if s := leftOut(pl, p.HW, l); s != "" {
			fmt.Fprintln(a.stderr, s)
		}
		return nil
	}
	return cmd
}

// leftOut says what exporting level l of pl leaves out: the placements in
// other levels (per level), their blocks, and how many of those are never
// in level l; "" when every placement is in level l.
func leftOut(pl *plan.Plan, prof *hw.Profile, l int) string {
	name := prof.Levels[l].Name
	perLevel := map[string]int{}
	inLevel, elsewhere := map[string]bool{}, map[string]bool{}
	n := 0
	for _, x := range pl.Placements {
		if x.Level == name {
			inLevel[x.Block] = true
			continue
		}
		perLevel[x.Level]++
		elsewhere[x.Block] = true
		n++
	}
	if n == 0 {
		return ""
	}
	never := 0
	for b := range elsewhere {
		if !inLevel[b] {
			never++
		}
	}
	var where []string
	for _, lv := range prof.Levels {
		if c := perLevel[lv.Name]; c > 0 {
			where = append(where, fmt.Sprintf("%d in %s", c, lv.Name))
		}
	}
	return fmt.Sprintf("left out: %s in other levels (%s) of %s, %d of which are never in %s; --level exports another level",
		plural(n, "placement"), strings.Join(where, ", "), plural(len(elsewhere), "block"), never, name)
}
