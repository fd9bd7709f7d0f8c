package main

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// summaryTop returns the report's summary section up to its cards, as text.
func summaryTop(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	doc := string(data)
	i := strings.Index(doc, `<section id="summary">`)
	require.GreaterOrEqual(t, i, 0)
	j := strings.Index(doc[i:], `<div class="cards">`)
	require.Greater(t, j, 0)
	return html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(doc[i:i+j], ""))
}

var costRE = regexp.MustCompile(`cost bound +([0-9.]+) cycles`)

// TestReportTopSaysStatusAndBound: the first lines of a report say how the
// planner ended and where the plan stands against the cost bound that
// 'hieropt bounds' computes (the same figure); a plan read from a file
// has no recorded status, and the report says so.
func TestReportTopSaysStatusAndBound(t *testing.T) {
	dir := t.TempDir()
	planFile, rep := filepath.Join(dir, "plan.json"), filepath.Join(dir, "r.html")
	r := runCLI(t, "", "optimize", "--workload", "resnet18-int8", "--hw", "ethos-u65", "-o", planFile, "--report", rep)
	require.Equal(t, exitOK, r.code, r.stderr)
	b := runCLI(t, "", "bounds", "--workload", "resnet18-int8", "--hw", "ethos-u65")
	require.Equal(t, exitOK, b.code, b.stderr)
	m := costRE.FindStringSubmatch(b.stdout + b.stderr)
	require.NotNil(t, m, b.stdout)
	bound, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)

	top := summaryTop(t, rep)
	assert.Contains(t, top, "Status: converged.")
	// The bound printed with thousands separators and two decimals.
	want := strconv.FormatFloat(bound, 'f', 2, 64)
	intPart, frac, _ := strings.Cut(want, ".")
	var sep strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			sep.WriteByte(',')
		}
		sep.WriteRune(c)
	}
	assert.Contains(t, top, "Lower bound on the cost: "+sep.String()+"."+frac+" cycles")
	assert.Regexp(t, `the final plan is [0-9.]+% above it and captures [0-9.]+% of what planning can gain`, top)
	// The share captured is the summary's.
	capRE := regexp.MustCompile(`captures ([0-9.]+%) of what planning can gain`)
	sm := capRE.FindStringSubmatch(r.stderr)
	require.NotNil(t, sm, r.stderr)
	assert.Equal(t, sm[1], capRE.FindStringSubmatch(top)[1])

	// The same plan from its file: no status recorded, the same bound.
	rep2 := filepath.Join(dir, "r2.html")
	r = runReport(t, "--workload", "resnet18-int8", "--hw", "ethos-u65", planFile, "-o", rep2)
	require.Equal(t, exitOK, r.code, r.stderr)
	top2 := summaryTop(t, rep2)
	assert.Contains(t, top2, "Status: not recorded in the plan")
	assert.Contains(t, top2, "Lower bound on the cost: "+sep.String()+"."+frac+" cycles")
}

// TestReportTopSaysTimeLimit: a search stopped by its time limit says so
// at the top of its report, where it stopped, and the bound as the
// summary has it (computed, or left out for lack of time).
func TestReportTopSaysTimeLimit(t *testing.T) {
	dir := t.TempDir()
	planFile, rep := filepath.Join(dir, "plan.json"), filepath.Join(dir, "r.html")
	r := runCLI(t, "", "optimize", "--workload", "gpt2-small-like-int8", "--hw", "ethos-u65", "--time-limit", "150ms", "-o", planFile, "--report", rep)
	require.Equal(t, exitOK, r.code, r.stderr)
	top := summaryTop(t, rep)
	if !strings.Contains(r.stderr, "search     time limit") {
		t.Skipf("the search finished within 150 ms on this machine: %s", r.stderr)
	}
	assert.Regexp(t, `Status: time limit \((in the search at timestep [0-9]+ of 184|before the search began[^)]*)\)\.`, top)
	if strings.Contains(r.stderr, "bound      not computed") {
		assert.Contains(t, top, "Lower bound on the cost: not computed: the time limit left no time for it")
	} else {
		assert.Contains(t, top, "the final plan is")
	}
}
