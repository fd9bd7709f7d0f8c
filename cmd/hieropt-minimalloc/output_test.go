//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputNotWritable runs the binary as an unprivileged user (nobody)
// with --output at root's read-only (0444) file in a world-writable
// directory: the rename would replace it, writing into it would be
// refused, and so is the output: exit 2, "permission denied", the file
// unchanged and root's. It needs root, to make the file and to run as
// nobody.
func TestOutputNotWritable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: to make a root-owned file and run the binary as another user")
	}
	const nobody = 65534
	top, err := os.MkdirTemp("", "hieropt-minimalloc-notwritable-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(top) })
	require.NoError(t, os.Chmod(top, 0o777)) // nobody may run the binary in it and rename in it
	bin := buildBinary(t, top)
	require.NoError(t, os.Chmod(bin, 0o755))
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "minimalloc", "input.12.csv"))
	require.NoError(t, err)
	in := filepath.Join(top, "in.12.csv")
	require.NoError(t, os.WriteFile(in, data, 0o644))
	out := filepath.Join(top, "root.csv")
	require.NoError(t, os.WriteFile(out, []byte("root's\n"), 0o444))
	require.NoError(t, os.Chmod(out, 0o444))

	cmd := exec.Command(bin, "--capacity=12", "--input="+in, "--output="+out)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee := (*exec.ExitError)(nil); err != nil && !errors.As(err, &ee) {
		t.Skipf("cannot run as uid %d: %v", nobody, err)
	}
	assert.Equal(t, 2, cmd.ProcessState.ExitCode(), stderr.String())
	assert.True(t, strings.HasSuffix(stderr.String(), "hieropt-minimalloc: cannot write "+out+": permission denied\n"), stderr.String())
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "root's\n", string(got))
	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, uint32(0), fi.Sys().(*syscall.Stat_t).Uid, "the file's owner changed")
}
