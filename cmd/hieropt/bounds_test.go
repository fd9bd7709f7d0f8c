package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/verify"
)

// The timeline test problem (testdata/timeline): five 64-B blocks' worth
// of accesses on FAST (in/out 1 + 64/4 = 17), SLOW (10 + 64 = 74) and a
// read-only FLASH (20 + 64/2 = 52), 2 MACs per cycle after 1 cycle per op:
//
//	op  macs  c(t)  accesses        m*(t)  max   no planning (x, a, y in SLOW,
//	0    64   33    read x, write a  34     34     weights in FLASH): m(t)
//	1     0    1    read a, w1       34     34    74 + 74 = 148
//	2   128   65    write a, read w3 34     65    74 + 52 = 126
//	3    32   17    read a, w2,      51     51    74 + 52 = 126
//	                write y                       74 + 52 + 74 = 200
//	4     0    1    read y           17     17    74
//
// Everything fits FAST, so m*(t) is every access there (no linear
// program): the access bound is 34 + 34 + 34 + 51 + 17 = 170 and the
// timeline bound 34 + 34 + 65 + 51 + 17 = 201, op 2 compute-bound. No
// planning never waits for compute: 148 + 126 + 126 + 200 + 74 = 674 (the
// seed model's no planning too). The hand plan costs 376: it captures
// (674 - 376) / (674 - 201) = 298/473 = 63.0% of what planning can gain,
// 175/201 = 87.1% above the bound.
var (
	tlWorkload = repo("testdata", "timeline", "tl-workload.json")
	tlProfile  = repo("testdata", "timeline", "tl.yaml")
	tlPlan     = repo("testdata", "timeline", "tl-plan.json")
)

// TestBoundsTimeline: on a profile that names the timeline model, bounds
// uses it unless --cost-model says otherwise, and prints the timeline
// bound; under the seed model, the profile's compute section adds the
// timeline bound's line; a timeline plan is measured against the timeline
// bound whatever --cost-model says.
func TestBoundsTimeline(t *testing.T) {
	r := runCLI(t, "", "bounds", "--workload", tlWorkload, "--hw", tlProfile)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, `bounds of tl on tl (timeline model)
max-live     192 B (192 B) at timestep 1
level  capacity  must spill below it
FAST   1.0 KiB   0 B
SLOW   4.0 KiB   0 B
FLASH  64.0 KiB  0 B
access bound 170.00 cycles (the least access costs alone; 0 of 5 timesteps needed a linear program)
cost bound   201.00 cycles (per op max(compute, least access cost); 1 of 5 ops compute-bound)
no planning  674.00 cycles (every block in the slowest level it may use, no copies)
`, r.stdout)

	r = runCLI(t, "", "bounds", "--workload", tlWorkload, "--hw", tlProfile, "--cost-model", "seed003")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "bounds of tl on tl (seed003 model)\n"), r.stdout)
	assert.Contains(t, r.stdout, `
cost bound   170.00 cycles (0 of 5 timesteps needed a linear program)
no planning  674.00 cycles (every block in the slowest level it may use)
timeline     bound 201.00 cycles (per op max(compute, least access cost); 1 of 5 ops compute-bound), no planning 674.00
`)

	for _, model := range []string{"timeline", "seed003"} {
		r = runCLI(t, "", "bounds", "--workload", tlWorkload, "--hw", tlProfile, "--cost-model", model, "--plan", tlPlan)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.True(t, strings.HasSuffix(r.stdout,
			"plan         376.00 cycles: 87.1% above the bound; captures 63.0% of what planning can gain\n"), r.stdout)
		if model == "seed003" {
			assert.Contains(t, r.stdout, "\nplan model   timeline: its cost bound 201.00 cycles, no planning 674.00\n")
		}
	}
}

// TestBoundsModelOfTheProfile: without --cost-model, bounds prices with
// the profile's cost_model, as optimize does (it priced with seed003
// whatever the profile named).
func TestBoundsModelOfTheProfile(t *testing.T) {
	data, err := os.ReadFile(repo("testdata", "hw", "two-level-5k.yaml"))
	require.NoError(t, err)
	prof := filepath.Join(t.TempDir(), "vela.yaml")
	require.NoError(t, os.WriteFile(prof, []byte(strings.Replace(string(data), "time_unit:", "cost_model: vela-dma\ntime_unit:", 1)), 0o644))
	r := runCLI(t, "", "bounds", "--workload", "seed000-example", "--hw", prof)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "bounds of seed000-example on two-level-5k (vela-dma model)\n"), r.stdout)
	r = runCLI(t, "", "bounds", "--workload", "seed000-example", "--hw", prof, "--cost-model", "seed003")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "bounds of seed000-example on two-level-5k (seed003 model)\n"), r.stdout)
	assert.NotContains(t, r.stdout, "timeline", "a profile without compute gets no timeline bound under the seed model")

	require.NoError(t, os.WriteFile(prof, []byte(strings.Replace(string(data), "time_unit:", "cost_model: nope\ntime_unit:", 1)), 0o644))
	r = runCLI(t, "", "bounds", "--workload", "seed000-example", "--hw", prof)
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, `hardware profile "two-level-5k": cost_model "nope" is not known (known: `)
}

// TestBoundLineTimeline: the optimize summary's bound line for a timeline
// plan is the timeline bound, its no planning the timeline's (the numbers
// of the table above).
func TestBoundLineTimeline(t *testing.T) {
	p := testProblem(t, tlWorkload, tlProfile)
	assert.Equal(t, "201.00 cycles (per op max(compute, least access cost); 1 of 5 ops compute-bound; no planning costs 674.00): "+
		"the plan captures 63.0% of what planning can gain", boundLine(context.Background(), p, "timeline", 376))
	// Under the seed model: (674 - 376) / (674 - 170) = 298/504 = 59.1%.
	assert.Equal(t, "170.00 cycles (per-timestep LP; no planning costs 674.00): the plan captures 59.1% of what planning can gain",
		boundLine(context.Background(), p, "seed003", 376))
}

// TestOptimizeSummaryTimelineBound: optimize's summary, text and JSON,
// gives a timeline plan the timeline bound (201) and the timeline's no
// planning (674), and the share of the gain its cost captures. It runs once
// the timeline cost model is registered (issue 15).
func TestOptimizeSummaryTimelineBound(t *testing.T) {
	if _, ok := costmodel.Lookup(verify.TimelineModel); !ok {
		t.Skip("the timeline cost model is not registered yet")
	}
	args := []string{"optimize", "--workload", tlWorkload, "--hw", tlProfile}
	r := runCLI(t, "", args...)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "(timeline model)")
	assert.Regexp(t, `\nbound      201\.00 cycles \(per op max\(compute, least access cost\); 1 of 5 ops compute-bound; no planning costs 674\.00\): the plan captures [0-9.]+% of what planning can gain\n`, r.stderr)
	r = runCLI(t, "", append(args, "--format", "json")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	var sum struct {
		Final      float64  `json:"final_cost"`
		Bound      *float64 `json:"cost_lower_bound"`
		NoPlanning float64  `json:"no_planning_cost"`
		Captured   *float64 `json:"captured"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &sum), r.stderr)
	require.NotNil(t, sum.Bound)
	assert.Equal(t, 201.0, *sum.Bound)
	assert.Equal(t, 674.0, sum.NoPlanning)
	require.NotNil(t, sum.Captured)
	assert.InDelta(t, (674-sum.Final)/(674-201), *sum.Captured, 1e-12)
	assert.GreaterOrEqual(t, sum.Final, 201.0)
}

// Where capacities bind across timesteps, the whole-program bound is above
// the per-timestep one: bounds prints both and takes it, and the plan is
// measured against it.
func TestBoundsWholeProgram(t *testing.T) {
	dir := t.TempDir()
	hw := repo("testdata", "hw", "seed003", "ethos-u55.yaml")
	pl := filepath.Join(dir, "p.json")
	require.Equal(t, exitOK, runCLI(t, "", "optimize", "-q", "--workload", "resnet50-int8", "--hw", hw, "-o", pl).code)
	r := runCLI(t, "", "bounds", "--workload", "resnet50-int8", "--hw", hw, "--plan", pl)
	require.Equal(t, exitOK, r.code, r.stderr)
	num := func(prefix string) float64 {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(prefix) + `\s+([0-9.]+)`).FindStringSubmatch(r.stdout)
		require.NotNil(t, m, "%q in\n%s", prefix, r.stdout)
		v, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		return v
	}
	bound, whole, step := num("cost bound"), num("  whole"), num("  per step")
	assert.Contains(t, r.stdout, "(whole-program bound: the better of the two below)")
	assert.Equal(t, whole, bound)
	assert.Greater(t, whole, step)
	plan := num("plan")
	assert.LessOrEqual(t, bound, plan)
}
