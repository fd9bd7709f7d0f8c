package workloads_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
	"github.com/hieropt/hieropt/workloads"
)

func TestNamesMatchFiles(t *testing.T) {
	files, err := filepath.Glob("*.json")
	require.NoError(t, err)
	var want []string
	for _, f := range files {
		want = append(want, strings.TrimSuffix(f, ".json"))
	}
	names := workloads.Names()
	require.NotEmpty(t, names)
	assert.Equal(t, want, names)
	assert.True(t, sort.StringsAreSorted(names))
}

// TestGet: every built-in workload parses, passes Validate, is named after
// its file and says where it comes from; its JSON is the repository's file.
func TestGet(t *testing.T) {
	for _, name := range workloads.Names() {
		t.Run(name, func(t *testing.T) {
			p, err := workloads.Get(name)
			require.NoError(t, err)
			assert.NoError(t, p.Validate(workload.DocName(name)))
			assert.Equal(t, name, p.Name, "a built-in is named after its file")
			assert.NotEmpty(t, p.Source)

			data, ok := workloads.JSON(name)
			require.True(t, ok)
			onDisk, err := os.ReadFile(name + ".json")
			require.NoError(t, err)
			assert.Equal(t, onDisk, data, "the embedded file is the repository's")
			fromFile, err := workload.ReadFile(name + ".json")
			require.NoError(t, err)
			assert.Equal(t, fromFile, p)
		})
	}
}

func TestGetUnknown(t *testing.T) {
	for _, name := range []string{"nope", "", "README", "resnet18-int8.json", "../workloads/resnet18-int8", "ResNet18-int8"} {
		p, err := workloads.Get(name)
		assert.Nil(t, p)
		require.Error(t, err, name)
		assert.True(t, inputerr.Is(err))
		assert.Contains(t, err.Error(), "no built-in workload of that name (built-ins: "+strings.Join(workloads.Names(), ", ")+")")
		_, ok := workloads.JSON(name)
		assert.False(t, ok, name)
	}
}
