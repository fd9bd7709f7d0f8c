package profiles_test

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

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/profiles"
)

// dir is where the repository keeps the built-in profiles' files.
const dir = "../configs/hw"

func TestNamesMatchFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	require.NoError(t, err)
	var want []string
	for _, f := range files {
		want = append(want, strings.TrimSuffix(filepath.Base(f), ".yaml"))
	}
	names := profiles.Names()
	require.NotEmpty(t, names)
	assert.Equal(t, want, names)
	assert.True(t, sort.StringsAreSorted(names))
}

// TestGet: every built-in profile parses with exact keys, ignores no key
// (a built-in spells every field right), passes Validate, is named after
// its file and cites its sources; Load finds it by name and by path.
func TestGet(t *testing.T) {
	for _, name := range profiles.Names() {
		t.Run(name, func(t *testing.T) {
			p, err := profiles.Get(name)
			require.NoError(t, err)
			require.NotNil(t, p)
			assert.NoError(t, p.Validate(hw.DocName(name)))
			assert.Equal(t, name, p.Name, "a built-in is named after its file")
			assert.NotEmpty(t, strings.TrimSpace(p.Description), "a built-in cites its sources")
			assert.Contains(t, []string{hw.Cycle, hw.NS}, p.TimeUnit)
			require.NotEmpty(t, p.Levels)

			data, ok := profiles.YAML(name)
			require.True(t, ok)
			onDisk, err := os.ReadFile(filepath.Join(dir, name+".yaml"))
			require.NoError(t, err)
			assert.Equal(t, onDisk, data, "the embedded file is the repository's")
			parsed, ignored, err := hw.ParseIgnored(name+".yaml", data)
			require.NoError(t, err)
			assert.Empty(t, ignored)
			assert.Equal(t, p, parsed)

			byName, err := profiles.Load(name)
			require.NoError(t, err)
			assert.Equal(t, p, byName)
			byPath, err := profiles.Load(filepath.Join(dir, name+".yaml"))
			require.NoError(t, err)
			assert.Equal(t, p, byPath)
		})
	}
}

func TestGetUnknown(t *testing.T) {
	for _, name := range []string{"nope", "", "../configs/hw/k210", "k210.yaml", "K210"} {
		p, err := profiles.Get(name)
		assert.Nil(t, p)
		require.Error(t, err, name)
		assert.True(t, inputerr.Is(err))
		assert.Contains(t, err.Error(), "no built-in profile of that name (built-ins: "+strings.Join(profiles.Names(), ", ")+")")
		_, ok := profiles.YAML(name)
		assert.False(t, ok, name)
	}
}

func TestLoadErrors(t *testing.T) {
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "missing.yaml")
	tests := []struct {
		name, arg, want string
		notExist        bool // the cause is fs.ErrNotExist
	}{
		{"missing path", missing, `hardware profile "` + missing + `": cannot read: no such file or directory`, true},
		{"missing relative path", "nope/x", `hardware profile "nope/x": cannot read: no such file or directory`, true},
		{"missing file with extension", "nope.yaml", `hardware profile "nope.yaml": cannot read: no such file or directory`, true},
		{"a directory", tmp, `hardware profile "` + tmp + `": cannot read: is a directory`, false},
		{"unknown bare name", "nope",
			`hardware profile "nope": no such file and no built-in profile of that name (built-ins: ` + strings.Join(profiles.Names(), ", ") + `)`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := profiles.Load(tt.arg)
			assert.Nil(t, p)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.True(t, inputerr.Is(err))
			assert.Equal(t, tt.notExist, errors.Is(err, fs.ErrNotExist))
		})
	}
}

// TestLoadFileWins: a file named like a built-in is read, not the built-in.
func TestLoadFileWins(t *testing.T) {
	t.Chdir(t.TempDir())
	data, ok := profiles.YAML("ethos-u55")
	require.True(t, ok)
	require.NoError(t, os.WriteFile("k210", data, 0o644))
	p, err := profiles.Load("k210")
	require.NoError(t, err)
	assert.Equal(t, "ethos-u55", p.Name)

	require.NoError(t, os.WriteFile("bad.yaml", []byte("format: hieropt.hw/v1\nname: p\ntime_unit: s\nlevels: []\n"), 0o644))
	_, err = profiles.Load("bad.yaml")
	assert.EqualError(t, err, `hardware profile "bad.yaml": time_unit "s": want "cycle" or "ns"`)
}
