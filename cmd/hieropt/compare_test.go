package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompare: on the built-in Ethos-U55 (timeline model) the search is
// the cheapest valid plan; the single arenas (27-29 MiB) fit no writable
// level (its flash is read-only) and the LRU cache, priced by seed003's
// formulas, has no row; on a seed-model test profile every planner's row.
func TestCompare(t *testing.T) {
	r := runCLI(t, "", "compare", "--workload", "resnet50-int8", "--hw", "ethos-u55", "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var out struct {
		Bound float64 `json:"cost_lower_bound"`
		Rows  []struct {
			Planner    string  `json:"planner"`
			Cost       float64 `json:"cost"`
			Validated  bool    `json:"validated"`
			Infeasible bool    `json:"infeasible"`
		} `json:"planners"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.Len(t, out.Rows, 11)
	var best string
	cheapest := 0.0
	for _, row := range out.Rows {
		if row.Infeasible { // the arenas: larger than the SRAM
			assert.Contains(t, []string{"pack arena", "seed000 arena", "seed001 arena", "seed004 arena", "tflm arena"}, row.Planner)
			continue
		}
		assert.GreaterOrEqual(t, row.Cost, out.Bound, row.Planner)
		if row.Validated && (best == "" || row.Cost < cheapest) {
			best, cheapest = row.Planner, row.Cost
		}
	}
	assert.Equal(t, "search", best, "the full search is the cheapest valid plan")

	r = runCLI(t, "", "compare", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "two-level-5k.yaml"))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "cost lower bound 3354.00")
	// A header and twelve planners (the separator is "|---"); the pack,
	// seed000, seed004 and tflm arenas (5120 B) fit the fast level and
	// reach the bound, as do xla-msa and the search; seed001's block ids
	// need 7 KiB and go to SLOW; seed004-pipeline and resident-all refuse
	// the seed model.
	// TFLM's greedy: 5 (4096 B) at 0; the 2048s in decreasing index order,
	// 3 at 0, 1 at 2048, 0 at 0; the 1024s, 4 above 1 at 4096, 2 above 1
	// at 4096: 5120 B.
	assert.Equal(t, 13, strings.Count(r.stdout, "\n| "), r.stdout)
	assert.Regexp(t, `\| tflm arena +\| 3354.00 +\|[^\n]*\| valid: 5.0 KiB in FAST +\|`, r.stdout)
	assert.Regexp(t, `\| xla-msa +\| 3354.00 +\|`, r.stdout)
	assert.Contains(t, r.stdout, "| not for this model: seed004-pipeline plans for the timeline model (this plan's model is seed003): --cost-model timeline |")
	assert.Regexp(t, `\| not for this model: resident-all plans for the timeline model \(this plan's model is seed003\): --cost-model timeline +\|`, r.stdout)
	assert.Regexp(t, `\| seed001 arena +\| 27274.00 +\|`, r.stdout)
	assert.Regexp(t, `\| pack arena +\| 3354.00 +\|`, r.stdout)
	assert.Contains(t, r.stdout, "valid: 5.0 KiB in FAST")
	// The fastest level's column is its traffic, as in optimize's summary
	// (26.0 KiB for the search's plan, which holds at most 5 KiB there):
	// 13 accesses of 26624 B in all.
	assert.Contains(t, r.stdout, "| FAST traffic |")
	assert.Regexp(t, `\| search +\| 3354.00 +\| [^|]+\| [^|]+\| 100.0% +\| 26.0 KiB +\|`, r.stdout)
	// (27274 - 10618) / (27274 - 3354) = 69.6% of the possible gain.
	assert.Regexp(t, `\| initializer +\| 10618.00 +\| [^|]+\| [^|]+\| 69.6% +\|`, r.stdout)
	assert.NotContains(t, r.stdout, "stall", "a column of the timeline model only")
	o := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "two-level-5k.yaml"))
	require.Equal(t, exitOK, o.code, o.stderr)
	assert.Regexp(t, `\n  FAST +5.0 KiB +5.0 KiB .* 26.0 KiB +3354.00`, o.stderr)
	r = runCLI(t, "", "compare", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "two-level-5k.yaml"), "--format", "csv")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "planner,cost,reduction_vs_no_planning_pct,gap_to_bound_pct,captured,stall,fast_level_traffic_bytes,seconds,validated,note\n"), r.stdout)
	assert.Regexp(t, `\nsearch,3354,[^,]+,[^,]+,1.0000,,26624,`, r.stdout)
}

// TestCompareTimeline: under the timeline model compare has a stall
// column (each plan's stalls, as its breakdown sums them), the LRU cache
// (priced by seed003's formulas) is left out, and no planning is
// described as it places blocks around a read-only level.
func TestCompareTimeline(t *testing.T) {
	r := runCLI(t, "", "compare", "--workload", repo("testdata", "timeline", "tl-workload.json"), "--hw", repo("testdata", "timeline", "tl.yaml"), "--cost-model", "timeline", "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var out struct {
		Model string `json:"cost_model"`
		Rows  []struct {
			Planner  string   `json:"planner"`
			Cost     float64  `json:"cost"`
			Stall    *float64 `json:"stall"`
			Captured *float64 `json:"captured"`
		} `json:"planners"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
	assert.Equal(t, "timeline", out.Model)
	seen := 0
	for _, row := range out.Rows {
		assert.NotEqual(t, "LRU cache", row.Planner)
		if row.Stall == nil {
			continue
		}
		seen++
		assert.GreaterOrEqual(t, *row.Stall, 0.0, row.Planner)
		assert.Less(t, *row.Stall, row.Cost, row.Planner)
		require.NotNil(t, row.Captured, row.Planner)
	}
	assert.Positive(t, seen)
	r = runCLI(t, "", "compare", "--workload", repo("testdata", "timeline", "tl-workload.json"), "--hw", repo("testdata", "timeline", "tl.yaml"), "--cost-model", "timeline")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `\| captured +\| stall +\| FAST traffic`, r.stdout)
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

// TestPipeAndJSON: a compiler writes the workload to hieropt's stdin and
// reads the plan from its stdout; summaries and errors can be JSON.
func TestPipeAndJSON(t *testing.T) {
	data, err := os.ReadFile(repo("workloads", "squeezenet1_1-int8.json"))
	require.NoError(t, err)
	r := runCLI(t, string(data), "optimize", "--workload", "-", "--hw", "ethos-u55", "-o", "-", "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var sum struct {
		Workload string  `json:"workload"`
		Final    float64 `json:"final_cost"`
		Output   string  `json:"plan_file"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &sum), r.stderr)
	assert.Equal(t, "squeezenet1_1-int8", sum.Workload)
	assert.Equal(t, "-", sum.Output)
	// The plan on stdout verifies, read back from stdin.
	v := runCLI(t, r.stdout, "verify", "--workload", "squeezenet1_1-int8", "--hw", "ethos-u55", "--format", "json", "-")
	require.Equal(t, exitOK, v.code, v.stderr)
	var verdict struct {
		Valid bool    `json:"valid"`
		Cost  float64 `json:"recomputed_cost"`
	}
	require.NoError(t, json.Unmarshal([]byte(v.stdout), &verdict))
	assert.True(t, verdict.Valid)
	assert.InDelta(t, sum.Final, verdict.Cost, 1e-9*sum.Final)

	// Errors as one JSON object naming file, item and rule.
	bad := `{"format":"hieropt.workload/v1","name":"x","ops":[{"name":"a"}],"blocks":[{"name":"b","size":0,"kind":"activation","first":0,"last":0,"writes":[0],"reads":[0]}]}`
	r = runCLI(t, bad, "optimize", "--workload", "-", "--hw", "ethos-u55", "-o", "-", "--format", "json")
	assert.Equal(t, exitInput, r.code)
	assert.Empty(t, r.stdout)
	assert.JSONEq(t, `{"error":{"document":"workload","file":"-","item":"block \"b\"","rule":"size 0: must be > 0 bytes","kind":"input","message":"workload \"-\": block \"b\": size 0: must be > 0 bytes","exit_code":2}}`, r.stderr)
	// As written, not as \u003e: a person reads it too.
	assert.Contains(t, r.stderr, `must be > 0 bytes`)
}

func TestMaxMemory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.json")
	// resnet50-int8's JSON is about 72 KB: reading it needs ~720 KB.
	r := runCLI(t, "", "optimize", "--workload", repo("workloads", "resnet50-int8.json"), "--hw", "ethos-u55", "--max-memory", "100K", "-o", out)
	assert.Equal(t, exitInput, r.code)
	assert.Regexp(t, `^hieropt: workload ".*resnet50-int8.json": 72217 bytes to read would need about 705.2 KiB of memory, more than --max-memory \(100.0 KiB\)\n$`, r.stderr)
	assert.NoFileExists(t, out)
	// 1 MiB reads it, but its 459 blocks and 174 ops need ~850 KiB to plan.
	r = runCLI(t, "", "optimize", "--workload", repo("workloads", "resnet50-int8.json"), "--hw", "ethos-u55", "--max-memory", "800K", "-o", out)
	assert.Equal(t, exitInput, r.code, r.stderr)
	data, err := os.ReadFile(repo("workloads", "resnet50-int8.json"))
	require.NoError(t, err)
	t.Setenv("HIEROPT_MAX_MEMORY", "200K")
	r = runCLI(t, string(data), "optimize", "--workload", "-", "--hw", "ethos-u55", "-o", out)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: workload \"-\": more than 20480 bytes on stdin would need more memory than --max-memory (200.0 KiB)\n", r.stderr)
	r = runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "--max-memory", "lots")
	assert.Equal(t, exitInput, r.code)
}

// TestMaxMemoryBuiltin: a built-in workload obeys --max-memory as its file
// does (issue 30 item 6: it was ignored, exit 0), both estimates: reading
// its JSON, then planning its blocks and ops.
func TestMaxMemoryBuiltin(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.json")
	for _, w := range []string{repo("workloads", "resnet50-int8.json"), "resnet50-int8"} {
		doc := w
		if !strings.HasSuffix(w, ".json") {
			doc = "builtin:" + w
		}
		r := runCLI(t, "", "optimize", "--workload", w, "--hw", "ethos-u55", "--max-memory", "100K", "-o", out)
		assert.Equal(t, exitInput, r.code, r.stderr)
		assert.Equal(t, `hieropt: workload "`+doc+`": 72217 bytes to read would need about 705.2 KiB of memory, more than --max-memory (100.0 KiB)`+"\n", r.stderr)
		r = runCLI(t, "", "optimize", "--workload", w, "--hw", "ethos-u55", "--max-memory", "800K", "-o", out)
		assert.Equal(t, exitInput, r.code, r.stderr)
		assert.Equal(t, `hieropt: workload "`+doc+`": planning 174 ops and 459 blocks would need about 862.5 KiB of memory, more than --max-memory (800.0 KiB)`+"\n", r.stderr)
		t.Setenv("HIEROPT_MAX_MEMORY", "1K")
		r = runCLI(t, "", "inspect", "--workload", w)
		assert.Equal(t, exitInput, r.code, r.stderr)
		assert.Contains(t, r.stderr, `hieropt: workload "`+doc+`": 72217 bytes to read`)
		t.Setenv("HIEROPT_MAX_MEMORY", "")
		assert.NoFileExists(t, out)
	}
	// bench's generated programs too.
	r := runCLI(t, "", "bench", "--gen", "2000", "--hw", "ethos-u55", "--max-memory", "1M")
	assert.Equal(t, exitInput, r.code, r.stderr)
	assert.Regexp(t, `^hieropt: workload "gen-[^"]*": planning 2000 ops and \d+ blocks would need about .* of memory, more than --max-memory \(1.0 MiB\)\n$`, r.stderr)
	// Within the limit, a built-in plans.
	r = runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "--max-memory", "1M", "--no-search", "-o", out)
	assert.Equal(t, exitOK, r.code, r.stderr)
}
