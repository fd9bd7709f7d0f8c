package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/pack"
)

// writeTrace writes a MiniMalloc CSV of n buffers shaped like a compiler's
// trace (many short-lived buffers, some long-lived), without a capacity.
func writeTrace(t testing.TB, path string, n int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString("id,lower,upper,size\n")
	for i := 0; i < n; i++ {
		lo := r.Int64N(int64(n) / 2)
		life := 1 + r.Int64N(4)
		if r.IntN(10) == 0 {
			life = 1 + r.Int64N(int64(n)/8)
		}
		size := int64(1) << r.IntN(14)
		fmt.Fprintf(&b, "%d,%d,%d,%d\n", i, lo, lo+life, size+r.Int64N(size))
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
}

// TestPackTimeLimitCovers: a limit shorter than what checking and writing
// need leaves the packer no time: it stops in its first pass, which still
// gives a packing, checked and written; the summary names the phase it
// stopped in and its time parts add up to the total. (Before, the limit
// bound only the branch and bound: the greedy portfolio ran in full.)
func TestPackTimeLimitCovers(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "trace.csv"), filepath.Join(dir, "out.csv")
	writeTrace(t, in, 3000, 1)
	r := runCLI(t, "", "pack", in, "--minimize", "--time-limit", "1ns", "--format", "json", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	row := parsePackJSON(t, r.stderr).Inputs[0]
	assert.True(t, row.Solved)
	assert.Equal(t, "first pass", row.Cut)
	assert.Equal(t, 1, row.Greedy, "the first pass only")
	assert.True(t, row.TimeLimitHit)
	tm := row.Times
	assert.InDelta(t, tm.Total, tm.Read+tm.TFLM+tm.First+tm.Index+tm.Greedy+tm.Search+tm.Check+tm.Write, 1e-9)
	assert.InDelta(t, row.Seconds, tm.First+tm.Index+tm.Greedy+tm.Search, 1e-9)
	assert.Zero(t, tm.Index+tm.Greedy+tm.Search, "no phase after the first")
	assert.Positive(t, tm.Write)
	// The TFLM baseline, run first, is cut too (3000 buffers: it asks
	// every 256): no peak.
	assert.Nil(t, row.TFLMPeak)
	assert.Nil(t, row.TFLMSavedPct)
	assert.Equal(t, "cut by the time limit", row.TFLMNote)
	assert.Contains(t, r.stderr, `"tflm_peak":null,"tflm_saved_pct":null,"tflm_note":"cut by the time limit"`)
	p := readProblem(t, in)
	require.NoError(t, pack.Check(p, readSolution(t, p, out)))

	// The text summary says the same in words.
	r = runCLI(t, "", "pack", in, "--minimize", "--time-limit", "1ns")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "\nTFLM       - (TFLite Micro's greedy planner: cut by the time limit)\n")
	assert.Regexp(t, `(?m)^time       .*: read .*, TFLM .*, first pass .*, index 0 µs, greedy 0 µs, search 0 µs, check .*, write 0 µs; `+
		`the time limit stopped the packer in its first pass phase \(the phases after it did not run\)$`, r.stderr)
}

// optimizeTimeLine parses the summary's time line, "time       TOTAL
// (name D, name D, ...)", into the total and the parts.
func optimizeTimeLine(t *testing.T, stderr string) (time.Duration, map[string]time.Duration, []string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^time       (\S+) \((.*)\)$`).FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	total, err := time.ParseDuration(m[1])
	require.NoError(t, err)
	parts := map[string]time.Duration{}
	var names []string
	for _, p := range strings.Split(m[2], ", ") {
		name, d, ok := strings.Cut(p, " ")
		require.True(t, ok, p)
		v, err := time.ParseDuration(d)
		require.NoError(t, err, p)
		parts[name] = v
		names = append(names, name)
	}
	return total, parts, names
}

// TestOptimizeTimeLimitCovers: --time-limit is the whole command's. With a
// limit that loading alone uses up, the initializer's plan is written,
// valid; the time line lists every part (they add up to the total) and the
// limit line says where the limit fell. (Before, the limit bound the
// search alone, and the summary did not say where it fell.)
func TestOptimizeTimeLimitCovers(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "plan.json")
	r := runCLI(t, "", "optimize", "--workload", "resnet50-int8", "--hw", "ethos-u55", "--time-limit", "1ns", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	verifyPlan(t, "resnet50-int8", "ethos-u55", out)
	total, parts, names := optimizeTimeLine(t, r.stderr)
	assert.Equal(t, []string{"load", "initializer", "search", "repack", "validate", "write", "summary"}, names)
	var sum time.Duration
	for _, d := range parts {
		sum += d
	}
	// Each figure is rounded to the microsecond.
	assert.InDelta(t, total.Seconds(), sum.Seconds(), 5e-6, r.stderr)
	assert.Regexp(t, `(?m)^limit      1ns: the planner had 0s of it \(after loading .*\); it ran out before the search began: `+
		`the start plan, no search; repacking skipped; no time left for the cost bound; the command went \S+ over it$`, r.stderr)
	assert.Contains(t, r.stderr, "bound      not computed: the time limit left no time for it")

	// The JSON summary: the parts add up, and the cut is named.
	r = runCLI(t, "", "optimize", "--workload", "resnet50-int8", "--hw", "ethos-u55", "--time-limit", "1ns", "--format", "json", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	var js struct {
		Seconds float64    `json:"seconds"`
		Times   timesJSON  `json:"times"`
		Limit   *limitJSON `json:"time_limit"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &js), r.stderr)
	var s float64
	for _, name := range js.Times.Order {
		s += js.Times.Parts[name]
	}
	assert.InDelta(t, js.Times.Total, s, 1e-9)
	assert.Equal(t, js.Times.Total, js.Seconds)
	require.NotNil(t, js.Limit)
	assert.Equal(t, "initializer", js.Limit.Cut)
	assert.True(t, js.Limit.RepackSkipped)
	verifyPlan(t, "resnet50-int8", "ethos-u55", out)

	// Without a limit: the same parts, and no limit line.
	r = runCLI(t, "", "optimize", "--workload", "resnet50-int8", "--hw", "ethos-u55")
	require.Equal(t, exitOK, r.code, r.stderr)
	_, _, names = optimizeTimeLine(t, r.stderr)
	assert.Equal(t, []string{"load", "initializer", "search", "repack", "validate", "write", "summary"}, names)
	assert.NotContains(t, r.stderr, "\nlimit ")
	assert.Regexp(t, `(?m)^bound      [0-9.]+ cycles`, r.stderr)
}
