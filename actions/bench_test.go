package actions_test

import (
	"path/filepath"
	"testing"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// u55Problems binds every shipped workload that fits Ethos-U55, its
// seed-model copy (testdata/hw/seed003: no read-only flash; the built-in
// names the timeline model), under the seed's semantics.
func u55Problems(b *testing.B) []*state.Problem {
	b.Helper()
	prof, err := hw.ReadFile(filepath.Join("..", "testdata", "hw", "seed003", "ethos-u55.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "workloads", "*.json"))
	if err != nil {
		b.Fatal(err)
	}
	var out []*state.Problem
	for _, f := range files {
		prog, err := workload.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		p, err := state.Bind(prog, prof, f)
		if err != nil || p.CheckCapacity() != nil {
			continue
		}
		out = append(out, p)
	}
	return out
}

// BenchmarkInitializer times the initializer on each shipped workload that
// fits Ethos-U55, and on all of them in turn ("all"): the target is well
// under a second for "all".
func BenchmarkInitializer(b *testing.B) {
	probs := u55Problems(b)
	for _, p := range probs {
		b.Run(p.Prog.Name, func(b *testing.B) {
			in := actions.NewInitializer(p)
			for i := 0; i < b.N; i++ {
				lay := state.NewLayout(p.Blocks())
				if _, err := in.Run(lay, 0); err != nil {
					b.Skip(err) // infeasible on this device
				}
			}
		})
	}
	b.Run("all", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, p := range probs {
				lay := state.NewLayout(p.Blocks())
				_, _ = actions.NewInitializer(p).Run(lay, 0)
			}
		}
	})
}
