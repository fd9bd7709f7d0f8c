// Package schema is the Go code that flatc 2.0.8 generates from
// TensorFlow Lite's flatbuffer schema (schema.fbs, Apache-2.0, beside it),
// read with the runtime github.com/google/flatbuffers/go. Do not edit:
// run go generate (generate.sh) instead.
package schema

//go:generate sh generate.sh
