package main

import (
	"fmt"
	"io"
	"sync"
)

// checkedWriter is one of the CLI's standard streams (a.stdout, a.stderr).
// It passes writes through and keeps the first error, after which it
// writes nothing more, as a bufio.Writer does; run reports that error
// when the command ends. So the many prints of summaries and tables need
// no check each (.golangci.yml lets errcheck pass fmt.Fprint* in this
// package for that reason), and a table that could not be written still
// fails the command. The progress bar writes from its own goroutine: the
// error is kept under a lock.
type checkedWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

// failed returns the first write error, if any.
func (c *checkedWriter) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// underlying returns what w writes to: the stream itself for a
// checkedWriter (to ask whether it is a terminal).
func underlying(w io.Writer) io.Writer {
	if c, ok := w.(*checkedWriter); ok {
		return c.w
	}
	return w
}

// streamsCode is run's exit code once the streams are checked: a command
// that succeeded but could not write its standard output fails as an
// output path that cannot be written does (exit 2, said on stderr); one
// that could not write its standard error fails too (exit 2), silently:
// there is nowhere left to say it. A command that failed keeps its code.
func streamsCode(code int, stdout, stderr *checkedWriter) int {
	if code != exitOK {
		return code
	}
	if err := stdout.failed(); err != nil {
		_, _ = fmt.Fprintf(stderr, "hieropt: %s\n", writeError("standard output", err))
		return exitInput
	}
	if stderr.failed() != nil {
		return exitInput
	}
	return code
}
