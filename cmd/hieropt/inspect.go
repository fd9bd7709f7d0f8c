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
	Format   string `mapstructure:"format"`
}

func newInspectCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inspect --workload W [--hw P] | inspect --list [--format text|json]",
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
	formatFlag(cmd.Flags(), "text, or json (one object; with --list, one per workload)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o inspectOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		var err error
		if o.Format, err = checkFormat(o.Format, nil, "text", "json"); err != nil {
			return err
		}
		if o.List && o.Format == "json" {
			return a.listWorkloadsJSON()
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
	if o.Format == "json" {
		return a.inspectJSON(o, prog, doc, s)
	}
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

// inspectStats is a workload's statistics as JSON.
type inspectStats struct {
	Workload       string         `json:"workload"`
	Source         string         `json:"source,omitempty"`
	Ops            int            `json:"ops"`
	Blocks         int            `json:"blocks"`
	BlocksByKind   map[string]int `json:"blocks_by_kind"`
	TotalBytes     int64          `json:"total_bytes"`
	ConstBytes     int64          `json:"constant_bytes"`
	MaxLive        int64          `json:"max_live_bytes"`
	MaxLiveAt      int            `json:"max_live_timestep"`
	MaxLiveInPlace int64          `json:"max_live_in_place_bytes"`
	MaxLiveNoConst int64          `json:"max_live_without_constants_bytes"`
	Largest        *inspectBlock  `json:"largest_block,omitempty"`
	MACs           int64          `json:"macs"`
	Fits           *inspectFits   `json:"fits,omitempty"`
}

type inspectBlock struct {
	Name  string `json:"name"`
	Size  int64  `json:"size"`
	Kind  string `json:"kind"`
	First int    `json:"first"`
	Last  int    `json:"last"`
}

type inspectFits struct {
	Hardware string `json:"hardware"`
	Fits     bool   `json:"fits"`
	Reason   string `json:"reason,omitempty"`
}

func statsJSON(prog *workload.Program, s workload.Stats) inspectStats {
	j := inspectStats{Workload: prog.Name, Source: prog.Source, Ops: s.Ops, Blocks: s.Blocks, BlocksByKind: map[string]int{},
		TotalBytes: s.TotalBytes, ConstBytes: s.ConstBytes, MaxLive: s.MaxLive, MaxLiveAt: s.MaxLiveAt,
		MaxLiveInPlace: s.MaxLiveInPlace, MaxLiveNoConst: s.MaxLiveNoConst, MACs: s.MACs}
	for k := workload.Input; k <= workload.Constant; k++ {
		j.BlocksByKind[k.String()] = s.BlocksByKind[k]
	}
	if s.Largest >= 0 {
		b := prog.Blocks[s.Largest]
		j.Largest = &inspectBlock{b.Name, b.Size, b.Kind.String(), b.First, b.Last}
	}
	return j
}

// inspectJSON prints inspect's statistics as one JSON object; with --hw,
// whether the workload fits (exit 1 when it does not, as the text).
func (a *app) inspectJSON(o *inspectOptions, prog *workload.Program, doc string, s workload.Stats) error {
	j := statsJSON(prog, s)
	var fitErr error
	if o.HW != "" {
		prof, err := a.loadProfile(o.HW)
		if err != nil {
			return err
		}
		p, err := bindProblem(prog, prof, doc)
		if err != nil {
			return err
		}
		j.Fits = &inspectFits{Hardware: prof.Name, Fits: true}
		if err := p.CheckCapacity(); err != nil {
			j.Fits.Fits, j.Fits.Reason = false, oneLine(err.Error())
			fitErr = &exitError{exitFailed, &silentError{fmt.Errorf("%s cannot fit %s", prog.Name, prof.Name)}}
		}
	}
	if err := a.printJSON(j); err != nil {
		return err
	}
	return fitErr
}

// listWorkloadsJSON prints the built-in workloads' statistics as one JSON
// object.
func (a *app) listWorkloadsJSON() error {
	out := struct {
		Workloads []inspectStats `json:"workloads"`
	}{}
	for _, n := range workloads.Names() {
		prog, _, err := a.loadWorkload(n)
		if err != nil {
			return internalErrorf("built-in workload %s: %v", n, err)
		}
		out.Workloads = append(out.Workloads, statsJSON(prog, prog.ComputeStats()))
	}
	return a.printJSON(out)
}
