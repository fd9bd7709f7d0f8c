package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/profiles"
)

func newProfilesCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles [NAME|FILE]",
		Short: "List the built-in hardware profiles, or print one",
		Long: `profiles lists the built-in hardware profiles with their levels, fastest
first: capacity, alignment, and the latency and bandwidth of writing into
(in) and reading out of (out) each level.

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
			a.listLevels(prof.Name, prof.TimeUnit, prof.Levels)
			return nil
		}
		for _, n := range profiles.Names() {
			prof, err := profiles.Get(n)
			if err != nil {
				return internalErrorf("built-in profile %s: %v", n, err)
			}
			a.listLevels(n, prof.TimeUnit, prof.Levels)
		}
		return nil
	}
	return cmd
}

func (a *app) listLevels(name, unit string, levels []hw.Level) {
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\tlevel\tcapacity\talign\tin latency\tin B/%s\tout latency\tout B/%s\n", name, unit, unit)
	for _, lv := range levels {
		fmt.Fprintf(tw, "\t%s\t%s\t%d\t%g\t%g\t%g\t%g\n", lv.Name, fmtBytes(lv.Capacity), lv.Alignment,
			lv.In.Latency, lv.In.Bandwidth, lv.Out.Latency, lv.Out.Bandwidth)
	}
	_ = tw.Flush() // its writer keeps the error: a checked stream (streams.go) or a buffer
	fmt.Fprintln(a.stdout)
}
