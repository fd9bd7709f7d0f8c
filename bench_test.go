package hieropt_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/workload"
)

// benchPair is a program and a profile to plan.
type benchPair struct {
	prog *workload.Program
	prof *hw.Profile
}

// seedPair is prog on the seed-model copy of the built-in profile hwName
// (testdata/hw/seed003/NAME.yaml: its levels, no compute, dma, read-only
// level or cost_model): the seed model's speed targets, measured on the
// profiles they were set on. The built-ins name the timeline model
// (BenchmarkTimelineTargets).
func seedPair(b *testing.B, prog *workload.Program, hwName string) benchPair {
	b.Helper()
	return benchPair{prog, profileFile(b, filepath.Join("seed003", hwName))}
}

// builtinPair is prog on the built-in profile hwName, as users get it
// (the timeline model).
func builtinPair(b *testing.B, prog *workload.Program, hwName string) benchPair {
	b.Helper()
	prof, err := profiles.Get(hwName)
	if err != nil {
		b.Fatal(err)
	}
	return benchPair{prog, prof}
}

func shipped(b *testing.B, name string) *workload.Program {
	b.Helper()
	prog, err := workload.ReadFile(filepath.Join("workloads", name+".json"))
	if err != nil {
		b.Fatal(err)
	}
	return prog
}

func runPlan(b *testing.B, pp benchPair, s *hieropt.Settings) {
	b.Helper()
	for i := 0; i < b.N; i++ {
		if _, err := hieropt.Plan(context.Background(), pp.prog, pp.prof, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTargets are the speed targets of Plan with default settings
// (binding, the search, repacking and the plan's check) under the seed
// model, on the built-in profiles' seed-model copies (seedPair):
// resnet50-int8 on Ethos-U55 under 1 s, gpt2-small-like-int8 under 2 s, a
// generated 1,000-op program under 20 s.
func BenchmarkTargets(b *testing.B) {
	b.Run("resnet50-int8/ethos-u55-seed003", func(b *testing.B) {
		runPlan(b, seedPair(b, shipped(b, "resnet50-int8"), "ethos-u55"), nil)
	})
	b.Run("gpt2-small-like-int8/ethos-u55-seed003", func(b *testing.B) {
		runPlan(b, seedPair(b, shipped(b, "gpt2-small-like-int8"), "ethos-u55"), nil)
	})
	b.Run("gen-mixed-1000/h100-sm-seed003", func(b *testing.B) {
		prog, err := gen.Generate(gen.Options{Ops: 1000, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		runPlan(b, seedPair(b, prog, "h100-sm"), nil)
	})
}

// BenchmarkScaling times Plan on generated programs (mixed CNN and
// transformer stages, weights as constants) of growing length on h100-sm
// (its seed-model copy), the only built-in profile whose HBM holds the
// weights of 100,000 ops.
// Time should grow no faster than about T^1.2.
func BenchmarkScaling(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			if n > 10000 && testing.Short() {
				b.Skip("a search of half a minute; CI runs every benchmark once with -short")
			}
			prog, err := gen.Generate(gen.Options{Ops: n, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			runPlan(b, seedPair(b, prog, "h100-sm"), nil)
		})
	}
}

// BenchmarkCores times Plan with default settings on a generated
// 4,000-op program on h100-sm (its seed-model copy): run it with -cpu 1,2 (one core, then two; the workers
// follow GOMAXPROCS) to compare. Two cores should be at least 1.7 times
// as fast. This measures the library with the process's GC settings
// (GOGC=100 unless set); the command line keeps a 64 MB heap floor
// (internal/heapgoal), which `hieropt bench --cores 1,2` measures.
func BenchmarkCores(b *testing.B) {
	prog, err := gen.Generate(gen.Options{Ops: 4000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	runPlan(b, seedPair(b, prog, "h100-sm"), nil)
}

// profileFile reads a profile from testdata/hw.
func profileFile(b *testing.B, name string) *hw.Profile {
	b.Helper()
	prof, err := hw.ReadFile(filepath.Join("testdata", "hw", name+".yaml"))
	if err != nil {
		b.Fatal(err)
	}
	return prof
}

// BenchmarkTimelineTargets are the speed targets of Plan under the
// timeline model (issue 15), on the built-in profiles (which name it):
// resnet50-int8 on Ethos-U55 under 1 s, a generated 1,000-op program
// under 20 s.
func BenchmarkTimelineTargets(b *testing.B) {
	b.Run("resnet50-int8/ethos-u55", func(b *testing.B) {
		runPlan(b, builtinPair(b, shipped(b, "resnet50-int8"), "ethos-u55"), nil)
	})
	b.Run("gen-mixed-1000/h100-sm", func(b *testing.B) {
		prog, err := gen.Generate(gen.Options{Ops: 1000, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		runPlan(b, builtinPair(b, prog, "h100-sm"), nil)
	})
}

// BenchmarkTimelineScaling is BenchmarkScaling under the timeline model
// (the built-in h100-sm): time should grow no faster than about T^1.2.
func BenchmarkTimelineScaling(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			if n > 1000 && testing.Short() {
				b.Skip("minutes; CI runs every benchmark once with -short")
			}
			prog, err := gen.Generate(gen.Options{Ops: n, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			runPlan(b, builtinPair(b, prog, "h100-sm"), nil)
		})
	}
}
