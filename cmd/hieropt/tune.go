package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/calibrate"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
)

type tuneOptions struct {
	Output   string `mapstructure:"output"`
	Base     string `mapstructure:"base"`
	Name     string `mapstructure:"name"`
	TimeUnit string `mapstructure:"time-unit"`
}

func newTuneCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tune SAMPLES.csv [-o profile.yaml] [--base P] [--name N] [--time-unit ns]",
		Short: "Fit a hardware profile to measured samples (from 'hieropt calibrate')",
		Long: `tune reads samples (CSV with the header "level,direction,bytes,ns", as
'hieropt calibrate' writes them; - for stdin) and fits, for each level and
direction, time = latency + bytes / bandwidth by least squares weighted by
1/time² (timing noise grows with the time measured, so every sample counts
by its relative error). It prints a table on stdout (on stderr with -o -):
latency (the intercept, ns) and bandwidth (1/slope, bytes per ns = GB/s)
with their 95% confidence intervals, R², the standard deviation of the
relative residuals and the number of samples. A fit is flagged POOR when R²
is below 0.9 or the intercept or slope is not positive (then clamped to a
small positive value).

It writes a hardware profile (hieropt.hw/v1, time_unit ns), checked before
it is written, whose description says how it was made. Levels come in the
order L1, L2, L3, DRAM, with the capacities of /sys (DRAM 16 GiB) and
alignment 64; with --base (a profile file or built-in name whose level names
are those of the samples), in the base's order with its capacities and
alignments.`,
		Example: `  hieropt calibrate -o samples.csv
  hieropt tune samples.csv -o this-machine.yaml
  hieropt optimize --workload resnet50-int8 --hw this-machine.yaml`,
		Args: exactArgs(1),
	}
	f := cmd.Flags()
	f.StringP("output", "o", "-", "write the profile here (- for stdout)")
	f.String("base", "", "take level order, capacities and alignments from this profile (file or built-in name)")
	f.String("name", calibrate.DefaultName, "name of the profile")
	f.String("time-unit", hw.NS, "time unit of the profile: ns (the unit of the samples)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o tuneOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		return a.tune(&o, args[0])
	}
	return cmd
}

func (a *app) tune(o *tuneOptions, file string) error {
	if o.TimeUnit != hw.NS {
		return usageErrorf("--time-unit %q: the samples are in ns, so is the profile: only %q is supported", o.TimeUnit, hw.NS)
	}
	if strings.TrimSpace(o.Name) == "" {
		return usageErrorf("--name is empty")
	}
	var base *hw.Profile
	if o.Base != "" {
		var err error
		if base, err = a.loadProfile(o.Base); err != nil {
			return err
		}
	}
	samples, err := a.readSamples(file)
	if err != nil {
		return err
	}
	fits, err := calibrate.Fit(samples)
	if err != nil {
		return renameDoc(err, calibrate.DocName(file))
	}
	p, err := calibrate.Profile(fits, base, o.Name, file)
	if err != nil {
		return renameDoc(err, calibrate.DocName(file))
	}
	var buf bytes.Buffer
	if err := calibrate.WriteProfile(&buf, p); err != nil {
		return internalErrorf("formatting the profile: %v", err)
	}
	if _, err := hw.Parse(o.Output, buf.Bytes()); err != nil {
		return internalErrorf("the fitted profile is invalid: %v", err)
	}
	// Refused outputs are refused before the table is printed.
	if err := a.checkOutput(o.Output); err != nil {
		return err
	}
	table := a.stdout
	if o.Output == "-" {
		table = a.stderr
	}
	if table == a.stdout || !a.quiet {
		writeFitTable(table, fits)
	}
	if err := a.writeOutput(o.Output, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return err
	}
	for _, f := range fits {
		if f.Poor {
			fmt.Fprintf(a.stderr, "hieropt: warning: %s %s: poor fit: %s\n", f.Level, f.Direction, strings.Join(f.Warnings, "; "))
		}
	}
	if o.Output != "-" && !a.quiet {
		var lv []string
		for _, l := range p.Levels {
			lv = append(lv, fmt.Sprintf("%s %s", l.Name, fmtBytes(l.Capacity)))
		}
		fmt.Fprintf(a.stderr, "wrote %s: profile %q (time_unit ns), %s\n", o.Output, p.Name, strings.Join(lv, ", "))
	}
	return nil
}

// readSamples reads a samples file, or stdin for "-".
func (a *app) readSamples(file string) ([]calibrate.Sample, error) {
	a.noteInput(calibrate.DocName(file), file)
	if file == "-" {
		return calibrate.ReadSamples("-", a.stdin)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, &inputerr.Error{Doc: calibrate.DocName(file), Rule: "cannot read: " + errorText(err), Err: err}
	}
	defer func() { _ = f.Close() }()
	return calibrate.ReadSamples(file, f)
}

// renameDoc names the samples file in a calibrate error about "samples".
func renameDoc(err error, doc string) error {
	var ie *inputerr.Error
	if errors.As(err, &ie) && ie.Doc == "samples" {
		ie.Doc = doc
	}
	return err
}

// writeFitTable prints the fits as an aligned Markdown table.
func writeFitTable(w io.Writer, fits []calibrate.LinkFit) {
	head := []string{"level", "dir", "latency ns", "latency 95% CI", "bandwidth GB/s", "bandwidth 95% CI", "R²", "resid. std", "n", "fit"}
	right := []bool{false, false, true, true, true, true, true, true, true, false}
	var rows [][]string
	for _, f := range fits {
		status := "ok"
		if f.Poor {
			status = "POOR: " + strings.Join(f.Warnings, "; ")
		}
		rows = append(rows, []string{
			f.Level, f.Direction,
			fmtSig(f.Latency), fmt.Sprintf("[%s, %s]", fmtSig(f.LatencyCI[0]), fmtSig(f.LatencyCI[1])),
			fmtSig(f.Bandwidth), fmt.Sprintf("[%s, %s]", fmtSig(f.BandwidthCI[0]), fmtSig(f.BandwidthCI[1])),
			fmt.Sprintf("%.4f", f.R2), fmt.Sprintf("%.1f%%", 100*f.ResidualStd),
			fmt.Sprint(f.N), status,
		})
	}
	writeAlignedTable(w, head, right, rows)
}

// fmtSig prints 4 significant digits without an exponent for ordinary
// magnitudes.
func fmtSig(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "NaN"
	case v == 0:
		return "0"
	}
	av := math.Abs(v)
	if av >= 1e7 || av < 1e-3 {
		return fmt.Sprintf("%.3g", v)
	}
	digits := 3 - int(math.Floor(math.Log10(av)))
	return fmt.Sprintf("%.*f", max(0, digits), v)
}
