package minimalloccli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hieropt/hieropt/internal/writable"
)

// WriteFile writes what fill produces to path, all or nothing: "-" is
// stdout; a device or a FIFO is written directly; any other path (a
// symbolic link is followed) gets a temporary file beside it, synced and
// renamed over it, so that a reader sees the old file or the new one,
// never a part. An existing file is replaced only if the process may write
// it (package writable: the rename alone needs only the directory's
// permission), and keeps its permission bits; a new one gets 0644. An
// error of fill writes nothing.
//
// hieropt's own commands write through cmd/hieropt's writeOutput, which
// handles signals too; this is the standalone binary's.
func WriteFile(path string, stdout io.Writer, fill func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := fill(&buf); err != nil {
		return err
	}
	if path == "-" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	target, perm := path, fs.FileMode(0o644)
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("cannot write %s: it is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		fh, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		_, werr := fh.Write(buf.Bytes())
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("cannot write %s: %w", path, werr)
		}
		return nil
	case err == nil:
		// The rename below needs the directory's permission only; the
		// file's own decides, as it would for writing into the file.
		if err := writable.Check(path, fi); err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		perm = fi.Mode().Perm()
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".hieropt-tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	_, err = tmp.Write(buf.Bytes())
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
