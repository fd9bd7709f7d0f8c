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
		Use:   "profiles [NAME|FILE] [--format text|json]",
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
ignored too.

--format json prints the list, or the one profile, as one JSON object.`,
		Example: `  hieropt profiles
  hieropt profiles ethos-u55 > my-npu.yaml`,
		Args: maxArgs(1),
	}
	formatFlag(cmd.Flags(), "text (a NAME's YAML; the levels of the others), or json (one object)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o struct {
			Format string `mapstructure:"format"`
		}
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		var err error
		if o.Format, err = checkFormat(o.Format, nil, "text", "json"); err != nil {
			return err
		}
		if o.Format == "json" {
			return a.profilesJSON(args)
		}
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

// profileJSON is a profile as JSON: the fields of the format.
type profileJSON struct {
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	TimeUnit    string       `json:"time_unit"`
	CostModel   string       `json:"cost_model"`
	Compute     *computeJSON `json:"compute,omitempty"`
	Channels    int          `json:"dma_channels"`
	Levels      []levelJSON  `json:"levels"`
}

type computeJSON struct {
	MACsPerUnit float64 `json:"macs_per_unit"`
	OpOverhead  float64 `json:"op_overhead"`
}

type levelJSON struct {
	Name      string   `json:"name"`
	Capacity  int64    `json:"capacity"`
	Alignment int64    `json:"alignment"`
	ReadOnly  bool     `json:"read_only"`
	In        linkJSON `json:"in"`
	Out       linkJSON `json:"out"`
}

type linkJSON struct {
	Latency   float64 `json:"latency"`
	Bandwidth float64 `json:"bandwidth"`
}

func profileToJSON(p *hw.Profile) profileJSON {
	j := profileJSON{Name: p.Name, Description: p.Description, TimeUnit: p.TimeUnit,
		CostModel: cmp.Or(p.CostModel, costmodel.Default), Channels: p.Channels()}
	if c := p.Compute; c != nil {
		j.Compute = &computeJSON{c.MACsPerUnit, c.OpOverhead}
	}
	for _, lv := range p.Levels {
		j.Levels = append(j.Levels, levelJSON{lv.Name, lv.Capacity, lv.Alignment, lv.ReadOnly,
			linkJSON{lv.In.Latency, lv.In.Bandwidth}, linkJSON{lv.Out.Latency, lv.Out.Bandwidth}})
	}
	return j
}

// profilesJSON prints the built-in profiles, or the one named or read
// from a file, as one JSON object; a file's ignored keys are warnings on
// stderr, as in text.
func (a *app) profilesJSON(args []string) error {
	if len(args) == 1 {
		prof, ignored, err := a.readProfile(args[0])
		if err != nil {
			return err
		}
		for _, g := range ignored {
			fmt.Fprintf(a.stderr, "hieropt: warning: %s: %s\n", hw.DocName(args[0]), g)
		}
		return a.printJSON(profileToJSON(prof))
	}
	out := struct {
		Profiles []profileJSON `json:"profiles"`
	}{}
	for _, n := range profiles.Names() {
		prof, err := profiles.Get(n)
		if err != nil {
			return internalErrorf("built-in profile %s: %v", n, err)
		}
		out.Profiles = append(out.Profiles, profileToJSON(prof))
	}
	return a.printJSON(out)
}
