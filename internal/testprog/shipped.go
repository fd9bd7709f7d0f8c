package testprog

import (
	"path/filepath"
	"testing"

	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// ShippedPairs returns every shipped workload (root/workloads)
// bound to every built-in profile that can hold it (Bind succeeds and
// CheckCapacity passes): the pairs the tests that cover "every shipped
// workload on every built-in profile" run on, workloads in file order,
// profiles in name order. p.Prog.Name and p.HW.Name say which pair it is.
func ShippedPairs(t testing.TB, root string) []*state.Problem {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "workloads", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped workloads under %s: %v", root, err)
	}
	var out []*state.Problem
	for _, f := range files {
		prog, err := workload.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range profiles.Names() {
			prof, err := profiles.Get(h)
			if err != nil {
				t.Fatal(err)
			}
			p, err := state.Bind(prog, prof, f)
			if err != nil || p.CheckCapacity() != nil {
				continue
			}
			out = append(out, p)
		}
	}
	return out
}
