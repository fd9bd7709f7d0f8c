package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/hieropt/hieropt/inputerr"
)

// bindSettings fills out (a struct with mapstructure tags named after the
// command's flags) from, in order of precedence: flags given on the command
// line, HIEROPT_* environment variables, the command's section of the config
// file, and the flags' defaults. Each call uses its own viper instance.
func bindSettings(cmd *cobra.Command, out any) error {
	v := viper.New()
	v.SetEnvPrefix("HIEROPT")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if err := v.BindPFlags(cmd.Flags()); err != nil {
		return internalErrorf("binding flags: %v", err)
	}
	cfg := v.GetString("config")
	if cfg != "" {
		section, err := configSection(cmd, cfg)
		if err != nil {
			return err
		}
		if err := v.MergeConfigMap(section); err != nil {
			return internalErrorf("merging config: %v", err)
		}
	}
	if err := v.Unmarshal(out); err != nil {
		return usageErrorf("settings of %q: %s", cmd.Name(), oneLine(err.Error()))
	}
	return nil
}

// noteConfig records the config file that bindSettings will read (--config,
// else HIEROPT_CONFIG) as an input of the command, which no output may
// replace.
func (a *app) noteConfig(cmd *cobra.Command) {
	file, _ := cmd.Flags().GetString("config")
	if !cmd.Flags().Changed("config") {
		file = os.Getenv("HIEROPT_CONFIG")
	}
	a.noteInput(inputerr.Doc("config", file), file)
}

// configSection reads the config file and returns the section of cmd,
// rejecting unknown sections and settings so that a typo is never ignored.
func configSection(cmd *cobra.Command, file string) (map[string]any, error) {
	doc := inputerr.Doc("config", file)
	if _, err := os.Stat(file); err != nil {
		return nil, inputerr.New(doc, "", "cannot read: %v", errorText(err))
	}
	fv := viper.New()
	fv.SetConfigFile(file)
	if !strings.HasSuffix(file, ".yaml") && !strings.HasSuffix(file, ".yml") && !strings.HasSuffix(file, ".json") && !strings.HasSuffix(file, ".toml") {
		fv.SetConfigType("yaml")
	}
	if err := fv.ReadInConfig(); err != nil {
		return nil, inputerr.New(doc, "", "invalid config: %s", oneLine(err.Error()))
	}
	known := map[string]bool{}
	for _, c := range cmd.Root().Commands() {
		known[c.Name()] = true
	}
	all := fv.AllSettings()
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !known[k] {
			return nil, inputerr.New(doc, k, "unknown section: sections are command names (%s)", strings.Join(commandNames(cmd.Root()), ", "))
		}
	}
	// A subcommand's section sits inside its parent's: import: {onnx: {...}}.
	var path []*cobra.Command
	for c := cmd; c != nil && c != cmd.Root(); c = c.Parent() {
		path = append([]*cobra.Command{c}, path...)
	}
	cur, name := all, ""
	var settings map[string]any
	for i, c := range path {
		if name != "" {
			name += "."
		}
		name += c.Name()
		raw, ok := cur[c.Name()]
		if !ok {
			return map[string]any{}, nil
		}
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, inputerr.New(doc, name, "want a mapping of settings, got %T", raw)
		}
		own, err := sectionSettings(doc, name, c, m)
		if err != nil {
			return nil, err
		}
		if i == len(path)-1 {
			settings = own
		}
		cur = m
	}
	return settings, nil
}

// sectionSettings checks the keys of c's section (named name, e.g.
// "import.onnx"): each is a flag of c or a subcommand's section. It returns
// the flags' settings.
func sectionSettings(doc, name string, c *cobra.Command, section map[string]any) (map[string]any, error) {
	keys := make([]string, 0, len(section))
	for k := range section {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	subs := map[string]bool{}
	for _, sc := range c.Commands() {
		subs[sc.Name()] = true
	}
	settings := map[string]any{}
	for _, k := range keys {
		if subs[k] {
			continue // the subcommand's own section
		}
		if f := c.Flags().Lookup(k); f == nil || k == "config" || k == "help" {
			what := strings.Join(flagNames(c.Flags()), ", ")
			if len(subs) > 0 {
				what += "; or a section for " + strings.Join(commandNames(c), ", ")
			}
			return nil, inputerr.New(doc, name+"."+k, "unknown setting: %s takes %s", strings.ReplaceAll(name, ".", " "), what)
		}
		settings[k] = section[k]
	}
	return settings, nil
}

func commandNames(parent *cobra.Command) []string {
	var out []string
	for _, c := range parent.Commands() {
		out = append(out, c.Name())
	}
	sort.Strings(out)
	return out
}

func flagNames(fs *pflag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name != "config" && f.Name != "help" {
			out = append(out, f.Name)
		}
	})
	return out
}

// errorText is the system's reason in err, without the paths that
// messages name themselves (a rename's error names the temporary file).
func errorText(err error) string {
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return pe.Err.Error()
	}
	if le := (*os.LinkError)(nil); errors.As(err, &le) {
		return le.Err.Error()
	}
	return fmt.Sprint(err)
}
