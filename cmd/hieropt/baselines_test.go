package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBaselinePlannersCLI: --initializer names issue 15's baselines;
// their plans on the built-in Ethos-U55 (timeline model) pass verify; compare has a
// row for each, and on a seed-model profile the pipeline's row says it
// plans for the timeline model only.
func TestBaselinePlannersCLI(t *testing.T) {
	dir := t.TempDir()
	prof := "ethos-u55"
	seed := seedHW("ethos-u55")
	for _, pl := range []string{"seed004-pipeline", "xla-msa"} {
		out := filepath.Join(dir, pl+".json")
		r := runCLI(t, "", "optimize", "--workload", "squeezenet1_1-int8", "--hw", prof, "--initializer", pl, "-o", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Regexp(t, `\nplanner +`+pl+`: `, r.stderr)
		assert.Contains(t, r.stderr, "(timeline model)")
		// hieropt verify binds the problem for the plan's model (the
		// test helper verifyPlan binds it for the seed's).
		v := runCLI(t, "", "verify", "--workload", "squeezenet1_1-int8", "--hw", prof, out)
		require.Equal(t, exitOK, v.code, v.stdout+v.stderr)
	}
	r := runCLI(t, "", "optimize", "--workload", "squeezenet1_1-int8", "--hw", seed, "--initializer", "seed004-pipeline", "-o", filepath.Join(dir, "no.json"))
	assert.NotEqual(t, exitOK, r.code)
	assert.Contains(t, r.stderr, "seed004-pipeline plans for the timeline model (this plan's model is seed003): --cost-model timeline")
	assert.NoFileExists(t, filepath.Join(dir, "no.json"))
	r = runCLI(t, "", "optimize", "--workload", "squeezenet1_1-int8", "--hw", "ethos-u55", "--initializer", "xla-pipeline")
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, `--initializer "xla-pipeline" is not known (known: seed003, pack, seed000, seed001, seed004, tflm, seed004-pipeline, xla-msa)`)

	r = runCLI(t, "", "compare", "--workload", "squeezenet1_1-int8", "--hw", prof)
	require.Equal(t, exitOK, r.code, r.stderr)
	// Its bound is the timeline bound, as hieropt bounds prints it (it was
	// the access bound alone, 2452601.75, below the compute time).
	bd := runCLI(t, "", "bounds", "--workload", "squeezenet1_1-int8", "--hw", prof)
	require.Equal(t, exitOK, bd.code, bd.stderr)
	cb := regexp.MustCompile(`cost bound +([0-9.]+) cycles \(per op max\(compute, least access cost\)`).FindStringSubmatch(bd.stdout)
	require.NotNil(t, cb, bd.stdout)
	assert.Contains(t, r.stdout, "(timeline model, costs in cycles; cost lower bound "+cb[1]+")")
	for _, pl := range []string{"seed004-pipeline", "xla-msa"} {
		m := regexp.MustCompile(`\| ` + pl + ` +\| ([0-9.]+) +\|.*\| valid: ` + pl + `: `).FindStringSubmatch(r.stdout)
		require.NotNil(t, m, "%s\n%s", pl, r.stdout)
		cost, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		assert.Positive(t, cost)
	}

	// bench: a row per pair, the pipeline's plan costlier than cost.initial
	// on this profile (it is a baseline, not the search), and under the
	// seed model a row that says why there is none.
	r = runCLI(t, "", "bench", "--workloads", "squeezenet1_1-int8", "--hw", seed+","+prof, "--initializer", "seed004-pipeline", "--format", "csv")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "not for this model: seed004-pipeline plans for the timeline model")
	assert.Regexp(t, `\nsqueezenet1_1-int8,ethos-u55-seed003,[^\n]*,not for this model: seed004-pipeline plans for the timeline model`, r.stdout)
	assert.Regexp(t, `\nsqueezenet1_1-int8,ethos-u55,[0-9.]+,[0-9.]+,[^\n]*,valid,[0-9.]+,[-0-9.]+\n`, r.stdout)
}
