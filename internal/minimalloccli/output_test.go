//go:build unix

package minimalloccli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputIsNotTheInput: --output naming --input, by its path, a
// symbolic link or a hard link, is refused with exit 2 and one line, the
// input unchanged (MiniMalloc's binary would replace it; so did this one).
func TestOutputIsNotTheInput(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(repo("testdata", "minimalloc", "input.12.csv"))
	require.NoError(t, err)
	in := writeTemp(t, dir, "in.csv", string(data))
	link, hard := filepath.Join(dir, "link.csv"), filepath.Join(dir, "hard.csv")
	require.NoError(t, os.Symlink("in.csv", link))
	require.NoError(t, os.Link(in, hard))
	for _, out := range []string{in, link, hard} {
		r := runMM(t, nil, "--capacity=12", "--input="+in, "--output="+out)
		assert.Equal(t, ExitInput, r.code, r.stderr)
		assert.Equal(t, "hieropt-minimalloc: cannot write "+out+`: it is the input CSV "`+in+`"`+"\n", r.stderr)
		got, err := os.ReadFile(in)
		require.NoError(t, err)
		assert.Equal(t, string(data), string(got))
	}
}
