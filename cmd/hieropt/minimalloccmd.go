package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/internal/minimalloccli"
)

// newMiniMallocCmd is MiniMalloc's binary as a command: the same
// implementation as cmd/hieropt-minimalloc (package
// internal/minimalloccli), with hieropt's output writing.
func newMiniMallocCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "minimalloc --capacity=N --input=in.csv --output=out.csv [--timeout=D] [--validate] [--minimize_capacity]",
		Short: "MiniMalloc's command line and output file, packed by hieropt (a drop-in for MiniMalloc's binary)",
		Long: `minimalloc takes MiniMalloc's command line as MiniMalloc's binary parses it
(Abseil flags: --flag=value or --flag value; booleans --flag, --noflag,
--flag=true|false; an unknown flag is an error) and writes MiniMalloc's
output file byte for byte: the input's columns and an offset column. The
binary hieropt-minimalloc is the same command, for compilers that call
MiniMalloc's binary by path (Deeploy: $MINIMALLOC_INSTALL_DIR/minimalloc).

  --capacity=N          bytes every buffer must end within (default 0: nothing fits)
  --input=FILE          the problem, id,lower,upper,size[,alignment][,hint][,gaps]
  --output=FILE         the solution, the same columns and offset (written atomically)
  --timeout=D           stop then: inf (default), 0, 300ms, 1.5s, 2h45m
  --validate            print PASS or FAIL after the time (hieropt checks every packing anyway)
  --minimize_capacity   the least peak within --capacity (MiniMalloc's SolverParams)

MiniMalloc's search settings (--canonical_only, --section_inference,
--dynamic_ordering, --check_dominance, --unallocated_floor,
--static_preordering, --dynamic_decomposition, --monotonic_floor,
--hatless_pruning, --preordering_heuristics) and --print_solution are accepted
and ignored, with a note on stderr. Abseil's --help, --version, --undefok,
--flagfile, --fromenv, --tryfromenv and --only_check_args work as in Abseil.

stderr gets the solve time in seconds with three decimals and no newline, as
MiniMalloc prints it. Exit codes: 0 solved; 1 no packing within the capacity
found (before --timeout), or a flag error (as MiniMalloc's); 2 bad input file
or output path; 3 internal error. On any failure the output file is not
touched.`,
		Example: `  hieropt minimalloc --capacity=12 --input=testdata/minimalloc/input.12.csv --output=out.csv
  hieropt minimalloc --capacity 1048576 --input A.1048576.csv --output A.out.csv --timeout=60s --validate`,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			code := minimalloccli.Run(args, minimalloccli.Env{
				Stdout:      a.stdout,
				Stderr:      a.stderr,
				Program:     "hieropt minimalloc",
				Version:     version(),
				WriteOutput: a.writeOutput,
			})
			if code == exitOK {
				return nil
			}
			return &silentError{&exitError{code, fmt.Errorf("minimalloc: exit %d", code)}}
		},
	}
}
