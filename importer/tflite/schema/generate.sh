#!/bin/sh
# Regenerates the Go code of this package from schema.fbs (TensorFlow Lite's
# flatbuffer schema, copied unchanged from shared/models/tflite/schema.fbs).
# Made with flatc 2.0.8 (Debian: apt-get install flatbuffers-compiler), which
# does not accept "(deprecated)" on enum or union values: those two markers
# (REDUCE_WINDOW and ReduceWindowOptions) are dropped from a temporary copy
# first; the values themselves stay. --gen-object-api adds the object API
# (ModelT, Pack, UnPack) with which package tflm's tests build and compare models.
# Run from this directory (go generate).
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -E 's/^([[:space:]]+[A-Za-z_0-9]+( = [0-9]+)?) \(deprecated\),/\1,/' schema.fbs > "$tmp/schema.fbs"
flatc --go --gen-object-api --go-namespace schema -o "$tmp/out" "$tmp/schema.fbs"
rm -f ./*.go
cp "$tmp"/out/schema/*.go .
gofmt -w ./*.go
cat > doc.go <<'DOC'
// Package schema is the Go code that flatc 2.0.8 generates from
// TensorFlow Lite's flatbuffer schema (schema.fbs, Apache-2.0, beside it),
// read with the runtime github.com/google/flatbuffers/go. Do not edit:
// run go generate (generate.sh) instead.
package schema

//go:generate sh generate.sh
DOC
