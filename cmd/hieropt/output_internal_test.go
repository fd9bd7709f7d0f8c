//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailedOutputLeavesTheOldFile fails the writing of an output at each
// step: the old file stays as it was and no temporary file is left.
func TestFailedOutputLeavesTheOldFile(t *testing.T) {
	const old = "the old plan\n"
	boom := errors.New("the plan writer failed")
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	for _, tc := range []struct {
		name  string
		write func(path string) error
		want  error // nil: any error
	}{
		{"fill fails", func(path string) error {
			return a.writeOutput(path, func(w io.Writer) error {
				_, _ = io.WriteString(w, "half a plan")
				return boom
			})
		}, boom},
		{"copy fails", func(path string) error {
			tgt, err := new(app).resolveOutput(path)
			require.NoError(t, err)
			return tgt.write(func(w io.Writer) error {
				_, _ = io.WriteString(w, "half a plan")
				return boom
			})
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "p.json")
			require.NoError(t, os.WriteFile(path, []byte(old), 0o644))
			err := tc.write(path)
			require.Error(t, err)
			if tc.want != nil {
				assert.ErrorIs(t, err, tc.want)
			} else {
				assert.Contains(t, err.Error(), "cannot write "+path+": the plan writer failed")
			}
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, old, string(data))
			assert.Empty(t, leftovers(t, dir))
		})
	}
}

// TestSignalRemovesTheTemporaryFile sends SIGINT or SIGTERM to this process
// while an output's temporary file exists (its copy blocked): the write
// ends at once with exit 130, the temporary file is gone, and the old file
// stays as it was, also once the blocked copy goes on.
func TestSignalRemovesTheTemporaryFile(t *testing.T) {
	const old = "the old plan\n"
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "p.json")
			require.NoError(t, os.WriteFile(path, []byte(old), 0o644))
			tgt, err := new(app).resolveOutput(path)
			require.NoError(t, err)
			started, release, copied := make(chan struct{}), make(chan struct{}), make(chan struct{})
			errc := make(chan error, 1)
			go func() {
				errc <- tgt.write(func(w io.Writer) error {
					defer close(copied)
					_, _ = io.WriteString(w, "the first half of a plan")
					close(started)
					<-release
					_, err := io.WriteString(w, " and the rest\n")
					return err
				})
			}()
			<-started
			require.Len(t, leftovers(t, dir), 1, "the temporary file exists while the copy runs")
			require.NoError(t, syscall.Kill(os.Getpid(), sig))
			select {
			case err = <-errc:
			case <-time.After(outputWait):
				close(release)
				require.FailNow(t, "the write did not end on the signal")
			}
			assert.Equal(t, exitInterrupted, exitCode(err), "%v", err)
			assert.Contains(t, err.Error(), "while writing "+path+": not written")
			assert.Empty(t, leftovers(t, dir), "the temporary file was not removed")

			// The blocked copy goes on and ends; the write, aborted, must
			// not rename anything over the old file.
			close(release)
			<-copied
			time.Sleep(100 * time.Millisecond)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, old, string(data))
			assert.Empty(t, leftovers(t, dir))
		})
	}
}

// TestSignalWhileWaitingForAFIFOReader interrupts a write whose FIFO has no
// reader yet, so that opening it waits: the write ends with exit 130.
func TestSignalWhileWaitingForAFIFOReader(t *testing.T) {
	// The test's own channel keeps a signal sent before the write catches
	// them from ending the test process.
	mine := make(chan os.Signal, 1)
	signal.Notify(mine, syscall.SIGINT)
	defer signal.Stop(mine)

	dir := t.TempDir()
	fifo := filepath.Join(dir, "plan.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	tgt, err := new(app).resolveOutput(fifo)
	require.NoError(t, err)
	require.True(t, tgt.direct)
	errc := make(chan error, 1)
	go func() {
		errc <- tgt.write(func(w io.Writer) error {
			_, err := io.WriteString(w, "a plan\n")
			return err
		})
	}()
	// Signal until the write ends: the first signals may come before it
	// catches them.
	deadline := time.After(outputWait)
	for done := false; !done; {
		require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
		select {
		case err = <-errc:
			done = true
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			require.FailNow(t, "the write waiting for a reader did not end on SIGINT")
		}
	}
	assert.Equal(t, exitInterrupted, exitCode(err), "%v", err)
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeNamedPipe, "the FIFO is no longer a FIFO")
	// A reader now lets the abandoned open finish: the write, aborted,
	// closes the FIFO without writing, and the reader sees end-of-file.
	rd, err := os.Open(fifo)
	require.NoError(t, err)
	defer func() { _ = rd.Close() }()
	data, err := io.ReadAll(rd)
	require.NoError(t, err)
	assert.Empty(t, data)
}
