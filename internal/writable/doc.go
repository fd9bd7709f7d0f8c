// Package writable says whether the process may write an existing file,
// as opening it for writing would: the check that an atomic writer, which
// writes a temporary file and renames it over the old one, needs before
// the rename, since the rename asks only for the directory's permission.
// Both cmd/hieropt's outputs and hieropt-minimalloc's use it.
package writable
