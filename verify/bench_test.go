package verify_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt"
	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
)

// BenchmarkCheck checks (rules 1-6, cost.initial not asked) the plan of the
// largest shipped workload on ethos-u55 (resnet50-int8, 459 blocks;
// hieropt.Plan's plan) and of generated mixed programs of 10,000 and
// 100,000 ops on h100-sm (the initializer's plan, in workload order;
// -short: 10,000 only).
func BenchmarkCheck(b *testing.B) {
	prog, err := workload.ReadFile(filepath.Join("..", "workloads", "resnet50-int8.json"))
	require.NoError(b, err)
	prof, err := profiles.Get("ethos-u55")
	require.NoError(b, err)
	res, err := hieropt.Plan(context.Background(), prog, prof, nil)
	require.NoError(b, err)
	benchCheck(b, "resnet50-int8/ethos-u55", res.Problem, res.Plan)

	sizes := []int{10000, 100000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	h100, err := profiles.Get("h100-sm")
	require.NoError(b, err)
	for _, ops := range sizes {
		prog, err := gen.Generate(gen.Options{Ops: ops, Seed: 1})
		require.NoError(b, err)
		p, err := state.Bind(prog, h100, "gen")
		require.NoError(b, err)
		lay := state.NewLayout(p.Blocks())
		_, err = actions.NewInitializer(p).Run(lay, 0)
		require.NoError(b, err)
		pl := lay.Plan(p)
		cost := costmodel.Total(costmodel.Seed003{}, p, lay)
		pl.Cost = plan.Cost{Initial: cost, Final: cost}
		benchCheck(b, fmt.Sprintf("gen-%d/h100-sm (%d blocks)", ops, len(prog.Blocks)), p, pl)
	}
}

func benchCheck(b *testing.B, name string, p *state.Problem, pl *plan.Plan) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rep, err := verify.Check(p.Prog, p.HW, pl, nil)
			if err != nil || !rep.Valid() {
				b.Fatalf("%v %v", err, rep.Violations)
			}
		}
	})
}
