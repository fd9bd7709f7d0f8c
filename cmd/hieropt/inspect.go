package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/workload"
	"github.com/hieropt/hieropt/workloads"
)

type inspectOptions struct {
	Workload string `mapstructure:"workload"`
	HW       string `mapstructure:"hw"`
	List     bool   `mapstructure:"list"`
}

func newInspectCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inspect --workload W [--hw P] | inspect --list",
		Short: "Show a workload's statistics (ops, blocks, bytes, max-live)",
		Long: `inspect prints a workload's statistics: ops, blocks by kind, total and
constant bytes, max-live (the most bytes alive at one timestep: the lower
bound of any single-level plan), max-live when in-place reuse is allowed,
max-live without constants, the largest block and the multiply-accumulates.

With --hw it also says whether the workload can fit the profile at all.
With --list it lists the built-in workloads with their statistics.`,
		Example: `  hieropt inspect --workload resnet50-int8
  hieropt inspect --list`,
		Args: exactArgs(0),
	}
	cmd.Flags().String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	cmd.Flags().String("hw", "", "optional hardware profile to check the workload against")
	cmd.Flags().Bool("list", false, "list the built-in workloads")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o inspectOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.List {
			return a.listWorkloads()
		}
		return a.inspect(&o)
	}
	return cmd
}

func (a *app) inspect(o *inspectOptions) error {
	prog, doc, err := a.loadWorkload(o.Workload)
	if err != nil {
		return err
	}
	s := prog.ComputeStats()
	w := a.stdout
	fmt.Fprintf(w, "workload        %s\n", prog.Name)
	if prog.Source != "" {
		fmt.Fprintf(w, "source          %s\n", oneLine(prog.Source))
	}
	fmt.Fprintf(w, "ops             %d\n", s.Ops)
	fmt.Fprintf(w, "blocks          %d (", s.Blocks)
	for k := workload.Input; k <= workload.Constant; k++ {
		if k > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%d %s", s.BlocksByKind[k], k)
	}
	fmt.Fprintln(w, ")")
	fmt.Fprintf(w, "total bytes     %d (%s)\n", s.TotalBytes, fmtBytes(s.TotalBytes))
	fmt.Fprintf(w, "constant bytes  %d (%s)\n", s.ConstBytes, fmtBytes(s.ConstBytes))
	fmt.Fprintf(w, "max-live        %d B (%s) at timestep %d\n", s.MaxLive, fmtBytes(s.MaxLive), s.MaxLiveAt)
	fmt.Fprintf(w, "  in-place      %d B (%s)\n", s.MaxLiveInPlace, fmtBytes(s.MaxLiveInPlace))
	fmt.Fprintf(w, "  w/o constants %d B (%s)\n", s.MaxLiveNoConst, fmtBytes(s.MaxLiveNoConst))
	if s.Largest >= 0 {
		b := prog.Blocks[s.Largest]
		fmt.Fprintf(w, "largest block   %s (%d B, %s, lifetime [%d,%d])\n", b.Name, b.Size, b.Kind, b.First, b.Last)
	}
	fmt.Fprintf(w, "GMACs           %.3f\n", float64(s.MACs)/1e9)
	if o.HW == "" {
		return nil
	}
	prof, err := a.loadProfile(o.HW)
	if err != nil {
		return err
	}
	p, err := bindProblem(prog, prof, doc)
	if err != nil {
		return err
	}
	if err := p.CheckCapacity(); err != nil {
		fmt.Fprintf(w, "fits            %s: no: %v\n", prof.Name, err)
		return failed(fmt.Errorf("%s cannot fit %s", prog.Name, prof.Name))
	}
	fmt.Fprintf(w, "fits            %s: yes, its capacity allows it (run optimize for a plan)\n", prof.Name)
	return nil
}

func (a *app) listWorkloads() error {
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tops\tblocks\ttotal\tmax-live\tin-place\tw/o const\tlargest\tGMACs\t")
	for _, n := range workloads.Names() {
		prog, _, err := a.loadWorkload(n)
		if err != nil {
			return internalErrorf("built-in workload %s: %v", n, err)
		}
		s := prog.ComputeStats()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%.3f\t\n", n, s.Ops, s.Blocks, fmtBytes(s.TotalBytes),
			fmtBytes(s.MaxLive), fmtBytes(s.MaxLiveInPlace), fmtBytes(s.MaxLiveNoConst), fmtBytes(prog.Blocks[s.Largest].Size), float64(s.MACs)/1e9)
	}
	return tw.Flush()
}
