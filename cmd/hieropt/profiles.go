package main

import (
	"cmp"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/verify"
)

func newProfilesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles [NAME|FILE]",
		Short: "List the built-in hardware profiles, or print one",
		Long: `profiles lists the built-in hardware profiles with their levels, fastest
first: capacity, alignment, and the latency and bandwidth of writing into
(in) and reading out of (out) each level, a read-only level marked; then
the cost model that prices plans on the profile (its cost_model, else
seed003; optimize's --cost-model overrides it) with, for the timeline
model, the compute unit's rate and per-op overhead and the DMA channels.
The built-in profiles name the timeline model.

With a NAME, it prints that profile's YAML (with the public sources of its
figures in the description), to copy and adapt. With a FILE, it checks the
file and lists its levels. Keys are case-sensitive; a key that is not a
field of the format is ignored (as the format requires of readers) and
listed as a warning on stderr, since a misspelt optional field would be
ignored too.`,
		Example: `  hieropt profiles
  hieropt profiles ethos-u55 > my-npu.yaml`,
		Args: maxArgs(1),
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			if data, ok := profiles.YAML(args[0]); ok && isBuiltinName(args[0]) {
				_, err := a.stdout.Write(data)
				return err
			}
			prof, ignored, err := a.readProfile(args[0])
			if err != nil {
				return err
			}
			for _, g := range ignored {
				fmt.Fprintf(a.stderr, "hieropt: warning: %s: %s\n", hw.DocName(args[0]), g)
			}
			fmt.Fprintf(a.stdout, "%s: valid profile %q (%s)\n", args[0], prof.Name, hw.Units(prof.TimeUnit))
			a.listProfile(prof.Name, prof)
			return nil
		}
		for _, n := range profiles.Names() {
			prof, err := profiles.Get(n)
			if err != nil {
				return internalErrorf("built-in profile %s: %v", n, err)
			}
			a.listProfile(n, prof)
		}
		return nil
	}
	return cmd
}

// listProfile prints prof's levels, a read-only level marked, and the
// line of its cost model (profileModel).
func (a *app) listProfile(name string, prof *hw.Profile) {
	unit := prof.TimeUnit
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\tlevel\tcapacity\talign\tin latency\tin B/%s\tout latency\tout B/%s\n", name, unit, unit)
	for _, lv := range prof.Levels {
		level := lv.Name
		if lv.ReadOnly {
			level += " (read-only)"
		}
		fmt.Fprintf(tw, "\t%s\t%s\t%d\t%g\t%g\t%g\t%g\n", level, fmtBytes(lv.Capacity), lv.Alignment,
			lv.In.Latency, lv.In.Bandwidth, lv.Out.Latency, lv.Out.Bandwidth)
	}
	_ = tw.Flush() // its writer keeps the error: a checked stream (streams.go) or a buffer
	fmt.Fprintf(a.stdout, "%s  %s\n\n", strings.Repeat(" ", len(name)), profileModel(prof))
}

// profileModel says which cost model prices plans on prof and, for the
// timeline model, with what figures: "cost model timeline: 256 MACs per
// cycle + 500 cycles per op, 1 DMA channel".
func profileModel(prof *hw.Profile) string {
	name := cmp.Or(prof.CostModel, costmodel.Default)
	if prof.CostModel == "" {
		name += " (no cost_model: the default)"
	}
	s := "cost model " + name
	if prof.Compute != nil {
		over := hw.Units(prof.TimeUnit)
		if prof.Compute.OpOverhead == 1 {
			over = prof.TimeUnit
		}
		s += fmt.Sprintf(": %g MACs per %s + %g %s per op", prof.Compute.MACsPerUnit, prof.TimeUnit, prof.Compute.OpOverhead, over)
	} else if name == verify.TimelineModel {
		s += ": no compute section (ops take their accesses' time)"
	}
	if prof.Compute != nil || name == verify.TimelineModel {
		s += ", " + plural(prof.Channels(), "DMA channel")
	}
	return s
}
