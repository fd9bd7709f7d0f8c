package main

import (
	"io"
	"sync"

	"github.com/spf13/cobra"
)

// app is what every subcommand shares: the process's streams, and the
// inputs the command has read. There is no other shared state; each
// command binds its own settings.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// maxMemory bounds the inputs a command accepts (bytes; 0 = no
	// limit); set from --max-memory before each command runs.
	maxMemory int64
	// quiet turns off notes on stderr (--quiet, or --format json); set
	// before each command runs.
	quiet bool
	// inputs are the files the command reads, which no output may
	// replace (noteInput, checkNotInput).
	inputsMu sync.Mutex
	inputs   []inputFile
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "hieropt",
		Short: "Plan where a neural network's data lives in a hierarchy of memories",
		Long: `hieropt is a memory planner for neural-network inference on hardware with a
hierarchy of software-managed memories (on-chip SRAM levels over DRAM: NPUs,
DSPs, TPUs, GPU shared memory).

Give it a workload (operators in execution order and the blocks they read and
write, with sizes and lifetimes) and a hardware profile (memory levels, fastest
first, with capacity, alignment, latency and bandwidth). It decides which level
and which address hold every block at every step, and when to move it, so that
the program spends the least time moving data, and writes that as a plan.

Workloads and profiles are files, or the names of built-in ones: see
'hieropt profiles' and 'hieropt inspect --list'. 'hieropt formats' prints the
formats and the rules of a plan (FORMATS.md, which help texts cite).

Settings come from flags, then HIEROPT_<FLAG> environment variables (dashes
become underscores: HIEROPT_NO_SEARCH=1), then the command's section of the
YAML file given by --config or HIEROPT_CONFIG, e.g.

  optimize:
    hw: ethos-u55
    no-search: true

Exit codes: 0 success; 1 infeasible problem or invalid plan; 2 bad input or
usage; 3 internal error (a bug: please report it); 130 interrupted by SIGINT
or SIGTERM (optimize and pack write what they found so far and say so).
Valid documents that cannot be planned together are 1, whatever the reason
(a block larger than every level it may use, or live blocks more than the
levels hold); 2 is for documents, settings or arguments that are malformed.

` + conventionsHelp,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().String("config", "", "YAML file of settings, one section per command (env HIEROPT_CONFIG)")
	addQuietFlag(root)
	root.PersistentFlags().String("max-memory", "", "reject inputs too large to plan within this much memory, before reading them (e.g. 4G; env HIEROPT_MAX_MEMORY; default 80% of RAM)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		a.noteConfig(cmd)
		if err := a.setMaxMemory(cmd); err != nil {
			return err
		}
		return a.setQuiet(cmd)
	}
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newOptimizeCmd(a),
		newVerifyCmd(a),
		newProfilesCmd(a),
		newInspectCmd(a),
		newBenchCmd(a),
		newGenCmd(a),
		newRenderCmd(a),
		newReportCmd(a),
		newBoundsCmd(a),
		newCompareCmd(a),
		newDiffCmd(a),
		newSweepCmd(a),
		newImportCmd(a),
		newExportCmd(a),
		newPlanCmd(a),
		newPackCmd(a),
		newCalibrateCmd(a),
		newTuneCmd(a),
		newMiniMallocCmd(a),
		newFormatsCmd(a),
		newVersionCmd(a),
	)
	enableCompletion(root)
	for _, c := range root.Commands() {
		c.SetFlagErrorFunc(flagError)
	}
	return root
}

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return asUsage(err)
		}
		return nil
	}
}

func maxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MaximumNArgs(n)(cmd, args); err != nil {
			return asUsage(err)
		}
		return nil
	}
}
