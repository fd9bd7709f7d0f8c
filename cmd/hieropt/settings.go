package main

import (
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
	raw, ok := all[cmd.Name()]
	if !ok {
		return map[string]any{}, nil
	}
	section, ok := raw.(map[string]any)
	if !ok {
		return nil, inputerr.New(doc, cmd.Name(), "want a mapping of settings, got %T", raw)
	}
	skeys := make([]string, 0, len(section))
	for k := range section {
		skeys = append(skeys, k)
	}
	sort.Strings(skeys)
	for _, k := range skeys {
		if f := cmd.Flags().Lookup(k); f == nil || k == "config" || k == "help" {
			return nil, inputerr.New(doc, cmd.Name()+"."+k, "unknown setting: %s takes %s", cmd.Name(), strings.Join(flagNames(cmd.Flags()), ", "))
		}
	}
	return section, nil
}

func commandNames(root *cobra.Command) []string {
	var out []string
	for _, c := range root.Commands() {
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

func errorText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return fmt.Sprint(err)
}
