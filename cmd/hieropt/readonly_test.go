package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/plan"
)

// TestOptimizeReadOnlyLevel: on a profile whose slow level is read-only
// (testdata/hw/two-level-ro.yaml: constants only, FORMATS.md rule 7), the
// seed-000 example (no constants) is planned in the fast level alone, and
// the plan passes verify; with the fast level too small for its live
// blocks, the answer is the capacity error on one line and no plan file,
// not a plan that writes to the read-only level.
func TestOptimizeReadOnlyLevel(t *testing.T) {
	dir := t.TempDir()
	prof := repo("testdata", "hw", "two-level-ro.yaml")
	out := filepath.Join(dir, "plan.json")
	r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", prof, "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	verifyPlan(t, "seed000-example", prof, out)
	pl, err := plan.ReadFile(out)
	require.NoError(t, err)
	for _, p := range pl.Placements {
		assert.Equal(t, "FAST", p.Level, "block %q", p.Block)
	}

	data, err := os.ReadFile(prof)
	require.NoError(t, err)
	small := filepath.Join(dir, "small.yaml")
	require.NoError(t, os.WriteFile(small, []byte(strings.Replace(string(data), "capacity: 5120", "capacity: 4096", 1)), 0o644))
	out2 := filepath.Join(dir, "none.json")
	r = runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", small, "-o", out2)
	assert.Equal(t, exitFailed, r.code)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	assert.Equal(t, `hieropt: workload "seed000-example" cannot fit hardware profile "two-level-ro": at timestep 2 its live blocks other than constants need at least 5120 B but the writable levels hold 4096 B in total (FAST 4096 B; read-only SLOW holds constants only); largest live blocks: "op0.out" (2048 B), "op1.out" (2048 B), "op2.out" (1024 B)`, lines[len(lines)-1])
	assert.NoFileExists(t, out2)
}

// TestSummaryWritableLevels: the summary's max-live line counts what blocks
// other than constants can use apart from the read-only levels: on
// two-level-ro (FAST 5120 B over a read-only SLOW of 1 MiB) the levels hold
// 1.0 MiB + 5.0 KiB, the writable ones 5.0 KiB, which is the figure the
// seed-000 example's max-live (5120 B) must fit. A profile without a
// read-only level keeps the one figure.
func TestSummaryWritableLevels(t *testing.T) {
	r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "two-level-ro.yaml"), "--no-search")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "max-live   5120 B (in-place aware 5120 B) at timestep 2: no plan keeps fewer bytes live; "+
		"the levels hold 1.0 MiB; the writable levels, for blocks other than constants, 5.0 KiB\n")
	r = runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "two-level-5k.yaml"), "--no-search")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "no plan keeps fewer bytes live; the levels hold 1.0 MiB\n")
}
