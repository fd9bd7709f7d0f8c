package main

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/state"
)

type exportMemmapOptions struct {
	Workload string `mapstructure:"workload"`
	HW       string `mapstructure:"hw"`
	Output   string `mapstructure:"output"`
	From     string `mapstructure:"from"`
	To       string `mapstructure:"to"`
}

func newExportMemmapCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memmap --workload W --hw P plan.json [--from T] [--to T] -o map.csv",
		Short: "Write a plan's per-op memory map (CSV): at each op, every block's level, offset and size",
		Long: `export memmap checks the plan against the workload and the profile, then
writes where every block sits at every op, for compiler engineers: a CSV with
the header op,op_name,level,block,offset,size,use and one row per block and
place occupied at that op, by op, then level (fastest first), offset and
block:

  op       the timestep; op_name its op's name
  level    the memory level; offset the block's address in it
  size     the block's footprint in the level (its size rounded up to the
           effective alignment): the bytes the plan reserves there
  use      live: the block is there for the op; reserved: the range is
           held for it but it is not there yet or any more (under the
           timeline model, the destination of a copy in flight, or a
           resident constant's range outside its life)

A block that moves at an op appears once at its new place (and, while its
copy is in flight, also at its destination as reserved). A block taking
over another's space at an op (in place) appears with it at the same
offset. --from and --to keep the rows of a window of ops (a timestep or an
op's name each). An invalid plan is not exported (exit 1); a plan for
another workload or profile is bad input (exit 2).`,
		Example: `  hieropt export memmap --workload resnet50-int8 --hw ethos-u55 plan.json -o map.csv
  hieropt export memmap --workload net.json --hw npu.yaml plan.json --from 10 --to 20 -o -`,
		Args: exactArgs(1),
	}
	f := cmd.Flags()
	f.String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	f.StringP("output", "o", "-", "write the CSV here (- for stdout)")
	f.String("from", "", "the first op (a timestep or an op's name; default: the first)")
	f.String("to", "", "the last op, included (default: the last)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o exportMemmapOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		_, lay, p, err := a.loadPlan(o.Workload, o.HW, args[0])
		if err != nil {
			return err
		}
		t0, t1 := 0, p.Prog.Timesteps()-1
		win, err := timeWindow(p.Prog, o.From, o.To)
		if err != nil {
			return err
		}
		if win != nil {
			t0, t1 = win.From, win.To
		}
		rows := memoryMap(p, lay, t0, t1)
		if err := a.writeOutput(o.Output, func(w io.Writer) error { return writeMemoryMap(w, p, rows) }); err != nil {
			return err
		}
		if o.Output != "-" && !a.quiet {
			fmt.Fprintf(a.stderr, "wrote %s: %s, ops %d to %d of %d; checked plan\n", o.Output, plural(len(rows), "row"), t0, t1, p.Prog.Timesteps())
		}
		return nil
	}
	return cmd
}

// mapRow is one row of a memory map: block b at level/offset at op t.
type mapRow struct {
	t, b   int
	level  int32
	offset int64
	live   bool
}

// memoryMap lists, for each op of [t0, t1], every block and range it
// occupies (FORMATS.md rules 9 and 10: from a segment's start, or 0 for a
// resident one, to the timestep before the next segment, or the block's
// last, or the run's last for a resident one), by op, level, offset and
// block.
func memoryMap(p *state.Problem, lay *state.Layout, t0, t1 int) []mapRow {
	var rows []mapRow
	for b, segs := range lay.Segs {
		last := p.Block(b).Last
		for i, s := range segs {
			liveTo := last
			if i+1 < len(segs) {
				liveTo = int(segs[i+1].From) - 1
			}
			for t := max(int(s.OccStart()), t0); t <= min(state.OccEnd(p, b, segs, i), t1); t++ {
				rows = append(rows, mapRow{t: t, b: b, level: s.Level, offset: s.Offset, live: t >= int(s.From) && t <= liveTo})
			}
		}
	}
	slices.SortFunc(rows, func(x, y mapRow) int {
		if c := cmp.Compare(x.t, y.t); c != 0 {
			return c
		}
		if c := cmp.Compare(x.level, y.level); c != 0 {
			return c
		}
		if c := cmp.Compare(x.offset, y.offset); c != 0 {
			return c
		}
		return cmp.Compare(x.b, y.b)
	})
	return rows
}

func writeMemoryMap(w io.Writer, p *state.Problem, rows []mapRow) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := csv.NewWriter(bw)
	if err := cw.Write([]string{"op", "op_name", "level", "block", "offset", "size", "use"}); err != nil {
		return err
	}
	rec := make([]string, 7)
	for _, r := range rows {
		rec[0] = strconv.Itoa(r.t)
		rec[1] = p.Prog.Ops[r.t].Name
		rec[2] = p.HW.Levels[r.level].Name
		rec[3] = p.Block(r.b).Name
		rec[4] = strconv.FormatInt(r.offset, 10)
		rec[5] = strconv.FormatInt(p.Foot(r.b, int(r.level)), 10)
		rec[6] = "reserved"
		if r.live {
			rec[6] = "live"
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}
