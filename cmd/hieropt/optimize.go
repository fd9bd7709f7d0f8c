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

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/arena"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/render"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/state"
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
	f.String("actions", "move,swap,reuse,evict", "the action set, comma-separated: the seed's move, swap, reuse, and hieropt's evict")
	f.Int("max-candidates", search.DefaultMaxCandidates, "candidates per action and level for one block, best fit first; -1 = no cap")
	f.Duration("time-limit", 0, "time limit (e.g. 30s) of optimize's whole run, loading to summary (bench: of each pair's planning); the search stops early and keeps its best plan; 0 = none")
	f.IntP("jobs", "j", 0, "goroutines evaluating candidates; 0 = all cores (the plan does not depend on it)")
	f.Bool("check", false, "check the search's invariants after every commit (slow; for debugging)")
	f.String("initializer", "seed003", "seed003 (rules 1-5, then the search), or a single-arena planner as a baseline, without search (pack: hieropt's exact packer; seed000, seed001, seed004: the seeds'): "+strings.Join(arena.Names(), ", "))
	f.Bool("initial-only", false, "start the search from the initializer's plan only, as the seed does (by default it also tries the initializer in kind order)")
	f.Int("rounds", search.DefaultRounds, "most actions one state may take at one timestep")
	f.Int("horizon", search.DefaultHorizon, "act only on blocks that die within this many timesteps; -1 = unbounded")
	f.Int("repack", search.DefaultRepack, "after the search, re-pack each level with the exact packer to promote blocks from slower levels: most packings per level; 0 = off")
	f.String("cost-model", costmodel.Default, "cost model to price plans with (registered: "+strings.Join(costmodel.Names(), ", ")+")")
}

// searched reports whether the options run the search.
func (o *searchOptions) searched() bool {
	return !o.NoSearch && (o.Initializer == "" || o.Initializer == "seed003")
}

// settings turns the flags into search settings.
func (o *searchOptions) settings() (*search.Settings, error) {
	model, ok := costmodel.Lookup(o.CostModel)
	if !ok {
		return nil, usageErrorf("--cost-model %q is not known (known: %s)", o.CostModel, strings.Join(costmodel.Names(), ", "))
	}
	seg, err := segments.Parse(o.Segments)
	if err != nil {
		return nil, usageErrorf("--%v", err)
	}
	acts, err := actions.ParseSet(o.Actions)
	if err != nil {
		return nil, usageErrorf("--actions %q: %v", o.Actions, err)
	}
	if o.Beam == 0 || o.Beam < -1 {
		return nil, usageErrorf("--beam %d: want a positive number, or -1 for unbounded", o.Beam)
	}
	if o.MaxCandidates == 0 || o.MaxCandidates < -1 {
		return nil, usageErrorf("--max-candidates %d: want a positive number, or -1 for no cap", o.MaxCandidates)
	}
	if o.TimeLimit < 0 {
		return nil, usageErrorf("--time-limit %v: want a duration >= 0", o.TimeLimit)
	}
	if o.Rounds < 1 {
		return nil, usageErrorf("--rounds %d: want at least 1", o.Rounds)
	}
	if o.Horizon == 0 || o.Horizon < -1 {
		return nil, usageErrorf("--horizon %d: want a positive number, or -1 for unbounded", o.Horizon)
	}
	if o.Jobs < 0 {
		return nil, usageErrorf("--jobs %d: want a number >= 0", o.Jobs)
	}
	if o.Repack < 0 {
		return nil, usageErrorf("--repack %d: want a number >= 0 (0 = off)", o.Repack)
	}
	return &search.Settings{
		Segments:      seg,
		Beam:          o.Beam,
		Actions:       acts,
		MaxCandidates: o.MaxCandidates,
		TimeLimit:     o.TimeLimit,
		Workers:       o.Jobs,
		CostModel:     model,
		Check:         o.Check,
		InitialOnly:   o.InitialOnly,
		Rounds:        o.Rounds,
		Horizon:       o.Horizon,
		Repack:        new(o.Repack), // 0 is off here and in search.Settings
	}, nil
}

// describe names the planner and its settings for the plan document. It
// leaves out what does not change the plan (workers, checking).
func describe(s *search.Settings) string {
	beam := fmt.Sprint(s.Beam)
	if s.Beam < 0 {
		beam = "unbounded"
	}
	d := fmt.Sprintf("search: segments=%s beam=%s actions=%s max-candidates=%d", s.Segments.Name(), beam, s.Actions, s.MaxCandidates)
	if s.Rounds != search.DefaultRounds {
		d += fmt.Sprintf(" rounds=%d", s.Rounds)
	}
	if s.Horizon != search.DefaultHorizon {
		d += fmt.Sprintf(" horizon=%d", s.Horizon)
	}
	if s.InitialOnly {
		d += " initial-only"
	}
	switch n := s.RepackBudget(); {
	case n == 0:
		d += " repack=off"
	case n != search.DefaultRepack:
		d += fmt.Sprintf(" repack=%d", n)
	}
	return d
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
always runs to its end, as without its plan there is nothing to write. The
summary's time line lists each part, and its limit line says where the
limit fell ("it ran out in the search at timestep 1234 of 20000;
repacking skipped"); the cost bound is left out when no time is left for
it. A time limit is not an interruption: exit 0.

--workload and --hw take a file, '-' for stdin, or the name of a built-in
(see 'hieropt inspect --list' and 'hieropt profiles').

Exit status: 0 planned; 1 the workload cannot fit the profile; 2 bad input;
3 internal error (a bug: please report it); 130 interrupted (the best plan
so far was written, if there was one yet).`,
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

func (a *app) optimize(o *optimizeOptions, s *search.Settings) error {
	start := time.Now()
	// --time-limit is the whole command's: the planner gets what loading
	// left of it, less what validating, writing and the summary need.
	tm := newTiming(start, s.TimeLimit)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	p, err := a.loadProblem(o.Workload, o.HW)
	if err != nil {
		return err
	}
	if err := p.CheckCapacity(); err != nil {
		return err
	}
	tm.loaded, tm.searched = time.Now(), o.searched()
	ps := s
	if s.TimeLimit > 0 {
		c := *s
		c.TimeLimit = tm.planBudget(p)
		ps = &c
	}
	res, planner, err := a.plan(ctx, p, o, ps)
	if err != nil {
		if ctx.Err() != nil {
			return &exitError{exitInterrupted, errors.New("interrupted before a plan existed: nothing written")}
		}
		return err
	}
	tm.planned = time.Now()
	elapsed := tm.planned.Sub(start)

	pl := res.Layout.Plan(p)
	if s.CostModel.Name() != costmodel.Default {
		pl.CostModel = s.CostModel.Name()
	}
	pl.Planner = planner
	pl.Cost = plan.Cost{Initial: res.InitialCost, Final: res.Cost}
	check, err := checkPlan(p, pl, plan.DocName(cmp.Or(o.Output, "(not written)")))
	if err != nil {
		return internalErrorf("checking the plan: %v", err)
	}
	if !check.Valid() {
		return internalErrorf("the plan breaks %s", check.Violations[0])
	}
	tm.validated = time.Now()
	if o.Output != "" {
		if err := a.writeOutput(o.Output, pl.Write); err != nil {
			return err
		}
	}
	tm.written = time.Now()
	if !o.Quiet {
		sm := &summary{p: p, lay: res.Layout, model: s.CostModel, plan: pl, output: o.Output, elapsed: elapsed, planner: planner,
			fallback: res.Stats.Fallback, timing: tm}
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
		if o.searched() {
			settings = reportSearchSettings(s, res, elapsed)
		}
		if err := a.writeReport(o.Report, p, nil, res.Layout, s.CostModel, planner, settings); err != nil {
			return err
		}
	}
	if o.ASCII {
		if err := render.ASCII(a.stderr, p, res.Layout, 100, 8); err != nil {
			return err
		}
	}
	if res.Status == search.Cancelled {
		return &exitError{exitInterrupted, fmt.Errorf("interrupted: wrote the best plan found so far (%s)", cmp.Or(o.Output, "no -o given"))}
	}
	return nil
}

// plan runs the initializer, and the search unless --no-search.
func (a *app) plan(ctx context.Context, p *state.Problem, o *optimizeOptions, s *search.Settings) (*search.Result, string, error) {
	if o.Initializer != "" && o.Initializer != "seed003" {
		// A seed's single-level planner: its arena in the fastest level
		// that holds it. The search re-plans with seed 003's initializer,
		// so it does not start from these: they are baselines.
		pl, ok := arena.Lookup(o.Initializer)
		if !ok {
			return nil, "", usageErrorf("--initializer %q is not known (known: seed003, %s)", o.Initializer, strings.Join(arena.Names(), ", "))
		}
		lay, l, peak, err := arena.Place(p, pl)
		if err != nil {
			return nil, "", failed(err)
		}
		// cost.initial: the initializer's plan, or the fallback's where
		// the initializer cannot place a block.
		init, fb, err := actions.InitialPlan(ctx, p, s.CostModel)
		if err != nil {
			return nil, "", err
		}
		return &search.Result{Layout: lay, InitialCost: costmodel.Total(s.CostModel, p, init), Cost: costmodel.Total(s.CostModel, p, lay),
				Stats: search.Stats{Fallback: fb}},
			fmt.Sprintf("%s: arena of %d B in level %s", pl.Name(), peak, p.HW.Levels[l].Name), nil
	}
	if o.NoSearch {
		lay, fb, err := actions.InitialPlan(ctx, p, s.CostModel)
		if err != nil {
			return nil, "", err
		}
		c := costmodel.Total(s.CostModel, p, lay)
		planner := "initializer"
		if fb != nil {
			planner = "fallback: " + fb.Describe(p)
		}
		return &search.Result{Layout: lay, InitialCost: c, Cost: c, Stats: search.Stats{Fallback: fb}}, planner, nil
	}
	var bar *progressbar.ProgressBar
	if !o.Quiet && o.Format != "json" && isTerminal(a.stderr) {
		bar = progressbar.NewOptions(p.Prog.Timesteps(),
			progressbar.OptionSetWriter(a.stderr),
			progressbar.OptionSetDescription("searching"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
		s.Progress = func(pr search.Progress) { _ = bar.Set(pr.Timestep) }
	} else if !o.Quiet && o.Format != "json" {
		fmt.Fprintf(a.stderr, "searching %d timesteps (Ctrl-C stops and keeps the best plan so far)\n", p.Prog.Timesteps())
	}
	res, err := search.RunProblem(ctx, p, s)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return nil, "", err
	}
	return res, describe(s), nil
}

// isTerminal reports whether w is a terminal (for the progress bar).
func isTerminal(w io.Writer) bool {
	f, ok := underlying(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
