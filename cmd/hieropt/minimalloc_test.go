package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/plan"
)

// TestExportSaysWhatItLeavesOut: exporting one level of a plan that uses
// several says on stderr how many placements it leaves out, in which
// levels, and how many of their blocks never enter the level exported.
// The expected counts are taken from the plan file itself. resnet50-int8
// on h100-sm moves one block between levels (a transfer), so one block has
// placements in two levels.
func TestExportSaysWhatItLeavesOut(t *testing.T) {
	dir := t.TempDir()
	w, h := "resnet50-int8", "h100-sm"
	pf := filepath.Join(dir, "plan.json")
	r := runCLI(t, "", "optimize", "--workload", w, "--hw", h, "-q", "-o", pf)
	require.Equal(t, exitOK, r.code, r.stderr)
	pl, err := plan.ReadFile(pf)
	require.NoError(t, err)
	require.NotEmpty(t, pl.Transfers, "the case needs a block in two levels")
	levels := []string{"SharedMem", "L2", "HBM3"}
	for _, x := range pl.Placements {
		require.Contains(t, levels, x.Level)
	}
	for _, lv := range levels {
		in, other, elsewhere := map[string]bool{}, map[string]int{}, map[string]bool{}
		n := 0
		for _, x := range pl.Placements {
			if x.Level == lv {
				in[x.Block] = true
			} else {
				other[x.Level]++
				elsewhere[x.Block] = true
				n++
			}
		}
		never := 0
		for b := range elsewhere {
			if !in[b] {
				never++
			}
		}
		var where []string
		for _, o := range levels {
			if other[o] > 0 {
				where = append(where, fmt.Sprintf("%d in %s", other[o], o))
			}
		}
		out := filepath.Join(dir, lv+".csv")
		r = runCLI(t, "", "export", "minimalloc", "--workload", w, "--hw", h, pf, "--level", lv, "--in-place", "-o", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		want := fmt.Sprintf("left out: %d placements in other levels (%s) of %d blocks, %d of which are never in %s; --level exports another level\n",
			n, strings.Join(where, ", "), len(elsewhere), never, lv)
		assert.True(t, strings.HasSuffix(r.stderr, want), "%s: %q, want %q", lv, r.stderr, want)
		assert.Equal(t, 2, strings.Count(r.stderr, "\n"), "the wrote line and the left-out line")
	}

	// One level: nothing is left out, nothing more is said.
	hw := repo("testdata", "hw", "one-level-8k.yaml")
	pf = filepath.Join(dir, "one.json")
	r = runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", hw, "-q", "-o", pf)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runCLI(t, "", "export", "minimalloc", "--workload", "seed000-example", "--hw", hw, pf, "--in-place")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
}
