package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/importer/minimalloc"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/pack"
	builtin "github.com/hieropt/hieropt/workloads"
)

type packOptions struct {
	Capacity  string        `mapstructure:"capacity"`
	Output    string        `mapstructure:"output"`
	TimeLimit time.Duration `mapstructure:"time-limit"`
	Minimize  bool          `mapstructure:"minimize"`
	Seed      uint64        `mapstructure:"seed"`
	Workload  []string      `mapstructure:"workload"`
	Format    string        `mapstructure:"format"`
	Quiet     bool          `mapstructure:"quiet"`
}

// packInstance is one problem pack solves: a CSV file or a workload.
type packInstance struct {
	name    string // as shown: the CSV's base name without .csv, or the workload's name
	file    string // the CSV path ("-" for stdin); "" for a workload
	outBase string // the solution's file name inside an -o directory
	prob    *pack.Problem
	capFrom string // where the capacity comes from: "--capacity", "file name" or "" (none)
	out     string // where the solution goes: "" (nowhere), "-" or a path
	inDir   bool   // out is inside the -o directory, created if needed

	// Filled by solving.
	ran      bool
	minimize bool
	maxLive  int64
	sol      *pack.Solution
	limitHit bool  // the time limit stopped the search
	memLimit int64 // the packer's memory limit (pack.Options.MemoryLimit)
	written  bool
	// tflm is TFLite Micro's greedy peak on the same buffers (the
	// baseline), -1 where it did not finish: tflmWhy says why.
	tflm     int64
	tflmWhy  string
	tflmTime time.Duration
	// Times of what the command did for this input besides solving (the
	// solver's phases are in sol.Stats.Phases); with them the parts add
	// up to the input's total.
	readTime, checkTime, writeTime time.Duration
	cut                            pack.Phase // the phase the time limit cut
}

func newPackCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pack [in.csv ...] [--workload W,...] [--capacity C] [-o out.csv|DIR] [--minimize]",
		Short: "Pack buffers into one memory: MiniMalloc problems, or a workload as one arena",
		Long: `pack solves single-level offset assignment (dynamic storage allocation):
every buffer, alive on a half-open time interval [lower, upper), gets an
offset such that buffers alive at the same time never overlap and every
buffer ends within the capacity. It uses the exact packer of package pack (a
greedy portfolio, then branch and bound over canonical packings), which
solves MiniMalloc's challenging benchmarks.

Inputs are MiniMalloc CSV files (header id,lower,upper,size; an optional
align column; FORMATS.md section 5: hieropt formats 5), '-' for stdin, and with
--workload the blocks of workloads (files or built-in names; 'all' is every
built-in): a block alive on timesteps [first, last] is a buffer on
[first, last+1) with its size and its own alignment, so the peak is that of
the whole program in one arena, against its max-live (in-place reuse does not
exist in a packing problem).

Capacity: --capacity C (bytes, or with a K, M, G suffix), else the number in
the file name NAME.CAPACITY.csv, as MiniMalloc names its benchmarks. A CSV
without either needs --minimize; a workload without --capacity is minimized.
--minimize asks for the smallest peak (within the capacity, if any): the
search proves it optimal or reports the best found when --time-limit passes.

--time-limit is each input's budget, for all of it: reading, the TFLM
baseline (below), the packer's phases (a greedy pass in start order, the
index, the greedy portfolio, the branch and bound), the check and the
writing. The packer stops early enough for the check and the writing to fit
(their time is estimated from the number of buffers) and keeps the best
packing found; the first pass always gives one, however short the limit.
The summary's time line lists each part, and says which phase the limit
cut.

The solution is checked (pack.Check) and written atomically in MiniMalloc's
output format, id,lower,upper,size,offset (-o FILE, '-' for stdout; without
-o nothing is written). With several inputs, -o names a directory (created
if needed) and each solution is written there under its input's file name
(a workload's as NAME.csv).

On stderr (stdout is left to -o -): for one input a summary (buffers,
capacity, max-live, peak, solved and optimal, TFLM's peak, nodes, time);
for several a table, one row per input, and totals; --format md prints the
table as Markdown (2> table.md keeps it), --format json as one object. "gap %" is
the peak above max-live; "optimal" is yes when the peak is proven smallest
(it equals max-live, or --minimize proved it), no when --minimize could not
prove it, and - when not asked (a fit within the capacity, above max-live).
Times are the packer's (reading and the TFLM baseline excluded).

Beside hieropt's peak, each input shows the peak of TensorFlow Lite Micro's
runtime planner (its GreedyMemoryPlanner: buffers by decreasing size, each at
the lowest offset free of the placed buffers alive with it) on the same
buffers: the summary's TFLM line, the table's TFLM and "saved %" columns
(hieropt's peak below TFLM's, in % of TFLM's; negative where hieropt's peak is
above it, which only a fit without --minimize, or a --time-limit that cut
the packer short, can be), JSON's tflm_peak and
tflm_saved_pct. The buffers are taken as given: TFLM rounds every size up to
16 bytes, and this baseline does not; where buffers carry alignments (an
align column, a workload's blocks) it rounds sizes up to a multiple of every
alignment, as TFLM's offsets need, so that both packings are aligned. It
gives TFLM's offsets without TFLM's quadratic walk (idealloc's Y_1, 62,185
buffers: 0.3 s on a 2-core VM, 2.5 s walked) and runs first, within the
input's --time-limit: where
the limit cuts it, or ^C, its peak is "-" (JSON: null, with tflm_note saying
why), and the packer has the time left.

Exit status: 0 every input packed within its capacity; 1 some input was
not ("no packing found within capacity C: best peak P (max-live M)"; its
solution is not written); 2 bad input or usage; 130 interrupted.`,
		Example: `  hieropt pack testdata/minimalloc/A.1048576.csv -o A.solution.csv
  hieropt pack in.csv --capacity 4M --minimize -o -
  hieropt pack testdata/minimalloc/[A-K].1048576.csv --format md -o solutions/
  hieropt pack --workload all --time-limit 10s --format md`,
		Args: cobra.ArbitraryArgs,
	}
	f := cmd.Flags()
	f.String("capacity", "", "capacity in bytes (K, M, G suffixes allowed); default: the number in the file name NAME.CAPACITY.csv")
	f.StringP("output", "o", "", "write the solution here (- for stdout); a directory with several inputs; without it nothing is written")
	f.Duration("time-limit", 60*time.Second, "each input's time: reading, search, check and writing end within it (the search stops early and keeps the best packing); 0 = none")
	f.Bool("minimize", false, "find the smallest peak (within the capacity, if any)")
	f.Uint64("seed", 0, "seed of the randomized restarts (the result is deterministic for a seed)")
	f.StringSlice("workload", nil, "pack workloads' blocks as one arena: files, built-in names, or all (comma-separated or repeated)")
	f.String("format", "text", "summary on stderr: text, md (a Markdown table) or json")
	f.BoolP("quiet", "q", false, "print no summary")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o packOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.Format != "text" && o.Format != "md" && o.Format != "json" {
			return usageErrorf("--format %q: want text, md or json", o.Format)
		}
		if o.TimeLimit < 0 {
			return usageErrorf("--time-limit %v: want a duration >= 0", o.TimeLimit)
		}
		return a.pack(&o, args)
	}
	return cmd
}

// capacityFromName returns the capacity in a file name NAME.CAPACITY.csv.
func capacityFromName(path string) (int64, bool) {
	base := filepath.Base(path)
	if !strings.HasSuffix(strings.ToLower(base), ".csv") {
		return 0, false
	}
	stem := base[:len(base)-len(".csv")]
	i := strings.LastIndexByte(stem, '.')
	if i < 0 {
		return 0, false
	}
	c, err := strconv.ParseInt(stem[i+1:], 10, 64)
	if err != nil || c <= 0 {
		return 0, false
	}
	return c, true
}

// readCSV reads a MiniMalloc problem from a file or stdin ("-").
func (a *app) readCSV(path string) (*pack.Problem, error) {
	doc := inputerr.Doc("CSV", path)
	a.noteInput(doc, path)
	if path == "-" {
		data, err := a.readStdin(doc)
		if err != nil {
			return nil, err
		}
		return pack.ReadCSV("-", strings.NewReader(string(data)))
	}
	if err := a.checkInputSize(doc, path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &inputerr.Error{Doc: doc, Rule: "cannot read: " + errorText(err), Err: err}
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, inputerr.New(doc, "", "cannot read: is a directory")
	}
	return pack.ReadCSV(path, f)
}

// pack runs the pack command: it reads every input (and checks every
// setting) before it solves any, then solves, checks and writes each,
// and summarizes.
func (a *app) pack(o *packOptions, args []string) error {
	capacity, err := packCapacity(o)
	if err != nil {
		return err
	}
	workloads := packWorkloads(o)
	if err := checkPackInputs(o, args, workloads); err != nil {
		return err
	}
	ins, err := a.readPackInputs(o, args, workloads, capacity)
	if err != nil {
		return err
	}
	if err := a.packOutputs(o.Output, ins); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, in := range ins {
		if ctx.Err() != nil {
			break
		}
		if err := solvePackInput(ctx, o, in); err != nil {
			return err
		}
	}
	for _, in := range ins {
		if in.ran && in.sol.Solved && in.out != "" {
			if err := a.writeSolution(in); err != nil {
				return err
			}
		}
	}
	if ctx.Err() != nil {
		return a.packInterrupted(o, ins)
	}
	return a.packResult(o, ins)
}

// packCapacity returns --capacity in bytes, 0 if not given.
func packCapacity(o *packOptions) (int64, error) {
	if o.Capacity == "" {
		return 0, nil
	}
	c, err := parseBytes(o.Capacity)
	if err != nil || c <= 0 {
		return 0, usageErrorf("--capacity %q: want a number of bytes > 0 (e.g. 1048576 or 4M)", o.Capacity)
	}
	return c, nil
}

// packWorkloads returns the --workload list with 'all' expanded to every
// built-in workload.
func packWorkloads(o *packOptions) []string {
	var workloads []string
	for _, w := range o.Workload {
		if w == "all" {
			workloads = append(workloads, builtin.Names()...)
		} else {
			workloads = append(workloads, w)
		}
	}
	return workloads
}

// checkPackInputs checks that there is an input, that at most one reads
// stdin, and that -o - has one input to write.
func checkPackInputs(o *packOptions, files, workloads []string) error {
	if len(files) == 0 && len(workloads) == 0 {
		return usageErrorf("pack needs MiniMalloc CSV files (or - for stdin), or --workload")
	}
	if countOf(files, "-")+countOf(workloads, "-") > 1 {
		return usageErrorf("only one input can read stdin")
	}
	n := len(files) + len(workloads)
	if n > 1 && o.Output == "-" {
		return usageErrorf("-o -: with %d inputs, -o names a directory for the solutions", n)
	}
	return nil
}

// countOf returns how many times s is in list.
func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// readPackInputs reads the CSV files, then the workloads, as problems.
func (a *app) readPackInputs(o *packOptions, files, workloads []string, capacity int64) ([]*packInstance, error) {
	var ins []*packInstance
	for _, f := range files {
		in, err := a.readPackCSV(f, capacity, o.Minimize)
		if err != nil {
			return nil, err
		}
		ins = append(ins, in)
	}
	for _, w := range workloads {
		in, err := a.readPackWorkload(w, capacity)
		if err != nil {
			return nil, err
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// readPackCSV reads the problem in CSV file f ("-" for stdin), with the
// capacity given, else the one in its name; without either, only
// --minimize may solve it.
func (a *app) readPackCSV(f string, capacity int64, minimize bool) (*packInstance, error) {
	readStart := time.Now()
	in := &packInstance{file: f, capFrom: "--capacity"}
	in.name = strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
	in.outBase = filepath.Base(f)
	if f == "-" {
		in.name, in.outBase = "-", "stdin.csv"
	}
	c := capacity
	if c == 0 {
		var ok bool
		if c, ok = capacityFromName(f); ok {
			in.capFrom = "file name"
		} else {
			in.capFrom = ""
		}
	}
	p, err := a.readCSV(f)
	if err != nil {
		return nil, err
	}
	if c == 0 && !minimize {
		return nil, usageErrorf("%s: no capacity: give --capacity C, name the file NAME.CAPACITY.csv as MiniMalloc does, or ask for --minimize", f)
	}
	p.Capacity = c
	in.prob = p
	in.readTime = time.Since(readStart)
	return in, nil
}

// readPackWorkload reads workload w (a file or a built-in name) as the
// problem of packing its blocks in one arena.
func (a *app) readPackWorkload(w string, capacity int64) (*packInstance, error) {
	readStart := time.Now()
	prog, _, err := a.loadWorkload(w)
	if err != nil {
		return nil, err
	}
	base := strings.NewReplacer("/", "_", "\\", "_").Replace(prog.Name) + ".csv"
	in := &packInstance{name: prog.Name, outBase: base, prob: minimalloc.Problem(prog)}
	if capacity > 0 {
		in.prob.Capacity, in.capFrom = capacity, "--capacity"
	}
	in.readTime = time.Since(readStart)
	return in, nil
}

// solvePackInput packs one input within its time limit (less its reading
// and the reserve for what follows) and checks the solution.
func solvePackInput(ctx context.Context, o *packOptions, in *packInstance) error {
	in.minimize = o.Minimize || in.prob.Capacity == 0
	in.memLimit = pack.DefaultMemoryLimit
	opt := &pack.Options{Minimize: in.minimize, Seed: o.Seed, MemoryLimit: in.memLimit}
	if o.TimeLimit > 0 {
		// What follows the packer (the check, the writing) is
		// budgeted in, and so is the reading that came before.
		opt.Deadline = time.Now().Add(o.TimeLimit - in.readTime - packReserve(len(in.prob.Buffers)))
	}
	tflmBaseline(ctx, in, opt.Deadline)
	sol, err := pack.Solve(ctx, in.prob, opt)
	if err != nil {
		return internalErrorf("%s: %v", in.name, err)
	}
	in.ran, in.sol = true, sol
	if ctx.Err() == nil {
		in.cut = sol.Stats.Cut
	}
	checkStart := time.Now()
	in.maxLive = pack.MaxLive(in.prob)
	// The limit matters when the answer is not final: no packing yet,
	// or (minimizing) one not proven smallest.
	in.limitHit = in.cut != pack.PhaseNone && (!sol.Solved || (in.minimize && !sol.Optimal))
	if sol.Solved {
		if err := pack.Check(in.prob, sol); err != nil {
			return internalErrorf("%s: the packer's solution fails its check: %v", in.name, err)
		}
	}
	in.checkTime = time.Since(checkStart)
	return nil
}

// tflmBaseline runs TFLite Micro's greedy planner on the input's buffers
// (pack.TFLMAligned: sizes as given, rounded up only to the buffers' own
// alignments) until the deadline (none if zero) or ctx ends, and records
// its peak, -1 and why where it did not finish.
func tflmBaseline(ctx context.Context, in *packInstance, deadline time.Time) {
	start := time.Now()
	stop := func() bool { return ctx.Err() != nil || (!deadline.IsZero() && time.Now().After(deadline)) }
	offs, peak, err := pack.TFLMAligned(in.prob, stop)
	in.tflmTime = time.Since(start)
	in.tflm = peak
	switch {
	case err != nil:
		in.tflm, in.tflmWhy = -1, err.Error()
	case offs == nil && ctx.Err() != nil:
		in.tflmWhy = "interrupted"
	case offs == nil:
		in.tflmWhy = "cut by the time limit"
	}
}

// packInterrupted summarizes what was done before an interrupt, and exits
// as interrupted.
func (a *app) packInterrupted(o *packOptions, ins []*packInstance) error {
	if !o.Quiet {
		if err := a.packSummary(o, ins); err != nil {
			return err
		}
	}
	return &exitError{exitInterrupted, errors.New("interrupted: the solutions found so far were written (see the summary)")}
}

// packResult summarizes the inputs and fails if some input has no
// packing within its capacity (for one input, with that message alone).
func (a *app) packResult(o *packOptions, ins []*packInstance) error {
	var unsolved []*packInstance
	for _, in := range ins {
		if !in.sol.Solved {
			unsolved = append(unsolved, in)
		}
	}
	if len(ins) == 1 && len(unsolved) == 1 {
		return failed(errors.New(noPackingMessage(unsolved[0], false)))
	}
	if !o.Quiet {
		if err := a.packSummary(o, ins); err != nil {
			return err
		}
	}
	if len(unsolved) > 0 {
		var parts []string
		for _, in := range unsolved {
			parts = append(parts, noPackingMessage(in, true))
		}
		return failed(fmt.Errorf("%d of %d inputs not packed within their capacity: %s", len(unsolved), len(ins), strings.Join(parts, "; ")))
	}
	return nil
}

// noPackingMessage says why an input has no solution.
func noPackingMessage(in *packInstance, named bool) string {
	s := fmt.Sprintf("no packing found within capacity %d: best peak %d (max-live %d)", in.prob.Capacity, in.sol.Peak, in.maxLive)
	if named {
		s = in.name + ": " + s
	}
	switch {
	case in.maxLive > in.prob.Capacity:
		s += "; max-live exceeds the capacity, so none exists"
	case in.limitHit:
		s += "; the time limit stopped the search"
	default:
		s += "; the search proved that none exists"
	}
	return s
}

// packOutputs decides where each solution goes, and refuses outputs that
// would overwrite an input (checkOutput) or each other.
func (a *app) packOutputs(out string, ins []*packInstance) error {
	if out == "" {
		return nil
	}
	if out == "-" {
		ins[0].out = "-"
		return nil
	}
	st, err := os.Stat(out)
	isDir := err == nil && st.IsDir()
	if len(ins) > 1 {
		if err == nil && !isDir {
			return usageErrorf("-o %s: not a directory (with %d inputs, -o names a directory for the solutions)", out, len(ins))
		}
		isDir = true
	}
	seen := map[string]string{}
	for _, in := range ins {
		in.out = out
		if isDir {
			in.out, in.inDir = filepath.Join(out, in.outBase), true
		}
		if prev, dup := seen[in.out]; dup {
			return usageErrorf("-o %s: %s and %s would both write %s", out, prev, in.name, in.out)
		}
		seen[in.out] = in.name
		// An existing file is checked now (an input, or not writable);
		// a new one in a directory pack creates cannot be yet.
		if _, err := os.Stat(in.out); err == nil {
			if err := a.checkOutput(in.out); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeSolution writes an input's solution atomically (creating the -o
// directory when several inputs write into it).
func (a *app) writeSolution(in *packInstance) error {
	if in.inDir {
		dir := filepath.Dir(in.out)
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &exitError{exitInput, fmt.Errorf("cannot create %s: %s", dir, errorText(err))}
			}
		}
	}
	start := time.Now()
	if err := a.writeOutput(in.out, func(w io.Writer) error { return pack.WriteCSV(w, in.prob, in.sol) }); err != nil {
		return err
	}
	in.written = true
	in.writeTime = time.Since(start)
	return nil
}

// packReserve is the time pack keeps for checking and writing a solution
// of n buffers after the packer stops: measured on a 2-core VM, the check
// takes about 2 µs a buffer and the writing (formatting and a synced file)
// 1 µs, plus some milliseconds; the reserve is twice that, so that a
// loaded machine still ends within the limit.
func packReserve(n int) time.Duration {
	return 20*time.Millisecond + time.Duration(n)*6*time.Microsecond
}

// packRow is one input's result, as the table and JSON show it.
type packRow struct {
	Instance     string  `json:"instance"`
	File         string  `json:"file,omitempty"`
	Buffers      int     `json:"buffers"`
	Capacity     int64   `json:"capacity"`
	CapacityFrom string  `json:"capacity_from"`
	MaxLive      int64   `json:"max_live"`
	Minimize     bool    `json:"minimize"`
	Ran          bool    `json:"ran"`
	Solved       bool    `json:"solved"`
	Peak         int64   `json:"peak"`
	GapPct       float64 `json:"gap_pct"`
	Optimal      bool    `json:"optimal"`
	Nodes        int64   `json:"nodes"`
	Greedy       int     `json:"greedy_packings"`
	Restarts     int     `json:"restarts"`
	Probes       int     `json:"probes"`
	Seconds      float64 `json:"seconds"`
	TimeLimitHit bool    `json:"time_limit_hit"`
	// Cut is the packer's phase the time limit stopped ("" if none).
	Cut string `json:"cut,omitempty"`
	// OverMemory: the branch and bound did not run, its estimated memory
	// (SearchBytes) being above the packer's limit (MemoryLimit).
	OverMemory  bool  `json:"over_memory,omitempty"`
	SearchBytes int64 `json:"search_bytes,omitempty"`
	// Cores counts the hard-core searches that lowered the peak (the
	// branch and bound on the buffers above the greedy's low ones: large
	// instances only, see pack/doc.go).
	Cores int `json:"hard_cores,omitempty"`
	// Split: the packing came from splitting a zero-waste instance in
	// time and space into parts (pack/doc.go).
	Split       bool  `json:"split,omitempty"`
	MemoryLimit int64 `json:"memory_limit,omitempty"`
	// TFLMPeak is TFLite Micro's greedy peak on the same buffers, null
	// where it did not finish (TFLMNote says why); TFLMSavedPct is how
	// much lower hieropt's peak is, in % of TFLM's (negative: higher).
	TFLMPeak     *int64    `json:"tflm_peak"`
	TFLMSavedPct *float64  `json:"tflm_saved_pct"`
	TFLMNote     string    `json:"tflm_note,omitempty"`
	Times        packTimes `json:"times"`
	Output       string    `json:"output,omitempty"`
}

// packTimes is where one input's time went, in seconds: the parts add up
// to Total. First, Index, Greedy and Search are the packer's phases (their
// sum is packRow.Seconds); TFLM is the baseline's run.
type packTimes struct {
	Read   float64 `json:"read"`
	TFLM   float64 `json:"tflm"`
	First  float64 `json:"first_pass"`
	Index  float64 `json:"index"`
	Greedy float64 `json:"greedy"`
	Search float64 `json:"search"`
	Check  float64 `json:"check"`
	Write  float64 `json:"write"`
	Total  float64 `json:"total"`
}

func (in *packInstance) row() packRow {
	r := packRow{Instance: in.name, File: in.file, Buffers: len(in.prob.Buffers), Capacity: in.prob.Capacity,
		CapacityFrom: in.capFrom, MaxLive: pack.MaxLive(in.prob), Minimize: in.minimize, Ran: in.ran}
	if r.CapacityFrom == "" {
		r.CapacityFrom = "none"
	}
	if in.written {
		r.Output = in.out
	}
	if !in.ran {
		return r
	}
	s := in.sol
	r.Solved, r.Peak, r.Optimal = s.Solved, s.Peak, s.Optimal
	if r.MaxLive > 0 {
		r.GapPct = 100 * float64(s.Peak-r.MaxLive) / float64(r.MaxLive)
	}
	r.Nodes, r.Greedy, r.Restarts, r.Probes = s.Stats.Nodes, s.Stats.Greedy, s.Stats.Restarts, s.Stats.Probes
	r.Seconds, r.TimeLimitHit = s.Stats.Time.Seconds(), in.limitHit
	r.OverMemory, r.SearchBytes, r.MemoryLimit = s.Stats.OverMemory, s.Stats.SearchBytes, in.memLimit
	r.Cores, r.Split = s.Stats.Cores, s.Stats.Split
	if in.cut != pack.PhaseNone {
		r.Cut = in.cut.String()
	}
	if in.tflm >= 0 {
		saved := 0.0
		if in.tflm > 0 {
			saved = 100 * float64(in.tflm-s.Peak) / float64(in.tflm)
		}
		r.TFLMPeak, r.TFLMSavedPct = &in.tflm, &saved
	}
	r.TFLMNote = in.tflmWhy
	ph := s.Stats.Phases
	parts := []time.Duration{in.readTime, in.tflmTime, ph.First, ph.Index, ph.Greedy, ph.Search, in.checkTime, in.writeTime}
	var total time.Duration
	for _, d := range parts {
		total += d
	}
	r.Times = packTimes{Read: parts[0].Seconds(), TFLM: parts[1].Seconds(), First: parts[2].Seconds(), Index: parts[3].Seconds(), Greedy: parts[4].Seconds(),
		Search: parts[5].Seconds(), Check: parts[6].Seconds(), Write: parts[7].Seconds(), Total: total.Seconds()}
	return r
}

type packTotal struct {
	Inputs  int     `json:"inputs"`
	Solved  int     `json:"solved"`
	Optimal int     `json:"optimal"`
	Buffers int     `json:"buffers"`
	Nodes   int64   `json:"nodes"`
	Seconds float64 `json:"seconds"`
}

func packTotals(rows []packRow) packTotal {
	t := packTotal{Inputs: len(rows)}
	for _, r := range rows {
		t.Buffers += r.Buffers
		t.Nodes += r.Nodes
		t.Seconds += r.Seconds
		if r.Solved {
			t.Solved++
		}
		if r.Optimal {
			t.Optimal++
		}
	}
	return t
}

// packSummary prints the results on stderr.
func (a *app) packSummary(o *packOptions, ins []*packInstance) error {
	rows := make([]packRow, len(ins))
	for i, in := range ins {
		rows[i] = in.row()
	}
	tot := packTotals(rows)
	w := a.stderr
	switch {
	case o.Format == "json":
		data, err := marshalJSON(struct {
			Inputs []packRow `json:"inputs"`
			Total  packTotal `json:"total"`
			Limit  float64   `json:"time_limit_seconds"`
			Seed   uint64    `json:"seed"`
		}{rows, tot, o.TimeLimit.Seconds(), o.Seed})
		if err != nil {
			return internalErrorf("summary: %v", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	case o.Format == "md":
		writePackMarkdown(w, rows, tot)
	case len(rows) == 1:
		writePackSummary(w, ins[0], rows[0])
	default:
		writePackTable(w, rows, tot)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// cells are a row's table cells: instance, buffers, capacity, max-live,
// solved, peak, gap %, TFLM, saved %, optimal, nodes, time.
func (r packRow) cells() []string {
	c := []string{r.Instance, strconv.Itoa(r.Buffers), "-", strconv.FormatInt(r.MaxLive, 10), "not run", "-", "-", "-", "-", "-", "-", "-"}
	if r.Capacity > 0 {
		c[2] = strconv.FormatInt(r.Capacity, 10)
	}
	if !r.Ran {
		return c
	}
	c[4] = yesNo(r.Solved)
	c[5] = strconv.FormatInt(r.Peak, 10)
	c[6] = fmt.Sprintf("%.2f", r.GapPct)
	if r.TFLMPeak != nil {
		c[7] = strconv.FormatInt(*r.TFLMPeak, 10)
		c[8] = fmt.Sprintf("%.2f", *r.TFLMSavedPct)
	}
	c[9] = yesNo(r.Optimal)
	if !r.Optimal && !r.Minimize {
		c[9] = "-" // not asked: without --minimize any fit will do
	}
	c[10] = strconv.FormatInt(r.Nodes, 10)
	c[11] = fmtDuration(time.Duration(r.Seconds * float64(time.Second)))
	if r.TimeLimitHit {
		c[11] += " (limit)"
	}
	return c
}

var packHeader = []string{"instance", "buffers", "capacity", "max-live", "solved", "peak", "gap %", "TFLM", "saved %", "optimal", "nodes", "time"}

func (t packTotal) cells() []string {
	return []string{fmt.Sprintf("total (%d)", t.Inputs), strconv.Itoa(t.Buffers), "", "",
		fmt.Sprintf("%d/%d", t.Solved, t.Inputs), "", "", "", "", fmt.Sprintf("%d/%d", t.Optimal, t.Inputs),
		strconv.FormatInt(t.Nodes, 10), fmtDuration(time.Duration(t.Seconds * float64(time.Second)))}
}

func writePackMarkdown(w io.Writer, rows []packRow, tot packTotal) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(packHeader, " | "))
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | :---: | ---: | ---: | ---: | ---: | :---: | ---: | ---: |")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r.cells(), " | "))
	}
	if len(rows) > 1 {
		fmt.Fprintf(w, "| %s |\n", strings.Join(tot.cells(), " | "))
	}
}

func writePackTable(w io.Writer, rows []packRow, tot packTotal) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t\n", strings.Join(packHeader, "\t"))
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(r.cells(), "\t"))
	}
	_ = tw.Flush() // its writer keeps the error: a checked stream (streams.go) or a buffer
	fmt.Fprintf(w, "%d inputs: %d solved, %d optimal; %d buffers, %d nodes, %s\n", tot.Inputs, tot.Solved, tot.Optimal,
		tot.Buffers, tot.Nodes, fmtDuration(time.Duration(tot.Seconds*float64(time.Second))))
}

// writePackSummary prints one input's summary.
func writePackSummary(w io.Writer, in *packInstance, r packRow) {
	capText := "none (minimized)"
	switch in.capFrom {
	case "--capacity":
		capText = fmt.Sprintf("%d B (--capacity)", r.Capacity)
	case "file name":
		capText = fmt.Sprintf("%d B (from the file name)", r.Capacity)
	}
	fmt.Fprintf(w, "%s: %s, capacity %s, max-live %s\n", r.Instance, plural(r.Buffers, "buffer"), capText, exactBytes(r.MaxLive))
	if !r.Ran {
		fmt.Fprintf(w, "peak       not run (interrupted)\n")
		return
	}
	var verdict string
	switch {
	case !r.Solved:
		verdict = "no packing within the capacity"
	case r.Optimal && r.Peak == r.MaxLive:
		verdict = "optimal: the peak equals max-live"
	case r.Optimal:
		verdict = "optimal: the search proved that no smaller peak fits"
	case r.OverMemory && r.Cores > 0:
		verdict = "the best of the greedy packings and the hard-core searches; not proven optimal (the whole instance too large for the branch and bound: see search)"
	case r.OverMemory:
		verdict = "the best greedy packing; not proven optimal (too large for the branch and bound: see search)"
	case r.Minimize && r.TimeLimitHit:
		verdict = "the smallest found before the time limit; not proven optimal"
	case r.Minimize:
		verdict = "the smallest found; not proven optimal"
	default:
		verdict = "fits the capacity (not minimized: --minimize asks for the smallest peak)"
	}
	fmt.Fprintf(w, "peak       %s, %.2f%% above max-live: %s\n", exactBytes(r.Peak), r.GapPct, verdict)
	fmt.Fprintf(w, "TFLM       %s\n", tflmLine(r))
	cores := ""
	if r.Cores > 0 {
		cores = fmt.Sprintf(", %s that lowered the peak", plural(r.Cores, "hard-core search"))
	}
	if r.Split {
		cores += ", then split in time and space into balanced parts (zero waste)"
	}
	if r.OverMemory {
		fmt.Fprintf(w, "search     %s%s; no branch and bound on the whole instance: it would take about %s, above the limit of %s\n",
			plural(r.Greedy, "greedy packing"), cores, fmtBytes(r.SearchBytes), fmtBytes(r.MemoryLimit))
	} else {
		fmt.Fprintf(w, "search     %s%s, %s, %s, %s\n", plural(r.Greedy, "greedy packing"), cores, plural(r.Nodes, "node"), plural(r.Restarts, "restart"), plural(r.Probes, "capacity probe"))
	}
	fmt.Fprintf(w, "time       %s\n", packTimeLine(in, r))
	switch {
	case in.written && in.out == "-":
		fmt.Fprintf(w, "solution   written to stdout: %s, checked\n", plural(r.Buffers, "offset"))
	case in.written:
		fmt.Fprintf(w, "solution   %s: %s, checked\n", in.out, plural(r.Buffers, "offset"))
	default:
		fmt.Fprintf(w, "solution   checked, not written (use -o FILE, or -o - for stdout)\n")
	}
}

// tflmLine is the summary's TFLM line: TFLite Micro's greedy peak on the
// same buffers and what hieropt's peak saves against it.
func tflmLine(r packRow) string {
	if r.TFLMPeak == nil {
		return "- (TFLite Micro's greedy planner: " + r.TFLMNote + ")"
	}
	t := *r.TFLMPeak
	line := exactBytes(t) + ", TFLite Micro's greedy planner: "
	if d := t - r.Peak; d >= 0 {
		return line + fmt.Sprintf("hieropt saves %d B, %.2f%%", d, *r.TFLMSavedPct)
	}
	line += fmt.Sprintf("hieropt's peak is %d B (%.2f%%) above it", r.Peak-t, -*r.TFLMSavedPct)
	if !r.Minimize {
		line += " (a fit within the capacity, not minimized: --minimize asks for the smallest peak)"
	}
	return line
}

// packTimeLine says where one input's time went: the parts add up to the
// total, and the phase the time limit cut, if it did.
func packTimeLine(in *packInstance, r packRow) string {
	sec := func(x float64) string { return fmtDuration(time.Duration(x * float64(time.Second))) }
	t := r.Times
	line := fmt.Sprintf("%s: read %s, TFLM %s, first pass %s, index %s, greedy %s, search %s, check %s, write %s",
		sec(t.Total), sec(t.Read), sec(t.TFLM), sec(t.First), sec(t.Index), sec(t.Greedy), sec(t.Search), sec(t.Check), sec(t.Write))
	if in.cut != pack.PhaseNone {
		line += fmt.Sprintf("; the time limit stopped the packer in its %s phase", in.cut)
		if in.cut < pack.PhaseSearch {
			line += " (the phases after it did not run)"
		}
	}
	return line
}

// exactBytes prints a byte count exactly, and in binary units from 1 KiB.
func exactBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%d B (%s)", n, fmtBytes(n))
}
