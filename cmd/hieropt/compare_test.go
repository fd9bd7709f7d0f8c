package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompare(t *testing.T) {
	r := runCLI(t, "", "compare", "--workload", "resnet50-int8", "--hw", "ethos-u55", "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var out struct {
		Bound float64 `json:"cost_lower_bound"`
		Rows  []struct {
			Planner   string  `json:"planner"`
			Cost      float64 `json:"cost"`
			Validated bool    `json:"validated"`
		} `json:"planners"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.Len(t, out.Rows, 7)
	var best string
	cheapest := 0.0
	for _, row := range out.Rows {
		assert.GreaterOrEqual(t, row.Cost, out.Bound, row.Planner)
		if row.Validated && (best == "" || row.Cost < cheapest) {
			best, cheapest = row.Planner, row.Cost
		}
	}
	assert.Equal(t, "search", best, "the full search is the cheapest valid plan")

	r = runCLI(t, "", "compare", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "two-level-5k.yaml"))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "cost lower bound 3354.00")
	// A header and seven planners (the separator is "|---"); seed000's and seed004's
	// arenas (5120 B) fit the fast level and reach the bound, as does the
	// search; seed001's block ids need 7 KiB and go to SLOW.
	assert.Equal(t, 8, strings.Count(r.stdout, "\n| "), r.stdout)
	assert.Contains(t, r.stdout, "| seed001 arena | 27274.00 |")
}

func TestBoundsCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	hw := repo("testdata", "hw", "two-level-5k.yaml")
	r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", hw, "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	// No planning: 13 accesses in SLOW at 50 + d over 26624 bytes =
	// 650 + 26624 = 27274.
	assert.Contains(t, r.stderr, "bound      3354.00 cycles (per-timestep LP; no planning costs 27274.00): the plan captures 100.0% of what planning can gain")
	r = runCLI(t, "", "bounds", "--workload", "seed000-example", "--hw", hw, "--plan", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "cost bound   3354.00 cycles")
	assert.Contains(t, r.stdout, "plan         3354.00 cycles: 0.0% above the bound; captures 100.0% of what planning can gain")
}
