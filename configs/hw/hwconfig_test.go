package hwconfig_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	hwconfig "github.com/hieropt/hieropt/configs/hw"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
)

func TestNamesMatchFiles(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	require.NoError(t, err)
	var want []string
	for _, f := range files {
		want = append(want, strings.TrimSuffix(f, ".yaml"))
	}
	names := hwconfig.Names()
	require.NotEmpty(t, names)
	assert.Equal(t, want, names)
	assert.True(t, sort.StringsAreSorted(names))
}

func TestBuiltins(t *testing.T) {
	for _, name := range hwconfig.Names() {
		t.Run(name, func(t *testing.T) {
			p, err := hwconfig.Builtin(name)
			require.NoError(t, err)
			require.NotNil(t, p)
			assert.NoError(t, p.Validate(hw.DocName(name)), "FromMap returns valid profiles")
			assert.Equal(t, name, p.Name, "a built-in is named after its file")
			assert.NotEmpty(t, strings.TrimSpace(p.Description), "a built-in cites its sources")
			assert.Contains(t, []string{hw.Cycle, hw.NS}, p.TimeUnit)
			require.NotEmpty(t, p.Levels)

			// Load finds it by name, and by path (a path wins).
			byName, err := hwconfig.Load(name)
			require.NoError(t, err)
			assert.Equal(t, p, byName)
			byPath, err := hwconfig.Load("./" + name + ".yaml")
			require.NoError(t, err)
			assert.Equal(t, p, byPath)

			data, ok := hwconfig.BuiltinYAML(name)
			require.True(t, ok)
			parsed, err := hwconfig.Parse(name+".yaml", data)
			require.NoError(t, err)
			assert.Equal(t, p, parsed)
		})
	}
	_, ok := hwconfig.BuiltinYAML("nope")
	assert.False(t, ok)
}

// base is a valid one-level profile; the bad cases below each change one
// thing in it.
const base = `format: hieropt.hw/v1
name: p
description: a test profile
time_unit: cycle
levels:
  - name: SRAM
    capacity: 4096
    alignment: 16
    in:  {latency: 8, bandwidth: 32}
    out: {latency: 8, bandwidth: 32}
`

// twoLevels is base with a second level appended.
const twoLevels = base + `  - name: DRAM
    capacity: 65536
    alignment: 64
    in:  {latency: 120, bandwidth: 8}
    out: {latency: 100, bandwidth: 8}
`

// head is base without its levels.
var head = base[:strings.Index(base, "levels:")]

const doc = `hardware profile "p.yaml"`

// replace returns s with old replaced by new once; old must occur in s.
func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	require.Contains(t, s, old)
	return strings.Replace(s, old, new, 1)
}

func TestParseValid(t *testing.T) {
	p, err := hwconfig.Parse("p.yaml", []byte(twoLevels))
	require.NoError(t, err)
	assert.Equal(t, &hw.Profile{
		Name: "p", Description: "a test profile", TimeUnit: hw.Cycle,
		Levels: []hw.Level{
			{Name: "SRAM", Capacity: 4096, Alignment: 16, In: hw.Link{Latency: 8, Bandwidth: 32}, Out: hw.Link{Latency: 8, Bandwidth: 32}},
			{Name: "DRAM", Capacity: 65536, Alignment: 64, In: hw.Link{Latency: 120, Bandwidth: 8}, Out: hw.Link{Latency: 100, Bandwidth: 8}},
		},
	}, p)
}

func TestParseBad(t *testing.T) {
	tests := []struct {
		name string
		in   func(t *testing.T) string
		want string // the whole err.Error()
	}{
		{"empty document", func(*testing.T) string { return "" }, doc + `: empty document: want a YAML mapping with format, name, time_unit and levels`},
		{"only white space", func(*testing.T) string { return "\n  \n" }, doc + `: empty document: want a YAML mapping with format, name, time_unit and levels`},
		{"only a comment", func(*testing.T) string { return "# nothing here\n" }, doc + `: want a YAML mapping with format, name, time_unit and levels`},
		// The YAML library names the line where the unclosed list starts.
		{"broken YAML: unclosed list", func(*testing.T) string { return "format: [hieropt.hw/v1\n" },
			doc + `: invalid YAML: line 1: did not find expected ',' or ']'`},
		{"broken YAML: bad indentation", func(t *testing.T) string { return replace(t, base, "    capacity: 4096", "      capacity: 4096") },
			doc + `: invalid YAML: line 7: mapping values are not allowed in this context`},
		// The tab is on line 8; the YAML library names line 7, where the
		// scalar it was scanning starts (go-yaml/yaml#205: its line numbers
		// come from the context mark, and can be a line early).
		{"broken YAML: tab", func(t *testing.T) string { return replace(t, base, "    alignment", "\talignment") },
			doc + `: invalid YAML: line 7: found a tab character that violates indentation`},
		{"not a mapping: list", func(*testing.T) string { return "- format: hieropt.hw/v1\n- name: p\n" },
			doc + `: want a YAML mapping with format, name, time_unit and levels, got a list`},
		{"not a mapping: string", func(*testing.T) string { return "hieropt.hw/v1\n" },
			doc + `: want a YAML mapping with format, name, time_unit and levels, got a string`},
		{"not a mapping: number", func(*testing.T) string { return "42\n" },
			doc + `: want a YAML mapping with format, name, time_unit and levels, got a number`},
		{"missing format", func(t *testing.T) string { return replace(t, base, "format: hieropt.hw/v1\n", "") }, doc + `: missing required field "format"`},
		{"wrong format", func(t *testing.T) string { return replace(t, base, "hieropt.hw/v1", "hieropt.workload/v1") },
			doc + `: format "hieropt.workload/v1" is not supported: want "hieropt.hw/v1"`},
		{"unknown version", func(t *testing.T) string { return replace(t, base, "hieropt.hw/v1", "hieropt.hw/v2") },
			doc + `: format "hieropt.hw/v2" is not supported: want "hieropt.hw/v1"`},
		{"missing name", func(t *testing.T) string { return replace(t, base, "name: p\n", "") }, doc + `: missing required field "name"`},
		{"name a number", func(t *testing.T) string { return replace(t, base, "name: p\n", "name: 5\n") },
			doc + `: field "name": want a string, got number 5`},
		{"missing time_unit", func(t *testing.T) string { return replace(t, base, "time_unit: cycle\n", "") }, doc + `: missing required field "time_unit"`},
		{`time_unit "s"`, func(t *testing.T) string { return replace(t, base, "time_unit: cycle", "time_unit: s") },
			doc + `: time_unit "s": want "cycle" or "ns"`},
		{"missing levels", func(*testing.T) string { return head }, doc + `: missing required field "levels"`},
		{"null levels", func(*testing.T) string { return head + "levels:\n" }, doc + `: missing required field "levels"`},
		{"no levels", func(*testing.T) string { return head + "levels: []\n" }, doc + `: "levels" is empty: a profile needs at least one level`},
		{"levels a mapping", func(*testing.T) string { return head + "levels:\n  SRAM: {capacity: 4096}\n" },
			doc + `: field "levels": want a list of levels, got a mapping`},
		{"levels a string", func(*testing.T) string { return head + "levels: SRAM\n" },
			doc + `: field "levels": want a list of levels, got string "SRAM"`},
		{"level not a mapping", func(*testing.T) string { return head + "levels:\n  - SRAM\n" },
			doc + `: level 0: want a mapping with name, capacity, alignment, in and out; got string "SRAM"`},
		{"level without name", func(t *testing.T) string {
			return replace(t, twoLevels, "  - name: DRAM\n    capacity", "  - capacity")
		},
			doc + `: level 1: missing required field "name"`},
		{"missing capacity", func(t *testing.T) string { return replace(t, base, "    capacity: 4096\n", "") },
			doc + `: level "SRAM": missing required field "capacity"`},
		{"capacity 1.5", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: 1.5") },
			doc + `: level "SRAM": field "capacity": want an integer, got 1.5`},
		{`capacity "4096"`, func(t *testing.T) string { return replace(t, base, "capacity: 4096", `capacity: "4096"`) },
			doc + `: level "SRAM": field "capacity": want an integer, got string "4096"`},
		{"capacity 0", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: 0") },
			doc + `: level "SRAM": capacity 0: must be > 0 bytes`},
		{"negative capacity", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: -4096") },
			doc + `: level "SRAM": capacity -4096: must be > 0 bytes`},
		{"capacity beyond int64", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: 99999999999999999999") },
			doc + `: level "SRAM": field "capacity": integer 1e+20 does not fit in 64 bits`},
		{"capacity .inf", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: .inf") },
			doc + `: level "SRAM": field "capacity": want an integer, got +Inf`},
		{"negative alignment", func(t *testing.T) string { return replace(t, base, "alignment: 16", "alignment: -16") },
			doc + `: level "SRAM": alignment -16: must be > 0 bytes`},
		{"alignment > capacity", func(t *testing.T) string { return replace(t, base, "alignment: 16", "alignment: 8192") },
			doc + `: level "SRAM": alignment 8192 is larger than the capacity 4096`},
		{"duplicate level names", func(t *testing.T) string { return replace(t, twoLevels, "name: DRAM", "name: SRAM") },
			doc + `: level "SRAM": duplicate level name (also level 0)`},
		{"latency .nan", func(t *testing.T) string { return replace(t, base, "in:  {latency: 8,", "in:  {latency: .nan,") },
			doc + `: level "SRAM": in.latency NaN: must be a number, not NaN`},
		{"bandwidth .inf", func(t *testing.T) string {
			return replace(t, base, "out: {latency: 8, bandwidth: 32}", "out: {latency: 8, bandwidth: .inf}")
		}, doc + `: level "SRAM": out.bandwidth +Inf: must be finite`},
		{"bandwidth 0", func(t *testing.T) string {
			return replace(t, base, "in:  {latency: 8, bandwidth: 32}", "in:  {latency: 8, bandwidth: 0}")
		}, doc + `: level "SRAM": in.bandwidth 0: must be > 0`},
		{"negative latency", func(t *testing.T) string { return replace(t, twoLevels, "out: {latency: 100,", "out: {latency: -100,") },
			doc + `: level "DRAM": out.latency -100: must be > 0`},
		{"latency a word", func(t *testing.T) string { return replace(t, base, "out: {latency: 8,", "out: {latency: fast,") },
			doc + `: level "SRAM": field "out.latency": want a number, got string "fast"`},
		{"missing in", func(t *testing.T) string { return replace(t, base, "    in:  {latency: 8, bandwidth: 32}\n", "") },
			doc + `: level "SRAM": missing required field "in"`},
		{"in not a mapping", func(t *testing.T) string { return replace(t, base, "in:  {latency: 8, bandwidth: 32}", "in: 8") },
			doc + `: level "SRAM": field "in": want a mapping {latency, bandwidth}, got number 8`},
		{"missing bandwidth inside out", func(t *testing.T) string {
			return replace(t, base, "out: {latency: 8, bandwidth: 32}", "out: {latency: 8}")
		}, doc + `: level "SRAM": missing required field "out.bandwidth"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := hwconfig.Parse("p.yaml", []byte(tt.in(t)))
			assert.Nil(t, p)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.True(t, inputerr.Is(err), "want an inputerr.Error, got %T", err)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestParseViperQuirks pins what viper's decoding does to a profile: keys
// are matched without regard to case, extra fields are ignored.
func TestParseViperQuirks(t *testing.T) {
	in := replace(t, base, "capacity: 4096", "Capacity: 4096")
	in = replace(t, in, "format:", "FORMAT:")
	in += "extra:\n  nested: [1, 2]\n"
	p, err := hwconfig.Parse("p.yaml", []byte(in))
	require.NoError(t, err)
	assert.Equal(t, int64(4096), p.Levels[0].Capacity)
	assert.Equal(t, "p", p.Name)
}

// badProfilesDir holds bad profiles as files: x.yaml must fail with the
// error that x.err holds, as hieropt prints it (testdata/bad/README.md).
const badProfilesDir = "../../testdata/bad/hw"

func TestLoadBadFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(badProfilesDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(path, ".yaml") + ".err")
			require.NoError(t, err, "every bad profile has a .err file")
			p, err := hwconfig.Load(path)
			assert.Nil(t, p)
			require.Error(t, err)
			// The .err file is the command line's stderr line, with $FILE
			// for the path (cmd/hieropt/badinput_test.go runs it too).
			line := strings.ReplaceAll(strings.TrimSpace(string(want)), "$FILE", path)
			assert.Equal(t, "hieropt: "+err.Error(), line)
			assert.True(t, inputerr.Is(err))
		})
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	tests := []struct {
		name, arg, want string
		notExist        bool // the cause is fs.ErrNotExist
	}{
		{"missing path", missing, `hardware profile "` + missing + `": cannot read: no such file or directory`, true},
		{"missing relative path", "nope/x", `hardware profile "nope/x": cannot read: no such file or directory`, true},
		{"missing file with extension", "nope.yaml", `hardware profile "nope.yaml": cannot read: no such file or directory`, true},
		{"a directory", dir, `hardware profile "` + dir + `": cannot read: is a directory`, false},
		{"unknown bare name", "nope",
			`hardware profile "nope": no such file and no built-in profile of that name (built-ins: ` + strings.Join(hwconfig.Names(), ", ") + `)`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := hwconfig.Load(tt.arg)
			assert.Nil(t, p)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.True(t, inputerr.Is(err))
			assert.Equal(t, tt.notExist, errors.Is(err, fs.ErrNotExist))
		})
	}
	// The built-in list in the message is the real one.
	_, err := hwconfig.Load("nope")
	for _, n := range hwconfig.Names() {
		assert.Contains(t, err.Error(), n)
	}
}

func TestLoadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k210")
	require.NoError(t, os.WriteFile(path, []byte(twoLevels), 0o644))
	p, err := hwconfig.Load(path)
	require.NoError(t, err)
	assert.Equal(t, "p", p.Name)
	assert.Len(t, p.Levels, 2)

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(replace(t, base, "time_unit: cycle", "time_unit: s")), 0o644))
	_, err = hwconfig.Load(bad)
	require.Error(t, err)
	assert.Equal(t, `hardware profile "`+bad+`": time_unit "s": want "cycle" or "ns"`, err.Error())
}

func TestBuiltinUnknown(t *testing.T) {
	p, err := hwconfig.Builtin("nope")
	assert.Nil(t, p)
	require.Error(t, err)
	assert.True(t, inputerr.Is(err))
	assert.Equal(t, `hardware profile "nope": no such file and no built-in profile of that name (built-ins: `+
		strings.Join(hwconfig.Names(), ", ")+`)`, err.Error())
}
