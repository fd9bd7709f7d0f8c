//go:build unix

package writable

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// Check reports why the process may not write the existing file
// at path (fi, its os.Stat), or nil if it may: access(2) with W_OK, which
// says what opening the file for writing would (for root, writable even
// at mode 0444, as open would let root write it; not on a read-only file
// system).
func Check(path string, _ fs.FileInfo) error {
	return unix.Access(path, unix.W_OK)
}
