package main

// Writing outputs. Every file a command writes (optimize -o and --report,
// render, report, pack, export, import, plan, gen, sweep, tune, calibrate,
// diff, minimalloc) goes through (*app).writeOutput, which does what the
// path calls for:
//
//   - "-": standard output.
//   - A regular file, or a path that does not exist yet: atomically. The
//     output goes to a temporary file in the same directory, named
//     .NAME.hieropt-tmp-NNN, which is synced and then renamed over NAME, so
//     a reader sees the old file or the new one, never a part. A file that
//     existed keeps its permission bits; a new one gets 0666 less the umask,
//     as os.Create would give it. (A rename makes a new file: its owner is
//     the writer, and other hard links to the old file keep the old
//     content.) An existing file is replaced only if the process may write
//     it (access(2) on Unix, the read-only attribute on Windows): the
//     rename needs only the directory's permission, which would let a user
//     replace, say, someone else's read-only file in a world-writable
//     directory.
//   - A symbolic link, or a chain of them, relative or absolute: followed
//     to the file it ends at, which is written as above. The link stays a
//     link; a dangling link gets its target created. A link whose text
//     names no file (/dev/stdout, /proc/self/fd/N) is written through
//     directly.
//   - A character or block device, or a FIFO: opened for writing, without
//     creating or truncating, and written directly: /dev/null stays
//     /dev/null, and the reader of a FIFO gets the output. Opening a FIFO
//     waits for its reader.
//   - A directory or a socket, or a new file in a directory that does not
//     exist: an error (exit 2) naming the path.
//
// No output replaces one of the command's inputs: each command records the
// files it reads (noteInput: workloads, profiles, plans, models, CSVs,
// samples, the --config file, standard input when it is a regular file),
// and an output that is the same file as one of them, by identity
// (os.SameFile: through symbolic links and hard links too), is refused
// (exit 2) naming the output and the input. Devices and FIFOs are not
// recorded: reading one and writing it is no overwrite. Commands that work
// long or print before they write (optimize, pack, sweep, plan tflm, tune)
// check their outputs so, their inputs recorded, before that work
// (checkOutput).
//
// The output is produced in memory first, so a command that fails while
// producing it touches nothing, and the temporary file exists only while
// the bytes are copied and synced. SIGINT or SIGTERM in that window removes
// it at once and ends the command with exit 130, the old file (if any)
// unchanged; the same signal while a device or FIFO is being written stops
// the writing (its reader may have received a part). SIGKILL cannot be
// caught: a kill in that window can leave .NAME.hieropt-tmp-NNN beside the
// output (never a partial NAME); such a file can be deleted.

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/hieropt/hieropt/internal/writable"
)

// tmpInfix marks the temporary files of outputs: .NAME.hieropt-tmp-NNN.
const tmpInfix = ".hieropt-tmp-"

// maxLinks bounds the symbolic links followed from an output path (Linux's
// limit for one path).
const maxLinks = 40

// writeOutput writes what fill produces to path: standard output for "-",
// else as the path's kind calls for (see the top of this file). An error
// of fill is returned as it is, and nothing is written.
func (a *app) writeOutput(path string, fill func(io.Writer) error) error {
	var t *outputTarget
	if path != "-" {
		var err error
		if t, err = a.resolveOutput(path); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := fill(&buf); err != nil {
		return err
	}
	if t == nil {
		if _, err := a.stdout.Write(buf.Bytes()); err != nil {
			return writeError("standard output", err)
		}
		return nil
	}
	return t.write(func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// outputTarget is a resolved output path.
type outputTarget struct {
	given string // the path as given, for messages
	path  string // the file written: the end of the symbolic links, unless direct
	// direct: open path and write into it (a device, a FIFO, a link
	// through /proc); else write a temporary file and rename it to path.
	direct bool
	trunc  bool        // direct to a regular file: truncate it first
	exists bool        // not direct: path is an existing regular file
	perm   fs.FileMode // when exists: its permission bits, kept
}

func writeError(path string, err error) error {
	return &exitError{exitInput, fmt.Errorf("cannot write %s: %s", path, errorText(err))}
}

// inputFile is a file the command reads, which no output may replace.
type inputFile struct {
	doc string      // what it is, as errors name it: workload "in.json"
	fi  fs.FileInfo // the file, as os.Stat (or standard input's Stat) gave it
}

// noteInput records that the command reads path ("-": standard input) as
// the document doc (workload "in.json"), so that no output replaces it
// (checkNotInput). Only a regular file is recorded: a device or a FIFO
// that is read and written is not overwritten, and a path that cannot be
// stat'ed is not read either (the reader says why). Standard input is
// recorded when it is a regular file (hieropt ... --workload - < in.json).
// Recording a file twice, or before reading it, is harmless.
func (a *app) noteInput(doc, path string) {
	var fi fs.FileInfo
	var err error
	switch path {
	case "":
		return
	case "-":
		f, ok := a.stdin.(*os.File)
		if !ok {
			return
		}
		fi, err = f.Stat()
	default:
		fi, err = os.Stat(path)
	}
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	a.inputsMu.Lock()
	defer a.inputsMu.Unlock()
	for _, in := range a.inputs {
		if os.SameFile(in.fi, fi) {
			return
		}
	}
	if path == "-" {
		doc += " (standard input)"
	}
	a.inputs = append(a.inputs, inputFile{doc: doc, fi: fi})
}

// checkNotInput refuses the output path (given as the user gave it) when
// fi, the file it ends at, is one of the inputs noteInput recorded.
func (a *app) checkNotInput(path string, fi fs.FileInfo) error {
	a.inputsMu.Lock()
	defer a.inputsMu.Unlock()
	for _, in := range a.inputs {
		if os.SameFile(in.fi, fi) {
			return &exitError{exitInput, fmt.Errorf("cannot write %s: it is the input %s", path, in.doc)}
		}
	}
	return nil
}

// resolveOutput finds what path is and how to write it, and refuses an
// output that is one of the command's inputs or that the process may not
// write.
func (a *app) resolveOutput(path string) (*outputTarget, error) {
	t, fi, err := resolveTarget(path)
	if err != nil || fi == nil || !fi.Mode().IsRegular() {
		return t, err
	}
	if err := a.checkNotInput(path, fi); err != nil {
		return nil, err
	}
	if t.exists {
		// The rename below needs the directory's permission only; the
		// file's own decides, as it would for writing into the file.
		if err := writable.Check(t.path, fi); err != nil {
			return nil, writeError(path, err)
		}
	}
	return t, nil
}

// resolveTarget finds what path is and how to write it, and returns the
// file it ends at (os.Stat's; nil for a path that does not exist yet).
func resolveTarget(path string) (*outputTarget, fs.FileInfo, error) {
	t := &outputTarget{given: path, path: path}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		// A new file, or a dangling link: the file is created where the
		// links end.
		end, err := linkEnd(path)
		if err != nil {
			return nil, nil, writeError(path, err)
		}
		if err := checkDir(path, filepath.Dir(end)); err != nil {
			return nil, nil, err
		}
		t.path = end
		return t, nil, nil
	}
	if err != nil {
		return nil, nil, writeError(path, err)
	}
	switch mode := fi.Mode(); {
	case mode.IsDir():
		return nil, nil, &exitError{exitInput, fmt.Errorf("cannot write %s: it is a directory", path)}
	case mode&fs.ModeSocket != 0:
		return nil, nil, &exitError{exitInput, fmt.Errorf("cannot write %s: it is a socket", path)}
	case !mode.IsRegular():
		t.direct = true // a device or a FIFO
		return t, fi, nil
	}
	end, err := linkEnd(path)
	if err != nil {
		return nil, nil, writeError(path, err)
	}
	if efi, err := os.Lstat(end); err != nil || !os.SameFile(fi, efi) {
		// A link whose text is not a path to the file: /dev/stdout
		// redirected to a file, through /proc/self/fd/1.
		t.direct, t.trunc = true, true
		return t, fi, nil
	}
	t.path, t.exists, t.perm = end, true, fi.Mode().Perm()
	return t, fi, nil
}

// checkDir reports, naming the output path, that dir, where the output
// path's file would be created, does not exist or is not a directory.
func checkDir(path, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &exitError{exitInput, fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)}
	case err != nil:
		return writeError(path, err)
	case !fi.IsDir():
		return &exitError{exitInput, fmt.Errorf("cannot write %s: %s is not a directory", path, dir)}
	}
	return nil
}

// checkOutput rejects an output path that cannot be written (a directory,
// a socket, a file in a directory that does not exist, a file the process
// may not write) or that is one of the inputs recorded so far, so that a
// command can refuse it before its work rather than after. "" (no output)
// and "-" pass.
func (a *app) checkOutput(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	_, err := a.resolveOutput(path)
	return err
}

// linkEnd follows path while it is a symbolic link and returns the name
// the chain ends at, which need not exist.
func linkEnd(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink == 0) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("more than %d symbolic links", maxLinks)
}

// errWriteInterrupted ends a write that a signal aborted.
var errWriteInterrupted = errors.New("interrupted")

// write writes what copyTo produces to the target, catching SIGINT and
// SIGTERM meanwhile: on either, a temporary file is removed at once, a
// direct write is stopped (closing the file ends a write blocked on a
// FIFO), and write returns an exit-130 error without waiting for copyTo
// to end.
func (t *outputTarget) write(copyTo func(io.Writer) error) error {
	var sigs chan os.Signal // nil (never ready) when no signal is caught
	if caught := catchableSignals(); len(caught) > 0 {
		sigs = make(chan os.Signal, 1)
		signal.Notify(sigs, caught...)
		defer signal.Stop(sigs)
	}
	w := &outputWrite{t: t}
	done := make(chan error, 1)
	go func() {
		if t.direct {
			done <- w.direct(copyTo)
		} else {
			done <- w.replace(copyTo)
		}
	}()
	select {
	case err := <-done:
		return err
	case sig := <-sigs:
		if !w.abort() {
			return <-done // the output was complete: it stands
		}
		return &exitError{exitInterrupted, fmt.Errorf("interrupted (%v) while writing %s: not written", sig, t.given)}
	}
}

// catchableSignals are the signals write catches: SIGINT and SIGTERM, but
// not one the process was started to ignore (nohup, a background job).
func catchableSignals() []os.Signal {
	var s []os.Signal
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(sig) {
			s = append(s, sig)
		}
	}
	return s
}

// outputWrite is one write in progress, shared by the writing goroutine
// and the signal path; mu orders the rename against an abort.
type outputWrite struct {
	t       *outputTarget
	mu      sync.Mutex
	tmp     string   // the temporary file, while it exists
	f       *os.File // the file of a direct write, while open
	aborted bool     // a signal stopped the write
	settled bool     // the write has ended (renamed, or written directly): a signal no longer changes it
}

// abort stops the write unless it is complete, and reports whether it did.
func (w *outputWrite) abort() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.settled {
		return false
	}
	w.aborted = true
	if w.tmp != "" {
		_ = os.Remove(w.tmp)
		w.tmp = ""
	}
	if w.f != nil {
		_ = w.f.Close()
	}
	return true
}

// replace writes a temporary file beside the target and renames it over
// the target.
func (w *outputWrite) replace(copyTo func(io.Writer) error) (err error) {
	dir, name := filepath.Split(w.t.path)
	f, err := createTemp(dir, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// The directory exists (resolveOutput saw it), yet a file
			// cannot be created in it: a file system such as /proc.
			// Say so, rather than "no such file or directory".
			return &exitError{exitInput, fmt.Errorf("cannot write %s: cannot create a file in %s (%s)", w.t.given, filepath.Clean(cmp.Or(dir, ".")), errorText(err))}
		}
		return writeError(w.t.given, err)
	}
	w.mu.Lock()
	if w.aborted {
		w.mu.Unlock()
		_ = f.Close()
		_ = os.Remove(f.Name())
		return errWriteInterrupted
	}
	w.tmp = f.Name()
	w.mu.Unlock()
	closed := false
	defer func() {
		if !closed {
			_ = f.Close()
		}
		if err != nil {
			w.mu.Lock()
			if w.tmp != "" {
				_ = os.Remove(w.tmp)
				w.tmp = ""
			}
			w.mu.Unlock()
		}
	}()
	if err := copyTo(f); err != nil {
		return writeError(w.t.given, err)
	}
	if w.t.exists {
		if err := f.Chmod(w.t.perm); err != nil {
			return writeError(w.t.given, err)
		}
	}
	if err := f.Sync(); err != nil {
		return writeError(w.t.given, err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return writeError(w.t.given, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.aborted {
		return errWriteInterrupted // abort removed the file
	}
	if err := os.Rename(w.tmp, w.t.path); err != nil {
		return writeError(w.t.given, err)
	}
	w.tmp, w.settled = "", true
	syncDir(dir)
	return nil
}

// createTemp creates .NAME.hieropt-tmp-NNN in dir, with permission bits
// 0666 less the umask.
func createTemp(dir, name string) (*os.File, error) {
	const maxName = 200 // leaves room for the rest within a 255-byte name
	if len(name) > maxName {
		name = name[:maxName]
	}
	for range 1000 {
		tmp := filepath.Join(dir, "."+name+tmpInfix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("cannot find a free temporary name in %s", dir)
}

// syncDir makes a rename in dir durable, as far as the system allows (not
// every one can sync a directory: the rename is done either way).
func syncDir(dir string) {
	if dir == "" {
		dir = "."
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// direct opens the target for writing, without creating or truncating it
// (unless it is a regular file), and writes into it.
func (w *outputWrite) direct(copyTo func(io.Writer) error) error {
	flag := os.O_WRONLY
	if w.t.trunc {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(w.t.path, flag, 0) // a FIFO: waits for a reader
	if err != nil {
		return writeError(w.t.given, err)
	}
	w.mu.Lock()
	if w.aborted {
		w.mu.Unlock()
		_ = f.Close()
		return errWriteInterrupted
	}
	w.f = f
	w.mu.Unlock()
	err = copyTo(f)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.aborted {
		return errWriteInterrupted // abort closed f
	}
	w.f, w.settled = nil, true
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return writeError(w.t.given, err)
	}
	return nil
}
