// Package docs holds the documents the hieropt binary carries with it, so
// that a user of the binary can read them without the source tree.
package docs

import _ "embed" // for go:embed

// Formats is FORMATS.md: the file formats hieropt reads and writes, and the
// rules a plan must follow. `hieropt formats` prints it.
//
//go:embed FORMATS.md
var Formats string
