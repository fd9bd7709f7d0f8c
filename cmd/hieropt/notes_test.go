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

// TestLoadingNote: a workload of 8 MiB or more is announced on stderr
// before it is read, with its size; not with --quiet (flag or
// environment), not with --format json (stderr is one JSON object), and
// not for a small workload. The large workload here is seed000-example
// padded with 9 MiB of JSON whitespace.
func TestLoadingNote(t *testing.T) {
	data, err := os.ReadFile(repo("workloads", "seed000-example.json"))
	require.NoError(t, err)
	big := string(data) + strings.Repeat(" ", 9<<20)
	file := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(file, []byte(big), 0o644))
	note := "loading " + file + " (" + fmtBytes(int64(len(big))) + ")...\n"
	require.Equal(t, "9.0 MiB", fmtBytes(int64(len(big))))
	hw := repo("testdata", "hw", "one-level-8k.yaml")

	r := runCLI(t, "", "inspect", "--workload", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, note, r.stderr)
	r = runCLI(t, "", "optimize", "--workload", file, "--hw", hw, "--no-search")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stderr, note), r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "loading "))
	r = runCLI(t, big, "optimize", "--workload", "-", "--hw", hw, "--no-search")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stderr, "loading the workload on stdin (9.0 MiB)...\n"), r.stderr)

	r = runCLI(t, "", "optimize", "--workload", file, "--hw", hw, "--no-search", "-q")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	r = runCLI(t, "", "optimize", "--workload", file, "--hw", hw, "--no-search", "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var sum map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &sum), "stderr is one JSON object: %q", r.stderr[:min(len(r.stderr), 200)])
	t.Setenv("HIEROPT_QUIET", "1")
	r = runCLI(t, "", "optimize", "--workload", file, "--hw", hw, "--no-search")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	t.Setenv("HIEROPT_QUIET", "")

	r = runCLI(t, "", "inspect", "--workload", repo("workloads", "seed000-example.json"))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
}
