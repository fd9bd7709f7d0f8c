//go:build unix

package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What the output tests plan: small and quick, with a deterministic plan.
var outputPlanArgs = []string{"optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "--no-search", "-q"}

// outputWait bounds how long a test waits for a reader or a child process,
// so that a regression fails rather than hangs. It is no speed target.
const outputWait = 60 * time.Second

// leftovers lists the hidden temporary files in dir: the writer's
// .NAME.hieropt-tmp-NNN, and the .NAME.tmpNNN of the writer before it.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var left []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), "tmp") {
			left = append(left, e.Name())
		}
	}
	return left
}

// copyOfDevice makes a node in dir with the device number of dev
// (/dev/null, /dev/full): when the tests run as root, a regression that
// replaced the path would break the machine's own device. Without the
// right to make nodes (not root, where the machine's device is safe: its
// directory is not writable), it returns dev itself.
func copyOfDevice(t *testing.T, dir, dev string) string {
	t.Helper()
	fi, err := os.Stat(dev)
	if err != nil {
		t.Skipf("%s: %v", dev, err)
	}
	require.NotZero(t, fi.Mode()&fs.ModeCharDevice, "%s is not a character device before the test", dev)
	if os.Geteuid() != 0 {
		return dev
	}
	node := filepath.Join(dir, filepath.Base(dev))
	if err := syscall.Mknod(node, syscall.S_IFCHR|0o666, int(fi.Sys().(*syscall.Stat_t).Rdev)); err != nil {
		t.Logf("cannot make a device node (%v): testing %s itself", err, dev)
		return dev
	}
	return node
}

// readFIFO starts a reader of the FIFO and returns what it reads.
func readFIFO(t *testing.T, fifo string) <-chan []byte {
	t.Helper()
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo) // waits for the writer
		if err != nil {
			got <- []byte("open: " + err.Error())
			return
		}
		defer func() { _ = f.Close() }()
		data, err := io.ReadAll(f)
		if err != nil {
			data = append(data, "read: "+err.Error()...)
		}
		got <- data
	}()
	return got
}

func receive(t *testing.T, got <-chan []byte, what string) []byte {
	t.Helper()
	select {
	case data := <-got:
		return data
	case <-time.After(outputWait):
		require.Failf(t, "no output", "the reader of %s got nothing within %s", what, outputWait)
		return nil
	}
}

// TestOutputPathKinds writes a plan (optimize -o) to every kind of path:
// each keeps what it is and gets the plan, and no temporary file is left.
func TestOutputPathKinds(t *testing.T) {
	want := runCLI(t, "", append(outputPlanArgs, "-o", "-")...)
	require.Equal(t, exitOK, want.code, want.stderr)
	require.NotEmpty(t, want.stdout)
	plan := []byte(want.stdout)

	// newPerm is what os.Create gives a new file here: 0666 less the umask.
	umaskProbe := filepath.Join(t.TempDir(), "probe")
	f, err := os.Create(umaskProbe)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	fi, err := os.Stat(umaskProbe)
	require.NoError(t, err)
	newPerm := fi.Mode().Perm()

	mode := func(t *testing.T, path string) fs.FileMode {
		t.Helper()
		fi, err := os.Lstat(path)
		require.NoError(t, err)
		return fi.Mode()
	}
	content := func(t *testing.T, path string) []byte {
		t.Helper()
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		return data
	}
	for _, tc := range []struct {
		name string
		// setup makes the path in dir; check inspects the result.
		setup func(t *testing.T, dir string) (out string, check func(t *testing.T, r result))
	}{
		{"new file", func(t *testing.T, dir string) (string, func(*testing.T, result)) {
			out := filepath.Join(dir, "p.json")
			return out, func(t *testing.T, r result) {
				require.Equal(t, exitOK, r.code, r.stderr)
				assert.Equal(t, plan, content(t, out))
				assert.Equal(t, newPerm, mode(t, out).Perm(), "a new file gets 0666 less the umask")
			}
		}},
		{"regular file, replaced atomically", func(t *testing.T, dir string) (string, func(*testing.T, result)) {
			out := filepath.Join(dir, "p.json")
			require.NoError(t, os.WriteFile(out, []byte("the old plan, longer than nothing\n"), 0o600))
			require.NoError(t, os.Chmod(out, 0o640))
			// A reader that opened the old file keeps reading the old file:
			// the new one was renamed over it, not written into it.
			old, err := os.Open(out)
			require.NoError(t, err)
			t.Cleanup(func() { _ = old.Close() })
			return out, func(t *testing.T, r result) {
				require.Equal(t, exitOK, r.code, r.stderr)
				assert.Equal(t, plan, content(t, out))
				assert.Equal(t, fs.FileMode(0o640), mode(t, out).Perm(), "the file keeps its permission bits")
				seen, err := io.ReadAll(old)
				require.NoError(t, err)
				assert.Equal(t, "the old plan, longer than nothing\n", string(seen))
			}
		}},
		{"symlink", func(t *testing.T, dir string) (string, func(*testing.T, result)) {
			target := filepath.Join(dir, "target.json")
			require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o644))
			link := filepath.Join(dir, "link.json")
			require.NoError(t, os.Symlink(target, link))
			return link, func(t *testing.T, r result) {
				require.Equal(t, exitOK, r.code, r.stderr)
				require.NotZero(t, mode(t, link)&fs.ModeSymlink, "the link is no longer a link")
				dest, err := os.Readlink(link)
				require.NoError(t, err)
				assert.Equal(t, target, dest)
				assert.Equal(t, plan, content(t, target))
			}
		}},
		{"relative symlink chain", func(t *testing.T, dir string) (string, func(*testing.T, result)) {
			// dir/a -> sub/b, dir/sub/b -> ../plans/p.json
			require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
			require.NoError(t, os.Mkdir(filepath.Join(dir, "plans"), 0o755))
			target := filepath.Join(dir, "plans", "p.json")
			require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o644))
			require.NoError(t, os.Symlink(filepath.Join("..", "plans", "p.json"), filepath.Join(dir, "sub", "b")))
			link := filepath.Join(dir, "a")
			require.NoError(t, os.Symlink(filepath.Join("sub", "b"), link))
			return link, func(t *testing.T, r result) {
				require.Equal(t, exitOK, r.code, r.stderr)
				for _, l := range []string{link, filepath.Join(dir, "sub", "b")} {
					assert.NotZero(t, mode(t, l)&fs.ModeSymlink, "%s is no longer a link", l)
				}
				assert.Equal(t, plan, content(t, target))
				assert.Empty(t, leftovers(t, filepath.Join(dir, "plans")))
				assert.Empty(t, leftovers(t, filepath.Join(dir, "sub")))
			}
		}},
		{"dangling symlink", func(t *testing.T, dir string) (string, func(*testing.T, result)) {
			link := filepath.Join(dir, "link.json")
			require.NoError(t, os.Symlink("new.json", link))
			return link, func(t *testing.T, r result) {
				require.Equal(t, exitOK, r.code, r.stderr)
				assert.NotZero(t, mode(t, link)&fs.ModeSymlink, "the link is no longer a link")
				assert.Equal(t, plan, content(t, filepath.Join(dir, "new.json")))
				assert.Equal(t, newPerm, mode(t, filepath.Join(dir, "new.json")).Perm())
			}
		}},
		{"FIFO", func(t *testing.T, dir string) (string, func(*testing.T, result)) {
			fifo := filepath.Join(dir, "plan.fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o644))
			got := readFIFO(t, fifo)
			return fifo, func(t *testing.T, r result) {
				require.Equal(t, exitOK, r.code, r.stderr)
				assert.NotZero(t, mode(t, fifo)&fs.ModeNamedPipe, "the FIFO is no longer a FIFO")
				assert.Equal(t, plan, receive(t, got, fifo))
			}
		}},
		{"null device", func(t *testing.T, dir string) (string, func(*testing.T, result)) {
			null := copyOfDevice(t, dir, "/dev/null")
			return null, func(t *testing.T, r result) {
				require.Equal(t, exitOK, r.code, r.stderr)
				assert.NotZero(t, mode(t, null)&fs.ModeCharDevice, "%s is no longer a character device", null)
				assert.Empty(t, leftovers(t, filepath.Dir(null)))
			}
		}},
		{"full device: the write error is reported", func(t *testing.T, dir string) (string, func(*testing.T, result)) {
			full := copyOfDevice(t, dir, "/dev/full")
			return full, func(t *testing.T, r result) {
				assert.Equal(t, exitInput, r.code, r.stderr)
				assert.Equal(t, "hieropt: cannot write "+full+": no space left on device\n", r.stderr)
				assert.NotZero(t, mode(t, full)&fs.ModeCharDevice, "%s is no longer a character device", full)
				assert.Empty(t, leftovers(t, filepath.Dir(full)))
			}
		}},
		{"directory", func(t *testing.T, dir string) (string, func(*testing.T, result)) {
			sub := filepath.Join(dir, "plans")
			require.NoError(t, os.Mkdir(sub, 0o755))
			return sub, func(t *testing.T, r result) {
				assert.Equal(t, exitInput, r.code, r.stderr)
				assert.Equal(t, "hieropt: cannot write "+sub+": it is a directory\n", r.stderr)
				ents, err := os.ReadDir(sub)
				require.NoError(t, err)
				assert.Empty(t, ents)
			}
		}},
		{"stdout", func(t *testing.T, dir string) (string, func(*testing.T, result)) {
			return "-", func(t *testing.T, r result) {
				require.Equal(t, exitOK, r.code, r.stderr)
				assert.Equal(t, want.stdout, r.stdout)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out, check := tc.setup(t, dir)
			check(t, runCLI(t, "", append(outputPlanArgs, "-o", out)...))
			assert.Empty(t, leftovers(t, dir), "temporary files left")
		})
	}
}

// TestEveryCommandOutput writes the output of every command that writes
// one through a symlink, to a FIFO and to a null device: the same bytes as
// to a regular file, and each path keeps what it is.
func TestEveryCommandOutput(t *testing.T) {
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.json")
	r := runCLI(t, "", append(outputPlanArgs, "-o", planFile)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	wl := []string{"--workload", "seed000-example", "--hw", "ethos-u55"}
	// dropSeconds removes sweep's timing column, the one thing in these
	// outputs that differs between runs.
	dropSeconds := func(data []byte) []byte {
		recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil || len(recs) == 0 {
			return data
		}
		col := slices.Index(recs[0], "seconds")
		if col < 0 {
			return data
		}
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		for _, rec := range recs {
			_ = w.Write(slices.Delete(rec, col, col+1))
		}
		w.Flush()
		return b.Bytes()
	}
	for _, tc := range []struct {
		name      string
		args      func(out string) []string
		normalize func([]byte) []byte
	}{
		{"optimize -o", func(out string) []string { return append(outputPlanArgs, "-o", out) }, nil},
		{"optimize --report", func(out string) []string { return append(outputPlanArgs, "--report", out) }, nil},
		{"render -o", func(out string) []string { return append([]string{"render", planFile, "-o", out}, wl...) }, nil},
		{"report -o", func(out string) []string { return append([]string{"report", planFile, "-o", out}, wl...) }, nil},
		{"pack -o", func(out string) []string {
			return []string{"pack", repo("testdata", "minimalloc", "input.12.csv"), "-q", "-o", out}
		}, nil},
		{"export minimalloc -o", func(out string) []string {
			return append([]string{"export", "minimalloc", planFile, "-o", out}, wl...)
		}, nil},
		{"import minimalloc -o", func(out string) []string {
			return []string{"import", "minimalloc", repo("testdata", "minimalloc", "input.12.csv"), "-o", out}
		}, nil},
		{"gen -o", func(out string) []string { return []string{"gen", "--ops", "30", "-o", out} }, nil},
		{"sweep -o", func(out string) []string {
			return []string{"sweep", "--workloads", "seed000-example", "--hw", "ethos-u55", "-q", "-o", out}
		}, dropSeconds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			norm := tc.normalize
			if norm == nil {
				norm = func(b []byte) []byte { return b }
			}
			dir := t.TempDir()
			ref := filepath.Join(dir, "ref")
			r := runCLI(t, "", tc.args(ref)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			want, err := os.ReadFile(ref)
			require.NoError(t, err)
			require.NotEmpty(t, want)

			target := filepath.Join(dir, "target")
			require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o644))
			link := filepath.Join(dir, "link")
			require.NoError(t, os.Symlink("target", link))
			r = runCLI(t, "", tc.args(link)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			fi, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "the link is no longer a link")
			got, err := os.ReadFile(target)
			require.NoError(t, err)
			assert.Equal(t, string(norm(want)), string(norm(got)), "through the link")

			fifo := filepath.Join(dir, "fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o644))
			ch := readFIFO(t, fifo)
			r = runCLI(t, "", tc.args(fifo)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			fi, err = os.Lstat(fifo)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&fs.ModeNamedPipe, "the FIFO is no longer a FIFO")
			assert.Equal(t, string(norm(want)), string(norm(receive(t, ch, fifo))), "through the FIFO")

			null := copyOfDevice(t, dir, "/dev/null")
			r = runCLI(t, "", tc.args(null)...)
			require.Equal(t, exitOK, r.code, r.stderr)
			fi, err = os.Lstat(null)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&fs.ModeCharDevice, "%s is no longer a character device", null)

			assert.Empty(t, leftovers(t, dir), "temporary files left")
		})
	}
}

// TestSignalDuringFIFOWrite interrupts hieropt while it writes a large plan
// into a FIFO whose reader has stopped reading: SIGINT and SIGTERM each end
// it with exit 130, the FIFO stays a FIFO and no temporary file is left.
func TestSignalDuringFIFOWrite(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "gen.json")
	r := runCLI(t, "", "gen", "--ops", "3000", "-o", w)
	require.Equal(t, exitOK, r.code, r.stderr)
	args := []string{"optimize", "--workload", w, "--hw", "h100-sm", "--no-search", "-q"}
	// The plan must be much larger than a pipe's buffer (64 KiB on
	// Linux), so that the writer blocks until the reader reads more.
	r = runCLI(t, "", append(args, "-o", "-")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Greater(t, len(r.stdout), 1<<18)

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			fifo := filepath.Join(dir, "plan.fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o644))
			defer func() { _ = os.Remove(fifo) }()
			// A reader without O_NONBLOCK would wait here for the writer.
			rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			require.NoError(t, err)
			defer func() { _ = rd.Close() }()

			cmd := exec.Command(os.Args[0], append(args, "-o", fifo)...)
			cmd.Env = append(os.Environ(), "HIEROPT_TEST_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() { _ = cmd.Process.Kill() }()

			// Wait for the first byte: the writer is then in its write, and
			// blocks once the pipe is full. Until the writer opens the FIFO,
			// a read sees end-of-file.
			require.NoError(t, rd.SetReadDeadline(time.Now().Add(outputWait)))
			b := make([]byte, 1)
			for {
				n, err := rd.Read(b)
				if n == 1 {
					break
				}
				if err != nil && !errors.Is(err, io.EOF) {
					require.Failf(t, "nothing written into the FIFO", "%v; stderr: %s", err, stderr.String())
				}
				select {
				case err := <-exited:
					require.Failf(t, "hieropt ended without writing into the FIFO", "%v; stderr: %s", err, stderr.String())
				case <-time.After(10 * time.Millisecond):
				}
			}
			require.NoError(t, cmd.Process.Signal(sig))
			select {
			case err = <-exited:
			case <-time.After(outputWait):
				require.Failf(t, "hieropt did not stop", "%s did not end a write blocked on a FIFO", sig)
			}
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, stderr.String())
			assert.Equal(t, exitInterrupted, ee.ExitCode(), stderr.String())
			assert.Contains(t, stderr.String(), "while writing "+fifo+": not written")
			fi, err := os.Lstat(fifo)
			require.NoError(t, err)
			assert.NotZero(t, fi.Mode()&fs.ModeNamedPipe, "the FIFO is no longer a FIFO")
			assert.Empty(t, leftovers(t, dir), "temporary files left")
		})
	}
}

// TestOptimizeChecksOutputsFirst: an -o or --report that cannot be written
// (a directory, a file in a directory that does not exist, a file under a
// regular file) is refused before planning: exit 2 and one line naming the
// path, without the search's "searching" line or the summary that a refusal
// at writing time came after, and nothing written.
func TestOptimizeChecksOutputsFirst(t *testing.T) {
	args := []string{"optimize", "--workload", "seed000-example", "--hw", "ethos-u55"}
	for _, tc := range []struct {
		name string
		flag string
		path func(dir string) string
		want func(dir string) string
	}{
		{"-o directory", "-o", func(dir string) string { return dir },
			func(dir string) string { return "cannot write " + dir + ": it is a directory" }},
		{"-o missing directory", "-o", func(dir string) string { return filepath.Join(dir, "no", "plan.json") },
			func(dir string) string {
				return "cannot write " + filepath.Join(dir, "no", "plan.json") + ": directory " + filepath.Join(dir, "no") + " does not exist"
			}},
		{"-o under a file", "-o", func(dir string) string { return filepath.Join(dir, "file", "plan.json") },
			func(dir string) string {
				return "cannot write " + filepath.Join(dir, "file", "plan.json") + ": not a directory"
			}},
		{"--report missing directory", "--report", func(dir string) string { return filepath.Join(dir, "no", "r.html") },
			func(dir string) string {
				return "cannot write " + filepath.Join(dir, "no", "r.html") + ": directory " + filepath.Join(dir, "no") + " does not exist"
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
			extra := []string{tc.flag, tc.path(dir)}
			if tc.flag == "--report" {
				extra = append(extra, "-o", filepath.Join(dir, "plan.json"))
			}
			r := runCLI(t, "", append(args, extra...)...)
			assert.Equal(t, exitInput, r.code, r.stderr)
			assert.Equal(t, "hieropt: "+tc.want(dir)+"\n", r.stderr)
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, ents, 1, "only the file the test made")
		})
	}
}
