package hwconfig_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	hwconfig "github.com/hieropt/hieropt/configs/hw"
	"github.com/hieropt/hieropt/inputerr"
)

// FuzzParse checks that Parse never panics, that every failure is an input
// error on one line naming the document, and that every profile it returns
// passes Validate (the rules of FORMATS.md section 2). The seed corpus is
// the built-in profiles (below) and testdata/fuzz/FuzzParse, which holds
// the bad profiles of testdata/bad/hw.
func FuzzParse(f *testing.F) {
	for _, n := range hwconfig.Names() {
		data, ok := hwconfig.BuiltinYAML(n)
		require.True(f, ok)
		f.Add(data)
	}
	f.Add([]byte(twoLevels))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := hwconfig.Parse("fuzz.yaml", data)
		if err != nil {
			require.Nil(t, p)
			require.True(t, inputerr.Is(err), "%T: %v", err, err)
			require.NotContains(t, err.Error(), "\n")
			require.True(t, strings.HasPrefix(err.Error(), `hardware profile "fuzz.yaml": `), err.Error())
			return
		}
		require.NoError(t, p.Validate("fuzz.yaml"), "Parse returned a profile that breaks a rule")
	})
}
