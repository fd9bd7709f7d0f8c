package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullWriter fails every write after the first ok bytes, as a full disk
// (or /dev/full) does.
type fullWriter struct{ ok int }

func (w *fullWriter) Write(p []byte) (int, error) {
	if len(p) <= w.ok {
		w.ok -= len(p)
		return len(p), nil
	}
	n := w.ok
	w.ok = 0
	return n, syscall.ENOSPC
}

// TestStreamWriteErrors: a command whose standard output cannot be
// written fails (exit 2) and says so on stderr, whether it prints a table
// (inspect), a document (-o -) or fails part-way; one whose stderr cannot
// be written fails too. Before, every such write was unchecked: exit 0.
func TestStreamWriteErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   int
		args []string
	}{
		{"table", 0, []string{"inspect", "--workload", "seed000-example"}},
		{"table, part-way", 100, []string{"inspect", "--workload", "seed000-example"}},
		{"plan on stdout", 0, []string{"optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "--no-search", "-q", "-o", "-"}},
		{"profile list", 10, []string{"profiles"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errb bytes.Buffer
			code := run(c.args, strings.NewReader(""), &fullWriter{ok: c.ok}, &errb)
			assert.Equal(t, exitInput, code, errb.String())
			assert.Equal(t, "hieropt: cannot write standard output: no space left on device\n", errb.String())
			// The same command with room to write succeeds.
			var out bytes.Buffer
			errb.Reset()
			require.Equal(t, exitOK, run(c.args, strings.NewReader(""), &out, &errb), errb.String())
			assert.Greater(t, out.Len(), c.ok)
		})
	}
	// The summary on stderr cannot be written: the plan is, but the run
	// fails.
	plan := t.TempDir() + "/p.json"
	code := run([]string{"optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "--no-search", "-o", plan},
		strings.NewReader(""), &bytes.Buffer{}, &fullWriter{})
	assert.Equal(t, exitInput, code)
	_, err := os.Stat(plan)
	assert.NoError(t, err)
	// A failing command keeps its own code and message.
	var errb bytes.Buffer
	code = run([]string{"inspect", "--workload", "nosuch"}, strings.NewReader(""), &fullWriter{}, &errb)
	assert.Equal(t, exitInput, code)
	assert.Contains(t, errb.String(), "nosuch")
	assert.NotContains(t, errb.String(), "standard output")
}

func TestCheckedWriterKeepsTheFirstError(t *testing.T) {
	w := &checkedWriter{w: &fullWriter{ok: 3}}
	n, err := w.Write([]byte("ab"))
	assert.Equal(t, 2, n)
	assert.NoError(t, err)
	n, err = w.Write([]byte("cd"))
	assert.Equal(t, 1, n)
	assert.True(t, errors.Is(err, syscall.ENOSPC))
	n, err = w.Write([]byte("e")) // would fit, but the stream has failed
	assert.Zero(t, n)
	assert.True(t, errors.Is(err, syscall.ENOSPC))
	assert.True(t, errors.Is(w.failed(), syscall.ENOSPC))
	assert.Equal(t, &fullWriter{}, w.w)
}
