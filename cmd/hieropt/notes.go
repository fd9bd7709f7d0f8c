package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// loadNoteBytes is the size from which a workload is announced on stderr
// before it is read and parsed (a 12 MiB workload, 40,000 ops, takes about
// two seconds to load; a few hundred MiB, a minute).
const loadNoteBytes = 8 << 20

// setQuiet reads, for a command that has them, --quiet and --format
// (flags, environment or config file, like every setting): notes such as
// "loading ..." are not printed with --quiet, nor with --format json, where
// stderr carries one JSON object.
func (a *app) setQuiet(cmd *cobra.Command) error {
	a.quiet = false
	if cmd.Flags().Lookup("quiet") == nil && cmd.Flags().Lookup("format") == nil {
		return nil
	}
	var o struct {
		Quiet  bool   `mapstructure:"quiet"`
		Format string `mapstructure:"format"`
	}
	if err := bindSettings(cmd, &o); err != nil {
		return err
	}
	a.quiet = o.Quiet || o.Format == "json"
	return nil
}

// noteLoading says on stderr which workload is loading when it is large
// enough to take a while, before it is read.
func (a *app) noteLoading(name string, size int64) {
	if a.quiet || size < loadNoteBytes {
		return
	}
	fmt.Fprintf(a.stderr, "loading %s (%s)...\n", name, fmtBytes(size))
}
