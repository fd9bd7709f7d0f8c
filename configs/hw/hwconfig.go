// Package hwconfig (directory configs/hw) holds hieropt's built-in hardware
// profiles, embedded in the binary, and loads profiles from YAML files
// through viper.
//
// A profile argument is either the path of a YAML file or the name of a
// built-in profile (a file of this directory without its .yaml suffix).
// A path wins when a file of that name exists.
package hwconfig

import (
	"bytes"
	"embed"
	"errors"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/spf13/viper"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
)

//go:embed *.yaml
var builtins embed.FS

// Names returns the names of the built-in profiles, sorted.
func Names() []string {
	entries, err := fs.ReadDir(builtins, ".")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Builtin loads the built-in profile name.
func Builtin(name string) (*hw.Profile, error) {
	data, err := builtins.ReadFile(name + ".yaml")
	if err != nil {
		return nil, inputerr.New(hw.DocName(name), "", "no such file and no built-in profile of that name (built-ins: %s)", strings.Join(Names(), ", "))
	}
	return Parse("builtin:"+name, data)
}

// BuiltinYAML returns the YAML text of the built-in profile name.
func BuiltinYAML(name string) ([]byte, bool) {
	data, err := builtins.ReadFile(name + ".yaml")
	return data, err == nil
}

// Load loads a profile given by file path or built-in name.
func Load(arg string) (*hw.Profile, error) {
	data, err := os.ReadFile(arg)
	if err == nil {
		return Parse(arg, data)
	}
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(arg, `/\`) && path.Ext(arg) == "" {
		return Builtin(arg)
	}
	rule := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		rule = pe.Err.Error()
	}
	return nil, &inputerr.Error{Doc: hw.DocName(arg), Rule: "cannot read: " + rule, Err: err}
}

// Parse decodes a YAML profile document with viper and validates it; file
// names it in errors.
func Parse(file string, data []byte) (*hw.Profile, error) {
	doc := hw.DocName(file)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, inputerr.New(doc, "", "empty document: "+wantMapping)
	}
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		msg := yamlMessage(err)
		if got, ok := notAMapping(msg); ok {
			return nil, &inputerr.Error{Doc: doc, Rule: wantMapping + ", got " + got, Err: err}
		}
		return nil, &inputerr.Error{Doc: doc, Rule: "invalid YAML: " + oneLine(msg), Err: err}
	}
	settings := v.AllSettings()
	if len(settings) == 0 {
		return nil, inputerr.New(doc, "", wantMapping)
	}
	return hw.FromMap(doc, settings)
}

const wantMapping = "want a YAML mapping with format, name, time_unit and levels"

// notAMapping recognizes the YAML error of a document whose top level is not
// a mapping (viper decodes into a map) and says what it is instead.
func notAMapping(msg string) (string, bool) {
	_, rest, ok := strings.Cut(msg, "cannot unmarshal !!")
	if !ok || !strings.Contains(rest, " into map[string]") {
		return "", false
	}
	tag, _, _ := strings.Cut(rest, " ")
	switch tag {
	case "seq":
		return "a list", true
	case "str":
		return "a string", true
	case "int", "float":
		return "a number", true
	case "bool":
		return "a boolean", true
	}
	return "", false
}

// yamlMessage strips viper's wrapper from a YAML parse error.
func yamlMessage(err error) string {
	msg := err.Error()
	for _, p := range []string{"While parsing config: ", "yaml: "} {
		if i := strings.LastIndex(msg, p); i >= 0 {
			msg = msg[i+len(p):]
		}
	}
	return msg
}

// oneLine puts a YAML error on one line. Most are one line already; a
// decoding error lists its problems on the lines after a heading
// ("unmarshal errors:\n  line 7: mapping key ... already defined ..."),
// which are the message: they are joined with "; " and the heading dropped.
func oneLine(s string) string {
	head, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return s
	}
	var parts []string
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return head
	}
	if strings.HasSuffix(head, ":") {
		return strings.Join(parts, "; ")
	}
	return head + ": " + strings.Join(parts, "; ")
}
