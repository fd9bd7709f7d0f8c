package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/baseline"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
	"github.com/hieropt/hieropt/workloads"
)

type benchOptions struct {
	Workload      []string `mapstructure:"workload"`
	Workloads     []string `mapstructure:"workloads"` // the old spelling of --workload
	HW            []string `mapstructure:"hw"`
	Format        string   `mapstructure:"format"`
	Repeat        int      `mapstructure:"repeat"`
	Gen           []int    `mapstructure:"gen"`
	Cores         []int    `mapstructure:"cores"`
	Copies        bool     `mapstructure:"copies"`
	searchOptions `mapstructure:",squash"`
}

func newBenchCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench [--workload W1,W2] [--hw P1,P2] [--format text|md|grid|csv|json]",
		Short: "Plan every workload on every profile and print a results table",
		Long: `bench plans each workload on each profile (by default every built-in
workload on every built-in profile) and prints one row per pair: the cost of
the plan, the busiest level's peak, the number of transfers, the planning
time, and whether the plan passed the validator. Pairs that cannot fit are
listed with the reason.

Every plan is checked against FORMATS.md before it is counted. Times are
the median of --repeat runs of the planning (what a compiler's call of
hieropt.Plan takes: binding, the planner and the plan's check; reading the
files excluded).

With --cores, bench measures how planning scales with cores instead: each
pair is planned --repeat times on each number of cores (the Go runtime's
GOMAXPROCS, so a run on 1 core has one core for everything, the garbage
collector included, and the search's workers set to match), the core counts
interleaved so that a machine whose speed drifts favours none of them. It
prints the median time per core count and the speedup of the last count
over the first, and fails if the plans differ between core counts.

--copies adds the machine's ceiling for that speedup: with --cores 1,...,N
it also times N independent one-worker searches run at once on N cores
(the same problem, nothing shared but the process and the machine) and
prints N times the one-core time over theirs. That is the speedup N cores
give when the work needs no coordination at all; what one search reaches
is at most that, and on a virtual machine whose cores share caches,
memory bandwidth or a physical core with other tenants it can be well
under N.`,
		Example: `  hieropt bench --no-search
  hieropt bench --workload resnet50-int8 --hw ethos-u55,ethos-u65 --format csv
  hieropt bench --gen 4000 --hw h100-sm --cores 1,2 --repeat 9
  hieropt bench --gen 4000 --hw h100-sm --cores 1,2 --copies --repeat 9`,
		Args: exactArgs(0),
	}
	f := cmd.Flags()
	workloadListFlag(f, "workloads (files or built-in names), comma-separated or repeated; default: every built-in")
	f.StringSlice("hw", nil, "profiles (files or built-in names); default: every built-in")
	formatFlag(f, "text or md (a Markdown row per pair), grid (Markdown, reduction % per workload and profile), csv, or json (one object, a row per pair)")
	f.Int("repeat", 1, "runs per pair; the median time is reported")
	f.IntSlice("gen", nil, "instead of --workload, generated programs of these lengths (hieropt gen, mixed, seed 1)")
	f.IntSlice("cores", nil, "measure scaling: plan on each of these numbers of cores (e.g. 1,2) and print the speedup")
	f.Bool("copies", false, "with --cores 1,...,N: also time N independent searches at once on N cores, the speedup's ceiling on this machine")
	searchFlags(f)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var o benchOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		var err error
		// text is the Markdown table: bench's rows are for a README.
		if o.Format, err = checkFormat(o.Format, map[string]string{"md": "text"}, "text", "grid", "csv", "json"); err != nil {
			return err
		}
		o.Workloads = workloadList(o.Workload, o.Workloads)
		if o.Repeat < 1 {
			return usageErrorf("--repeat %d: want at least 1", o.Repeat)
		}
		if len(o.Cores) > 0 {
			if o.Format == "grid" {
				return usageErrorf("--cores prints times per core count: use --format text, csv or json")
			}
			if cmd.Flags().Changed("jobs") {
				return usageErrorf("--cores sets the workers to the number of cores: drop -j")
			}
			for _, c := range o.Cores {
				if c < 1 {
					return usageErrorf("--cores %d: want at least 1", c)
				}
			}
		}
		if o.Copies && (len(o.Cores) < 2 || o.Cores[0] != 1) {
			return usageErrorf("--copies compares with one core: give --cores 1,N")
		}
		if len(o.Workloads) == 0 && len(o.Gen) == 0 {
			o.Workloads = workloads.Names()
		}
		if len(o.HW) == 0 {
			o.HW = profiles.Names()
		}
		s, err := o.settings()
		if err != nil {
			return err
		}
		return a.bench(&o, s)
	}
	return cmd
}

type benchRow struct {
	workload, hw string
	initial      float64
	cost         float64
	peakLevel    string
	peakPct      float64
	transfers    int
	// bound is the cost lower bound under the plan's model (the one
	// 'hieropt bounds' prints: under the seed model the better of the
	// whole-program and per-timestep bounds); NaN if unknown.
	bound      float64
	elapsed    time.Duration
	coreTimes  []time.Duration // with --cores: the median per core count
	copiesTime time.Duration   // with --copies: the median for N copies on N cores
	status     string          // "valid", or why there is no plan
}

func (a *app) bench(o *benchOptions, s *hieropt.Settings) error {
	var rows []benchRow
	type source struct {
		prog *workload.Program
		doc  string
	}
	var sources []source
	for _, w := range o.Workloads {
		prog, doc, err := a.loadWorkload(w)
		if err != nil {
			return err
		}
		sources = append(sources, source{prog, doc})
	}
	for _, n := range o.Gen {
		if n < 1 {
			return usageErrorf("--gen %d: want at least 1 op", n)
		}
		prog, err := gen.Generate(gen.Options{Ops: n, Seed: 1})
		if err != nil {
			return internalErrorf("generating %d ops: %v", n, err)
		}
		// A generated program obeys --max-memory as a loaded one does.
		if err := a.checkProgramSize(workload.DocName(prog.Name), prog); err != nil {
			return err
		}
		sources = append(sources, source{prog, workload.DocName(prog.Name)})
	}
	for _, src := range sources {
		prog, doc := src.prog, src.doc
		for _, h := range o.HW {
			prof, err := a.loadProfile(h)
			if err != nil {
				return err
			}
			row := benchRow{workload: prog.Name, hw: prof.Name}
			sc := *s
			sc.Document = doc
			if err := a.benchOne(prog, prof, o, &sc, &row); err != nil {
				return err
			}
			rows = append(rows, row)
		}
	}
	if o.Format == "json" {
		return writeBenchJSON(a, rows, o.Cores, o.Copies)
	}
	if len(o.Cores) > 0 {
		if o.Format == "csv" {
			return writeCoresCSV(a, rows, o.Cores, o.Copies)
		}
		writeCoresMD(a, rows, o.Cores, o.Copies)
		return nil
	}
	switch o.Format {
	case "csv":
		return writeBenchCSV(a, rows)
	case "grid":
		writeBenchGrid(a, rows, o.NoSearch)
		return nil
	}
	writeBenchMD(a, rows)
	return nil
}

// benchRun is one way bench times a pair: on procs cores (GOMAXPROCS; 0
// leaves it and the workers as they are), copies searches at once, each
// with the given workers.
type benchRun struct {
	procs, workers, copies int
}

func (a *app) benchOne(prog *workload.Program, prof *hw.Profile, o *benchOptions, s *hieropt.Settings, row *benchRow) error {
	// Without --cores: one run, on the cores and workers as they are.
	runs := []benchRun{{copies: 1}}
	if len(o.Cores) > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
		runs = runs[:0]
		for _, c := range o.Cores {
			runs = append(runs, benchRun{procs: c, workers: c, copies: 1})
		}
		if o.Copies {
			n := o.Cores[len(o.Cores)-1]
			runs = append(runs, benchRun{procs: n, workers: 1, copies: n})
		}
	}
	times := make([][]time.Duration, len(runs))
	var res *hieropt.Result
	var first []byte // the first plan, to compare the others with
	for i := 0; i < o.Repeat; i++ {
		for k := range runs {
			if i%2 == 1 {
				k = len(runs) - 1 - k // every other round in reverse: drift cancels
			}
			run := runs[k]
			sc := *s
			if run.procs > 0 {
				runtime.GOMAXPROCS(run.procs)
				sc.Search.Workers = run.workers
				runtime.GC() // each run starts from a collected heap
			}
			results := make([]*hieropt.Result, run.copies)
			errs := make([]error, run.copies)
			var wg sync.WaitGroup
			start := time.Now()
			for c := range run.copies {
				wg.Go(func() {
					sc := sc
					results[c], errs[c] = hieropt.Plan(context.Background(), prog, prof, &sc)
				})
			}
			wg.Wait()
			times[k] = append(times[k], time.Since(start))
			for c, r := range results {
				if err := errs[c]; err != nil {
					why, ok := noPlan(err)
					if !ok {
						return planError(err)
					}
					row.status = why
					return nil
				}
				res = r
				if len(o.Cores) > 0 {
					js, err := json.Marshal(r.Plan)
					if err != nil {
						return internalErrorf("bench %s on %s: %v", prog.Name, prof.Name, err)
					}
					if first == nil {
						first = js
					} else if !bytes.Equal(js, first) {
						return internalErrorf("bench %s on %s: the plan on %d cores (%d workers) differs from the plan on %d", prog.Name, prof.Name, run.procs, run.workers, runs[0].procs)
					}
				}
			}
		}
	}
	if o.Copies {
		row.copiesTime = median(times[len(times)-1])
		times = times[:len(times)-1]
	}
	for _, ts := range times {
		row.coreTimes = append(row.coreTimes, median(ts))
	}
	row.elapsed = row.coreTimes[0]
	p := res.Problem
	row.initial, row.cost = res.Plan.Cost.Initial, res.Plan.Cost.Final
	// Only the search starts from cost.initial's plan: a baseline
	// (--initializer) may cost more.
	if res.Search != nil && row.cost > row.initial {
		return internalErrorf("bench %s on %s: the search made the plan worse (%v > %v)", p.Prog.Name, p.HW.Name, row.cost, row.initial)
	}
	row.status = "valid"
	row.bound = math.NaN()
	if cb, err := costBoundWith(context.Background(), p, res.Model.Name(), res.Bound); err == nil {
		row.bound = cb.Cost
	}
	row.transfers = res.Layout.Transfers()
	peaks := costmodel.PeakBytes(p, res.Layout)
	row.peakLevel = p.HW.Levels[0].Name
	row.peakPct = pct(float64(peaks[0]), float64(p.HW.Levels[0].Capacity))
	return nil
}

// noPlan says why a pair has no plan, for a table's row, when the
// problem has none: it cannot be bound to the profile or fit it, or
// neither the initializer nor the fallback plan finds a plan; or when the
// planner refuses the plan's model (seed004-pipeline under a seed model).
// ok is false for any other error.
func noPlan(err error) (why string, ok bool) {
	var ie *actions.InfeasibleError
	var ce *state.CapacityError
	var te *state.TooLargeError
	switch {
	case errors.Is(err, baseline.ErrTimelineOnly):
		return "not for this model: " + err.Error(), true
	case errors.As(err, &ie):
		return "no plan: " + shortReason(err), true
	case errors.As(err, &ce), errors.As(err, &te), inputerr.Is(err):
		return shortReason(err), true
	}
	return "", false
}

func median(ts []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ts...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// shortReason turns a feasibility error into a table cell.
func shortReason(err error) string {
	var ce *state.CapacityError
	var ie *actions.InfeasibleError
	var te *state.TooLargeError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("does not fit: block %s (%s) is larger than every level", te.Block, fmtBytes(te.Size))
	case errors.As(err, &ce):
		return fmt.Sprintf("does not fit: %s live at step %d, %s in all levels", fmtBytes(ce.Need), ce.Timestep, fmtBytes(ce.Have))
	case errors.As(err, &ie):
		return fmt.Sprintf("block %s fits no level at step %d", ie.Block, ie.Timestep)
	case inputerr.Is(err):
		var e *inputerr.Error
		errors.As(err, &e)
		return e.Item + ": " + e.Rule
	}
	return err.Error()
}

func writeBenchMD(a *app, rows []benchRow) {
	w := a.stdout
	fmt.Fprintln(w, "| workload | profile | initial cost | final cost | reduction | cost bound | above the bound | fastest level peak | transfers | time | plan |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	var sum, gaps, worst float64
	var n, ng int
	var total time.Duration
	for _, r := range rows {
		if r.status != "valid" {
			fmt.Fprintf(w, "| %s | %s | | | | | | | | | %s |\n", r.workload, r.hw, strings.ReplaceAll(r.status, "|", "/"))
			continue
		}
		red := reduction(r.initial, r.cost)
		sum += red
		n++
		total += r.elapsed
		bound, gap := "-", "-"
		if g := gapPct(r.cost, r.bound); !math.IsNaN(g) {
			bound, gap = fmt.Sprintf("%.2f", r.bound), fmt.Sprintf("%.2f%%", g)
			gaps += g
			worst = max(worst, g)
			ng++
		}
		fmt.Fprintf(w, "| %s | %s | %.2f | %.2f | %.2f%% | %s | %s | %s %.1f%% | %d | %s | valid |\n",
			r.workload, r.hw, r.initial, r.cost, red, bound, gap, r.peakLevel, r.peakPct, r.transfers, fmtDuration(r.elapsed))
	}
	if n > 0 {
		fmt.Fprintf(w, "\n%s, all valid; mean reduction %.2f%%; total planning time %s\n", plural(n, "plan"), sum/float64(n), fmtDuration(total))
	}
	if ng > 0 {
		fmt.Fprintf(w, "above the cost bound: mean %.2f%%, worst %.2f%% (%s)\n", gaps/float64(ng), worst, plural(ng, "plan"))
	}
}

// gapPct is how far cost is above bound, in percent; NaN without a
// positive bound.
func gapPct(cost, bound float64) float64 {
	if math.IsNaN(bound) || bound <= 0 {
		return math.NaN()
	}
	return 100 * (cost - bound) / bound
}

// writeBenchGrid prints a grid: a row per workload, a column per profile,
// "-" where the workload does not fit; in each cell the reduction, or with
// costs (--no-search) the plan's cost in the profile's time unit.
func writeBenchGrid(a *app, rows []benchRow, costs bool) {
	var ws, hs []string
	cell := map[[2]string]string{}
	seen := map[string]bool{}
	var sum float64
	var n int
	for _, r := range rows {
		if !seen["w"+r.workload] {
			seen["w"+r.workload] = true
			ws = append(ws, r.workload)
		}
		if !seen["h"+r.hw] {
			seen["h"+r.hw] = true
			hs = append(hs, r.hw)
		}
		c := "-"
		if r.status == "valid" {
			red := reduction(r.initial, r.cost)
			c = fmt.Sprintf("%.1f%%", red)
			if costs {
				c = fmt.Sprintf("%.4g", r.cost)
			}
			sum += red
			n++
		}
		cell[[2]string{r.workload, r.hw}] = c
	}
	w := a.stdout
	fmt.Fprintf(w, "| workload | %s |\n|---|%s\n", strings.Join(hs, " | "), strings.Repeat("---:|", len(hs)))
	for _, wl := range ws {
		var cs []string
		for _, h := range hs {
			cs = append(cs, cell[[2]string{wl, h}])
		}
		fmt.Fprintf(w, "| %s | %s |\n", wl, strings.Join(cs, " | "))
	}
	switch {
	case n > 0 && costs:
		fmt.Fprintf(w, "\n%s, all valid (- : does not fit)\n", plural(n, "plan"))
	case n > 0:
		fmt.Fprintf(w, "\nmean reduction %.2f%% over %s, all valid (- : does not fit)\n", sum/float64(n), plural(n, "plan"))
	}
}

func reduction(initial, final float64) float64 {
	if initial == 0 {
		return 0
	}
	return 100 * (initial - final) / initial
}

func writeBenchCSV(a *app, rows []benchRow) error {
	cw := csv.NewWriter(a.stdout)
	if err := cw.Write([]string{"workload", "profile", "initial_cost", "final_cost", "reduction_pct", "fast_level", "fast_peak_pct", "transfers", "seconds", "status", "cost_bound", "above_bound_pct"}); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.workload, r.hw, "", "", "", "", "", "", "", r.status, "", ""}
		if r.status == "valid" {
			bound, gap := "", ""
			if g := gapPct(r.cost, r.bound); !math.IsNaN(g) {
				bound, gap = strconv.FormatFloat(r.bound, 'f', -1, 64), strconv.FormatFloat(g, 'f', 4, 64)
			}
			rec = []string{r.workload, r.hw, strconv.FormatFloat(r.initial, 'f', -1, 64), strconv.FormatFloat(r.cost, 'f', -1, 64),
				strconv.FormatFloat(reduction(r.initial, r.cost), 'f', 4, 64), r.peakLevel,
				strconv.FormatFloat(r.peakPct, 'f', 2, 64), strconv.Itoa(r.transfers),
				strconv.FormatFloat(r.elapsed.Seconds(), 'f', 6, 64), r.status, bound, gap}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeCoresMD(a *app, rows []benchRow, cores []int, copies bool) {
	w := a.stdout
	n := cores[len(cores)-1]
	head, rule := "| workload | profile |", "| --- | --- |"
	for _, c := range cores {
		head += " " + plural(c, "core") + " |"
		rule += " ---: |"
	}
	head += " speedup |"
	rule += " ---: |"
	if copies {
		head += fmt.Sprintf(" %d copies | ceiling |", n)
		rule += " ---: | ---: |"
	}
	blank := len(cores)
	if copies {
		blank += 2
	}
	fmt.Fprintf(w, "%s plans |\n%s --- |\n", head, rule)
	for _, r := range rows {
		if r.status != "valid" {
			fmt.Fprintf(w, "| %s | %s |%s | %s |\n", r.workload, r.hw, strings.Repeat(" |", blank), strings.ReplaceAll(r.status, "|", "/"))
			continue
		}
		fmt.Fprintf(w, "| %s | %s |", r.workload, r.hw)
		for _, t := range r.coreTimes {
			fmt.Fprintf(w, " %s |", fmtDuration(t))
		}
		fmt.Fprintf(w, " %.2fx |", speedup(r.coreTimes))
		if copies {
			fmt.Fprintf(w, " %s | %.2fx |", fmtDuration(r.copiesTime), ceiling(r, n))
		}
		fmt.Fprintln(w, " valid, identical |")
	}
}

func writeCoresCSV(a *app, rows []benchRow, cores []int, copies bool) error {
	cw := csv.NewWriter(a.stdout)
	n := cores[len(cores)-1]
	head := []string{"workload", "profile"}
	for _, c := range cores {
		head = append(head, fmt.Sprintf("seconds_%d_cores", c))
	}
	head = append(head, "speedup")
	if copies {
		head = append(head, fmt.Sprintf("seconds_%d_copies", n), "ceiling")
	}
	if err := cw.Write(append(head, "status")); err != nil {
		return err
	}
	secs := func(t time.Duration) string { return strconv.FormatFloat(t.Seconds(), 'f', 6, 64) }
	ratio := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	for _, r := range rows {
		rec := []string{r.workload, r.hw}
		if r.status != "valid" {
			rec = append(rec, make([]string, len(head)-2)...)
		} else {
			for _, t := range r.coreTimes {
				rec = append(rec, secs(t))
			}
			rec = append(rec, ratio(speedup(r.coreTimes)))
			if copies {
				rec = append(rec, secs(r.copiesTime), ratio(ceiling(r, n)))
			}
		}
		if err := cw.Write(append(rec, r.status)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ceiling is the speedup of n independent searches at once on n cores
// over one search on one core: n times the one-core time over theirs.
func ceiling(r benchRow, n int) float64 {
	if len(r.coreTimes) == 0 || r.copiesTime <= 0 {
		return 0
	}
	return float64(n) * float64(r.coreTimes[0]) / float64(r.copiesTime)
}

// speedup is the time on the first core count over the time on the last.
func speedup(ts []time.Duration) float64 {
	if len(ts) == 0 || ts[len(ts)-1] <= 0 {
		return 0
	}
	return float64(ts[0]) / float64(ts[len(ts)-1])
}

func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// writeBenchJSON prints the rows as one JSON object: a row per pair with
// the columns of the CSV (null where a number is unknown: no plan, no
// bound), and with --cores the median time per core count.
func writeBenchJSON(a *app, rows []benchRow, cores []int, copies bool) error {
	type coreTime struct {
		Cores   int     `json:"cores"`
		Seconds float64 `json:"seconds"`
	}
	type row struct {
		Workload      string     `json:"workload"`
		Profile       string     `json:"profile"`
		Status        string     `json:"status"`
		Valid         bool       `json:"valid"`
		InitialCost   *float64   `json:"initial_cost"`
		FinalCost     *float64   `json:"final_cost"`
		ReductionPct  *float64   `json:"reduction_pct"`
		CostBound     *float64   `json:"cost_bound"`
		AboveBoundPct *float64   `json:"above_bound_pct"`
		FastLevel     string     `json:"fast_level,omitempty"`
		FastPeakPct   *float64   `json:"fast_peak_pct"`
		Transfers     *int       `json:"transfers"`
		Seconds       *float64   `json:"seconds"`
		CoreTimes     []coreTime `json:"core_times,omitempty"`
		Speedup       *float64   `json:"speedup,omitempty"`
		CopiesSeconds *float64   `json:"copies_seconds,omitempty"`
		Ceiling       *float64   `json:"ceiling,omitempty"`
	}
	out := struct {
		Rows []row `json:"rows"`
	}{Rows: make([]row, 0, len(rows))}
	for _, r := range rows {
		j := row{Workload: r.workload, Profile: r.hw, Status: r.status, Valid: r.status == "valid"}
		if j.Valid {
			transfers := r.transfers
			j.InitialCost, j.FinalCost = finite(r.initial), finite(r.cost)
			j.ReductionPct = finite(reduction(r.initial, r.cost))
			if g := gapPct(r.cost, r.bound); !math.IsNaN(g) {
				j.CostBound, j.AboveBoundPct = finite(r.bound), finite(g)
			}
			j.FastLevel, j.FastPeakPct, j.Transfers = r.peakLevel, finite(r.peakPct), &transfers
			j.Seconds = finite(r.elapsed.Seconds())
			if len(cores) > 0 {
				for k, t := range r.coreTimes {
					j.CoreTimes = append(j.CoreTimes, coreTime{cores[k], t.Seconds()})
				}
				j.Speedup = finite(speedup(r.coreTimes))
				if copies {
					j.CopiesSeconds = finite(r.copiesTime.Seconds())
					j.Ceiling = finite(ceiling(r, cores[len(cores)-1]))
				}
			}
		}
		out.Rows = append(out.Rows, j)
	}
	return a.printJSON(out)
}
