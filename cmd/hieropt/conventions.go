package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The conventions every subcommand follows, documented once in the root
// command's help (conventionsHelp) and applied by the helpers below.

const conventionsHelp = `Conventions shared by the commands:

  inputs      --workload W names a workload (a JSON file, - for stdin, or a
              built-in name); bench, sweep and pack take several
              (comma-separated or --workload repeated). --hw likewise.
  output      a command whose output is a document (a plan, a workload, a
              drawing, a report, a CSV, a profile) writes it to stdout, or
              with -o FILE to FILE (atomically). Exceptions: optimize and
              pack print a summary and write the plan or solution only with
              -o; plan tflm and export tflm write a binary model and need -o.
  --format    commands that report results take --format text (for people,
              the default) or json (one JSON document on stdout, errors as
              one JSON object on stderr), some also csv, md or grid.
              optimize and pack report a summary on stderr, in the format
              asked for, since stdout may carry the plan (-o -).
  -q/--quiet  no notes, progress or summary on stderr (errors and warnings
              still); every command takes it. --format json drops the notes
              too (optimize's and pack's JSON summary stays).
  --time-limit 0 means no limit. pack and plan tflm default to 1m: an exact
              packer's search need not end by itself; the others' do.

Older spellings still work: --workloads (bench, sweep) and --format table
(compare).`

// addQuietFlag gives every command -q/--quiet (a persistent flag of the
// root: a command that defines its own, with its own help, keeps it).
func addQuietFlag(root *cobra.Command) {
	root.PersistentFlags().BoolP("quiet", "q", false, "print no notes, progress or summary on stderr (errors and warnings still)")
}

// formatFlag defines --format: text (the default) and json, then the
// command's other formats; help says what each gives.
func formatFlag(f *pflag.FlagSet, help string) {
	f.String("format", "text", help)
}

// checkFormat returns the format asked for, an old spelling (aliases:
// old -> current) turned into the current one, or a usage error listing
// the formats the command takes.
func checkFormat(got string, aliases map[string]string, formats ...string) (string, error) {
	if cur, ok := aliases[got]; ok {
		got = cur
	}
	for _, f := range formats {
		if got == f {
			return got, nil
		}
	}
	return "", usageErrorf("--format %q: want %s", got, orList(formats))
}

// orList is "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// workloadListFlag defines --workload as a list (comma-separated or
// repeated) with --workloads, the old spelling, as a hidden alias; the
// command reads both (workloadList).
func workloadListFlag(f *pflag.FlagSet, help string) {
	f.StringSlice("workload", nil, help)
	f.StringSlice("workloads", nil, "old spelling of --workload")
	_ = f.MarkHidden("workloads")
}

// workloadList joins --workload and its old spelling --workloads.
func workloadList(workload, workloads []string) []string {
	return append(append([]string(nil), workload...), workloads...)
}
