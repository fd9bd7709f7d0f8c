package minimalloccli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/pack"
)

// Exit codes. 0 and 1 are MiniMalloc's (1: no packing found within the
// capacity or the time, or a flag error, as Abseil exits); 2 and 3 are
// hieropt's, for failures MiniMalloc's binary does not report.
const (
	ExitOK       = 0 // solved (and written, with --output)
	ExitFailed   = 1 // infeasible, timed out, a flag error, or --help
	ExitInput    = 2 // bad input CSV, no --input, or the output cannot be written
	ExitInternal = 3 // a bug in hieropt: the packing failed pack.Check
)

// Env is what Run needs from the program that runs it.
type Env struct {
	Stdout, Stderr io.Writer
	// Program names the program in messages and in the help, e.g.
	// "hieropt-minimalloc".
	Program string
	// Version is printed by --version.
	Version string
	// LookupEnv reads the environment for --fromenv and --tryfromenv; nil
	// means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// WriteOutput writes what fill produces to path, all or nothing; nil
	// means WriteFile.
	WriteOutput func(path string, fill func(io.Writer) error) error
}

// Run is MiniMalloc's binary: it parses args (without the program name) as
// MiniMalloc's main does, packs the buffers of --input within --capacity
// with hieropt's packer, writes the offsets to --output in MiniMalloc's
// format, and returns the exit code. See the package documentation.
func Run(args []string, env Env) (code int) {
	if env.LookupEnv == nil {
		env.LookupEnv = os.LookupEnv
	}
	st := &streams{out: bufio.NewWriter(env.Stdout), err: bufio.NewWriter(env.Stderr)}
	defer func() {
		// A failed write to stdout or stderr fails the run, as in hieropt.
		if st.flush() != nil && code == ExitOK {
			code = ExitInput
		}
	}()
	f, errs := parseFlags(args, env.LookupEnv)
	if len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintf(st.err, "ERROR: %s\n", e)
		}
		return ExitFailed
	}
	switch {
	case f.Help:
		writeUsage(st.out, env.Program)
		return ExitFailed // as Abseil's --help
	case f.Version:
		fmt.Fprintf(st.out, "%s\nVersion %s\n", env.Program, env.Version)
		return ExitOK
	case f.CheckOnly:
		return ExitOK
	}
	r := &runner{f: f, env: env, st: st}
	return r.run()
}

// streams are Run's stdout and stderr, buffered: every message is flushed
// at once, and the first error is kept.
type streams struct {
	out, err *bufio.Writer
	failed   error
}

// flush flushes both streams and returns the first error so far.
func (s *streams) flush() error {
	for _, w := range []*bufio.Writer{s.out, s.err} {
		if err := w.Flush(); err != nil && s.failed == nil {
			s.failed = err
		}
	}
	return s.failed
}

// runner is one Run past its flags.
type runner struct {
	f   *Flags
	env Env
	st  *streams
	// midLine is true while the last thing written to stderr is the solve
	// time, which MiniMalloc ends with no newline.
	midLine bool
}

// note writes a line to stderr, prefixed with the program's name.
func (r *runner) note(format string, args ...any) {
	if r.midLine {
		fmt.Fprintln(r.st.err)
		r.midLine = false
	}
	fmt.Fprintf(r.st.err, "%s: %s\n", r.env.Program, fmt.Sprintf(format, args...))
	_ = r.st.flush() // kept, and reported by Run
}

func (r *runner) run() int {
	f := r.f
	for _, ig := range f.Ignored {
		name, value, _ := strings.Cut(ig, "=")
		switch {
		case name == "print_solution" && value == "true":
			r.note("note: ignoring --print_solution: hieropt does not print MiniMalloc's LaTeX picture (hieropt render draws packings)")
		case name != "print_solution":
			r.note("note: ignoring --%s: a setting of MiniMalloc's search, which hieropt's packer does not have", ig)
		}
	}
	for _, p := range f.Positional {
		r.note("note: ignoring argument %q: MiniMalloc's binary reads only flags", p)
	}
	if f.Input == "" {
		r.note("--input is required: the MiniMalloc CSV to pack (MiniMalloc would read no file as an empty problem)")
		return ExitInput
	}
	bufs, err := readInput(f.Input)
	if err != nil {
		r.note("%v", err)
		return ExitInput
	}
	if sameFile(f.Output, f.Input) {
		r.note("cannot write %s: it is the input %s", f.Output, inputerr.Doc("CSV", f.Input))
		return ExitInput
	}
	offsets, code := r.solve(bufs)
	if code != ExitOK {
		return code
	}
	if f.Output == "" {
		r.note("note: no --output: the packing is not written (as MiniMalloc, which writes nowhere)")
		return ExitOK
	}
	write := r.env.WriteOutput
	if write == nil {
		write = func(path string, fill func(io.Writer) error) error {
			if err := WriteFile(path, r.st.out, fill); err != nil {
				return err
			}
			return r.st.flush()
		}
	}
	if err := write(f.Output, func(w io.Writer) error { return writeCSV(w, bufs, offsets) }); err != nil {
		r.note("%v", err)
		return ExitInput
	}
	return ExitOK
}

// sameFile reports whether output names the regular file input names, by
// identity (os.SameFile: through symbolic and hard links): writing it
// would replace the input.
func sameFile(output, input string) bool {
	if output == "" || output == "-" {
		return false
	}
	of, err := os.Stat(output)
	if err != nil || !of.Mode().IsRegular() {
		return false
	}
	inf, err := os.Stat(input)
	return err == nil && os.SameFile(of, inf)
}

// readInput reads the input CSV.
func readInput(path string) ([]buffer, error) {
	data, err := inputerr.ReadFile(inputerr.Doc("CSV", path), path)
	if err != nil {
		return nil, err
	}
	return readCSV(path, bytes.NewReader(data))
}

// solve packs the buffers and returns one offset per buffer, or the exit
// code of a failure. It prints the solve time on stderr as MiniMalloc does
// (seconds, three decimals, no newline), then PASS or FAIL with
// --validate.
func (r *runner) solve(bufs []buffer) ([]int64, int) {
	f := r.f
	// pack takes buffers of positive size alive from time 0 on: buffers of
	// size 0 take no memory and get offset 0; times are shifted to start
	// at 0 (only their order matters).
	var idx []int
	var minLower int64
	var gaps, hints int
	for i, b := range bufs {
		minLower = min(minLower, b.lower)
		if len(b.gaps) > 0 {
			gaps++
		}
		if b.hint >= 0 {
			hints++
		}
		if b.size > 0 {
			idx = append(idx, i)
		}
	}
	if gaps > 0 {
		r.note("note: %s gaps; hieropt packs each as alive over its whole lifespan (a valid packing for MiniMalloc, perhaps a higher one)", buffersHave(gaps))
	}
	if hints > 0 {
		r.note("note: %s a hint; hieropt's packer ignores hints", buffersHave(hints))
	}
	p := &pack.Problem{Capacity: f.Capacity, Buffers: make([]pack.Buffer, 0, len(idx))}
	for _, i := range idx {
		b := bufs[i]
		if minLower < 0 && b.upper > math.MaxInt64+minLower {
			r.note("%v", inputerr.New(inputerr.Doc("CSV", f.Input), fmt.Sprintf("line %d", b.line),
				"upper %d minus the least lower %d is beyond int64", b.upper, minLower))
			return nil, ExitInput
		}
		p.Buffers = append(p.Buffers, pack.Buffer{ID: b.id, Lower: b.lower - minLower, Upper: b.upper - minLower, Size: b.size, Align: b.align})
	}
	start := time.Now()
	var sol *pack.Solution
	switch {
	case len(p.Buffers) == 0:
		sol = &pack.Solution{Offsets: []int64{}, Solved: true}
	case f.Capacity <= 0:
		// MiniMalloc's capacity 0 (its default) fits nothing; pack's
		// would mean no limit.
		sol = &pack.Solution{}
	default:
		o := &pack.Options{Minimize: f.MinimizeCapacity}
		switch f.Timeout.Inf {
		case 0:
			o.Deadline = start.Add(f.Timeout.D)
		case -1:
			o.Deadline = start
		}
		var err error
		if sol, err = pack.Solve(context.Background(), p, o); err != nil {
			r.note("internal error: %v (please report it)", err)
			return nil, ExitInternal
		}
	}
	fmt.Fprintf(r.st.err, "%.3f", time.Since(start).Seconds())
	_ = r.st.flush()
	r.midLine = true
	if !sol.Solved {
		// MiniMalloc's NotFound or DeadlineExceeded, where MiniMalloc
		// prints the time alone; hieropt says why on a line of its own.
		r.note("%s", failureNote(f, p, sol))
		return nil, ExitFailed
	}
	checkErr := pack.Check(p, sol)
	if f.Validate {
		verdict := "PASS"
		if checkErr != nil {
			verdict = "FAIL"
		}
		fmt.Fprintln(r.st.err, verdict)
		_ = r.st.flush()
		r.midLine = false
	}
	if checkErr != nil {
		r.note("internal error: the packing fails pack.Check: %v (please report it)", checkErr)
		return nil, ExitInternal
	}
	offsets := make([]int64, len(bufs))
	for k, i := range idx {
		offsets[i] = sol.Offsets[k]
	}
	return offsets, ExitOK
}

// writeUsage prints the flags with their defaults and what hieropt does
// with them.
func writeUsage(w *bufio.Writer, program string) {
	fmt.Fprintf(w, `%s: MiniMalloc's command line, packed by hieropt's exact packer.

  %s --capacity=N --input=in.csv --output=out.csv [--timeout=60s] [--validate] [--minimize_capacity]

Reads a MiniMalloc problem (id,lower,upper,size[,alignment][,hint][,gaps]),
gives every buffer an offset so that buffers alive at once never overlap and
every buffer ends within --capacity, and writes the problem with an offset
column as MiniMalloc does. Prints the solve time in seconds on stderr. Exit
0 when solved; 1 when no packing within the capacity was found (before
--timeout), or on a flag error; 2 on a bad input file; 3 on an internal
error. Flags are parsed as Abseil parses MiniMalloc's: --flag=value or --flag
value, booleans as --flag, --noflag, --flag=true|false.

Flags:
`, program, program)
	for _, d := range flagDefs {
		what := ""
		switch d.role {
		case roleIgnored:
			what = " [accepted, ignored by hieropt]"
		case roleBuiltin:
			what = " [Abseil]"
		}
		def := ""
		if d.def != "" {
			def = "; default: " + d.def
		}
		fmt.Fprintf(w, "  --%s (%s)%s%s\n", d.name, d.help, def, what)
	}
}

// buffersHave is "1 buffer has" or "N buffers have".
func buffersHave(n int) string {
	if n == 1 {
		return "1 buffer has"
	}
	return fmt.Sprintf("%d buffers have", n)
}

// failureNote says why no packing within the capacity was found: the
// capacity fits nothing, the buffers alive at once need more, or the search
// found none (before the timeout, if one was given).
func failureNote(f *Flags, p *pack.Problem, sol *pack.Solution) string {
	if f.Capacity <= 0 {
		return fmt.Sprintf("no packing: --capacity=%d fits no buffer (MiniMalloc's default is 0: give the memory's size in bytes)", f.Capacity)
	}
	need := pack.MaxLive(p)
	if need > f.Capacity {
		return fmt.Sprintf("no packing: the buffers alive at once need %d bytes (max-live), more than --capacity=%d", need, f.Capacity)
	}
	msg := fmt.Sprintf("no packing within --capacity=%d found", f.Capacity)
	if f.Timeout.Inf == 0 || f.Timeout.Inf == -1 {
		msg += " before --timeout"
	}
	if sol.Peak > 0 {
		msg += fmt.Sprintf(" (max-live %d bytes; the lowest packing found peaks at %d)", need, sol.Peak)
	}
	return msg
}
