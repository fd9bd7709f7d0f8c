package main

import (
	"context"
	"errors"
	"fmt"
	"io"
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

Each sample is the fastest of 3 timed runs of at least 0.5 ms, taken in 3
sweeps over the level, so that interference from other processes rarely
counts; still, run it on an otherwise idle machine. The full run takes about
10 seconds (on a 2-core virtual machine; longer when the machine is busy);
--quick (3 sizes, short runs) about 1.`,
		Example: `  hieropt calibrate -o samples.csv
  hieropt tune samples.csv -o this-machine.yaml`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	f.StringP("output", "o", "-", "write the samples here (- for stdout)")
	f.Int("repeat", 5, "samples per size, direction and kind")
	f.Bool("quick", false, "3 sizes per level, short runs (a rough run of about a second, for tests)")
	f.StringSlice("levels", calibrate.LevelOrder, "levels to measure: L1, L2, L3, DRAM")
	f.BoolP("quiet", "q", false, "print no progress and no summary")
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
	samples, err := calibrate.Measure(ctx, mo)
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
	if err := a.writeOutput(o.Output, func(w io.Writer) error { return calibrate.WriteSamples(w, samples) }); err != nil {
		return err
	}
	if !o.Quiet {
		out := o.Output
		if out == "-" {
			out = "stdout"
		}
		next := o.Output
		if next == "-" {
			next = "samples.csv"
		}
		fmt.Fprintf(a.stderr, "calibrate: %d samples in %s, written to %s; next: hieropt tune %s -o profile.yaml\n",
			len(samples), elapsed.Round(10*time.Millisecond), out, next)
	}
	return nil
}
