//go:build !unix

package writable

import (
	"io/fs"
)

// Check reports why the process may not write the existing file
// at path (fi, its os.Stat), or nil if it may: on Windows, a file with
// the read-only attribute (which Go reports as a mode without write bits)
// cannot be opened for writing.
func Check(_ string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o200 == 0 {
		return fs.ErrPermission
	}
	return nil
}
