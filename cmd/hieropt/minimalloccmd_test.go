package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/pack"
)

// TestMiniMallocCommand: `hieropt minimalloc` is MiniMalloc's command line
// (the same implementation as hieropt-minimalloc): MiniMalloc's own example
// (its README: --capacity=12 on input.12.csv) gives exit 0, the time alone
// on stderr, and the input's rows with an offset column, offsets that
// pass pack.Check within 12; a capacity of 11 is
// exit 1 with no file; an unknown flag is Abseil's error, exit 1; a bad
// file exit 2. The flags are MiniMalloc's, not hieropt's: cobra parses
// none of them.
func TestMiniMallocCommand(t *testing.T) {
	dir := t.TempDir()
	in := repo("testdata", "minimalloc", "input.12.csv")
	out := filepath.Join(dir, "output.12.csv")
	r := runCLI(t, "", "minimalloc", "--capacity=12", "--input="+in, "--output="+out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, regexp.MustCompile(`^[0-9]+\.[0-9]{3}$`), r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	// The offsets are the packer's; the format is MiniMalloc's.
	assert.Regexp(t, regexp.MustCompile(`^id,lower,upper,size,offset\nb1,0,3,4,[0-9]+\nb2,3,9,4,[0-9]+\n`+
		`b3,0,9,4,[0-9]+\nb4,9,21,4,[0-9]+\nb5,0,21,4,[0-9]+\n$`), string(data))
	sol, err := pack.ReadCSV(out, bytes.NewReader(data))
	require.NoError(t, err)
	offs := make([]int64, len(sol.Buffers))
	var peak int64
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		offs[i], err = strconv.ParseInt(line[strings.LastIndex(line, ",")+1:], 10, 64)
		require.NoError(t, err)
		peak = max(peak, offs[i]+sol.Buffers[i].Size)
	}
	sol.Capacity = 12
	require.NoError(t, pack.Check(sol, &pack.Solution{Offsets: offs, Peak: peak}))

	out11 := filepath.Join(dir, "output.11.csv")
	r = runCLI(t, "", "minimalloc", "--capacity", "11", "--input", in, "--output", out11)
	assert.Equal(t, exitFailed, r.code)
	assert.Regexp(t, regexp.MustCompile(`^[0-9]+\.[0-9]{3}\nhieropt minimalloc: no packing: the buffers alive at once need 12 bytes \(max-live\), more than --capacity=11\n$`), r.stderr)
	assert.NoFileExists(t, out11)

	r = runCLI(t, "", "minimalloc", "--capacity=12", "--input="+in, "--output="+out11, "--quiet")
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "ERROR: Unknown command line flag 'quiet'\n", r.stderr)
	assert.NoFileExists(t, out11)

	bad := filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("id,lower,upper,size\nb1,0,3,four\n"), 0o644))
	r = runCLI(t, "", "minimalloc", "--capacity=12", "--input="+bad, "--output="+out11)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt minimalloc: CSV \""+bad+"\": line 2: size \"four\" is not an integer\n", r.stderr)

	r = runCLI(t, "", "minimalloc", "--help")
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stdout, "--minimize_capacity")
}
