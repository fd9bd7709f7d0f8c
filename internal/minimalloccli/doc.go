// Package minimalloccli is MiniMalloc's command-line program with hieropt's
// packer inside: `hieropt minimalloc` and the binary hieropt-minimalloc,
// for compilers that call MiniMalloc's binary (google/minimalloc,
// src/main.cc). Deeploy's default allocator (its memAllocStrategy
// "MiniMalloc") runs
//
//	$MINIMALLOC_INSTALL_DIR/minimalloc --capacity=N --input=X.csv --output=Y.csv
//
// on a file it writes as id,lower,upper,size (upper = last step + 1), fails
// on a non-zero exit, and reads each output row's id (first field), size
// (second to last) and offset (last). Pointing MINIMALLOC_INSTALL_DIR at a
// directory holding a link named minimalloc to hieropt-minimalloc makes it
// call hieropt instead.
//
// # Flags
//
// MiniMalloc's main.cc defines these with Abseil's ABSL_FLAG, and Run
// accepts exactly them, parsed as Abseil's ParseCommandLine parses them
// (-flag or --flag; --flag=value or --flag value, but a boolean takes no
// separate value; booleans as --flag, --noflag, --flag=true|false|1|0|t|f|
// yes|no|y|n in any case; integers in decimal or after 0x in hex; "--" ends
// the flags; other arguments are ignored, as MiniMalloc's main ignores
// them):
//
//	--capacity=N     int64, default 0     every buffer ends within N bytes
//	--input=F        string               the problem (CSV)
//	--output=F       string               the solution (CSV)
//	--timeout=D      duration, inf        Abseil's: inf, -inf, 0, 1.5s, 300ms, 2h45m
//	--validate       bool, false          print PASS or FAIL after the time
//	--canonical_only, --section_inference, --dynamic_ordering,
//	--check_dominance, --unallocated_floor, --static_preordering,
//	--dynamic_decomposition, --monotonic_floor, --hatless_pruning
//	                 bool, true           MiniMalloc's search: ignored, noted
//	--preordering_heuristics=S  "WAT,TAW,TWA"  MiniMalloc's search: ignored, noted
//	--print_solution bool, false          a LaTeX picture on stdout: not printed, noted
//
// --minimize_capacity (bool, false) is accepted too: it is a field of
// MiniMalloc's SolverParams (a binary search for the least capacity up to
// the given one), set by its Python bindings, but not a flag of the
// main.cc read (two versions of it, the latest in the code index); hieropt
// maps it to pack.Options.Minimize. Abseil's own flags work as in any
// Abseil binary: --help, --helpfull, --helpshort, --helppackage, --helpon,
// --helpmatch (usage on stdout, exit 1), --version (exit 0),
// --only_check_args, --undefok=a,b (those unknown flags are no error),
// --flagfile=f (its lines' flags, read next), --fromenv=a,b and
// --tryfromenv=a,b (flags from FLAGS_a, FLAGS_b).
//
// An unknown flag, a bad value, a missing value, --noflag for a flag that
// is not boolean: every such error is reported as Abseil reports it
// ("ERROR: Unknown command line flag 'x'", one line each, the value errors
// first and the unknown flags after) and Run returns 1, as Abseil exits.
//
// # Packing
//
// The buffers go to pack.Solve with Problem.Capacity = --capacity and, with
// --minimize_capacity, Options.Minimize; --timeout sets Options.Deadline.
// MiniMalloc returns the first packing it finds within the capacity, and so
// does Solve without Minimize. At the deadline MiniMalloc gives up with
// nothing; Solve keeps the packing it has, which is written if it fits. A
// capacity of 0 or below fits nothing (pack's 0 would mean no limit).
// Buffers of size 0 take no memory and get offset 0; times may be
// negative (they are shifted). Every packing passes pack.Check before it is
// written; a failure is an internal error (exit 3), where MiniMalloc's
// --validate prints FAIL and writes the packing anyway.
//
// # Files
//
// The input is read as MiniMalloc's FromCsv reads it: see readCSV. The
// output is written as MiniMalloc's ToCsv writes it, byte for byte: see
// writeCSV. For Deeploy's files, the output is the input with ",offset"
// added to the header and ",<offset>" to every row.
//
// # stderr and exit codes
//
// MiniMalloc prints the solve time in seconds with three decimals and no
// newline (then PASS or FAIL and a newline with --validate), and so does
// Run; notes (ignored flags, gaps, hints) come before it, one line each,
// and errors after it on a line of their own. Exit codes:
//
//	0  solved; the output written (nothing is written without --output, as MiniMalloc)
//	1  no packing within the capacity (proven, or none found before --timeout); a flag error; --help
//	2  the input cannot be read or is invalid, no --input, or the output cannot be written (or is the input)
//	3  internal error
//
// A failed write to stdout or stderr turns exit 0 into 2.
//
// 0 and 1 are MiniMalloc's. MiniMalloc also exits 1, silently, on an input
// its reader rejects, and reads a missing or unreadable --input as an
// empty problem (exit 0, a header-only output); hieropt reports both, with
// exit 2 and one line naming the file, the line and the rule. On any
// failure the output file is left as it was (MiniMalloc does not open it
// either).
package minimalloccli
