package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRenderWindow: --from/--to draw a window (timesteps or op names);
// a bad bound is bad input naming the flag and the rule, with no file
// written.
func TestRenderWindow(t *testing.T) {
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.json")
	args := []string{"--workload", "gpt2-small-like-int8", "--hw", seedHW("ethos-u65")}
	r := runCLI(t, "", append([]string{"optimize", "--no-search", "-q", "-o", planFile}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)

	svg := filepath.Join(dir, "w.svg")
	r = runCLI(t, "", append([]string{"render", planFile, "--from", "40", "--to", "80", "-o", svg}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(data), ">timesteps 40–80 of 184 · ")
	// By op names: h_3_ln_1 is timestep 47, add_8 timestep 61.
	r = runCLI(t, "", append([]string{"render", planFile, "--from", "h_3_ln_1", "--to", "add_8", "-o", svg}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err = os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(data), ">timesteps 47–61 of 184 · ")
	r = runCLI(t, "", append([]string{"render", planFile, "--from", "170", "--ascii"}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "14 timesteps [170,183] of 184")

	none := filepath.Join(dir, "none.svg")
	for _, c := range []struct {
		flags []string
		msg   string
	}{
		{[]string{"--from", "184"}, `--from 184: workload "gpt2-small-like-int8" has timesteps 0 to 183`},
		{[]string{"--to", "-1"}, `--to -1: workload "gpt2-small-like-int8" has timesteps 0 to 183`},
		{[]string{"--from", "90", "--to", "80"}, "--from 90 (timestep 90) is after --to 80 (timestep 80): the window would be empty"},
		{[]string{"--from", "h_99_ln_1"}, `--from "h_99_ln_1": not a timestep (0 to 183) nor an op of workload "gpt2-small-like-int8"`},
		{[]string{"--from", "3", "--timeline"}, "--from and --to draw a window of the time-space diagram or the text map, not of --timeline"},
	} {
		r = runCLI(t, "", append(append([]string{"render", planFile, "-o", none}, c.flags...), args...)...)
		assert.Equal(t, exitInput, r.code, "%v: %s", c.flags, r.stderr)
		assert.Contains(t, r.stderr, c.msg)
		assert.NoFileExists(t, none)
	}
}
