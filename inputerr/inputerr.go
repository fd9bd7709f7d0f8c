// Package inputerr is the error type for problems in the documents a user
// gives hieropt: workloads, hardware profiles, plans and CSV files.
//
// Every such error names three things, so that one line is enough to find and
// fix the problem: the document (its kind and file), the item inside it (a
// block, op or level, by name or index) and the rule that was broken:
//
//	workload "net.json": block "conv1.out": reads [7] outside lifetime [0,5]
//
// The command line maps these errors to exit code 2 and prints them as they
// are; library callers test for them with errors.As.
package inputerr

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Error is one broken rule in one input document.
type Error struct {
	// Doc names the document, e.g. `workload "net.json"`.
	Doc string
	// Item names the element inside the document, e.g. `block "conv1.out"`;
	// empty when the rule is about the document as a whole.
	Item string
	// Rule says what is wrong, in words a user can act on.
	Rule string
	// Err is an underlying cause (a syntax error, say), if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Doc)
	if e.Item != "" {
		b.WriteString(": ")
		b.WriteString(e.Item)
	}
	b.WriteString(": ")
	b.WriteString(e.Rule)
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns an Error; rule is formatted with args as by fmt.Sprintf.
func New(doc, item, rule string, args ...any) *Error {
	if len(args) > 0 {
		rule = fmt.Sprintf(rule, args...)
	}
	return &Error{Doc: doc, Item: item, Rule: rule}
}

// Is reports whether err is, or wraps, an input Error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Doc formats a document name: its kind and, quoted, its file.
// An empty file (a document built in code) gives the kind alone.
func Doc(kind, file string) string {
	if file == "" {
		return kind
	}
	return fmt.Sprintf("%s %q", kind, file)
}

// ReadFile reads the file at path, whose document errors name doc: a file
// that cannot be read is an Error whose rule is "cannot read: " and the
// system's reason (without the path, which doc already names).
func ReadFile(doc, path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		rule := err.Error()
		if pe := (*os.PathError)(nil); errors.As(err, &pe) {
			rule = pe.Err.Error()
		}
		return nil, &Error{Doc: doc, Rule: "cannot read: " + rule, Err: err}
	}
	return data, nil
}
