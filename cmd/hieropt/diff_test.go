package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/plan"
)

// TestDiffCommand: diff of resnet50-int8's initializer plan and the
// search's (the Ethos-U55's seed-model copy) states both plans' costs as
// their files do, lists the changed blocks with the savings and why the
// blocks left in flash are there, writes the same bytes twice, finds
// nothing between a plan and itself, and refuses a plan of another
// workload (exit 2, one line, no file).
func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	ini, fin := filepath.Join(dir, "initial.json"), filepath.Join(dir, "final.json")
	args := []string{"--workload", "resnet50-int8", "--hw", seedHW("ethos-u55")}
	r := runCLI(t, "", append([]string{"optimize", "--no-search", "-q", "-o", ini}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runCLI(t, "", append([]string{"optimize", "-q", "-o", fin}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	pi, err := plan.ReadFile(ini)
	require.NoError(t, err)
	pf, err := plan.ReadFile(fin)
	require.NoError(t, err)

	out := filepath.Join(dir, "diff.txt")
	r = runCLI(t, "", append([]string{"diff", ini, fin, "--top", "0", "-o", out}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	doc := string(data)
	lines := strings.Split(doc, "\n")
	assert.InDelta(t, pi.Cost.Final, diffCost(t, lines[0], "A: "+ini+", cost "), 0.005)
	assert.InDelta(t, pf.Cost.Final, diffCost(t, lines[1], "B: "+fin+", cost "), 0.005)
	assert.InDelta(t, pi.Cost.Final-pf.Cost.Final, diffCost(t, lines[2], "B saves "), 0.005)
	assert.Contains(t, doc, "conv1.im2col")
	assert.Contains(t, doc, "why OffChipFlash, not SRAM, ")
	assert.Contains(t, doc, "did not fit in SRAM at timestep ")
	assert.NotContains(t, doc, "more changed blocks")

	again := filepath.Join(dir, "again.txt")
	r = runCLI(t, "", append([]string{"diff", ini, fin, "--top", "0", "-o", again}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data2, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, doc, string(data2), "deterministic")

	r = runCLI(t, "", append([]string{"diff", fin, fin}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "0 blocks placed differently")

	none := filepath.Join(dir, "none.txt")
	r = runCLI(t, "", "diff", "--workload", "resnet18-int8", "--hw", seedHW("ethos-u55"), ini, fin, "-o", none)
	assert.Equal(t, exitInput, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(r.stderr), "\n")+1, "one line: %s", r.stderr)
	assert.Contains(t, r.stderr, "initial.json")
	assert.NoFileExists(t, none)
}

// diffCost reads the cost after prefix in a line of diff's summary:
// "A: a.json, cost 88,667,567.00 cycles".
func diffCost(t *testing.T, line, prefix string) float64 {
	t.Helper()
	require.True(t, strings.HasPrefix(line, prefix), "%q starts with %q", line, prefix)
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.Fields(line[len(prefix):])[0], ",", ""), 64)
	require.NoError(t, err, line)
	return v
}
