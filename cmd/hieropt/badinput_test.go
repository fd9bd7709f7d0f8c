package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/calibrate"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/pack"
)

// The bad-input corpus, testdata/bad/<kind>/: each case is a file and, beside
// it, a .err file holding the exact line hieropt prints on stderr, with
// $FILE standing for the case's path (testdata/bad/README.md).

// badKind is one directory of the corpus and how hieropt is run on its
// cases.
type badKind struct {
	dir, ext string
	code     int // the exit status every run must give
	// runs returns the command lines to run on the case file. out is a
	// path the command must not create. A run whose first argument is "-"
	// (stdin) is fed the case's bytes and reports the document as "-".
	runs func(file, out string) []badRun
	// needs lists the commands the runs need; while one is not registered
	// (another change adds it) the runs are skipped.
	needs [][]string
	// read, if set, reads the file with the library reader alone; its
	// error, after "hieropt: ", must be the .err line too.
	read func(path string) error
}

type badRun struct {
	name  string
	args  []string
	stdin bool // feed the case on stdin; the document is then "-"
}

const (
	goodWorkload = "seed000-example"
	goodProfile  = "one-level-8k.yaml" // in testdata/hw
)

func badKinds() []badKind {
	prof := repo("testdata", "hw", goodProfile)
	return []badKind{
		{dir: "workload", ext: ".json", code: exitInput, runs: func(f, out string) []badRun {
			return []badRun{
				{"optimize", []string{"optimize", "--workload", f, "--hw", prof, "-o", out}, false},
				{"optimize-stdin", []string{"optimize", "--workload", "-", "--hw", prof, "-o", out}, true},
				{"inspect", []string{"inspect", "--workload", f}, false},
			}
		}},
		// Workloads that are well-formed but do not go with the good
		// profile: a pin to a level it lacks.
		{dir: "bind", ext: ".json", code: exitInput, runs: func(f, out string) []badRun {
			return []badRun{
				{"optimize", []string{"optimize", "--workload", f, "--hw", prof, "-o", out}, false},
				{"optimize-stdin", []string{"optimize", "--workload", "-", "--hw", prof, "-o", out}, true},
			}
		}},
		// Valid workloads that cannot be planned on the good profile: a
		// block no level it may use holds (its footprint may overflow).
		// Infeasible, exit 1, as when the live blocks overflow the levels.
		{dir: "infeasible", ext: ".json", code: exitFailed, runs: func(f, out string) []badRun {
			return []badRun{
				{"optimize", []string{"optimize", "--workload", f, "--hw", prof, "-o", out}, false},
				{"optimize-stdin", []string{"optimize", "--workload", "-", "--hw", prof, "-o", out}, true},
			}
		}},
		{dir: "hw", ext: ".yaml", code: exitInput, runs: func(f, out string) []badRun {
			return []badRun{
				{"optimize", []string{"optimize", "--workload", goodWorkload, "--hw", f, "-o", out}, false},
				{"profiles", []string{"profiles", f}, false},
			}
		}},
		{dir: "plan", ext: ".json", code: exitInput, runs: func(f, out string) []badRun {
			return []badRun{
				{"verify", []string{"verify", "--workload", goodWorkload, "--hw", prof, f}, false},
				{"render", []string{"render", "--workload", goodWorkload, "--hw", prof, f, "-o", out}, false},
			}
		}},
		// MiniMalloc problems (FORMATS.md section 5).
		{dir: "csv", ext: ".csv", code: exitInput, needs: [][]string{{"pack"}, {"import", "minimalloc"}},
			runs: func(f, out string) []badRun {
				return []badRun{
					{"pack", []string{"pack", f, "-o", out}, false},
					{"import-minimalloc", []string{"import", "minimalloc", f, "-o", out}, false},
				}
			},
			read: func(path string) error {
				return readWith(path, func(r io.Reader) error { _, err := pack.ReadCSV(path, r); return err })
			}},
		// Calibration samples, level,direction,bytes,ns.
		{dir: "samples", ext: ".csv", code: exitInput, needs: [][]string{{"tune"}},
			runs: func(f, out string) []badRun {
				return []badRun{{"tune", []string{"tune", f, "-o", out}, false}}
			},
			read: func(path string) error {
				return readWith(path, func(r io.Reader) error { _, err := calibrate.ReadSamples(path, r); return err })
			}},
	}
}

func readWith(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	return read(f)
}

// registered reports whether `hieropt <path> --help` works and names that
// very command (cobra prints a parent's help for an unknown subcommand).
func registered(t *testing.T, path []string) bool {
	t.Helper()
	if r := runCLI(t, "", append(slices.Clone(path), "--help")...); r.code != exitOK {
		return false
	}
	c, _, err := newRootCmd(strings.NewReader(""), io.Discard, io.Discard).Find(path)
	return err == nil && c.Name() == path[len(path)-1]
}

// badCase is one file of the corpus, copied into a directory of its own.
type badCase struct {
	name, src string
	want      string // the .err line, $FILE not yet replaced
}

func loadBadCases(t *testing.T, k badKind) []badCase {
	t.Helper()
	files, err := filepath.Glob(repo("testdata", "bad", k.dir, "*"+k.ext))
	require.NoError(t, err)
	require.NotEmpty(t, files, "testdata/bad/%s has no cases", k.dir)
	// Every .err file belongs to a case (a renamed case leaves none behind).
	errs, err := filepath.Glob(repo("testdata", "bad", k.dir, "*.err"))
	require.NoError(t, err)
	for _, e := range errs {
		require.FileExists(t, strings.TrimSuffix(e, ".err")+k.ext, "%s: a .err file without its case", e)
	}
	var cases []badCase
	for _, f := range files {
		want, err := os.ReadFile(strings.TrimSuffix(f, k.ext) + ".err")
		require.NoError(t, err, "%s: every case has a .err file", f)
		line := strings.TrimSuffix(string(want), "\n")
		require.NotContains(t, line, "\n", "%s.err: one line", f)
		require.True(t, strings.HasPrefix(line, "hieropt: "), "%s.err: the line as hieropt prints it", f)
		cases = append(cases, badCase{name: strings.TrimSuffix(filepath.Base(f), k.ext), src: f, want: line})
	}
	return cases
}

// TestBadInputCorpus runs every case of testdata/bad through the commands
// that read its kind of document: each must exit 2 (1 for infeasible/) with exactly the one line
// of its .err file on stderr, no stack trace, nothing on stdout but what
// the command prints before reading, and no output file.
func TestBadInputCorpus(t *testing.T) {
	total := 0
	for _, k := range badKinds() {
		cases := loadBadCases(t, k)
		total += len(cases)
		var missing []string
		for _, need := range k.needs {
			if !registered(t, need) {
				missing = append(missing, "hieropt "+strings.Join(need, " "))
			}
		}
		t.Run(k.dir, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					dir := t.TempDir()
					data, err := os.ReadFile(c.src)
					require.NoError(t, err)
					file := filepath.Join(dir, filepath.Base(c.src))
					require.NoError(t, os.WriteFile(file, data, 0o644))
					if k.read != nil {
						err := k.read(file)
						require.Error(t, err, "the reader accepts it")
						assert.Equal(t, strings.ReplaceAll(c.want, "$FILE", file), "hieropt: "+err.Error(), "the library reader")
					}
					for _, run := range k.runs(file, filepath.Join(dir, "out")) {
						t.Run(run.name, func(t *testing.T) {
							if len(missing) > 0 {
								t.Skipf("%s not registered yet in cmd/hieropt/root.go: these cases are checked against the library reader only", strings.Join(missing, " and "))
							}
							stdin, doc := "", file
							if run.stdin {
								stdin, doc = string(data), "-"
							}
							r := runCLI(t, stdin, run.args...)
							checkBadRun(t, dir, file, k.code, strings.ReplaceAll(c.want, "$FILE", doc), r)
						})
					}
				})
			}
		})
	}
	assert.GreaterOrEqual(t, total, 40, "the corpus")
}

// checkBadRun asserts what every run on bad input gives.
func checkBadRun(t *testing.T, dir, file string, code int, want string, r result) {
	t.Helper()
	assert.Equal(t, code, r.code, "exit status; stderr %q", r.stderr)
	assert.Equal(t, want+"\n", r.stderr, "exactly one line on stderr")
	for _, s := range []string{r.stdout, r.stderr} {
		assert.NotContains(t, s, "panic")
		assert.NotContains(t, s, "goroutine")
		assert.NotContains(t, s, "internal error")
	}
	// Nothing written: no output file and no temporary file beside it.
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{filepath.Base(file)}, names, "files in the output directory")
}

// TestBadInputCorpusChild runs the first command of every case as a real
// process (the test binary as hieropt): the exit status and stderr are
// those of the binary, with nothing a recover in run could hide.
func TestBadInputCorpusChild(t *testing.T) {
	if testmode.Quick() {
		t.Skip("starts a process per case")
	}
	for _, k := range badKinds() {
		skip := false
		for _, need := range k.needs {
			skip = skip || !registered(t, need)
		}
		if skip {
			continue // the in-process test says why
		}
		for _, c := range loadBadCases(t, k) {
			t.Run(k.dir+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				data, err := os.ReadFile(c.src)
				require.NoError(t, err)
				file := filepath.Join(dir, filepath.Base(c.src))
				require.NoError(t, os.WriteFile(file, data, 0o644))
				run := k.runs(file, filepath.Join(dir, "out"))[0]
				cmd := exec.Command(os.Args[0], run.args...)
				cmd.Env = append(os.Environ(), "HIEROPT_TEST_MAIN=1")
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err = cmd.Run()
				code := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				} else {
					require.NoError(t, err)
				}
				checkBadRun(t, dir, file, k.code, strings.ReplaceAll(c.want, "$FILE", file), result{code, stdout.String(), stderr.String()})
			})
		}
	}
}

// TestPlanRuleViolations: plans that are well-formed but break rules of
// FORMATS.md section 3 (testdata/bad/plan-rules). verify exits 1, lists
// every violation on stdout (the .out file) and says how many on stderr
// (the .err file); render draws nothing and names the first violation.
func TestPlanRuleViolations(t *testing.T) {
	prof := repo("testdata", "hw", goodProfile)
	k := badKind{dir: "plan-rules", ext: ".json"}
	for _, c := range loadBadCases(t, k) {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			data, err := os.ReadFile(c.src)
			require.NoError(t, err)
			file := filepath.Join(dir, filepath.Base(c.src))
			require.NoError(t, os.WriteFile(file, data, 0o644))
			wantOut, err := os.ReadFile(strings.TrimSuffix(c.src, ".json") + ".out")
			require.NoError(t, err, "every rule case has a .out file: the violations")
			require.NotEmpty(t, wantOut)

			r := runCLI(t, "", "verify", "--workload", goodWorkload, "--hw", prof, file)
			assert.Equal(t, exitFailed, r.code, r.stderr)
			assert.Equal(t, strings.ReplaceAll(c.want, "$FILE", file)+"\n", r.stderr)
			assert.Equal(t, strings.ReplaceAll(string(wantOut), "$FILE", file), r.stdout)

			out := filepath.Join(dir, "out.svg")
			r = runCLI(t, "", "render", "--workload", goodWorkload, "--hw", prof, file, "-o", out)
			assert.Equal(t, exitFailed, r.code, r.stderr)
			first, _, _ := strings.Cut(string(wantOut), "\n")
			n := strings.Count(string(wantOut), "\n")
			assert.Regexp(t, `^hieropt: \Q`+file+`\E is invalid \(`+plural(n, "violation")+`; run verify for all\): \Q`+first+`\E`+"\n$", r.stderr)
			assert.Empty(t, r.stdout)
			assert.NoFileExists(t, out)
		})
	}
}
