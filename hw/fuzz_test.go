package hw_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/profiles"
)

// FuzzParse checks that Parse never panics, that every failure is an input
// error on one line naming the document, and that every profile it returns
// passes Validate (the rules of FORMATS.md section 2). The seed corpus is
// the built-in profiles (below) and testdata/fuzz/FuzzParse, which holds
// the bad profiles of testdata/bad/hw.
func FuzzParse(f *testing.F) {
	for _, n := range profiles.Names() {
		data, ok := profiles.YAML(n)
		require.True(f, ok)
		f.Add(data)
	}
	f.Add([]byte(twoLevels))
	f.Add([]byte(base + "vendor: {part: x}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ignored, err := hw.ParseIgnored("fuzz.yaml", data)
		if err != nil {
			require.Nil(t, p)
			require.Nil(t, ignored)
			require.True(t, inputerr.Is(err), "%T: %v", err, err)
			require.NotContains(t, err.Error(), "\n")
			require.True(t, strings.HasPrefix(err.Error(), `hardware profile "fuzz.yaml": `), err.Error())
			return
		}
		require.NoError(t, p.Validate("fuzz.yaml"), "Parse returned a profile that breaks a rule")
		for _, g := range ignored {
			require.Positive(t, g.Line)
			require.NotContains(t, g.String(), "\n")
		}
	})
}
