package minimalloccli

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// kind is the type of a flag, as Abseil parses it.
type kind int

const (
	kindBool kind = iota
	kindInt64
	kindString
	kindDuration
	kindList // a comma-separated list (Abseil's std::vector<std::string>)
)

// role says what hieropt does with a flag.
type role int

const (
	roleUsed    role = iota // mapped to hieropt's packer
	roleIgnored             // MiniMalloc's search settings: accepted, noted, ignored
	roleBuiltin             // Abseil's own flags (help, version, undefok, flagfile...)
)

// flagDef is one flag of MiniMalloc's binary (src/main.cc) or of Abseil.
type flagDef struct {
	name string
	kind kind
	def  string // the default, as written in the help
	help string
	role role
}

// flagDefs are the flags MiniMalloc's main.cc defines with ABSL_FLAG, in its
// order, then minimize_capacity (a field of MiniMalloc's SolverParams, set
// by its Python bindings; not a flag of the main.cc read, see the package
// documentation), then the flags every Abseil binary has.
var flagDefs = []flagDef{
	{"capacity", kindInt64, "0", "The maximum memory capacity.", roleUsed},
	{"input", kindString, `""`, "The path to the input CSV file.", roleUsed},
	{"output", kindString, `""`, "The path to the output CSV file.", roleUsed},
	{"timeout", kindDuration, "inf", "The time limit enforced for the MiniMalloc solver.", roleUsed},
	{"validate", kindBool, "false", "Validates the solver's output.", roleUsed},
	{"canonical_only", kindBool, "true", "Explores canonical solutions only.", roleIgnored},
	{"section_inference", kindBool, "true", "Performs advanced inference.", roleIgnored},
	{"dynamic_ordering", kindBool, "true", "Dynamically orders buffers.", roleIgnored},
	{"check_dominance", kindBool, "true", "Checks for dominated solutions that leave gaps in the allocation.", roleIgnored},
	{"unallocated_floor", kindBool, "true", "Uses min offsets to establish lower bounds on section floors.", roleIgnored},
	{"static_preordering", kindBool, "true", "Statically preorders buffers.", roleIgnored},
	{"dynamic_decomposition", kindBool, "true", "Dynamically decomposes buffers.", roleIgnored},
	{"monotonic_floor", kindBool, "true", "Requires the solution floor to increase monotonically.", roleIgnored},
	{"hatless_pruning", kindBool, "true", "Prunes alternate solutions whenever a buffer has nothing overhead.", roleIgnored},
	{"preordering_heuristics", kindString, `"WAT,TAW,TWA"`, "Static preordering heuristics to attempt.", roleIgnored},
	{"print_solution", kindBool, "false", "Prints the solution in LaTeX", roleIgnored},
	{"minimize_capacity", kindBool, "false", "Minimize the allocated space (MiniMalloc's SolverParams; hieropt: the least peak within --capacity).", roleUsed},

	{"help", kindBool, "false", "show help on important flags for this binary", roleBuiltin},
	{"helpfull", kindBool, "false", "show help on all flags", roleBuiltin},
	{"helpshort", kindBool, "false", "show help on only the main module for this program", roleBuiltin},
	{"helppackage", kindBool, "false", "show help on all modules in the main package", roleBuiltin},
	{"helpon", kindString, `""`, "show help on the modules named by this flag value", roleBuiltin},
	{"helpmatch", kindString, `""`, "show help on modules whose name contains the specified substr", roleBuiltin},
	{"version", kindBool, "false", "show version and build info and exit", roleBuiltin},
	{"only_check_args", kindBool, "false", "exit after checking all flags", roleBuiltin},
	{"flagfile", kindList, "", "comma-separated list of files to load flags from", roleBuiltin},
	{"fromenv", kindList, "", "comma-separated list of flags to set from the environment [use 'export FLAGS_flag1=value']", roleBuiltin},
	{"tryfromenv", kindList, "", "comma-separated list of flags to try to set from the environment if present", roleBuiltin},
	{"undefok", kindList, "", "comma-separated list of flag names that it is okay to specify on the command line even if the program does not define a flag with that name", roleBuiltin},
}

// lookupFlag finds a flag by name.
func lookupFlag(name string) *flagDef {
	for i := range flagDefs {
		if flagDefs[i].name == name {
			return &flagDefs[i]
		}
	}
	return nil
}

// Timeout is the value of --timeout: a duration, or infinite either way.
type Timeout struct {
	D   time.Duration
	Inf int // +1: infinite (the default), -1: minus infinity, 0: D
}

// Flags is a parsed command line.
type Flags struct {
	Capacity         int64
	Input, Output    string
	Timeout          Timeout
	Validate         bool
	MinimizeCapacity bool
	PrintSolution    bool

	// Ignored lists the search settings given (name=value as parsed), in
	// the order given; a flag given twice is listed twice.
	Ignored []string
	// Positional are the arguments that are not flags: MiniMalloc's main
	// ignores them.
	Positional []string

	// Help is set by --help and its kin, Version by --version, CheckOnly
	// by --only_check_args.
	Help, Version, CheckOnly bool

	undefok []string
}

// parseFlags parses args (without the program name) as Abseil's
// ParseCommandLine parses a binary's: -name and --name; name=value or name
// value (not for booleans); booleans as name, noname, name=true|false (and
// t, yes, y, 1, f, no, n, 0, any case); "--" ends the flags. It returns
// every error Abseil would report, in its order (the value errors as met,
// then the unknown flags), each without Abseil's "ERROR: " prefix.
func parseFlags(args []string, lookupEnv func(string) (string, bool)) (*Flags, []string) {
	f := &Flags{Timeout: Timeout{Inf: 1}}
	var errs, undefined []string
	args = append([]string(nil), args...)
	for i := 0; i < len(args); {
		arg := args[i]
		i++
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			f.Positional = append(f.Positional, arg)
			continue
		}
		body := strings.TrimPrefix(arg[1:], "-")
		if body == "" { // "--": the rest are positional
			f.Positional = append(f.Positional, args[i:]...)
			break
		}
		name, value, hasEq := strings.Cut(body, "=")
		d, negative := lookupFlag(name), false
		if d == nil && strings.HasPrefix(name, "no") {
			d, negative = lookupFlag(name[2:]), true
		}
		if d == nil {
			undefined = append(undefined, name)
			continue
		}
		switch {
		case d.kind == kindBool && value == "" && hasEq:
			errs = append(errs, fmt.Sprintf("Missing the value after assignment for the boolean flag '%s'", d.name))
			continue
		case d.kind == kindBool && value == "":
			value = "1"
			if negative {
				value = "0"
			}
		case d.kind == kindBool && negative:
			errs = append(errs, fmt.Sprintf("Negative form with assignment is not valid for the boolean flag '%s'", d.name))
			continue
		case negative:
			errs = append(errs, fmt.Sprintf("Negative form is not valid for the flag '%s'", d.name))
			continue
		case value == "" && !hasEq:
			if i >= len(args) {
				errs = append(errs, fmt.Sprintf("Missing the value for the flag '%s'", d.name))
				continue
			}
			value = args[i]
			i++
		}
		more, err := f.set(d, value, lookupEnv)
		if err != "" {
			errs = append(errs, err)
			continue
		}
		// Flags read from a flag file or the environment are parsed next,
		// before the rest of the command line, as Abseil does.
		args = append(args[:i], append(more, args[i:]...)...)
	}
	for _, name := range undefined {
		if f.canIgnore(name) {
			continue
		}
		errs = append(errs, fmt.Sprintf("Unknown command line flag '%s'", name))
	}
	return f, errs
}

// canIgnore reports whether --undefok lists name (or name without "no").
func (f *Flags) canIgnore(name string) bool {
	for _, u := range f.undefok {
		if u == name || "no"+u == name {
			return true
		}
	}
	return false
}

// set gives flag d the value text. It returns flags to parse next (from
// --flagfile, --fromenv, --tryfromenv) or an error message.
func (f *Flags) set(d *flagDef, text string, lookupEnv func(string) (string, bool)) ([]string, string) {
	illegal := fmt.Sprintf("Illegal value '%s' specified for flag '%s'", text, d.name)
	var b bool
	var n int64
	var t Timeout
	switch d.kind {
	case kindBool:
		var ok bool
		if b, ok = parseBool(text); !ok {
			return nil, illegal
		}
	case kindInt64:
		var ok bool
		if n, ok = parseInt64(text); !ok {
			return nil, illegal
		}
	case kindDuration:
		var ok bool
		if t, ok = parseDuration(text); !ok {
			return nil, illegal
		}
	}
	var list []string
	if d.kind == kindList && text != "" {
		list = strings.Split(text, ",")
	}
	switch d.name {
	case "capacity":
		f.Capacity = n
	case "input":
		f.Input = text
	case "output":
		f.Output = text
	case "timeout":
		f.Timeout = t
	case "validate":
		f.Validate = b
	case "minimize_capacity":
		f.MinimizeCapacity = b
	case "print_solution":
		f.PrintSolution = b
		f.Ignored = append(f.Ignored, fmt.Sprintf("%s=%t", d.name, b))
	case "help", "helpfull", "helpshort", "helppackage":
		f.Help = f.Help || b
	case "helpon", "helpmatch":
		f.Help = f.Help || text != ""
	case "version":
		f.Version = b
	case "only_check_args":
		f.CheckOnly = b
	case "undefok":
		f.undefok = list
	case "flagfile":
		return readFlagfiles(list)
	case "fromenv", "tryfromenv":
		return fromEnv(list, d.name == "fromenv", lookupEnv)
	default:
		if d.kind == kindBool {
			f.Ignored = append(f.Ignored, fmt.Sprintf("%s=%t", d.name, b))
		} else {
			f.Ignored = append(f.Ignored, d.name+"="+text)
		}
	}
	return nil, ""
}

// parseBool parses a boolean as Abseil does: 1 t true y yes, 0 f false n
// no, in any case, surrounded by any ASCII space.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "t", "true", "y", "yes":
		return true, true
	case "0", "f", "false", "n", "no":
		return false, true
	}
	return false, false
}

// parseInt64 parses an int64 as Abseil's flags do: optional sign, decimal,
// or hexadecimal after 0x (a leading 0 is not octal), surrounded by any
// ASCII space.
func parseInt64(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	digits, neg := s, false
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		neg = digits[0] == '-'
		digits = digits[1:]
	}
	base := 10
	if len(digits) >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') {
		base, digits = 16, digits[2:]
	}
	if digits == "" || digits[0] == '+' || digits[0] == '-' {
		return 0, false
	}
	u, err := strconv.ParseUint(digits, base, 64)
	switch {
	case err != nil:
		return 0, false
	case neg && u <= 1<<63:
		return -int64(u-1) - 1, true // -(1<<63) included
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	}
	return 0, false
}

// parseDuration parses a duration as Abseil's ParseDuration: "inf" and
// "-inf" (also "+inf"), "0", or a signed sequence of decimal numbers with
// units ns, us, ms, s, m, h ("1.5s", "2h45m"). A finite duration beyond
// Go's range (about 292 years) is an error here, not in Abseil.
func parseDuration(s string) (Timeout, bool) {
	switch s {
	case "inf", "+inf":
		return Timeout{Inf: 1}, true
	case "-inf":
		return Timeout{Inf: -1}, true
	}
	if strings.ContainsAny(s, " \t\n\vµμ") {
		return Timeout{}, false
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return Timeout{}, false
	}
	return Timeout{D: d}, true
}

// readFlagfiles reads the flags of Abseil flag files: one flag per line,
// leading space ignored, blank lines and lines starting with # skipped;
// any other line (an argument, or "--") is an error.
func readFlagfiles(names []string) ([]string, string) {
	var out []string
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, "Can't open flagfile " + name
		}
		for _, line := range strings.Split(string(data), "\n") {
			s := strings.TrimLeft(line, " \t\r\v\f")
			switch {
			case s == "" || s[0] == '#':
			case s == "--":
				return nil, "Flagfile can't contain position arguments or --"
			case s[0] == '-':
				out = append(out, s)
			default:
				return nil, fmt.Sprintf("Unexpected line in the flagfile %s: %s", name, line)
			}
		}
	}
	return out, ""
}

// fromEnv turns FLAGS_<name> environment variables into --name=value
// flags; with must, a variable that is not set is an error.
func fromEnv(names []string, must bool, lookupEnv func(string) (string, bool)) ([]string, string) {
	var out []string
	for _, name := range names {
		if name == "fromenv" || name == "tryfromenv" {
			return nil, "Infinite recursion on flag " + name
		}
		v, ok := lookupEnv("FLAGS_" + name)
		if !ok {
			if must {
				return nil, "FLAGS_" + name + " not found in environment"
			}
			continue
		}
		out = append(out, "--"+name+"="+v)
	}
	return out, ""
}
