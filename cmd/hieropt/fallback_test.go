package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/pack"
	"github.com/hieropt/hieropt/plan"
)

// TestMiniMallocChallengeRoundTrip: each of MiniMalloc's eleven
// challenging instances, imported as a workload, is planned by optimize
// with its default settings on one level of exactly the instance's
// capacity (testdata/hw/one-level-1MiB.yaml), and the plan exported back
// solves the original problem. The initializer cannot place a block on
// any of them (its best fit fragments the level), so each plan starts from
// the fallback plan, the exact packer at the level's capacity, which the
// summary says and cost.initial prices.
func TestMiniMallocChallengeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	hw := repo("testdata", "hw", "one-level-1MiB.yaml")
	for _, name := range strings.Split("ABCDEFGHIJK", "") {
		t.Run(name, func(t *testing.T) {
			in := repo("testdata", "minimalloc", name+".1048576.csv")
			w := filepath.Join(dir, name+".json")
			r := runCLI(t, "", "import", "minimalloc", in, "-o", w)
			require.Equal(t, exitOK, r.code, r.stderr)

			pl := filepath.Join(dir, name+".plan.json")
			r = runCLI(t, "", "optimize", "--workload", w, "--hw", hw, "--format", "json", "-o", pl)
			require.Equal(t, exitOK, r.code, r.stderr)
			var sum struct {
				Initial  float64 `json:"initial_cost"`
				Fallback *struct {
					Block  string `json:"block"`
					Cause  string `json:"cause"`
					Levels []struct {
						Level  string `json:"level"`
						Blocks int    `json:"blocks"`
						Sent   int    `json:"sent_down"`
					} `json:"levels"`
				} `json:"initial_fallback"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stderr), &sum), r.stderr)
			require.NotNil(t, sum.Fallback, "the summary says cost.initial is the fallback's")
			assert.Contains(t, sum.Fallback.Cause, "fits no level")
			require.Len(t, sum.Fallback.Levels, 1)
			orig := readProblem(t, in)
			assert.Equal(t, "MEM", sum.Fallback.Levels[0].Level)
			assert.Equal(t, len(orig.Buffers), sum.Fallback.Levels[0].Blocks, "every buffer packed into the level")
			assert.Zero(t, sum.Fallback.Levels[0].Sent)
			res := verifyPlan(t, w, hw, pl) // cost.initial included
			assert.Equal(t, res.InitialCost, sum.Initial)
			_, fb, err := actions.InitialCost(context.Background(), testProblem(t, w, hw), costmodel.Seed003{})
			require.NoError(t, err)
			require.NotNil(t, fb, "the checker's cost.initial is the fallback plan's")

			out := filepath.Join(dir, name+".solution.csv")
			r = runCLI(t, "", "export", "minimalloc", "--workload", w, "--hw", hw, pl, "-o", out)
			require.Equal(t, exitOK, r.code, r.stderr)
			orig.Capacity = 1048576
			require.NoError(t, pack.Check(orig, readSolution(t, orig, out)))
		})
	}
}

// TestFallbackPlanners: --no-search writes the fallback plan itself, and
// the pack arena packs to the level's capacity when its least peak within
// its budget is above it (D: max-live 986112 B, and the budgeted
// minimization does not get under 1 MiB); cost.initial is the fallback's
// for both, and the summary says so.
func TestFallbackPlanners(t *testing.T) {
	dir := t.TempDir()
	hw := repo("testdata", "hw", "one-level-1MiB.yaml")
	for _, c := range []struct {
		name, instance string
		opt            []string
		planner        string
	}{
		{"no search", "A", []string{"--no-search"}, "fallback: exact packer at each level's capacity: MEM 154 blocks (1 packing, "},
		{"pack arena", "D", []string{"--initializer", "pack"}, "pack: arena of 1048576 B in level MEM"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := repo("testdata", "minimalloc", c.instance+".1048576.csv")
			w := filepath.Join(dir, c.instance+".json")
			r := runCLI(t, "", "import", "minimalloc", in, "-o", w)
			require.Equal(t, exitOK, r.code, r.stderr)
			pl := filepath.Join(dir, c.instance+".plan.json")
			r = runCLI(t, "", append([]string{"optimize", "--workload", w, "--hw", hw, "-o", pl}, c.opt...)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Contains(t, r.stderr, "\ninitial    the initializer cannot place block ")
			assert.Contains(t, r.stderr, "; the fallback plan (exact packer at each level's capacity: MEM ")
			verifyPlan(t, w, hw, pl)
			got, err := plan.ReadFile(pl)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(got.Planner, c.planner), got.Planner)

			out := filepath.Join(dir, c.instance+".solution.csv")
			r = runCLI(t, "", "export", "minimalloc", "--workload", w, "--hw", hw, pl, "-o", out)
			require.Equal(t, exitOK, r.code, r.stderr)
			orig := readProblem(t, in)
			orig.Capacity = 1048576
			require.NoError(t, pack.Check(orig, readSolution(t, orig, out)))
		})
	}
}
