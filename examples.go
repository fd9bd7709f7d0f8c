package hieropt

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

// The shipped workloads (testdata/workloads: real networks traced from
// torchvision and a GPT-2-style decoder, and the seed-000 worked example)
// are built into the binary, so that `hieropt optimize --workload
// resnet18-int8 --hw ethos-u55` works with no files at all.
//
//go:embed testdata/workloads/*.json
var exampleFS embed.FS

// ExampleWorkloads returns the names of the built-in workloads, sorted.
func ExampleWorkloads() []string {
	entries, err := fs.ReadDir(exampleFS, "testdata/workloads")
	if err != nil {
		panic(err) // part of the binary
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

// ExampleWorkload returns the JSON of the built-in workload name.
func ExampleWorkload(name string) ([]byte, bool) {
	data, err := exampleFS.ReadFile("testdata/workloads/" + name + ".json")
	return data, err == nil
}
