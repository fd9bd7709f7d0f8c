package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSegmentsAtChecked: every --segments at: list that names no segment
// end of the program is refused alike, exit 2 and one line naming the
// value and the rule (issue 30 item 8: at:999 was accepted and ignored,
// at:5,3 sorted silently, at:-4 alone refused).
func TestSegmentsAtChecked(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.json")
	for _, c := range []struct{ spec, want string }{
		{"at:999", `hieropt: --segments "at:999": timestep 999 is past the program's last timestep, 67 (it has 68 ops)`},
		{"at:5,3", `hieropt: --segments "at:5,3": timestep 3 comes after 5 (want increasing order)`},
		{"at:3,3", `hieropt: --segments "at:3,3": timestep 3 is given twice (want each once, in increasing order)`},
		{"at:-4", `hieropt: --segments "at:-4": "-4" is not a timestep`},
	} {
		r := runCLI(t, "", "optimize", "--workload", "resnet18-int8", "--hw", "ethos-u55", "--segments", c.spec, "-o", out)
		assert.Equal(t, exitInput, r.code, r.stderr)
		assert.Equal(t, c.want+"\nRun 'hieropt optimize --help' for usage.\n", r.stderr)
		assert.NoFileExists(t, out)
	}
	r := runCLI(t, "", "optimize", "--workload", "resnet18-int8", "--hw", "ethos-u55", "--segments", "at:3,67", "--beam", "1", "-o", out)
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.Contains(r.stderr, "segments=at:3,67"), r.stderr)
}

// beamUsage is --beam's help text, which its errors quote.
const beamUsage = "candidate states kept inside a segment, cheapest first; -1 = unbounded (the seed's exact behaviour)"

// TestSettingSources: a bad setting's error names where the value came
// from, the value and what is expected, exit 2: the environment variable
// in one line (issue 30 item 7: HIEROPT_BEAM=abc printed viper's
// "decoding failed due to the following error(s): 'beam' cannot parse
// value as 'int': strconv.ParseInt..." and no variable), the config file
// and its key, or the flag (no strconv words).
func TestSettingSources(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	args := []string{"optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "--quiet", "-o", out}
	for _, c := range []struct{ env, value, want string }{
		{"HIEROPT_BEAM", "abc", `hieropt: HIEROPT_BEAM="abc": not an integer (--beam: ` + beamUsage + `)`},
		{"HIEROPT_BEAM", "1.5", `hieropt: HIEROPT_BEAM="1.5": not an integer (--beam: ` + beamUsage + `)`},
		{"HIEROPT_NO_SEARCH", "maybe", `hieropt: HIEROPT_NO_SEARCH="maybe": not true or false (--no-search: plan with the initializer alone)`},
		{"HIEROPT_TIME_LIMIT", "soon", `hieropt: HIEROPT_TIME_LIMIT="soon": not a duration (e.g. 90s, 5m, 1h) (--time-limit: `},
		// Values of the right type that break their flag's rule.
		{"HIEROPT_BEAM", "-5", `hieropt: HIEROPT_BEAM="-5": want a positive number, or -1 for unbounded (--beam)`},
		{"HIEROPT_COST_MODEL", "nope", `hieropt: HIEROPT_COST_MODEL="nope": not known (known: seed003, timeline, vela-dma) (--cost-model)`},
		{"HIEROPT_SEGMENTS", "at:5,3", `hieropt: HIEROPT_SEGMENTS="at:5,3": timestep 3 comes after 5 (want increasing order) (--segments)`},
		{"HIEROPT_MAX_MEMORY", "lots", `hieropt: HIEROPT_MAX_MEMORY="lots": "lots" is not a size (e.g. 512M, 8G) (--max-memory)`},
	} {
		t.Run(c.env+"="+c.value, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			r := runCLI(t, "", args...)
			assert.Equal(t, exitInput, r.code, r.stderr)
			assert.True(t, strings.HasPrefix(r.stderr, c.want), "stderr %q\nwant prefix %q", r.stderr, c.want)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			assert.NotContains(t, r.stderr, "strconv")
			assert.NoFileExists(t, out)
		})
	}

	cfg := filepath.Join(dir, "hieropt.yaml")
	for _, c := range []struct{ yaml, want string }{
		{"optimize:\n  beam: abc\n", `hieropt: config "` + cfg + `": optimize.beam: "abc": not an integer (--beam: ` + beamUsage + `)`},
		{"optimize:\n  beam: -7\n", `hieropt: config "` + cfg + `": optimize.beam: -7: want a positive number, or -1 for unbounded (--beam)`},
		{"optimize:\n  no-search: maybe\n", `hieropt: config "` + cfg + `": optimize.no-search: "maybe": not true or false (--no-search: plan with the initializer alone)`},
	} {
		require.NoError(t, os.WriteFile(cfg, []byte(c.yaml), 0o644))
		r := runCLI(t, "", append(args, "--config", cfg)...)
		assert.Equal(t, exitInput, r.code, r.stderr)
		assert.Equal(t, c.want+"\n", r.stderr)
	}

	// On the command line: the flag, the value and what it takes.
	r := runCLI(t, "", append(args, "--beam", "abc")...)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, `hieropt: --beam "abc": not an integer (`+beamUsage+`)`+"\nRun 'hieropt optimize --help' for usage.\n", r.stderr)
	r = runCLI(t, "", append(args, "--beam", "-5")...)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: --beam -5: want a positive number, or -1 for unbounded\nRun 'hieropt optimize --help' for usage.\n", r.stderr)
	// A flag beats a bad environment variable.
	t.Setenv("HIEROPT_BEAM", "abc")
	r = runCLI(t, "", append(args, "--beam", "2", "--no-search")...)
	assert.Equal(t, exitOK, r.code, r.stderr)
}
