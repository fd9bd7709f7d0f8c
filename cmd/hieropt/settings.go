package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

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
	var section map[string]any
	if cfg != "" {
		var err error
		if section, err = configSection(cmd, cfg); err != nil {
			return err
		}
		if err := v.MergeConfigMap(section); err != nil {
			return internalErrorf("merging config: %v", err)
		}
	}
	if err := v.Unmarshal(out); err != nil {
		if bad := badSetting(cmd, v, cfg, section); bad != nil {
			return bad
		}
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

// flagRule returns the rule of a flag's error message after the flag's
// name: ": rule", or " VALUE: rule" or " VALUE rule" with VALUE bare or
// quoted; a leading "is " is dropped ("is not known" becomes "not known").
func flagRule(tail string) string {
	switch {
	case strings.HasPrefix(tail, ":"):
		tail = tail[1:]
	case strings.HasPrefix(tail, " \""):
		q, err := strconv.QuotedPrefix(tail[1:])
		if err != nil {
			return ""
		}
		tail = strings.TrimPrefix(tail[1+len(q):], ":")
	case strings.HasPrefix(tail, " "):
		i := strings.IndexAny(tail[1:], " :")
		if i < 0 {
			return ""
		}
		tail = strings.TrimPrefix(tail[1+i:], ":")
	}
	return strings.TrimPrefix(strings.TrimSpace(tail), "is ")
}

// envName is the environment variable that sets flag name.
func envName(name string) string {
	return "HIEROPT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// badSetting finds the setting that v cannot decode, after Unmarshal
// failed, and says where it came from, its value and what its flag takes:
// `HIEROPT_BEAM="abc": not an integer (--beam: ...)`, exit 2; or, from the
// config file, an input error naming the file and the key. A flag given on
// the command line was parsed by its own type already. nil if none is
// found.
func badSetting(cmd *cobra.Command, v *viper.Viper, cfg string, section map[string]any) error {
	var found error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if found != nil || f.Changed {
			return
		}
		target, want := settingTarget(f.Value.Type())
		if target == nil || v.UnmarshalKey(f.Name, target) == nil {
			return
		}
		rule := fmt.Sprintf("not %s (--%s: %s)", want, f.Name, oneLine(f.Usage))
		if env := envName(f.Name); os.Getenv(env) != "" {
			found = &exitError{exitInput, fmt.Errorf("%s=%q: %s", env, os.Getenv(env), rule)}
			return
		}
		if raw, ok := section[f.Name]; ok {
			value := fmt.Sprintf("%v", raw)
			if s, isString := raw.(string); isString {
				value = strconv.Quote(s)
			}
			found = inputerr.New(inputerr.Doc("config", cfg), sectionName(cmd)+"."+f.Name, "%s: %s", value, rule)
		}
	})
	return found
}

// settingTarget returns a pointer to decode a flag of pflag type typ into,
// and what the flag takes, in words; nil for a type any value suits.
func settingTarget(typ string) (any, string) {
	switch typ {
	case "int", "int64":
		return new(int64), "an integer"
	case "uint64", "uint":
		return new(uint64), "an integer >= 0"
	case "bool":
		return new(bool), "true or false"
	case "duration":
		return new(time.Duration), "a duration (e.g. 90s, 5m, 1h)"
	case "float64":
		return new(float64), "a number"
	case "intSlice":
		return new([]int), "a list of integers"
	}
	return nil, ""
}

// sectionName is cmd's section in the config file: its path below the
// root, joined by dots (import.onnx).
func sectionName(cmd *cobra.Command) string {
	var path []string
	for c := cmd; c != nil && c != cmd.Root(); c = c.Parent() {
		path = append([]string{c.Name()}, path...)
	}
	return strings.Join(path, ".")
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

// fromSource rewrites a usage error about a flag ("--beam -5: want ...")
// whose value the command line did not give: it names where the value came
// from instead, the environment variable (`HIEROPT_BEAM="-5": want ...
// (--beam)`, exit 2, one line) or the config file (an input error naming
// the file and the key). Any other error is returned as it is.
func fromSource(cmd *cobra.Command, err error) error {
	var ue *usageError
	if cmd == nil || !errors.As(err, &ue) {
		return err
	}
	msg := oneLine(err.Error())
	rest, ok := strings.CutPrefix(msg, "--")
	if !ok {
		return err
	}
	end := strings.IndexAny(rest, " :")
	if end <= 0 {
		return err
	}
	name := rest[:end]
	f := cmd.Flags().Lookup(name)
	rule := flagRule(rest[end:])
	if f == nil || f.Changed || rule == "" {
		return err
	}
	if env := envName(name); os.Getenv(env) != "" {
		return &exitError{exitInput, fmt.Errorf("%s=%q: %s (--%s)", env, os.Getenv(env), rule, name)}
	}
	cfg := os.Getenv("HIEROPT_CONFIG")
	if c := cmd.Flags().Lookup("config"); c != nil && c.Changed {
		cfg = c.Value.String()
	}
	if cfg != "" {
		if section, serr := configSection(cmd, cfg); serr == nil {
			if raw, ok := section[name]; ok {
				value := fmt.Sprintf("%v", raw)
				if s, isString := raw.(string); isString {
					value = strconv.Quote(s)
				}
				return inputerr.New(inputerr.Doc("config", cfg), sectionName(cmd)+"."+name, "%s: %s (--%s)", value, rule, name)
			}
		}
	}
	return err
}

// invalidFlag matches pflag's error for a value its flag's type cannot
// parse: invalid argument "abc" for "--beam" flag: strconv.ParseInt: ...
var invalidFlag = regexp.MustCompile(`^invalid argument ("(?:[^"\\]|\\.)*") for "(?:-\w, )?--([\w-]+)" flag: `)

// flagError is the root's flag error function: a usage error; a value its
// flag's type cannot parse is said as the environment's and the config
// file's are (`--beam "abc": not an integer (...)`), not in strconv's words.
func flagError(cmd *cobra.Command, err error) error {
	if m := invalidFlag.FindStringSubmatch(err.Error()); m != nil {
		if f := cmd.Flags().Lookup(m[2]); f != nil {
			if _, want := settingTarget(f.Value.Type()); want != "" {
				return asUsage(fmt.Errorf("--%s %s: not %s (%s)", f.Name, m[1], want, oneLine(f.Usage)))
			}
		}
	}
	return asUsage(err)
}
