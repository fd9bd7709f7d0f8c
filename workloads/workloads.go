// Package workloads is hieropt's built-in workloads: real networks traced
// from torchvision (ResNet-18/50, MobileNetV2, SqueezeNet 1.1, ViT-B/16, in
// fp32 and int8) and a GPT-2-style decoder, and the six-op worked example
// of seed 000. The JSON files are this directory's NAME.json, embedded in
// the binary; README.md says how they were made and what they hold. Get
// parses one with workload.Parse.
//
// Package profiles is the same for hardware profiles: Names and Get.
package workloads

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

//go:embed *.json
var files embed.FS

// Names returns the names of the built-in workloads, sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// JSON returns the JSON text of the built-in workload name.
func JSON(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, `/\`) || path.Ext(name) != "" {
		return nil, false
	}
	data, err := files.ReadFile(name + ".json")
	return data, err == nil
}

// Get returns the built-in workload name, parsed and validated. Errors name
// the document "builtin:NAME".
func Get(name string) (*workload.Program, error) {
	data, ok := JSON(name)
	if !ok {
		return nil, inputerr.New(workload.DocName(name), "", "no built-in workload of that name (built-ins: %s)", strings.Join(Names(), ", "))
	}
	return workload.Parse("builtin:"+name, data)
}
