package main

import (
	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/workloads"
)

// enableCompletion turns on cobra's completion command (hieropt completion
// bash|zsh|fish|powershell prints the script for that shell) and completes
// --hw and --workload with the built-in names, besides file names.
func enableCompletion(root *cobra.Command) {
	root.CompletionOptions.DisableDefaultCmd = false
	root.CompletionOptions.HiddenDefaultCmd = false
	builtins := map[string]func() []string{
		"hw":       profiles.Names,
		"workload": workloads.Names,
		"base":     profiles.Names, // tune --base
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, names := range builtins {
			if c.LocalNonPersistentFlags().Lookup(name) == nil {
				continue
			}
			_ = c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				// The built-in names, and the shell's file names as well.
				return names(), cobra.ShellCompDirectiveDefault
			})
		}
		for _, sc := range c.Commands() {
			walk(sc)
		}
	}
	walk(root)
}
