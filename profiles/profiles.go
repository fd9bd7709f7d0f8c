// Package profiles is hieropt's built-in hardware profiles: real devices
// (Arm Ethos-U55/U65, Huawei Ascend 910, NVIDIA H100, Google TPU v4,
// Kendryte K210, an Intel Sapphire Rapids core, Espressif ESP32-S3), each with the public
// sources of its figures in its description. The YAML files are
// configs/hw/NAME.yaml, embedded in the binary; Get parses one with
// hw.Parse.
//
// Package workloads is the same for workloads: Names and Get.
package profiles

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	hwconfig "github.com/hieropt/hieropt/configs/hw"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
)

// Names returns the names of the built-in profiles, sorted.
func Names() []string {
	entries, err := fs.ReadDir(hwconfig.Files, ".")
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

// YAML returns the YAML text of the built-in profile name.
func YAML(name string) ([]byte, bool) {
	if !isName(name) {
		return nil, false
	}
	data, err := hwconfig.Files.ReadFile(name + ".yaml")
	return data, err == nil
}

// Get returns the built-in profile name, parsed and validated. Errors name
// the document "builtin:NAME".
func Get(name string) (*hw.Profile, error) {
	data, ok := YAML(name)
	if !ok {
		return nil, inputerr.New(hw.DocName(name), "", "no built-in profile of that name (built-ins: %s)", strings.Join(Names(), ", "))
	}
	return hw.Parse("builtin:"+name, data)
}

// Load returns the profile arg names: the YAML file at that path, or, when
// there is no such file and arg looks like a name (no directory, no
// extension), the built-in profile of that name. A path wins when a file
// of that name exists.
func Load(arg string) (*hw.Profile, error) {
	p, err := hw.ReadFile(arg)
	if err != nil && errors.Is(err, fs.ErrNotExist) && isName(arg) {
		if _, ok := YAML(arg); ok {
			return Get(arg)
		}
		return nil, inputerr.New(hw.DocName(arg), "", "no such file and no built-in profile of that name (built-ins: %s)", strings.Join(Names(), ", "))
	}
	return p, err
}

// isName reports whether arg can name a built-in: no directory separator
// and no extension.
func isName(arg string) bool {
	return arg != "" && !strings.ContainsAny(arg, `/\`) && path.Ext(arg) == ""
}
