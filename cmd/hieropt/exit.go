package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

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
func run(args []string, stdin io.Reader, rawStdout, rawStderr io.Writer) (code int) {
	// Every write to the streams is checked: a failed one fails the run.
	stdout, stderr := &checkedWriter{w: rawStdout}, &checkedWriter{w: rawStderr}
	defer func() { code = streamsCode(code, stdout, stderr) }()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "hieropt: internal error: %v (please report it)\n", r)
			if os.Getenv("HIEROPT_DEBUG") != "" {
				_, _ = stderr.Write(debug.Stack())
			}
			code = exitInternal
		}
	}()
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	if strings.HasPrefix(err.Error(), "unknown command") {
		err = &exitError{exitInput, err}
	}
	err = fromSource(cmd, err)
	code = exitCode(err)
	msg := oneLine(err.Error())
	if errors.As(err, new(*silentError)) {
		return code // the command already said it, on stdout
	}
	if wantsJSON(root, args) {
		writeJSONError(stderr, err, code, msg)
		return code
	}
	switch {
	case code == exitInternal:
		fmt.Fprintf(stderr, "hieropt: internal error: %s (please report it)\n", msg)
	case errors.As(err, new(*usageError)):
		fmt.Fprintf(stderr, "hieropt: %s\n%s\n", msg, usageHint(cmd))
	default:
		fmt.Fprintf(stderr, "hieropt: %s\n", msg)
	}
	return code
}

// usageError is a command-line mistake: a bad flag or argument.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageHint points at the help of the command that was run (the root's
// when no command was recognised).
func usageHint(cmd *cobra.Command) string {
	path := "hieropt"
	if cmd != nil {
		path = cmd.CommandPath()
		if cmd.Root().Name() != "hieropt" {
			path = "hieropt " + path // a command tested on its own
		}
	}
	return fmt.Sprintf("Run '%s --help' for usage.", path)
}

// asUsage marks err as a usage error (exit code 2, a hint to --help).
func asUsage(err error) error {
	return &exitError{exitInput, &usageError{err}}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// wantsJSON reports whether the command run asked for --format json.
func wantsJSON(root *cobra.Command, args []string) bool {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return false
	}
	f := cmd.Flags().Lookup("format")
	return f != nil && f.Value.String() == "json"
}

// writeJSONError prints an error as one JSON object:
// {"error": {"file", "document", "item", "rule", "message", "exit_code"}}.
func writeJSONError(w io.Writer, err error, code int, msg string) {
	type detail struct {
		Document string `json:"document,omitempty"`
		File     string `json:"file,omitempty"`
		Item     string `json:"item,omitempty"`
		Rule     string `json:"rule,omitempty"`
		Kind     string `json:"kind"`
		Message  string `json:"message"`
		ExitCode int    `json:"exit_code"`
	}
	d := detail{Message: msg, ExitCode: code}
	var ie *inputerr.Error
	var te *state.TooLargeError
	switch {
	case errors.As(err, &ie):
		d.Kind = "input"
		d.Document, d.File = splitDoc(ie.Doc)
		d.Item, d.Rule = ie.Item, oneLine(ie.Rule)
	case code == exitFailed && errors.As(err, &te) && te.Doc != "":
		// A block that fits no level: valid documents, infeasible together.
		d.Kind = "infeasible or invalid"
		d.Document, d.File = splitDoc(te.Doc)
		d.Item, d.Rule = te.Item, oneLine(te.Reason)
	case code == exitFailed:
		d.Kind = "infeasible or invalid"
	case code == exitInterrupted:
		d.Kind = "interrupted"
	case code == exitInput:
		d.Kind = "usage"
	default:
		d.Kind = "internal"
	}
	data, _ := marshalJSON(struct {
		Error detail `json:"error"`
	}{d})
	fmt.Fprintf(w, "%s\n", data)
}

// splitDoc splits `workload "net.json"` into its kind and file.
func splitDoc(doc string) (string, string) {
	kind, file, ok := strings.Cut(doc, " \"")
	if !ok {
		return doc, ""
	}
	if f, err := strconv.Unquote("\"" + file); err == nil {
		return kind, f
	}
	return kind, strings.TrimSuffix(file, "\"")
}

// silentError ends a command with its exit code but prints nothing more:
// the command has reported the failure itself.
type silentError struct{ err error }

func (e *silentError) Error() string { return e.err.Error() }
func (e *silentError) Unwrap() error { return e.err }
