package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/calibrate"
)

type calibrateOptions struct {
	Output string   `mapstructure:"output"`
	Repeat int      `mapstructure:"repeat"`
	Quick  bool     `mapstructure:"quick"`
	Levels []string `mapstructure:"levels"`
	Quiet  bool     `mapstructure:"quiet"`
}

func newCalibrateCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "calibrate [-o samples.csv] [--repeat N] [--quick] [--levels L1,L2,L3,DRAM]",
		Short: "Measure this machine's memory hierarchy: samples for 'hieropt tune'",
		Long: `calibrate measures this machine's caches and memory for real and writes one
CSV row per sample, with the header "level,direction,bytes,ns": moving bytes
into (in) or out of (out) the level took ns nanoseconds. 'hieropt tune' fits
a hardware profile to the file.

For each level (L1, L2 and L3, with the sizes of /sys/devices/system/cpu/cpu0/
cache, else 32 KiB, 1 MiB and 32 MiB; and DRAM), 12 buffer sizes from 1/8 to
1/2 of its capacity (DRAM: from 2x to 8x the L3, at most 256 MiB), each
--repeat times:

  out  one pass of a read kernel over a buffer of that size, warmed first so
       that it sits in the level (every byte loaded: 512- or 256-bit vector
       loads on amd64, see the summary);
  in   the same with a write kernel (every byte stored);
  and, as rows of 8 bytes, the latency of one access: a pointer chase around
  a random cyclic permutation of the cache lines of a buffer sized to the
  level (out: loads only; in: storing into each line before loading it).

It also times copies, as a check of the model (they are not rows of the
file): one pass of a copy kernel (every byte loaded from one buffer and
stored into another, with the same vector loads and stores), --repeat times
at 3 sizes per level: half of the smallest, a middle and the largest buffer
size, so that source and destination together take the room of that buffer
and sit in the level as it does (the destination starts on the first 4 KiB
boundary after the source, so that 4K aliasing, a load waiting on a pending
store whose address matches its low 12 bits, cannot slow the copy). After
measuring, calibrate fits the in and out rows as 'hieropt tune' does and
prints in its summary on stderr (not with -q), per level, each copy's median
time against the model's: reading the bytes out of the level plus writing
them into it (out latency + b/out bandwidth + in latency + b/in bandwidth),
and the relative error. A copy overlaps its reads and writes, so the sum is
expected to overestimate it, by up to ~2x on a core that reads and writes in
the same cycle.

Each sample and copy is the fastest of 3 timed runs of at least 0.5 ms,
taken in 3 sweeps over the level, so that interference from other processes
rarely counts; still, run it on an otherwise idle machine. The full run
takes about 10 seconds (on a 2-core virtual machine; longer when the
machine is busy); --quick (3 sizes, short runs) about 1.`,
		Example: `  hieropt calibrate -o samples.csv
  hieropt tune samples.csv -o this-machine.yaml`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	f.StringP("output", "o", "-", "write the samples here (- for stdout)")
	f.Int("repeat", 5, "samples per size, direction and kind")
	f.Bool("quick", false, "3 sizes per level, short runs (a rough run of about a second, for tests)")
	f.StringSlice("levels", calibrate.LevelOrder, "levels to measure: L1, L2, L3, DRAM")
	f.BoolP("quiet", "q", false, "print no progress and no summary (no copy check)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o calibrateOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		return a.calibrate(&o)
	}
	return cmd
}

func (a *app) calibrate(o *calibrateOptions) error {
	if o.Repeat < 1 {
		return usageErrorf("--repeat %d: want at least 1", o.Repeat)
	}
	var levels []string
	for _, l := range o.Levels {
		if l = strings.TrimSpace(l); l != "" {
			levels = append(levels, l)
		}
	}
	if len(levels) == 0 {
		return usageErrorf("--levels is empty: want some of %s", strings.Join(calibrate.LevelOrder, ","))
	}
	caches := calibrate.ReadCaches()
	mo := calibrate.Options{Levels: levels, Repeat: o.Repeat, Quick: o.Quick, Caches: &caches}
	plan, err := calibrate.Plan(mo)
	if err != nil {
		return usageErrorf("--levels: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if !o.Quiet {
		var parts []string
		for _, p := range plan {
			parts = append(parts, fmt.Sprintf("%s (%s to %s)", p.Level, fmtBytes(p.Sizes[0]), fmtBytes(p.Sizes[len(p.Sizes)-1])))
		}
		fmt.Fprintf(a.stderr, "calibrate: %s; %d sizes per level, %d repetitions, %s kernels\n",
			strings.Join(parts, ", "), len(plan[0].Sizes), o.Repeat, calibrate.Kernel())
	}
	var bar *progressbar.ProgressBar
	if !o.Quiet && isTerminal(a.stderr) {
		bar = progressbar.NewOptions(1,
			progressbar.OptionSetWriter(a.stderr),
			progressbar.OptionSetDescription("measuring"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
		mo.Progress = func(done, total int) {
			if bar.GetMax() != total {
				bar.ChangeMax(total)
			}
			_ = bar.Set(done)
		}
	}
	start := time.Now()
	res, err := calibrate.Measure(ctx, mo)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		if ctx.Err() != nil {
			return &exitError{exitInterrupted, errors.New("interrupted: nothing written")}
		}
		return internalErrorf("measuring: %v", err)
	}
	elapsed := time.Since(start)
	samples := res.Samples
	if err := a.writeOutput(o.Output, func(w io.Writer) error { return calibrate.WriteSamples(w, samples) }); err != nil {
		return err
	}
	if !o.Quiet {
		writeCopyCheck(a.stderr, plan, samples, res.Copies)
		out := o.Output
		if out == "-" {
			out = "stdout"
		}
		next := o.Output
		if next == "-" {
			next = "samples.csv"
		}
		fmt.Fprintf(a.stderr, "calibrate: %d samples and %d copies in %s, samples written to %s; next: hieropt tune %s -o profile.yaml\n",
			len(samples), len(res.Copies), elapsed.Round(10*time.Millisecond), out, next)
	}
	return nil
}

// writeCopyCheck prints the copy check: per level, the copies measured
// against the model fitted to the samples (calibrate.CheckCopies), as an
// aligned Markdown table, then one line on what the errors mean.
func writeCopyCheck(w io.Writer, plan []calibrate.LevelPlan, samples []calibrate.Sample, copies []calibrate.CopySample) {
	fits, err := calibrate.Fit(samples)
	var checks []calibrate.CopyCheck
	if err == nil {
		checks, err = calibrate.CheckCopies(fits, copies)
	}
	if err != nil {
		fmt.Fprintf(w, "calibrate: copy check skipped: %v\n", oneLine(err.Error()))
		return
	}
	if len(checks) == 0 {
		return
	}
	fmt.Fprint(w, wrapText("calibrate: copy check: copying b bytes from one buffer into another, the two together "+
		"in the level, against the model fitted to these samples: out latency + b/out bandwidth + in latency + "+
		"b/in bandwidth. Measured ns is the median of the repetitions; error is model/measured - 1.", 100))
	lo, hi := math.Inf(1), math.Inf(-1)
	var perLevel []string
	for _, p := range plan {
		var rows [][]string
		sum := 0.0
		for _, c := range checks {
			if c.Level != p.Level {
				continue
			}
			rows = append(rows, []string{fmt.Sprint(c.Bytes), fmtNS(c.Measured), fmtNS(c.Predicted), fmtPct(c.Error)})
			sum += c.Error
			lo, hi = min(lo, c.Error), max(hi, c.Error)
		}
		if len(rows) == 0 {
			continue
		}
		perLevel = append(perLevel, fmt.Sprintf("%s\x00%s", p.Level, fmtPct(sum/float64(len(rows))))) // \x00: a space wrapText keeps
		var model []string
		poor := ""
		for _, dir := range []string{calibrate.Out, calibrate.In} {
			for _, f := range fits {
				if f.Level == p.Level && f.Direction == dir {
					model = append(model, fmt.Sprintf("%s %s ns + b/%s GB/s", dir, fmtSig(f.Latency), fmtSig(f.Bandwidth)))
					if f.Poor {
						poor = " (poor fit, see hieropt tune)"
					}
				}
			}
		}
		sizes := fmtBytes(p.CopySizes[0])
		if n := len(p.CopySizes); n > 1 {
			sizes += " to " + fmtBytes(p.CopySizes[n-1])
		}
		fmt.Fprintf(w, "\n%s, copies of %s; model %s%s:\n", p.Level, sizes, strings.Join(model, ", "), poor)
		writeAlignedTable(w, []string{"copy bytes", "measured ns", "model ns", "error"}, []bool{true, true, true, true}, rows)
	}
	span := func(a, b float64) string { // a <= b, both >= 0
		if s, t := fmt.Sprintf("%.1f%%", 100*a), fmt.Sprintf("%.1f%%", 100*b); s != t {
			return s + " to " + t
		}
		return fmt.Sprintf("%.1f%%", 100*a)
	}
	var what string
	switch {
	case lo > 0:
		what = "the model overestimates every copy, by " + span(lo, hi)
	case hi < 0:
		what = "the model underestimates every copy, by " + span(-hi, -lo)
	default:
		what = fmt.Sprintf("the model's error ranges from %s to %s", fmtPct(lo), fmtPct(hi))
	}
	fmt.Fprint(w, "\n"+wrapText(fmt.Sprintf("calibrate: measured: %s (mean per level: %s). A copy overlaps its "+
		"reads and writes, so the model's sum of the two is expected to overestimate it, by up to ~2x (+100%%) "+
		"on a core that reads and writes in the same cycle. The copies check the model; they are not in the "+
		"samples.", what, strings.Join(perLevel, ", ")), 100))
}

// wrapText breaks s into lines of at most width columns (a longer word
// stands alone), each ending in a newline. A NUL byte is a space that does
// not break.
func wrapText(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(s) {
		l := len([]rune(word))
		if n > 0 && n+1+l > width {
			b.WriteString("\n")
			n = 0
		}
		if n > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(word)
		n += l
	}
	b.WriteString("\n")
	return strings.ReplaceAll(b.String(), "\x00", " ")
}

// fmtNS prints a time in ns: 4 significant digits, whole ns from 10,000.
func fmtNS(v float64) string {
	if v >= 1e4 && !math.IsInf(v, 1) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmtSig(v)
}

// fmtPct prints a relative value as a signed percentage: +12.3%.
func fmtPct(v float64) string {
	return strings.Replace(fmt.Sprintf("%+.1f%%", 100*v), "+-", "-", 1)
}

// writeAlignedTable prints rows under head as an aligned Markdown table;
// right says which columns are right-aligned.
func writeAlignedTable(w io.Writer, head []string, right []bool, rows [][]string) {
	width := make([]int, len(head))
	for _, r := range append([][]string{head}, rows...) {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(r []string) {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if right[i] {
				b.WriteString(" " + pad + c + " |")
			} else {
				b.WriteString(" " + c + pad + " |")
			}
		}
		fmt.Fprintln(w, b.String())
	}
	line(head)
	sep := make([]string, len(head))
	for i := range head {
		sep[i] = strings.Repeat("-", width[i])
		if right[i] {
			sep[i] = sep[i][:width[i]-1] + ":"
		}
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
}
