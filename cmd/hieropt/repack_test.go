package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/plan"
)

// The fragmented case of package repack: the search leaves a block in
// SLOW (3444 cycles), repacking puts everything in FAST (1556, the bound).
func fragmented() (workloadFile, hwFile string) {
	return repo("repack", "testdata", "fragmented.json"), repo("repack", "testdata", "two-level-4k.yaml")
}

func TestRepackFlag(t *testing.T) {
	dir := t.TempDir()
	w, hw := fragmented()
	on := filepath.Join(dir, "on.json")
	r := runCLI(t, "", "optimize", "--workload", w, "--hw", hw, "-o", on)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "cost       1556.00 cycles")
	assert.Contains(t, r.stderr, "repack     1 block promoted into faster levels (0 into free space; 1 packing, 0 candidates screened out by max-live): 1888.00 cycles less")
	verifyPlan(t, w, hw, on)
	pl, err := plan.ReadFile(on)
	require.NoError(t, err)
	assert.NotContains(t, pl.Planner, "repack", "the default is not named")

	off := filepath.Join(dir, "off.json")
	r = runCLI(t, "", "optimize", "--workload", w, "--hw", hw, "--repack", "0", "-o", off)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "cost       3444.00 cycles")
	assert.NotContains(t, r.stderr, "repack     ")
	verifyPlan(t, w, hw, off)
	pl, err = plan.ReadFile(off)
	require.NoError(t, err)
	assert.Contains(t, pl.Planner, " repack=off")

	r = runCLI(t, "", "optimize", "--workload", w, "--hw", hw, "--repack", "4")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "max-candidates=4 repack=4\n")

	r = runCLI(t, "", "optimize", "--workload", w, "--hw", hw, "--repack", "-1")
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, "hieropt: --repack -1: want a number >= 0 (0 = off)\n")

	// From the environment, like every flag.
	t.Setenv("HIEROPT_REPACK", "0")
	r = runCLI(t, "", "optimize", "--workload", w, "--hw", hw)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "cost       3444.00 cycles")
}

// TestBenchRepack: bench takes --repack like every search flag.
func TestBenchRepack(t *testing.T) {
	w, hw := fragmented()
	final := func(args ...string) string {
		t.Helper()
		r := runCLI(t, "", append([]string{"bench", "--workloads", w, "--hw", hw, "--format", "csv"}, args...)...)
		require.Equal(t, exitOK, r.code, r.stderr)
		recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
		require.NoError(t, err)
		require.Len(t, recs, 2)
		assert.Equal(t, "valid", recs[1][9])
		return recs[1][3]
	}
	assert.Equal(t, "1556", final())
	assert.Equal(t, "3444", final("--repack", "0"))
}

// TestRepackDeterministic: the plan's bytes do not depend on the run or
// on the number of workers, with repacking on (squeezenet1_1-int8 on
// ascend910-core promotes blocks with and without packings).
func TestRepackDeterministic(t *testing.T) {
	dir := t.TempDir()
	var first []byte
	for i, j := range []string{"1", "2", "2"} {
		out := filepath.Join(dir, "p.json")
		r := runCLI(t, "", "optimize", "--workload", "squeezenet1_1-int8", "--hw", "ascend910-core", "-j", j, "-o", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		require.Regexp(t, `repack     \d+ blocks promoted`, r.stderr)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		if first == nil {
			first = data
			verifyPlan(t, "squeezenet1_1-int8", "ascend910-core", out)
			continue
		}
		require.Equal(t, string(first), string(data), "run %d (-j %s) differs", i, j)
	}
}

// TestPackInitializer: the pack arena planner is an --initializer like the
// seeds' (and compare lists it): the seed-000 example's optimal arena,
// 5120 B, in the 8 KiB level and in the 5 KiB fast level.
func TestPackInitializer(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ hw, level string }{{"one-level-8k.yaml", "MEM"}, {"two-level-5k.yaml", "FAST"}} {
		out := filepath.Join(dir, c.hw+".json")
		hw := repo("testdata", "hw", c.hw)
		r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", hw, "--initializer", "pack", "-o", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stderr, "planner    pack: arena of 5120 B in level "+c.level)
		verifyPlan(t, "seed000-example", hw, out)
	}
	r := runCLI(t, "", "optimize", "--help")
	require.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "a baseline planner, without search (a single arena: pack, hieropt's exact packer; seed000, seed001, seed004, the seeds'; tflm, TFLite Micro's runtime planner; "+
		"seed004-pipeline, seed 004's pipelined weights; xla-msa, an XLA-style memory-space assignment): pack, seed000, seed001, seed004, tflm, seed004-pipeline, xla-msa")
}
