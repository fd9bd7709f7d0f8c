package main

import (
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/docs"
)

// TestGenMixNamesTheFlag: an unknown --mix is reported by its flag, not by
// the library's field name.
func TestGenMixNamesTheFlag(t *testing.T) {
	r := runCLI(t, "", "gen", "--mix", "foo", "--ops", "10")
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: --mix \"foo\": want cnn, transformer or mixed\nRun 'hieropt gen --help' for usage.\n", r.stderr)
	assert.Empty(t, r.stdout)
}

// TestPlanTFLMArenaUnit: the arena that is too small is given in bytes.
func TestPlanTFLMArenaUnit(t *testing.T) {
	out := filepath.Join(t.TempDir(), "small.tflite")
	r := runCLI(t, "", "plan", "tflm", repo("testdata", "tflite", "person_detect.tflite"), "--arena", "256", "-o", out)
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "more than the capacity, 256 B\n")
	assert.NoFileExists(t, out)
}

// TestFormatsCommand: 'hieropt formats' prints the embedded FORMATS.md, the
// same text as docs/FORMATS.md, and a section on its own; the root help
// points to the command, not to the source tree.
func TestFormatsCommand(t *testing.T) {
	r := runCLI(t, "", "formats")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, docs.Formats, r.stdout)
	assert.Contains(t, r.stdout, "# hieropt file formats")

	r = runCLI(t, "", "formats", "6.2")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "### 6.2 Plan additions\n"), r.stdout)
	assert.NotContains(t, r.stdout, "### 6.3")
	r = runCLI(t, "", "formats", "6")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "### 6.4")
	assert.NotContains(t, r.stdout, "## 7.")

	r = runCLI(t, "", "formats", "9")
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, `no section "9" (sections: 1, 2, 3, 4, 5, 6, 6.1, 6.2, 6.3, 6.4, 7)`)

	r = runCLI(t, "", "--help")
	require.Equal(t, exitOK, r.code)
	assert.NotContains(t, r.stdout, "source tree")
	assert.Contains(t, r.stdout, "'hieropt formats'")
}

// TestVersionOf: the version comes from the link-time value, else the
// module's version, else the VCS revision of the build, else "devel".
func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name, linked string
		bi           *debug.BuildInfo
		ok           bool
		want         string
	}{
		{"no build info", "", nil, false, "devel"},
		{"linked", "v1.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, true, "v1.2.0"},
		{"module version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}, Settings: vcs(rev, "false")}, true, "v0.9.0"},
		{"pseudo-version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261202011200-0123456789ab+dirty"}}, true, "v0.0.0-20261202011200-0123456789ab+dirty"},
		{"revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, true, "devel-0123456789ab"},
		{"dirty revision", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, true, "devel-0123456789ab+dirty"},
		{"nothing", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "devel"},
	} {
		assert.Equal(t, c.want, versionOf(c.linked, c.bi, c.ok), c.name)
	}
	r := runCLI(t, "", "version")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `^hieropt \S+ \(go[^,]+, [a-z0-9]+/[a-z0-9]+\)\n$`, r.stdout)
}

// TestCompletion: cobra's completion command prints each shell's script,
// and --hw and --workload complete the built-in names.
func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		r := runCLI(t, "", "completion", sh)
		require.Equal(t, exitOK, r.code, "%s: %s", sh, r.stderr)
		assert.Contains(t, r.stdout, "hieropt", sh)
		assert.Greater(t, len(r.stdout), 1000, sh)
	}
	r := runCLI(t, "", "__complete", "optimize", "--hw", "ethos")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "ethos-u55\n")
	r = runCLI(t, "", "__complete", "inspect", "--workload", "")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "resnet50-int8\n")
}
