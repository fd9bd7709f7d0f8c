package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
