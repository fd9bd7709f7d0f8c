package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/state"
)

// Exit codes, stable and documented in the README.
const (
	exitOK       = 0 // success
	exitFailed   = 1 // the problem is infeasible, or a plan is invalid
	exitInput    = 2 // bad input or usage
	exitInternal = 3 // a bug in hieropt
	// exitInterrupted: SIGINT or SIGTERM stopped the run (128 + SIGINT);
	// optimize has written the best plan so far.
	exitInterrupted = 130
)

// exitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return asUsage(fmt.Errorf(format, args...))
}

func failed(err error) error { return &exitError{exitFailed, err} }

func internalErrorf(format string, args ...any) error {
	return &exitError{exitInternal, fmt.Errorf(format, args...)}
}

// exitCode classifies an error.
func exitCode(err error) int {
	var ee *exitError
	var ie *actions.InfeasibleError
	var ce *state.CapacityError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case inputerr.Is(err):
		return exitInput
	case errors.As(err, &ie), errors.As(err, &ce):
		return exitFailed
	}
	return exitInternal
}

// run is the whole program: it never panics and never calls os.Exit, so
// tests can drive it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "hieropt: internal error: %v (please report it)\n", r)
			if os.Getenv("HIEROPT_DEBUG") != "" {
				stderr.Write(debug.Stack())
			}
			code = exitInternal
		}
	}()
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	if strings.HasPrefix(err.Error(), "unknown command") {
		err = &exitError{exitInput, err}
	}
	code = exitCode(err)
	msg := oneLine(err.Error())
	switch {
	case code == exitInternal:
		fmt.Fprintf(stderr, "hieropt: internal error: %s (please report it)\n", msg)
	case errors.As(err, new(*usageError)):
		fmt.Fprintf(stderr, "hieropt: %s\nRun 'hieropt --help' for usage.\n", msg)
	default:
		fmt.Fprintf(stderr, "hieropt: %s\n", msg)
	}
	return code
}

// usageError is a command-line mistake: a bad flag or argument.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// asUsage marks err as a usage error (exit code 2, a hint to --help).
func asUsage(err error) error {
	return &exitError{exitInput, &usageError{err}}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
