package main

import (
	"cmp"
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
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/workload"
)

type optimizeOptions struct {
	Workload      string `mapstructure:"workload"`
	HW            string `mapstructure:"hw"`
	Output        string `mapstructure:"output"`
	Quiet         bool   `mapstructure:"quiet"`
	ASCII         bool   `mapstructure:"ascii"`
	Report        string `mapstructure:"report"`
	Format        string `mapstructure:"format"`
	searchOptions `mapstructure:",squash"`
}

// searchOptions are the settings of the search, shared by the commands
// that plan.
type searchOptions struct {
	NoSearch      bool          `mapstructure:"no-search"`
	CostModel     string        `mapstructure:"cost-model"`
	Segments      string        `mapstructure:"segments"`
	Beam          int           `mapstructure:"beam"`
	Actions       string        `mapstructure:"actions"`
	MaxCandidates int           `mapstructure:"max-candidates"`
	TimeLimit     time.Duration `mapstructure:"time-limit"`
	Jobs          int           `mapstructure:"jobs"`
	Check         bool          `mapstructure:"check"`
	InitialOnly   bool          `mapstructure:"initial-only"`
	Initializer   string        `mapstructure:"initializer"`
	Rounds        int           `mapstructure:"rounds"`
	Horizon       int           `mapstructure:"horizon"`
	Repack        int           `mapstructure:"repack"`
}

// searchFlags adds the search's settings to a command.
func searchFlags(f *pflag.FlagSet) {
	f.Bool("no-search", false, "plan with the initializer alone")
	f.String("segments", "auto", "local-optimal segments: every, fixed:N, at:t1,t2,... or auto")
	f.Int("beam", search.DefaultBeam, "candidate states kept inside a segment, cheapest first; -1 = unbounded (the seed's exact behaviour)")
	f.String("actions", "", "the action set, comma-separated: the seed's move, swap, reuse, and hieropt's evict and prefetch (default: move,swap,reuse,evict; under the timeline model also prefetch, which issues copies early)")
	f.Int("max-candidates", search.DefaultMaxCandidates, "candidates per action and level for one block, best fit first; -1 = no cap")
	f.Duration("time-limit", 0, "time limit (e.g. 30s) of optimize's whole run, loading to summary (bench: of each pair's planning); the search stops early and keeps its best plan; 0 = none")
	f.IntP("jobs", "j", 0, "goroutines evaluating candidates; 0 = all cores (the plan does not depend on it)")
	f.Bool("check", false, "check the search's invariants after every commit (slow; for debugging)")
	f.String("initializer", "seed003", "seed003 (rules 1-5, then the search), or a baseline planner, without search (a single arena: pack, hieropt's exact packer; seed000, seed001, seed004, the seeds'; tflm, TFLite Micro's runtime planner; "+
		hieropt.PipelinePlanner+", seed 004's pipelined weights; "+hieropt.MSAPlanner+", an XLA-style memory-space assignment): "+strings.Join(append(arena.Names(), hieropt.PipelinePlanner, hieropt.MSAPlanner), ", "))
	f.Bool("initial-only", false, "start the search from the initializer's plan only, as the seed does (by default it also tries the initializer in kind order)")
	f.Int("rounds", search.DefaultRounds, "most actions one state may take at one timestep")
	f.Int("horizon", search.DefaultHorizon, "act only on blocks that die within this many timesteps; -1 = unbounded")
	f.Int("repack", hieropt.DefaultRepack, "after the search, re-pack each level with the exact packer to promote blocks from slower levels: most packings per level; 0 = off")
	f.String("cost-model", "", "cost model to price plans with (registered: "+strings.Join(costmodel.Names(), ", ")+"); default: the profile's cost_model, else "+costmodel.Default)
}

// searched reports whether the options run the search.
func (o *searchOptions) searched() bool {
	return !o.NoSearch && (o.Initializer == "" || o.Initializer == "seed003")
}

// flagOf is the flag of each field of hieropt.Settings that a flag sets.
var flagOf = map[string]string{
	"CostModel": "cost-model", "Search.Beam": "beam", "Search.MaxCandidates": "max-candidates", "TimeLimit": "time-limit",
	"Search.Rounds": "rounds", "Search.Horizon": "horizon", "Search.Workers": "jobs", "Repack": "repack",
	"Search.Segments": "segments",
}

// settings turns the flags into the planner's settings, checked. Its
// errors name the flags: each field's error from Settings.Validate becomes
// its flag's, in the order the flags are listed here.
func (o *searchOptions) settings() (*hieropt.Settings, error) {
	s := &hieropt.Settings{
		Planner:   hieropt.DefaultPlanner,
		CostModel: o.CostModel,
		Search: search.Settings{
			Beam:          o.Beam,
			MaxCandidates: o.MaxCandidates,
			Workers:       o.Jobs,
			Check:         o.Check,
			Rounds:        o.Rounds,
			Horizon:       o.Horizon,
		},
		TimeLimit: o.TimeLimit,
		Repack:    new(o.Repack), // 0 is off here and in hieropt.Settings
	}
	if o.InitialOnly {
		s.Starts = []string{actions.WorkloadOrder.Name()}
	}
	bad := map[string]*hieropt.SettingError{}
	for _, err := range joined(s.Validate()) {
		var se *hieropt.SettingError
		if !errors.As(err, &se) {
			return nil, internalErrorf("settings: %v", err)
		}
		bad[se.Field] = se
	}
	// Settings take 0 for a default; the flags show theirs, and 0 is
	// none of these flags' values.
	for _, z := range []struct {
		field string
		v     int
		rule  string
	}{
		{"Search.Beam", o.Beam, "want a positive number, or -1 for unbounded"},
		{"Search.MaxCandidates", o.MaxCandidates, "want a positive number, or -1 for no cap"},
		{"Search.Rounds", o.Rounds, "want at least 1"},
		{"Search.Horizon", o.Horizon, "want a positive number, or -1 for unbounded"},
	} {
		if z.v == 0 {
			bad[z.field] = &hieropt.SettingError{Field: z.field, Value: 0, Rule: z.rule}
		}
	}
	if e := bad["CostModel"]; e != nil {
		return nil, usageErrorf("--cost-model %q is not known (known: %s)", o.CostModel, strings.Join(costmodel.Names(), ", "))
	}
	var err error
	if s.Search.Segments, err = segments.Parse(o.Segments); err != nil {
		return nil, usageErrorf("--%v", err)
	}
	if o.Actions != "" {
		if s.Search.Actions, err = actions.ParseSet(o.Actions); err != nil {
			return nil, usageErrorf("--actions %q: %v", o.Actions, err)
		}
	}
	for _, field := range []string{"Search.Beam", "Search.MaxCandidates", "TimeLimit", "Search.Rounds", "Search.Horizon", "Search.Workers", "Repack"} {
		if e := bad[field]; e != nil {
			return nil, usageErrorf("--%s %v: %s", flagOf[field], e.Value, e.Rule)
		}
	}
	switch {
	case o.Initializer != "" && o.Initializer != "seed003":
		// A seed's or TFLite Micro's single-level planner (its arena in
		// the fastest level that holds it), seed 004's pipelined weights
		// or the XLA-style assignment. The search re-plans with seed
		// 003's initializer, so it does not start from these: they are
		// baselines.
		if _, ok := arena.Lookup(o.Initializer); !ok && o.Initializer != hieropt.PipelinePlanner && o.Initializer != hieropt.MSAPlanner {
			return nil, usageErrorf("--initializer %q is not known (known: seed003, %s, %s, %s)", o.Initializer, strings.Join(arena.Names(), ", "),
				hieropt.PipelinePlanner, hieropt.MSAPlanner)
		}
		s.Planner = o.Initializer
	case o.NoSearch:
		s.Planner = "initializer"
	}
	return s, nil
}

// joined returns the errors that err joins (errors.Join), or err alone.
func joined(err error) []error {
	if err == nil {
		return nil
	}
	var j interface{ Unwrap() []error }
	if errors.As(err, &j) {
		return j.Unwrap()
	}
	return []error{err}
}

func newOptimizeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "optimize --workload W --hw P [-o plan.json]",
		Short: "Plan a workload on a hardware profile and write the plan",
		Long: `optimize plans where every block of the workload lives at every timestep.

First the initializer places each timestep's new blocks level by level,
fastest first, best fit (seed 003's rules 1-5; see docs/ALGORITHM.md). Then
the search walks the timesteps trying move, swap and reuse actions on each
block of the timestep, re-plans the later timesteps after each, and commits
the cheapest state at the end of each local-optimal segment (--segments),
keeping --beam states inside a segment. Last, each memory level, fastest
first, is re-packed with the exact packer to promote blocks the search left
in slower levels (--repack: packings per level; 0 turns it off). --no-search
stops after the initializer.

Where the initializer cannot place a block (best fit fragmented a level),
optimize falls back to a plan that exists: the levels packed fastest first
by the exact packer at their capacities, what a level cannot hold sent down.
cost.initial is then that plan's cost, the summary's "initial" line says so,
and the search starts from it.

The plan is checked against every rule of FORMATS.md before it is written;
the file is written atomically (never partially). A summary goes to stderr:
initial and final cost, reduction, per-level peak bytes and traffic, the
max-live lower bound, the search's statistics and the time taken. On a
terminal a progress bar shows the search (not with --quiet).

Ctrl-C (SIGINT) and SIGTERM stop the search early: the best plan
committed so far is written, valid, and the exit status says so.

--time-limit is the whole command's: loading, the initializer, the search,
repacking, validating and writing the plan, and the summary. Out of it,
optimize keeps what validating, writing and the summary need (estimated
from the program's size) and gives the rest to the planner: the search
stops at its end with the best plan committed so far, repacking gets what
the search left (it is skipped when nothing is), and the initializer
always runs to its end in workload order (cost.initial's plan: without
it there is nothing to write; the other start orders stop at the limit). The
summary's time line lists each part, and its limit line says where the
limit fell ("it ran out in the search at timestep 1234 of 20000;
repacking skipped"); the cost bound is left out when no time is left for
it. A time limit is not an interruption: exit 0.

--workload and --hw take a file, '-' for stdin, or the name of a built-in
(see 'hieropt inspect --list' and 'hieropt profiles').

Exit status: 0 planned; 1 the workload cannot fit the profile; 2 bad input;
3 internal error (a bug: please report it); 130 interrupted (the best plan
so far was written, if there was one yet).` + "\n\n" + strategies(),
		Example: `  hieropt optimize --workload resnet50-int8 --hw ethos-u55 -o plan.json
  hieropt optimize --workload net.json --hw my-npu.yaml --time-limit 30s -o plan.json
  hieropt optimize --workload gpt2-small-like-int8 --hw ethos-u65 --segments every --beam 1 -o -`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	f.String("workload", "", "workload: a JSON file, - for stdin, or a built-in name")
	f.String("hw", "", "hardware profile: a YAML file or a built-in name")
	f.StringP("output", "o", "", "write the plan to this file (- for stdout); without it no plan is written")
	f.BoolP("quiet", "q", false, "print no summary and no progress bar")
	f.Bool("ascii", false, "also print a text map of each level over time (stderr)")
	f.String("format", "text", "summary and errors on stderr: text, or json (one object each, for tools)")
	f.String("report", "", "also write a self-contained HTML report (diagrams before and after, where the time goes) to this file")
	searchFlags(f)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o optimizeOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.Format != "text" && o.Format != "json" {
			return usageErrorf("--format %q: want text or json", o.Format)
		}
		s, err := o.settings()
		if err != nil {
			return err
		}
		return a.optimize(&o, s)
	}
	return cmd
}

func (a *app) optimize(o *optimizeOptions, s *hieropt.Settings) error {
	start := time.Now()
	// --time-limit is the whole command's: the planner (hieropt.Plan,
	// which keeps its own reserve for the plan's check) gets what loading
	// left of it, less what writing and the summary need.
	tm := newTiming(start, s.TimeLimit)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// An output that cannot be written, or that is an input, is refused
	// now, not after the search.
	a.noteInput(workload.DocName(o.Workload), o.Workload)
	a.noteInput(hw.DocName(o.HW), o.HW)
	for _, out := range []string{o.Output, o.Report} {
		if err := a.checkOutput(out); err != nil {
			return err
		}
	}
	prog, prof, doc, err := a.loadDocuments(o.Workload, o.HW)
	if err != nil {
		return err
	}
	tm.loaded, tm.searched = time.Now(), o.searched()
	ps := *s
	ps.Document = doc
	if s.TimeLimit > 0 {
		ps.TimeLimit = tm.planBudget(prog)
	}
	done := a.progress(o, &ps)
	res, err := hieropt.Plan(ctx, prog, prof, &ps)
	done()
	if err != nil {
		if ctx.Err() != nil {
			return &exitError{exitInterrupted, errors.New("interrupted before a plan existed: nothing written")}
		}
		return planError(err)
	}
	tm.planned, tm.plan = time.Now(), res
	elapsed := tm.planned.Sub(start)
	p, pl := res.Problem, res.Plan
	if o.Output != "" {
		if err := a.writeOutput(o.Output, pl.Write); err != nil {
			return err
		}
	}
	tm.written = time.Now()
	planner := pl.Planner
	// Whether the time limit leaves time for the cost bound, decided once
	// for the summary and the report alike (asked twice, the clock could
	// answer each differently).
	skipBound := tm != nil && !tm.boundFits(p)
	if !o.Quiet {
		sm := &summary{p: p, lay: res.Layout, model: res.Model, plan: pl, output: o.Output, elapsed: elapsed, planner: planner,
			fallback: res.Initial.Fallback, timing: tm, skipBound: &skipBound}
		switch {
		case o.NoSearch && planner == "initializer":
			sm.planner = "initializer (--no-search)"
		case o.searched():
			sm.search = res
			sm.settings = s
		}
		if o.Format == "json" {
			if err := sm.writeJSON(a.stderr); err != nil {
				return err
			}
		} else {
			sm.write(a.stderr)
		}
	}
	if o.Report != "" {
		var settings [][2]string
		out := reportOutcome{Status: reportStatus(p, res)}
		if o.searched() {
			settings = reportSearchSettings(s, res, elapsed)
		}
		if skipBound {
			out.SkipBound = "the time limit left no time for it ('hieropt bounds' computes it)"
		}
		if err := a.writeReport(o.Report, p, nil, res.Layout, res.Model, planner, settings, out); err != nil {
			return err
		}
	}
	if o.ASCII {
		if err := render.ASCII(a.stderr, p, res.Layout, 100, 8, nil); err != nil {
			return err
		}
	}
	if res.Status == hieropt.Cancelled {
		return &exitError{exitInterrupted, fmt.Errorf("interrupted: wrote the best plan found so far (%s)", cmp.Or(o.Output, "no -o given"))}
	}
	return nil
}

// planError gives an error of hieropt.Plan its exit code: a bug is an
// internal error, a planner that finds no plan a failure; the others
// (input errors, infeasible problems) are classified by exitCode.
func planError(err error) error {
	var ie *hieropt.InternalError
	var pe *hieropt.PlannerError
	var se *hieropt.SettingError
	switch {
	case errors.As(err, &ie):
		return internalErrorf("%v", ie.Err)
	case errors.As(err, &pe):
		return failed(err)
	case errors.As(err, &se):
		// A setting checked against the program (--segments at: past its
		// last timestep): a usage error, named by its flag.
		if flag, ok := flagOf[se.Field]; ok {
			return usageErrorf("--%s %q: %s", flag, fmt.Sprint(se.Value), se.Rule)
		}
		return asUsage(err)
	}
	return err
}

// progress shows the search's progress on stderr, as asked: a progress bar
// on a terminal, else a line when the search begins (not with --quiet or
// --format json). The function it returns ends the bar.
func (a *app) progress(o *optimizeOptions, s *hieropt.Settings) func() {
	if o.Quiet || o.Format == "json" || !o.searched() {
		return func() {}
	}
	if !isTerminal(a.stderr) {
		s.Search.Progress = func(pr search.Progress) {
			if pr.Timestep == 0 {
				fmt.Fprintf(a.stderr, "searching %d timesteps (Ctrl-C stops and keeps the best plan so far)\n", pr.Steps)
			}
		}
		return func() {}
	}
	var bar *progressbar.ProgressBar
	s.Search.Progress = func(pr search.Progress) {
		if bar == nil {
			bar = progressbar.NewOptions(pr.Steps,
				progressbar.OptionSetWriter(a.stderr),
				progressbar.OptionSetDescription("searching"),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(pr.Timestep)
	}
	return func() {
		if bar != nil {
			_ = bar.Finish()
		}
	}
}

// strategies lists the strategies the flags name, from their registries,
// for optimize's help: a strategy registered there shows up here by
// itself.
func strategies() string {
	var b strings.Builder
	section := func(title string, names, docs []string) {
		fmt.Fprintf(&b, "%s:\n", title)
		width := 0
		for _, n := range names {
			width = max(width, len(n))
		}
		for i, n := range names {
			b.WriteString(wrap(fmt.Sprintf("  %-*s  ", width, n), docs[i], 78))
		}
	}
	var names, docs []string
	for _, pl := range hieropt.Planners() {
		names, docs = append(names, pl.Name()), append(docs, pl.Doc())
	}
	section("Planners (search by default; initializer with --no-search;\n--initializer NAME for a single-arena planner)", names, docs)
	names, docs = nil, nil
	for _, m := range costmodel.Models() {
		names, docs = append(names, m.Name()), append(docs, m.Doc())
	}
	b.WriteString("\n")
	section("Cost models (--cost-model)", names, docs)
	names, docs = nil, nil
	for _, k := range segments.Kinds() {
		names, docs = append(names, k.Spec), append(docs, k.Doc())
	}
	b.WriteString("\n")
	section("Segment strategies (--segments)", names, docs)
	names, docs = nil, nil
	for _, o := range actions.Orders() {
		names, docs = append(names, o.Name()), append(docs, o.Doc())
	}
	b.WriteString("\n")
	section("Initializer orders the search starts from (the cheapest plan, and\nthe bound order's too where it has one; --initial-only: workload alone)", names, docs)
	return strings.TrimSuffix(b.String(), "\n")
}

// wrap writes prefix and text as lines of at most width columns, broken
// at spaces, the lines after the first indented as deep as the prefix.
func wrap(prefix, text string, width int) string {
	var b strings.Builder
	b.WriteString(prefix)
	col := len(prefix)
	for i, w := range strings.Fields(text) {
		if i > 0 && col+1+len(w) > width {
			b.WriteString("\n" + strings.Repeat(" ", len(prefix)))
			col = len(prefix)
		} else if i > 0 {
			b.WriteString(" ")
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String() + "\n"
}

// isTerminal reports whether w is a terminal (for the progress bar).
func isTerminal(w io.Writer) bool {
	f, ok := underlying(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
