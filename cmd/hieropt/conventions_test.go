package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// conventionPlans writes the no-search and the searched plan of
// seed000-example on k210, for the commands that read plans.
func conventionPlans(t *testing.T) (dir, initial, final string) {
	t.Helper()
	dir = t.TempDir()
	initial, final = filepath.Join(dir, "initial.json"), filepath.Join(dir, "final.json")
	r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", "k210", "--no-search", "-q", "-o", initial)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", "k210", "-q", "-o", final)
	require.Equal(t, exitOK, r.code, r.stderr)
	return dir, initial, final
}

// TestFormatJSONEveryCommand: every command that reports results takes
// --format json and prints one valid JSON document: on stdout, or for
// optimize and pack (whose stdout may carry the plan) on stderr.
func TestFormatJSONEveryCommand(t *testing.T) {
	dir, initial, final := conventionPlans(t)
	wl := []string{"--workload", "seed000-example", "--hw", "k210"}
	with := func(args ...string) []string { return append(append([]string(nil), wl...), args...) }
	for _, c := range []struct {
		name     string
		args     []string
		onStderr bool
	}{
		{"verify", append([]string{"verify"}, with(final)...), false},
		{"verify --model", []string{"verify", "--model", repo("testdata", "tflite", "hello_world_int8.tflite")}, false},
		{"optimize", append([]string{"optimize"}, with("--no-search", "-o", filepath.Join(dir, "o.json"))...), true},
		{"pack", []string{"pack", repo("testdata", "minimalloc", "input.12.csv")}, true},
		{"compare", append([]string{"compare"}, with("--no-search")...), false},
		{"bench", []string{"bench", "--workload", "seed000-example", "--hw", "k210", "--no-search"}, false},
		{"bounds", append([]string{"bounds"}, wl...), false},
		{"bounds --plan", append([]string{"bounds"}, with("--plan", final)...), false},
		{"inspect", []string{"inspect", "--workload", "seed000-example"}, false},
		{"inspect --hw", append([]string{"inspect"}, wl...), false},
		{"inspect --list", []string{"inspect", "--list"}, false},
		{"diff", append([]string{"diff"}, with(initial, final)...), false},
		{"profiles", []string{"profiles"}, false},
		{"profiles NAME", []string{"profiles", "k210"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, "", append(c.args, "--format", "json")...)
			require.Equal(t, exitOK, r.code, r.stderr)
			doc, other := r.stdout, r.stderr
			if c.onStderr {
				doc, other = r.stderr, r.stdout
			}
			assert.True(t, json.Valid([]byte(doc)), "not JSON: %q", doc)
			// One document: a JSON object and nothing after it.
			dec := json.NewDecoder(strings.NewReader(doc))
			var v map[string]any
			require.NoError(t, dec.Decode(&v), doc)
			assert.ErrorIs(t, dec.Decode(&v), io.EOF, doc)
			assert.Empty(t, other)
		})
	}
	// A workload that does not fit: inspect --hw says so in JSON, exit 1.
	r := runCLI(t, "", "inspect", "--workload", "resnet50-int8", "--hw", "k210", "--format", "json")
	assert.Equal(t, exitFailed, r.code, r.stderr)
	var fit struct {
		Fits struct {
			Fits   bool   `json:"fits"`
			Reason string `json:"reason"`
		} `json:"fits"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &fit), r.stdout)
	assert.False(t, fit.Fits.Fits)
	assert.NotEmpty(t, fit.Fits.Reason)
	assert.Empty(t, r.stderr)
}

// TestFormatNames: text is every reporting command's default; the old
// names (compare's table, bench's md) still work as text; a wrong name is
// a usage error naming the formats.
func TestFormatNames(t *testing.T) {
	wl := []string{"--workload", "seed000-example", "--hw", "k210"}
	firstLine := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	for _, cmd := range [][]string{
		append([]string{"compare", "--no-search"}, wl...),
		{"bench", "--workload", "seed000-example", "--hw", "k210", "--no-search"},
	} {
		def := runCLI(t, "", cmd...)
		require.Equal(t, exitOK, def.code, def.stderr)
		for _, f := range []string{"text", "md", "table"} {
			if cmd[0] == "bench" && f == "table" {
				continue
			}
			r := runCLI(t, "", append(cmd, "--format", f)...)
			require.Equal(t, exitOK, r.code, "%s --format %s: %s", cmd[0], f, r.stderr)
			// The rows hold planning times: the heading must match.
			assert.Equal(t, firstLine(def.stdout), firstLine(r.stdout), "%s --format %s", cmd[0], f)
		}
	}
	r := runCLI(t, "", append([]string{"bounds", "--format", "csv"}, wl...)...)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: --format \"csv\": want text or json\nRun 'hieropt bounds --help' for usage.\n", r.stderr)
	r = runCLI(t, "", append([]string{"compare", "--format", "grid"}, wl...)...)
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, `--format "grid": want text, csv or json`)
}

// TestWorkloadFlagLists: bench and sweep take --workload as a list
// (comma-separated or repeated); --workloads, the old spelling, still
// works, from the command line, the environment and the config file.
func TestWorkloadFlagLists(t *testing.T) {
	rows := func(r result) []string {
		t.Helper()
		require.Equal(t, exitOK, r.code, r.stderr)
		var out struct {
			Rows []struct {
				Workload string `json:"workload"`
			} `json:"rows"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &out), r.stdout)
		var ws []string
		for _, row := range out.Rows {
			ws = append(ws, row.Workload)
		}
		return ws
	}
	bench := []string{"bench", "--hw", "k210", "--no-search", "--format", "json"}
	both := []string{"seed000-example", "squeezenet1_1-int8"}
	assert.Equal(t, both, rows(runCLI(t, "", append(bench, "--workload", strings.Join(both, ","))...)))
	assert.Equal(t, both, rows(runCLI(t, "", append(bench, "--workload", both[0], "--workload", both[1])...)))
	assert.Equal(t, both[:1], rows(runCLI(t, "", append(bench, "--workloads", both[0])...)))

	cfg := filepath.Join(t.TempDir(), "cfg.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("bench:\n  workloads: ["+both[0]+"]\n"), 0o644))
	assert.Equal(t, both[:1], rows(runCLI(t, "", append(bench, "--config", cfg)...)))
	t.Setenv("HIEROPT_WORKLOADS", both[0])
	assert.Equal(t, both[:1], rows(runCLI(t, "", bench...)))
	t.Setenv("HIEROPT_WORKLOADS", "")

	// sweep: the same rows under either spelling (the seconds column aside).
	csvRows := func(r result) []string {
		t.Helper()
		require.Equal(t, exitOK, r.code, r.stderr)
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			f := strings.Split(l, ",")
			out = append(out, strings.Join(f[:5], ","))
		}
		return out
	}
	sweep := []string{"sweep", "--hw", "k210", "--set", "beam=1,2", "-q"}
	a := csvRows(runCLI(t, "", append(sweep, "--workload", "seed000-example")...))
	b := csvRows(runCLI(t, "", append(sweep, "--workloads", "seed000-example")...))
	assert.Equal(t, a, b)
	assert.Len(t, a, 3) // header and two runs
}

// TestDocumentsGoToStdout: sweep, sweep merge and report write their
// document to stdout without -o; sweep's summary then goes to stderr.
func TestDocumentsGoToStdout(t *testing.T) {
	r := runCLI(t, "", "sweep", "--workload", "seed000-example", "--hw", "k210", "--set", "beam=1,2")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "run,runs,workload,profile,"), r.stdout)
	assert.Contains(t, r.stderr, "2 of the grid's 2 runs (1 workload x 1 profile x 2 setting combinations)")

	shard := filepath.Join(t.TempDir(), "runs.csv")
	require.NoError(t, os.WriteFile(shard, []byte(r.stdout), 0o644))
	m := runCLI(t, "", "sweep", "merge", shard)
	require.Equal(t, exitOK, m.code, m.stderr)
	assert.Equal(t, r.stdout, m.stdout)
	assert.Contains(t, m.stderr, "merged 1 file: the grid's 2 runs")

	_, _, final := conventionPlans(t)
	r = runCLI(t, "", "report", "--workload", "seed000-example", "--hw", "k210", final)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "<!DOCTYPE html>"), r.stdout[:min(len(r.stdout), 80)])
}

// TestQuietEverywhere: every command takes -q, which drops its notes on
// stderr (here: import's and export's "wrote FILE").
func TestQuietEverywhere(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() != "minimalloc" || c.Parent() != root { // MiniMalloc's own flags
			f := c.Flag("quiet")
			if assert.NotNil(t, f, c.CommandPath()) {
				assert.Equal(t, "q", f.Shorthand, c.CommandPath())
			}
		}
		for _, sc := range c.Commands() {
			walk(sc)
		}
	}
	walk(root)

	dir := t.TempDir()
	out := filepath.Join(dir, "w.json")
	in := repo("testdata", "minimalloc", "input.12.csv")
	r := runCLI(t, "", "import", "minimalloc", in, "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "wrote "+out)
	r = runCLI(t, "", "import", "minimalloc", in, "-o", out, "-q")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)

	_, _, final := conventionPlans(t)
	mm := filepath.Join(dir, "map.csv")
	r = runCLI(t, "", "export", "memmap", "--workload", "seed000-example", "--hw", "k210", final, "-o", mm, "--quiet")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.FileExists(t, mm)

	r = runCLI(t, "", "--help")
	require.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "Conventions shared by the commands:")
}
