//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workloads"
)

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dst, data, 0o644))
}

// snapshot reads every regular file in dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	files := map[string]string{}
	for _, e := range ents {
		if e.Type().IsRegular() {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			files[e.Name()] = string(data)
		}
	}
	return files
}

// TestOutputIsNeverAnInput points the output of every command that reads
// files and writes one at each of its inputs: by the input's own path,
// through a symbolic link and through a hard link. Each is refused with
// exit 2 and one line naming the output and the input, and every input is
// byte for byte what it was (issue 30, item 1: optimize -o in.json used to
// replace the workload in.json with the plan).
func TestOutputIsNeverAnInput(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	wl, ok := workloads.JSON("seed000-example")
	require.True(t, ok)
	require.NoError(t, os.WriteFile(in("w.json"), wl, 0o644))
	copyFile(t, repo("testdata", "hw", "two-level-5k.yaml"), in("hw.yaml"))
	copyFile(t, repo("testdata", "minimalloc", "input.12.csv"), in("in.12.csv"))
	copyFile(t, repo("testdata", "onnx", "resnet18.onnx"), in("m.onnx"))
	copyFile(t, repo("testdata", "tflite", "hello_world_int8.tflite"), in("m.tflite"))
	writeSynthetic(t, in("samples.csv"))
	require.NoError(t, os.WriteFile(in("base.yaml"), []byte(`format: hieropt.hw/v1
name: box
time_unit: cycle
levels:
  - {name: L1, capacity: 40960, alignment: 32, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
  - {name: L2, capacity: 1310720, alignment: 64, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
  - {name: L3, capacity: 8388608, alignment: 64, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
  - {name: DRAM, capacity: 1073741824, alignment: 128, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
`), 0o644))
	require.NoError(t, os.WriteFile(in("c.yaml"), []byte("gen:\n  ops: 5\n"), 0o644))
	// Inputs that commands make: a plan, a workload imported from the
	// model and its plan, a sweep's CSV. Made under other names, then
	// moved in.
	made := t.TempDir()
	for _, args := range [][]string{
		{"optimize", "--workload", in("w.json"), "--hw", in("hw.yaml"), "--no-search", "-q", "-o", filepath.Join(made, "plan.json")},
		{"import", "tflite", in("m.tflite"), "-o", filepath.Join(made, "tw.json")},
		{"optimize", "--workload", filepath.Join(made, "tw.json"), "--hw", "ethos-u55", "--no-search", "-q", "-o", filepath.Join(made, "tplan.json")},
		{"sweep", "--workloads", in("w.json"), "--hw", in("hw.yaml"), "--no-search", "-q", "-o", filepath.Join(made, "s.csv")},
	} {
		r := runCLI(t, "", args...)
		require.Equal(t, exitOK, r.code, "%v: %s", args, r.stderr)
	}
	for _, f := range []string{"plan.json", "tw.json", "tplan.json", "s.csv"} {
		require.NoError(t, os.Rename(filepath.Join(made, f), in(f)))
	}
	before := snapshot(t, dir)

	type input struct{ file, kind string }
	w, h, p := input{"w.json", "workload"}, input{"hw.yaml", "hardware profile"}, input{"plan.json", "plan"}
	loaded := []string{"--workload", in("w.json"), "--hw", in("hw.yaml")}
	for _, tc := range []struct {
		name   string
		args   func(out string) []string
		inputs []input
		prefix string // of the error line; "hieropt: " by default
	}{
		{"optimize -o", func(out string) []string {
			return append([]string{"optimize", "--no-search", "-q", "-o", out}, loaded...)
		}, []input{w, h}, ""},
		{"optimize --report", func(out string) []string {
			return append([]string{"optimize", "--no-search", "-q", "--report", out}, loaded...)
		}, []input{w, h}, ""},
		{"render", func(out string) []string { return append([]string{"render", in("plan.json"), "-o", out}, loaded...) }, []input{p, w, h}, ""},
		{"report", func(out string) []string { return append([]string{"report", in("plan.json"), "-o", out}, loaded...) }, []input{p, w}, ""},
		{"export memmap", func(out string) []string {
			return append([]string{"export", "memmap", in("plan.json"), "-o", out}, loaded...)
		}, []input{p, h}, ""},
		{"export minimalloc", func(out string) []string {
			return append([]string{"export", "minimalloc", in("plan.json"), "-o", out}, loaded...)
		}, []input{p, w}, ""},
		{"diff", func(out string) []string {
			return append([]string{"diff", in("plan.json"), in("plan.json"), "-o", out}, loaded...)
		}, []input{p}, ""},
		{"export tflm", func(out string) []string {
			return []string{"export", "tflm", in("tplan.json"), "--workload", in("tw.json"), "--hw", "ethos-u55", "--model", in("m.tflite"), "-o", out}
		}, []input{{"m.tflite", "TFLite model"}, {"tplan.json", "plan"}, {"tw.json", "workload"}}, ""},
		{"plan tflm", func(out string) []string {
			return []string{"plan", "tflm", in("m.tflite"), "--arena", "64K", "-o", out}
		},
			[]input{{"m.tflite", "TFLite model"}}, ""},
		{"import tflite", func(out string) []string { return []string{"import", "tflite", in("m.tflite"), "-o", out} },
			[]input{{"m.tflite", "TFLite model"}}, ""},
		{"import onnx", func(out string) []string { return []string{"import", "onnx", in("m.onnx"), "-o", out} },
			[]input{{"m.onnx", "ONNX model"}}, ""},
		{"import minimalloc", func(out string) []string { return []string{"import", "minimalloc", in("in.12.csv"), "-o", out} },
			[]input{{"in.12.csv", "CSV"}}, ""},
		{"pack", func(out string) []string { return []string{"pack", in("in.12.csv"), "-q", "-o", out} },
			[]input{{"in.12.csv", "CSV"}}, ""},
		{"pack --workload", func(out string) []string { return []string{"pack", "--workload", in("w.json"), "-q", "-o", out} },
			[]input{w}, ""},
		{"minimalloc", func(out string) []string {
			return []string{"minimalloc", "--capacity=12", "--input=" + in("in.12.csv"), "--output=" + out}
		}, []input{{"in.12.csv", "CSV"}}, "hieropt minimalloc: "},
		{"sweep", func(out string) []string {
			return []string{"sweep", "--workloads", in("w.json"), "--hw", in("hw.yaml"), "--no-search", "-q", "-o", out}
		}, []input{w, h}, ""},
		{"sweep merge", func(out string) []string { return []string{"sweep", "merge", in("s.csv"), "-q", "-o", out} },
			[]input{{"s.csv", "sweep CSV"}}, ""},
		{"tune", func(out string) []string {
			return []string{"tune", in("samples.csv"), "--base", in("base.yaml"), "-o", out}
		},
			[]input{{"samples.csv", "samples"}, {"base.yaml", "hardware profile"}}, ""},
		{"gen --config", func(out string) []string { return []string{"gen", "--config", in("c.yaml"), "-o", out} },
			[]input{{"c.yaml", "config"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, inp := range tc.inputs {
				path := in(inp.file)
				link, hard := in(fmt.Sprintf("link-%d", i)), in(fmt.Sprintf("hard-%d", i))
				require.NoError(t, os.Symlink(inp.file, link))
				require.NoError(t, os.Link(path, hard))
				for _, out := range []string{path, link, hard} {
					r := runCLI(t, "", tc.args(out)...)
					assert.Equal(t, exitInput, r.code, "-o %s: %s", out, r.stderr)
					prefix := tc.prefix
					if prefix == "" {
						prefix = "hieropt: "
					}
					assert.Equal(t, prefix+"cannot write "+out+": it is the input "+inputerr.Doc(inp.kind, path)+"\n", r.stderr, "-o %s", out)
					assert.Empty(t, r.stdout, "-o %s", out)
				}
				require.NoError(t, os.Remove(link))
				require.NoError(t, os.Remove(hard))
				assert.Equal(t, before, snapshot(t, dir), "an input changed")
				assert.Empty(t, leftovers(t, dir), "temporary files left")
			}
		})
	}
	// The config file named by HIEROPT_CONFIG rather than --config.
	t.Run("HIEROPT_CONFIG", func(t *testing.T) {
		t.Setenv("HIEROPT_CONFIG", in("c.yaml"))
		r := runCLI(t, "", "gen", "-o", in("c.yaml"))
		assert.Equal(t, exitInput, r.code, r.stderr)
		assert.Equal(t, "hieropt: cannot write "+in("c.yaml")+": it is the input "+inputerr.Doc("config", in("c.yaml"))+"\n", r.stderr)
		assert.Equal(t, before, snapshot(t, dir), "an input changed")
	})
}

// TestOutputIsNotStandardInput: standard input redirected from a regular
// file is an input too (hieropt optimize --workload - < in.json -o
// in.json), while /dev/stdin read from a pipe and /dev/stdout written to
// one are no file to protect.
func TestOutputIsNotStandardInput(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "in.json")
	wl, ok := workloads.JSON("seed000-example")
	require.True(t, ok)
	require.NoError(t, os.WriteFile(w, wl, 0o644))
	f, err := os.Open(w)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	var out, errb strings.Builder
	code := run([]string{"optimize", "--workload", "-", "--hw", "ethos-u55", "--no-search", "-q", "-o", w}, f, &out, &errb)
	assert.Equal(t, exitInput, code, errb.String())
	assert.Equal(t, `hieropt: cannot write `+w+`: it is the input workload "-" (standard input)`+"\n", errb.String())
	got, err := os.ReadFile(w)
	require.NoError(t, err)
	assert.Equal(t, string(wl), string(got))

	// A pipe in, a pipe out: the child reads /dev/stdin and writes
	// /dev/stdout.
	cmd := exec.Command(os.Args[0], "optimize", "--workload", "/dev/stdin", "--hw", "ethos-u55", "--no-search", "-q", "-o", "/dev/stdout")
	cmd.Env = append(os.Environ(), "HIEROPT_TEST_MAIN=1")
	cmd.Stdin = strings.NewReader(string(wl))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	plan, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	assert.Contains(t, string(plan), `"cost"`)
}

// TestOutputNotWritable runs hieropt as an unprivileged user (nobody) with
// -o naming a file it may not write, root's and read-only (0444), in a
// directory anyone may write: world-writable, world-writable and sticky
// (/tmp's mode), and the user's own sticky one. The rename would replace
// the file in the first and the last (and it used to, the new file then
// the user's: issue 30, item 2); writing into the file would be refused,
// and so is the output now: exit 2, "permission denied", the file as it
// was. It needs root, to make the files and to run as nobody.
func TestOutputNotWritable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: to make a root-owned file and run hieropt as another user")
	}
	const nobody = 65534
	// The test binary, copied where nobody may run it (go test's own
	// directory is root's alone).
	top, err := os.MkdirTemp("", "hieropt-notwritable-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(top) })
	require.NoError(t, os.Chmod(top, 0o755))
	bin := filepath.Join(top, "hieropt")
	self, err := os.Executable()
	require.NoError(t, err)
	copyFile(t, self, bin)
	require.NoError(t, os.Chmod(bin, 0o755))
	asNobody := func(t *testing.T, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "HIEROPT_TEST_MAIN=1")
		cmd.Dir = top
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Skipf("cannot run as uid %d: %v", nobody, err)
		}
		return cmd.ProcessState.ExitCode(), stderr.String()
	}
	if code, stderr := asNobody(t, "--version"); code != exitOK {
		t.Skipf("the test binary does not run as uid %d: exit %d: %s", nobody, code, stderr)
	}
	for _, tc := range []struct {
		name  string
		mode  os.FileMode
		owner int // of the directory
	}{
		{"world-writable directory", 0o777, 0},
		{"sticky world-writable directory", 0o777 | os.ModeSticky, 0},
		{"the user's sticky directory", 0o777 | os.ModeSticky, nobody},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(top, strings.ReplaceAll(tc.name, " ", "-"))
			require.NoError(t, os.Mkdir(dir, 0o755))
			require.NoError(t, os.Chmod(dir, tc.mode))
			require.NoError(t, os.Chown(dir, tc.owner, tc.owner))
			out := filepath.Join(dir, "root.json")
			require.NoError(t, os.WriteFile(out, []byte("root's\n"), 0o444))
			require.NoError(t, os.Chmod(out, 0o444))
			code, stderr := asNobody(t, "optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "--no-search", "-q", "-o", out)
			assert.Equal(t, exitInput, code, stderr)
			assert.Equal(t, "hieropt: cannot write "+out+": permission denied\n", stderr)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.Equal(t, "root's\n", string(data))
			fi, err := os.Stat(out)
			require.NoError(t, err)
			assert.Equal(t, uint32(0), fi.Sys().(*syscall.Stat_t).Uid, "the file's owner changed")
			assert.Empty(t, leftovers(t, dir), "temporary files left")
		})
	}
	// Root's file that anyone may write (0666), in root's sticky
	// directory: writable, but the sticky bit forbids the rename over it.
	// Refused, and the message names the output, not the temporary file
	// the rename would have moved.
	t.Run("sticky directory forbids the rename", func(t *testing.T) {
		dir := filepath.Join(top, "sticky-rename")
		require.NoError(t, os.Mkdir(dir, 0o755))
		require.NoError(t, os.Chmod(dir, 0o777|os.ModeSticky))
		out := filepath.Join(dir, "shared.json")
		require.NoError(t, os.WriteFile(out, []byte("root's\n"), 0o666))
		require.NoError(t, os.Chmod(out, 0o666))
		code, stderr := asNobody(t, "optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "--no-search", "-q", "-o", out)
		assert.Equal(t, exitInput, code, stderr)
		assert.Equal(t, "hieropt: cannot write "+out+": operation not permitted\n", stderr)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, "root's\n", string(data))
		assert.Empty(t, leftovers(t, dir), "temporary files left")
	})
	// A file the user may write, in the same directories' kind: written.
	t.Run("the user's own file", func(t *testing.T) {
		dir := filepath.Join(top, "own")
		require.NoError(t, os.Mkdir(dir, 0o777))
		require.NoError(t, os.Chmod(dir, 0o777|os.ModeSticky))
		out := filepath.Join(dir, "mine.json")
		require.NoError(t, os.WriteFile(out, []byte("old\n"), 0o644))
		require.NoError(t, os.Chown(out, nobody, nobody))
		code, stderr := asNobody(t, "optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "--no-search", "-q", "-o", out)
		require.Equal(t, exitOK, code, stderr)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Contains(t, string(data), `"cost"`)
	})
	// /proc/version: the reason, not the temporary file's "no such file
	// or directory" (issue 30, item 11).
	t.Run("/proc/version", func(t *testing.T) {
		if _, err := os.Stat("/proc/version"); err != nil {
			t.Skip("no /proc/version")
		}
		code, stderr := asNobody(t, "optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "--no-search", "-q", "-o", "/proc/version")
		assert.Equal(t, exitInput, code, stderr)
		assert.Equal(t, "hieropt: cannot write /proc/version: permission denied\n", stderr)
	})
}

// TestOutputInProc: -o /proc/version says why it cannot be written, not
// the "no such file or directory" of the temporary file that /proc does
// not let be created (issue 30, item 11). As root, who may open the file
// for writing, that is the reason; as another user, permission.
func TestOutputInProc(t *testing.T) {
	if _, err := os.Stat("/proc/version"); err != nil {
		t.Skip("no /proc/version")
	}
	want := "hieropt: cannot write /proc/version: permission denied\n"
	if os.Geteuid() == 0 {
		want = "hieropt: cannot write /proc/version: cannot create a file in /proc (no such file or directory)\n"
	}
	r := runCLI(t, "", append(outputPlanArgs, "-o", "/proc/version")...)
	assert.Equal(t, exitInput, r.code, r.stderr)
	assert.Equal(t, want, r.stderr)
}
