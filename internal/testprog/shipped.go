package testprog

import (
	"path/filepath"
	"testing"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// ShippedPairs returns every shipped workload (root/workloads)
// bound to every built-in profile's seed-model copy (root/testdata/hw/
// seed003/NAME.yaml, the built-in's levels without compute, dma,
// read-only levels or cost_model) that can hold it (Bind succeeds and
// CheckCapacity passes): the pairs the tests of the seed model's
// behaviour on "every shipped workload on every built-in profile" run on,
// bound, as state.Bind binds without Semantics, under the seed's
// semantics. Workloads in file order, profiles in name order;
// p.Prog.Name and p.HW.Name (NAME-seed003) say which pair it is. The
// built-in profiles themselves name the timeline model; the tests of
// those plan them with hieropt.Plan, which binds under the profile's
// model.
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
			prof, err := hw.ReadFile(filepath.Join(root, "testdata", "hw", "seed003", h+".yaml"))
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
