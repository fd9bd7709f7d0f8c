package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/sweep"
	"github.com/hieropt/hieropt/workload"
	"github.com/hieropt/hieropt/workloads"
)

type sweepOptions struct {
	Workload      []string `mapstructure:"workload"`
	Workloads     []string `mapstructure:"workloads"` // the old spelling of --workload
	HW            []string `mapstructure:"hw"`
	Set           []string `mapstructure:"set"`
	Scale         []string `mapstructure:"scale"`
	Output        string   `mapstructure:"output"`
	Shard         string   `mapstructure:"shard"`
	Quiet         bool     `mapstructure:"quiet"`
	searchOptions `mapstructure:",squash"`
}

type sweepMergeOptions struct {
	Output string `mapstructure:"output"`
	Quiet  bool   `mapstructure:"quiet"`
}

func newSweepCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sweep [--workload DIR|W1,W2] [--hw P1,P2] --set KEY=V1,V2 [--scale LEVEL.FIELD=F1,F2] [-o runs.csv] [--shard i/n]",
		Short: "Run the search over a grid of workloads, profiles and settings; write a CSV and a summary",
		Long: `sweep plans every point of a grid and writes one CSV row per run.

The grid is the cartesian product, in this order (the first varies slowest):
the workloads, the profiles and for each its variants (the unscaled profile
first, then each --scale's factors other than 1, in the order given), and the
--set settings in the order given, the last one varying fastest. Run k of the
grid (0-based) is the same on every machine for the same arguments.

--workload: directories (every *.json in them, sorted by name), files or
built-in names, comma-separated or repeated; default every built-in workload. --hw:
files or built-in names; default every built-in profile.

--set KEY=V1,V2,... (repeatable) sweeps one search setting; KEY is the name
of a search flag: segments, beam, actions, max-candidates, rounds, horizon,
initial-only, cost-model, no-search or repack. The values are separated by
';' if there is one, else by ','; in the values of actions and segments '+'
stands for ',': --set 'actions=move+swap+reuse;move+swap+reuse+evict' (or
--set 'actions=move,swap,reuse;move,swap,reuse,evict') sweeps two action
sets. The search flags given outright (--beam 8, ...) hold for every run.

--scale LEVEL.FIELD=F1,F2,... (repeatable) adds profile variants, one field of
one level multiplied by each factor, one at a time: FIELD is bandwidth or
latency (both directions), in.bandwidth, out.bandwidth, in.latency,
out.latency, or capacity (rounded to the nearest byte). A variant is named
like ethos-u55[SRAM.bandwidth*0.5]. A profile without the level gets no
variant of that --scale (a note says so); a level no profile has is an error.

Each run binds the workload to the profile (a pair that cannot fit is a row
with its reason as the status), plans it, and checks the plan with the
validator of 'hieropt verify' (an invalid plan is an internal error). The
CSV (on stdout, or -o FILE) has the columns run, runs (the grid's size),
workload, profile, scale, one per --set key, status, initial_cost,
final_cost, reduction_pct, seconds, commits, replans, replan_steps. It is
written atomically once the shard's runs are done: an interrupted sweep
(Ctrl-C, SIGTERM) writes nothing and exits 130.

--shard i/n (i from 1 to n) runs only the runs k with k mod n = i-1, so that
n machines (Kubernetes indexed Jobs: --shard $((JOB_COMPLETION_INDEX+1))/N;
Slurm arrays: --array=1-N and --shard $SLURM_ARRAY_TASK_ID/N) share a sweep;
'hieropt sweep merge' joins their CSV files back into grid order.

A summary goes to stderr (to stdout with -o FILE): for all runs, each setting value
and each scale variant, the mean, standard deviation and 10/50/90%
quantiles of the reduction of the final cost against the initializer's, and
the reduction of the geometric mean of final/initial; with --scale, the
Pearson and Spearman correlations of each variant's final costs with its
unscaled profile's. On a terminal a progress bar shows the runs (not with
--quiet, which also drops the summary).`,
		Example: `  hieropt sweep --workload resnet18-int8,squeezenet1_1-int8 --hw ethos-u55,k210 --set beam=1,4,16 -o runs.csv
  hieropt sweep --workload nets/ --set segments=every,fixed:4,auto --scale SRAM.bandwidth=0.5,2 -o runs.csv
  hieropt sweep --set beam=1,8,64 --shard 3/8 -o shard-3.csv     # machine 3 of 8, and so on
  hieropt sweep merge shard-*.csv -o runs.csv                    # once all 8 are done`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	workloadListFlag(f, "workloads: directories (their *.json), files or built-in names, comma-separated or repeated; default every built-in")
	f.StringSlice("hw", nil, "profiles (files or built-in names); default every built-in")
	f.StringArray("set", nil, "KEY=V1,V2,...: sweep a search setting (repeatable; keys: "+strings.Join(sweep.Keys, ", ")+")")
	f.StringArray("scale", nil, "LEVEL.FIELD=F1,F2,...: profile variants (repeatable; fields: "+strings.Join(sweep.Fields, ", ")+")")
	f.StringP("output", "o", "-", "write the CSV to this file (- for stdout)")
	f.String("shard", "", "i/n: run only the runs k with k mod n = i-1 (1 <= i <= n)")
	f.BoolP("quiet", "q", false, "print no progress bar, notes or summary")
	searchFlags(f)
	cmd.SetFlagErrorFunc(flagError)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o sweepOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		return a.sweep(&o)
	}
	cmd.AddCommand(newSweepMergeCmd(a))
	return cmd
}

func newSweepMergeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merge SHARD.csv... [-o runs.csv]",
		Short: "Join the CSV files of a sharded sweep in grid order and print the summary",
		Long: `merge reads the CSV files that 'hieropt sweep --shard i/n' wrote, checks that
they are shards of one sweep (the same columns and grid size) and that
together they hold every run of the grid exactly once, and writes them as
one CSV in grid order (on stdout, or atomically to -o FILE): the file an
unsharded sweep would have written, the seconds apart. Then it prints the
summary of the whole sweep (on stderr; on stdout with -o FILE).

A missing run (a shard not given or not finished) or a run given twice is
an error (exit 2) naming the runs.`,
		Example: `  hieropt sweep merge shard-*.csv -o runs.csv`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("sweep merge: give the CSV files of the shards")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringP("output", "o", "-", "write the merged CSV to this file (- for stdout)")
	f.BoolP("quiet", "q", false, "print no summary")
	cmd.SetFlagErrorFunc(flagError)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o sweepMergeOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		return a.sweepMerge(&o, args)
	}
	return cmd
}

// rejoin undoes the splitting at commas that an environment variable or a
// config string goes through: an item without '=' continues the previous
// item's list of values.
func rejoin(flag string, items []string) ([]string, error) {
	var out []string
	for _, it := range items {
		if !strings.Contains(it, "=") {
			if len(out) == 0 {
				return nil, usageErrorf("--%s %q: want KEY=V1,V2,...", flag, it)
			}
			out[len(out)-1] += "," + it
			continue
		}
		out = append(out, it)
	}
	return out, nil
}

// applySetting sets the search option key (a sweep.Keys name) to value.
func applySetting(o *searchOptions, key, value string) error {
	atoi := func(dst *int) error {
		n, err := strconv.Atoi(value)
		if err != nil {
			return fmt.Errorf("%q is not an integer", value)
		}
		*dst = n
		return nil
	}
	parseBool := func(dst *bool) error {
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%q: want true or false", value)
		}
		*dst = b
		return nil
	}
	switch key {
	case "segments":
		o.Segments = value
	case "beam":
		return atoi(&o.Beam)
	case "actions":
		o.Actions = value
	case "max-candidates":
		return atoi(&o.MaxCandidates)
	case "rounds":
		return atoi(&o.Rounds)
	case "horizon":
		return atoi(&o.Horizon)
	case "initial-only":
		return parseBool(&o.InitialOnly)
	case "cost-model":
		o.CostModel = value
	case "no-search":
		return parseBool(&o.NoSearch)
	case "repack":
		return atoi(&o.Repack)
	default:
		return fmt.Errorf("unknown setting %q (known: %s)", key, strings.Join(sweep.Keys, ", "))
	}
	return nil
}

// pointOptions returns the search options of one point: the flags' with
// the point's values.
func pointOptions(base searchOptions, params []sweep.Param, values []string) (searchOptions, *hieropt.Settings, error) {
	o := base
	for i, p := range params {
		if err := applySetting(&o, p.Key, values[i]); err != nil {
			return o, nil, usageErrorf("--set %s=%s: %v", p.Key, values[i], err)
		}
	}
	s, err := o.settings()
	if err != nil {
		return o, nil, err
	}
	return o, s, nil
}

// sweepWorkload is a loaded workload of the sweep.
type sweepWorkload struct {
	prog *workload.Program
	doc  string
}

// loadSweepWorkloads loads the --workload list: directories give their
// *.json files sorted by name.
func (a *app) loadSweepWorkloads(args []string) ([]sweepWorkload, error) {
	if len(args) == 0 {
		args = workloads.Names()
	}
	var out []sweepWorkload
	for _, arg := range args {
		files := []string{arg}
		if st, err := os.Stat(arg); err == nil && st.IsDir() {
			matches, err := filepath.Glob(filepath.Join(arg, "*.json"))
			if err != nil {
				return nil, usageErrorf("--workload %s: %v", arg, err)
			}
			if len(matches) == 0 {
				return nil, usageErrorf("--workload %s: the directory has no *.json file", arg)
			}
			sort.Strings(matches)
			files = matches
		}
		for _, file := range files {
			prog, doc, err := a.loadWorkload(file)
			if err != nil {
				return nil, err
			}
			out = append(out, sweepWorkload{prog, doc})
		}
	}
	return out, nil
}

func (a *app) sweep(o *sweepOptions) error {
	start := time.Now()
	if o.Output == "" {
		return usageErrorf("sweep: -o is required (the CSV file to write, - for stdout)")
	}
	shard, err := sweep.ParseShard(o.Shard)
	if err != nil {
		return usageErrorf("--shard %v", err)
	}
	sets, err := rejoin("set", o.Set)
	if err != nil {
		return err
	}
	params, err := sweep.ParseParams(sets)
	if err != nil {
		return usageErrorf("--set %v", err)
	}
	scaleSpecs, err := rejoin("scale", o.Scale)
	if err != nil {
		return err
	}
	var scales []sweep.Scale
	for _, s := range scaleSpecs {
		sc, err := sweep.ParseScale(s)
		if err != nil {
			return usageErrorf("--scale %v", err)
		}
		scales = append(scales, sc)
	}
	// Check the flags, then every value of every --set, before any run.
	if _, err := o.settings(); err != nil {
		return err
	}
	for _, p := range params {
		for _, v := range p.Values {
			o2 := o.searchOptions
			if err := applySetting(&o2, p.Key, v); err != nil {
				return usageErrorf("--set %s=%s: %v", p.Key, v, err)
			}
			if _, err := o2.settings(); err != nil {
				return usageErrorf("--set %s=%s: %s", p.Key, v, oneLine(err.Error()))
			}
		}
	}

	works, err := a.loadSweepWorkloads(workloadList(o.Workload, o.Workloads))
	if err != nil {
		return err
	}
	if len(o.HW) == 0 {
		o.HW = profiles.Names()
	}
	var profiles []*hw.Profile
	for _, h := range o.HW {
		prof, err := a.loadProfile(h)
		if err != nil {
			return err
		}
		profiles = append(profiles, prof)
	}
	// The runs take long: an output that would be refused is refused
	// first.
	if err := a.checkOutput(o.Output); err != nil {
		return err
	}
	names := make([]string, len(works))
	for i, w := range works {
		names[i] = w.prog.Name
	}
	grid, err := sweep.NewGrid(names, profiles, scales, params)
	if err != nil {
		return usageErrorf("sweep: %v", err)
	}
	summaryOut := a.stdout
	if o.Output == "-" {
		summaryOut = a.stderr
	}
	if !o.Quiet {
		for _, n := range grid.Notes {
			fmt.Fprintf(a.stderr, "note: %s\n", n)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runs := shard.Runs(grid.Len())
	part := ""
	if shard.Count > 1 {
		part = fmt.Sprintf("shard %s", shard)
	}
	var bar *progressbar.ProgressBar
	if !o.Quiet && isTerminal(a.stderr) {
		bar = progressbar.NewOptions(len(runs),
			progressbar.OptionSetWriter(a.stderr),
			progressbar.OptionSetDescription(cmp.Or(part, "sweep")),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
	}
	table := &sweep.Table{Keys: grid.Keys(), Runs: grid.Len()}
	for i, k := range runs {
		pt := grid.Point(k)
		row := grid.Row(pt)
		if err := a.sweepRun(ctx, grid, pt, works[pt.Workload], o, params, &row); err != nil {
			if bar != nil {
				_ = bar.Clear()
			}
			if ctx.Err() != nil {
				return &exitError{exitInterrupted, fmt.Errorf("interrupted after %d of %d runs: nothing written", i, len(runs))}
			}
			return err
		}
		table.Rows = append(table.Rows, row)
		if bar != nil {
			_ = bar.Add(1)
		}
	}
	if bar != nil {
		_ = bar.Finish()
	}
	if err := a.writeOutput(o.Output, table.WriteCSV); err != nil {
		return err
	}
	if o.Quiet {
		return nil
	}
	if part != "" {
		part += ": "
	}
	fmt.Fprintf(summaryOut, "%s%d of the grid's %s (%s x %s x %s); wall time %.2f s\n",
		part, len(runs), plural(grid.Len(), "run"), plural(len(grid.Workloads), "workload"), plural(len(grid.Variants), "profile"),
		plural(grid.Len()/max(1, len(grid.Workloads)*len(grid.Variants)), "setting combination"), time.Since(start).Seconds())
	return sweep.Summarize(table).Write(summaryOut)
}

// sweepRun plans one point and fills in row.
func (a *app) sweepRun(ctx context.Context, grid *sweep.Grid, pt sweep.Point, w sweepWorkload, base *sweepOptions, params []sweep.Param, row *sweep.Row) error {
	_, s, err := pointOptions(base.searchOptions, params, pt.Values)
	if err != nil {
		return err
	}
	start := time.Now()
	defer func() { row.Seconds = math.Round(time.Since(start).Seconds()*1e6) / 1e6 }()
	prof := grid.Variants[pt.Variant].Profile
	s.Document = w.doc
	res, err := hieropt.Plan(ctx, w.prog, prof, s)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		why, ok := noPlan(err)
		if !ok {
			return planError(err)
		}
		row.Status = why
		return nil
	}
	if res.Status == hieropt.Cancelled {
		return context.Canceled
	}
	row.Status = sweep.StatusValid
	row.Initial, row.Final = res.Plan.Cost.Initial, res.Plan.Cost.Final
	if r := res.Search; r != nil {
		row.Commits, row.Replans, row.ReplanSteps = r.Stats.Commits, r.Stats.Replans, r.Stats.ReplanSteps
	}
	return nil
}

func (a *app) sweepMerge(o *sweepMergeOptions, files []string) error {
	if o.Output == "" {
		return usageErrorf("sweep merge: -o is required (the CSV file to write, - for stdout)")
	}
	var tables []*sweep.Table
	for _, file := range files {
		a.noteInput(inputerr.Doc("sweep CSV", file), file)
		t, err := readSweepCSV(file)
		if err != nil {
			return err
		}
		tables = append(tables, t)
	}
	merged, err := sweep.Merge(tables...)
	if err != nil {
		return &exitError{exitInput, fmt.Errorf("sweep merge: %w", err)}
	}
	if err := a.writeOutput(o.Output, merged.WriteCSV); err != nil {
		return err
	}
	if o.Quiet {
		return nil
	}
	out := a.stdout
	if o.Output == "-" {
		out = a.stderr
	}
	fmt.Fprintf(out, "merged %s: the grid's %s\n", plural(len(files), "file"), plural(merged.Runs, "run"))
	return sweep.Summarize(merged).Write(out)
}

func readSweepCSV(file string) (*sweep.Table, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, &exitError{exitInput, fmt.Errorf("sweep CSV %q: cannot read: %s", file, errorText(err))}
	}
	defer func() { _ = f.Close() }()
	return sweep.ReadCSV(f, file)
}
