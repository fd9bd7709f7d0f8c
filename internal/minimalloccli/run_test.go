package minimalloccli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/pack"
)

// result is one Run.
type result struct {
	code           int
	stdout, stderr string
}

// runMM runs the command line args (without the program name) with env
// for --fromenv (nil: none set).
func runMM(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(args, Env{
		Stdout: &out, Stderr: &errb, Program: "hieropt-minimalloc", Version: "test",
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	return result{code, out.String(), errb.String()}
}

func repo(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

func writeTemp(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// timeOnly is what MiniMalloc prints on stderr: the solve time in seconds
// with three decimals, no newline.
var timeOnly = regexp.MustCompile(`^[0-9]+\.[0-9]{3}$`)

// timeThenWhy is stderr when no packing is found: the time as MiniMalloc
// prints it, then a line of hieropt's saying why.
var timeThenWhy = regexp.MustCompile(`^[0-9]+\.[0-9]{3}\nhieropt-minimalloc: no packing[^\n]*\n$`)

// deeployCSV writes n buffers as Deeploy's Tiler.minimalloc writes them
// (Python csv.writer, lineterminator "\n"): the header id,lower,upper,size,
// then name, first step, last step + 1, size in bytes. Steps and sizes are
// drawn from seed; names are Deeploy-like tensor names.
func deeployCSV(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString("id,lower,upper,size\n")
	for i := range n {
		first := r.IntN(40)
		last := first + r.IntN(6)
		size := 16 * (1 + r.IntN(512))
		fmt.Fprintf(&b, "onnx::Conv_%d_output_0,%d,%d,%d\n", i, first, last+1, size)
	}
	return b.String()
}

// mmRow is one row of an output file as MiniMalloc's FromCsv reads it.
type mmRow struct {
	id                         string
	lower, upper, size, offset int64
	align                      int64
}

// readAsMiniMalloc reads an output file as MiniMalloc's reader would (the
// header names the columns; id, lower, upper, size and offset must be
// there; every row has the header's number of fields; the numbers are
// integers) and as Deeploy reads it (row[0] the id, row[-2] the size,
// row[-1] the offset), and fails the test where either would fail.
func readAsMiniMalloc(t *testing.T, data string) (header []string, rows []mmRow) {
	t.Helper()
	require.True(t, strings.HasSuffix(data, "\n"), "every line ends with a newline")
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	header = strings.Split(lines[0], ",")
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	require.Len(t, col, len(header), "duplicate column names")
	for _, want := range []string{"id", "lower", "upper", "size", "offset"} {
		require.Contains(t, col, want)
	}
	require.Equal(t, "offset", header[len(header)-1], "Deeploy reads the offset as the last field")
	for _, line := range lines[1:] {
		require.NotEmpty(t, line, "MiniMalloc stops at an empty line")
		f := strings.Split(line, ",")
		require.Len(t, f, len(header), "line %q", line)
		num := func(name string) int64 {
			v, err := strconv.ParseInt(f[col[name]], 10, 64)
			require.NoError(t, err, "line %q column %s", line, name)
			return v
		}
		r := mmRow{id: f[col["id"]], lower: num("lower"), upper: num("upper"), size: num("size"), offset: num("offset"), align: 1}
		if _, ok := col["alignment"]; ok {
			r.align = num("alignment")
		}
		// Deeploy: row[0], row[-2], row[-1].
		if _, ok := col["alignment"]; !ok && len(header) == 5 {
			require.Equal(t, r.id, f[0])
			require.Equal(t, strconv.FormatInt(r.size, 10), f[len(f)-2])
		}
		rows = append(rows, r)
	}
	return header, rows
}

// checkRows checks the rows' offsets with pack.Check at capacity.
func checkRows(t *testing.T, rows []mmRow, capacity int64) {
	t.Helper()
	p := &pack.Problem{Capacity: capacity}
	s := &pack.Solution{}
	for _, r := range rows {
		if r.size == 0 {
			continue
		}
		p.Buffers = append(p.Buffers, pack.Buffer{ID: r.id, Lower: r.lower, Upper: r.upper, Size: r.size, Align: r.align})
		s.Offsets = append(s.Offsets, r.offset)
		s.Peak = max(s.Peak, r.offset+r.size)
	}
	require.NoError(t, pack.Check(p, s))
}

// TestDeeployCommandLine: the command line Deeploy builds
// (--capacity=N --input=X.csv --output=Y.csv) on a file written as Deeploy
// writes it gives exit 0, the solve time alone on stderr, and a file
// MiniMalloc's reader and Deeploy's accept: the input's lines, each with
// ",<offset>" added, whose offsets pass pack.Check within the capacity.
// The capacity is the max-live bound plus 5%, and max-live minus one
// byte, where no packing can exist.
func TestDeeployCommandLine(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			dir := t.TempDir()
			src := deeployCSV(seed, 120)
			in := writeTemp(t, dir, "input_minimalloc_test.csv", src)
			out := filepath.Join(dir, "output_minimalloc_test.csv")
			bufs, err := readCSV(in, strings.NewReader(src))
			require.NoError(t, err)
			p := &pack.Problem{}
			for _, b := range bufs {
				p.Buffers = append(p.Buffers, pack.Buffer{ID: b.id, Lower: b.lower, Upper: b.upper, Size: b.size})
			}
			capacity := pack.MaxLive(p) * 105 / 100

			r := runMM(t, nil, fmt.Sprintf("--capacity=%d", capacity), "--input="+in, "--output="+out)
			require.Equal(t, ExitOK, r.code, r.stderr)
			assert.Regexp(t, timeOnly, r.stderr)
			assert.Empty(t, r.stdout)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			header, rows := readAsMiniMalloc(t, string(data))
			assert.Equal(t, []string{"id", "lower", "upper", "size", "offset"}, header)
			inLines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
			outLines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			require.Len(t, outLines, len(inLines))
			for i := 1; i < len(inLines); i++ {
				assert.Equal(t, inLines[i]+","+strconv.FormatInt(rows[i-1].offset, 10), outLines[i])
			}
			checkRows(t, rows, capacity)

			// Below max-live nothing fits: exit 1, the time and a line
			// saying why on stderr, the output of the run before untouched.
			r = runMM(t, nil, fmt.Sprintf("--capacity=%d", pack.MaxLive(p)-1), "--input="+in, "--output="+out)
			assert.Equal(t, ExitFailed, r.code)
			assert.Regexp(t, timeThenWhy, r.stderr)
			assert.Contains(t, r.stderr, fmt.Sprintf("need %d bytes (max-live), more than --capacity=%d\n", pack.MaxLive(p), pack.MaxLive(p)-1))
			after, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.Equal(t, data, after)
		})
	}
}

// TestFlagForms: every way Abseil takes the same flags gives the same
// output file, byte for byte: --flag=value, --flag value, -flag, hex, space
// around a number, --flag repeated (the last wins).
func TestFlagForms(t *testing.T) {
	dir := t.TempDir()
	in := repo("testdata", "minimalloc", "input.12.csv")
	var want []byte
	for i, args := range [][]string{
		{"--capacity=12", "--input=" + in, "--output=OUT"},
		{"--capacity", "12", "--input", in, "--output", "OUT"},
		{"-capacity=12", "-input", in, "-output=OUT"},
		{"--capacity=0xC", "--input=" + in, "--output=OUT"},
		{"--capacity= 12 ", "--input=" + in, "--output=OUT"},
		{"--capacity=5", "--output=OUT", "--input=" + in, "--capacity=12"},
		{"--input=" + in, "--output=OUT", "--capacity=12", "--", "--capacity=5"},
	} {
		out := filepath.Join(dir, fmt.Sprintf("out%d.csv", i))
		for k := range args {
			args[k] = strings.ReplaceAll(args[k], "OUT", out)
		}
		r := runMM(t, nil, args...)
		require.Equal(t, ExitOK, r.code, "%v: %s", args, r.stderr)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		if want == nil {
			want = data
			_, rows := readAsMiniMalloc(t, string(data))
			checkRows(t, rows, 12)
		}
		assert.Equal(t, string(want), string(data), "%v", args)
	}
}

// TestBooleanForms: --validate in each of Abseil's forms prints PASS after
// the time, or not; "--validate false" is --validate and an ignored
// argument "false", as in Abseil (a boolean takes no separate value).
func TestBooleanForms(t *testing.T) {
	in := repo("testdata", "minimalloc", "input.12.csv")
	for _, c := range []struct {
		flags []string
		pass  bool
	}{
		{nil, false},
		{[]string{"--validate"}, true},
		{[]string{"-validate"}, true},
		{[]string{"--validate=true"}, true},
		{[]string{"--validate=YES"}, true},
		{[]string{"--validate=1"}, true},
		{[]string{"--validate=t"}, true},
		{[]string{"--novalidate"}, false},
		{[]string{"--validate", "--novalidate"}, false},
		{[]string{"--validate=false"}, false},
		{[]string{"--validate=0"}, false},
		{[]string{"--validate=no"}, false},
		{[]string{"--validate", "false"}, true},
	} {
		args := append([]string{"--capacity=12", "--input=" + in}, c.flags...)
		r := runMM(t, nil, args...)
		require.Equal(t, ExitOK, r.code, "%v: %s", c.flags, r.stderr)
		last := r.stderr[strings.LastIndex(r.stderr[:len(r.stderr)-1], "\n")+1:]
		if c.pass {
			assert.Regexp(t, `(^|\n)[0-9]+\.[0-9]{3}PASS\n`, r.stderr, "%v", c.flags)
		} else {
			assert.NotContains(t, r.stderr, "PASS", "%v", c.flags)
		}
		assert.Contains(t, last, "no --output", "%v", c.flags)
	}
	r := runMM(t, nil, "--capacity=12", "--input="+in, "--validate", "false")
	assert.Contains(t, r.stderr, `ignoring argument "false"`)
}

// TestFlagErrorsAsAbseil: a flag error ends the run with Abseil's
// messages, one "ERROR: " line each (value errors first, unknown flags
// after), exit 1, before anything is read or written.
func TestFlagErrorsAsAbseil(t *testing.T) {
	dir := t.TempDir()
	in := repo("testdata", "minimalloc", "input.12.csv")
	out := filepath.Join(dir, "out.csv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--foo=1"}, "ERROR: Unknown command line flag 'foo'\n"},
		{[]string{"--foo"}, "ERROR: Unknown command line flag 'foo'\n"},
		{[]string{"--nofoo"}, "ERROR: Unknown command line flag 'nofoo'\n"},
		{[]string{"---capacity=12"}, "ERROR: Unknown command line flag '-capacity'\n"},
		{[]string{"--Capacity=12"}, "ERROR: Unknown command line flag 'Capacity'\n"},
		{[]string{"--capacity=abc"}, "ERROR: Illegal value 'abc' specified for flag 'capacity'\n"},
		{[]string{"--capacity=1.5"}, "ERROR: Illegal value '1.5' specified for flag 'capacity'\n"},
		{[]string{"--capacity=9223372036854775808"}, "ERROR: Illegal value '9223372036854775808' specified for flag 'capacity'\n"},
		{[]string{"--capacity="}, "ERROR: Illegal value '' specified for flag 'capacity'\n"},
		{[]string{"--capacity"}, "ERROR: Missing the value for the flag 'capacity'\n"},
		{[]string{"--nocapacity"}, "ERROR: Negative form is not valid for the flag 'capacity'\n"},
		{[]string{"--novalidate=1"}, "ERROR: Negative form with assignment is not valid for the boolean flag 'validate'\n"},
		{[]string{"--validate="}, "ERROR: Missing the value after assignment for the boolean flag 'validate'\n"},
		{[]string{"--validate=maybe"}, "ERROR: Illegal value 'maybe' specified for flag 'validate'\n"},
		{[]string{"--timeout=10"}, "ERROR: Illegal value '10' specified for flag 'timeout'\n"},
		{[]string{"--timeout=forever"}, "ERROR: Illegal value 'forever' specified for flag 'timeout'\n"},
		{[]string{"--bar", "--capacity=x", "--baz"}, "ERROR: Illegal value 'x' specified for flag 'capacity'\n" +
			"ERROR: Unknown command line flag 'bar'\nERROR: Unknown command line flag 'baz'\n"},
		{[]string{"--flagfile=" + filepath.Join(dir, "none")}, "ERROR: Can't open flagfile " + filepath.Join(dir, "none") + "\n"},
		{[]string{"--fromenv=capacity"}, "ERROR: FLAGS_capacity not found in environment\n"},
	} {
		args := append([]string{"--capacity=12", "--input=" + in, "--output=" + out}, c.args...)
		r := runMM(t, nil, args...)
		assert.Equal(t, ExitFailed, r.code, "%v", c.args)
		assert.Equal(t, c.want, r.stderr, "%v", c.args)
		assert.NoFileExists(t, out, "%v", c.args)
	}
}

// TestAbseilBuiltins: --undefok, --flagfile, --fromenv, --tryfromenv,
// --help, --version and --only_check_args as in any Abseil binary.
func TestAbseilBuiltins(t *testing.T) {
	dir := t.TempDir()
	in := repo("testdata", "minimalloc", "input.12.csv")
	out := filepath.Join(dir, "out.csv")

	r := runMM(t, nil, "--undefok=foo,bar", "--foo=1", "--nobar", "--capacity=12", "--input="+in, "--output="+out)
	require.Equal(t, ExitOK, r.code, r.stderr)
	require.FileExists(t, out)
	require.NoError(t, os.Remove(out))

	ff := writeTemp(t, dir, "flags", "# a comment\n\n  --capacity=12\n--input="+in+"\n")
	r = runMM(t, nil, "--flagfile="+ff, "--output="+out, "--validate")
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "PASS")
	require.NoError(t, os.Remove(out))

	bad := writeTemp(t, dir, "bad", "--capacity=12\nplain\n")
	r = runMM(t, nil, "--flagfile="+bad)
	assert.Equal(t, ExitFailed, r.code)
	assert.Equal(t, "ERROR: Unexpected line in the flagfile "+bad+": plain\n", r.stderr)

	env := map[string]string{"FLAGS_capacity": "12", "FLAGS_input": in}
	r = runMM(t, env, "--fromenv=capacity,input", "--tryfromenv=timeout", "--output="+out)
	require.Equal(t, ExitOK, r.code, r.stderr)
	require.NoError(t, os.Remove(out))
	// A flag after --fromenv on the command line wins: it is parsed later.
	r = runMM(t, env, "--fromenv=capacity,input", "--capacity=11", "--output="+out)
	assert.Equal(t, ExitFailed, r.code)
	assert.NoFileExists(t, out)

	r = runMM(t, nil, "--help")
	assert.Equal(t, ExitFailed, r.code)
	assert.Contains(t, r.stdout, "--capacity (The maximum memory capacity.); default: 0")
	assert.Contains(t, r.stdout, "--hatless_pruning")
	r = runMM(t, nil, "--version")
	assert.Equal(t, ExitOK, r.code)
	assert.Contains(t, r.stdout, "Version test")
	r = runMM(t, nil, "--only_check_args", "--capacity=12")
	assert.Equal(t, ExitOK, r.code)
	assert.Empty(t, r.stderr)
}

// TestSearchSettingsIgnored: MiniMalloc's search settings are accepted in
// every form, each named in a note on stderr, and change nothing.
func TestSearchSettingsIgnored(t *testing.T) {
	dir := t.TempDir()
	in := repo("testdata", "minimalloc", "C.1048576.csv")
	plain, tuned := filepath.Join(dir, "plain.csv"), filepath.Join(dir, "tuned.csv")
	r := runMM(t, nil, "--capacity=1048576", "--input="+in, "--output="+plain)
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Regexp(t, timeOnly, r.stderr)
	settings := []string{"--nocanonical_only", "--section_inference=false", "--dynamic_ordering=0",
		"--check_dominance", "--unallocated_floor=true", "--static_preordering=no",
		"--nodynamic_decomposition", "--monotonic_floor=f", "--hatless_pruning=n",
		"--preordering_heuristics", "TWA", "--print_solution"}
	r = runMM(t, nil, append([]string{"--capacity=1048576", "--input=" + in, "--output=" + tuned}, settings...)...)
	require.Equal(t, ExitOK, r.code, r.stderr)
	for _, name := range []string{"canonical_only=false", "section_inference=false", "dynamic_ordering=false",
		"check_dominance=true", "unallocated_floor=true", "static_preordering=false", "dynamic_decomposition=false",
		"monotonic_floor=false", "hatless_pruning=false", "preordering_heuristics=TWA", "print_solution"} {
		assert.Contains(t, r.stderr, "ignoring --"+name, name)
	}
	a, err := os.ReadFile(plain)
	require.NoError(t, err)
	b, err := os.ReadFile(tuned)
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
}

// TestInfeasible: a capacity below max-live, 0 (MiniMalloc's default; with
// --minimize_capacity too, where pack's 0 would mean no limit) and a
// negative one find no packing: exit 1, the time alone on stderr as
// MiniMalloc prints it, no output file. With --timeout=-inf the first
// greedy packing of MiniMalloc's instance A, which is above its capacity,
// is all there is: exit 1 too; with a generous capacity the same packing
// is written.
func TestInfeasible(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	small := repo("testdata", "minimalloc", "input.12.csv")
	for _, c := range [][]string{
		{"--capacity=11", "--input=" + small},
		{"--input=" + small},
		{"--input=" + small, "--minimize_capacity"},
		{"--capacity=-5", "--input=" + small},
		{"--capacity=11", "--input=" + small, "--minimize_capacity"},
		{"--capacity=1048576", "--input=" + repo("testdata", "minimalloc", "A.1048576.csv"), "--timeout=-inf"},
	} {
		r := runMM(t, nil, append(c, "--output="+out)...)
		assert.Equal(t, ExitFailed, r.code, "%v: %s", c, r.stderr)
		assert.Regexp(t, timeThenWhy, r.stderr, "%v", c)
		assert.NoFileExists(t, out, "%v", c)
	}
	r := runMM(t, nil, "--capacity=4194304", "--input="+repo("testdata", "minimalloc", "A.1048576.csv"), "--timeout=-inf", "--output="+out)
	require.Equal(t, ExitOK, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	_, rows := readAsMiniMalloc(t, string(data))
	checkRows(t, rows, 4194304)
}

// TestMinimizeCapacity: with --minimize_capacity the peak is the least
// one: input.12.csv's max-live, 12, from a capacity of 100; without it
// any packing within 100 will do.
func TestMinimizeCapacity(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	r := runMM(t, nil, "--capacity=100", "--input="+repo("testdata", "minimalloc", "input.12.csv"), "--output="+out, "--minimize_capacity")
	require.Equal(t, ExitOK, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	_, rows := readAsMiniMalloc(t, string(data))
	checkRows(t, rows, 12)
}

// TestOutputColumnsAsToCsv: MiniMalloc's writer adds alignment only when
// some buffer's is not 1, hint only when some buffer has one (the others
// get -1), gaps only when some buffer has gaps; offset is last; an input's
// start/end/buffer columns come back as lower/upper/id with end made
// exclusive (gaps' ends too). The expected lines are written by hand from
// MiniMalloc's converter.cc.
func TestOutputColumnsAsToCsv(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, in string
		want     []string // each line without its offset
	}{
		{"all columns", "buffer,start,end,size,alignment,hint,gaps\n" +
			"x,0,1,4,2,-1,\n" +
			"y,1,3,8,1,0,2-2@0:4\n" +
			"z,0,0,2,4,-1, 1-1  3-4 \n",
			[]string{"id,lower,upper,size,alignment,hint,gaps,offset",
				"x,0,2,4,2,-1,", "y,1,4,8,1,0,2-3@0:4", "z,0,1,2,4,-1,1-2 3-5"}},
		{"defaults dropped", "id,lower,upper,size,alignment,hint,gaps,note\n" +
			"a,0,2,4,1,-1,,first\n" +
			"b,1,3,4,1,-7,,second\n",
			[]string{"id,lower,upper,size,offset", "a,0,2,4", "b,1,3,4"}},
		{"columns reordered", "size,upper,id,lower\n4,2,a,0\n4,3,b,1\n",
			[]string{"id,lower,upper,size,offset", "a,0,2,4", "b,1,3,4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := writeTemp(t, dir, "in.csv", c.in)
			out := filepath.Join(dir, "out.csv")
			r := runMM(t, nil, "--capacity=64", "--input="+in, "--output="+out)
			require.Equal(t, ExitOK, r.code, r.stderr)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			require.Len(t, lines, len(c.want))
			assert.Equal(t, c.want[0], lines[0])
			for i := 1; i < len(lines); i++ {
				cut := strings.LastIndex(lines[i], ",")
				assert.Equal(t, c.want[i], lines[i][:cut])
			}
			_, rows := readAsMiniMalloc(t, string(data))
			checkRows(t, rows, 64)
		})
	}
}

// TestWhatPackCannotTake: buffers of size 0 get offset 0, negative times
// are shifted, and the packing of the rest is valid in the original times.
func TestWhatPackCannotTake(t *testing.T) {
	dir := t.TempDir()
	in := writeTemp(t, dir, "in.csv", "id,lower,upper,size\na,-5,-2,8\nb,-3,1,8\nnil,-4,9,0\nc,0,3,8\n")
	out := filepath.Join(dir, "out.csv")
	r := runMM(t, nil, "--capacity=16", "--input="+in, "--output="+out)
	require.Equal(t, ExitOK, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	_, rows := readAsMiniMalloc(t, string(data))
	require.Len(t, rows, 4)
	assert.Equal(t, mmRow{id: "nil", lower: -4, upper: 9, size: 0, offset: 0, align: 1}, rows[2])
	for i := range rows {
		rows[i].lower += 5
		rows[i].upper += 5
	}
	checkRows(t, rows, 16)
}

// TestBadInput: an input MiniMalloc's reader rejects, or hieropt cannot
// honour, is one line on stderr naming the file, the line and the rule;
// exit 2; no output.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	for _, c := range []struct{ content, want string }{
		{"id,lower,upper,size\na,0,2,x\n", `line 2: size "x" is not an integer`},
		{"id,lower,upper,size\na,0,2,4\nb,2,2,4\n", "line 3: lower 2 >= upper 2: the buffer is never alive"},
		{"id,lower,upper,size\na,0,2,4,5\n", "line 2: has 5 fields, the header 4"},
		{"id,lower,size\na,0,4\n", "line 1: header lacks column upper"},
		{"id,start,lower,upper,size\n", `line 1: column "lower" given twice`},
		{"id,lower,upper,size,offset\na,0,2,4,0\n", "line 1: column offset (MiniMalloc's fixed offsets) is not supported"},
		{"id,lower,upper,size\na,0,2,4\n\nb,0,2,4\n", "line 4: a record after the empty line 3"},
		{"id,lower,upper,size\na,0,2,-4\n", "line 2: size -4 is negative"},
		{"id,lower,upper,size,alignment\na,0,2,4,0\n", "line 2: alignment 0 is below 1"},
		{"id,lower,upper,size,gaps\na,0,2,4,1:2\n", `line 2: gap "1:2" is not lower-upper`},
		{"", "empty: no header"},
	} {
		in := writeTemp(t, dir, "in.csv", c.content)
		r := runMM(t, nil, "--capacity=64", "--input="+in, "--output="+out)
		assert.Equal(t, ExitInput, r.code, c.want)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
		assert.Contains(t, r.stderr, fmt.Sprintf("hieropt-minimalloc: CSV %q: ", in), c.want)
		assert.Contains(t, r.stderr, c.want)
		assert.NoFileExists(t, out)
	}
	r := runMM(t, nil, "--capacity=64", "--input="+filepath.Join(dir, "missing.csv"), "--output="+out)
	assert.Equal(t, ExitInput, r.code)
	assert.Contains(t, r.stderr, "missing.csv\": cannot read: no such file or directory")
	r = runMM(t, nil, "--capacity=64", "--output="+out)
	assert.Equal(t, ExitInput, r.code)
	assert.Contains(t, r.stderr, "--input is required")
	r = runMM(t, nil, "--capacity=64", "--input="+repo("testdata", "minimalloc", "input.12.csv"), "--output="+dir)
	assert.Equal(t, ExitInput, r.code)
	assert.Contains(t, r.stderr, "it is a directory")
}

// TestDeterministic: the same command line gives the same output file,
// byte for byte, on MiniMalloc's instances (no --timeout: a deadline
// depends on the machine's speed).
func TestDeterministic(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"A", "C", "I"} {
		in := repo("testdata", "minimalloc", name+".1048576.csv")
		var first []byte
		for k := range 2 {
			out := filepath.Join(dir, fmt.Sprintf("%s.%d.csv", name, k))
			r := runMM(t, nil, "--capacity=1048576", "--input="+in, "--output="+out)
			require.Equal(t, ExitOK, r.code, r.stderr)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			if first == nil {
				first = data
				_, rows := readAsMiniMalloc(t, string(data))
				checkRows(t, rows, 1048576)
				continue
			}
			assert.Equal(t, string(first), string(data), name)
		}
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestStreamFailureFails: a run whose stderr cannot be written (the solve
// time goes there) does not end with exit 0, though the output is written.
func TestStreamFailureFails(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	var stdout bytes.Buffer
	code := Run([]string{"--capacity=12", "--input=" + repo("testdata", "minimalloc", "input.12.csv"), "--output=" + out},
		Env{Stdout: &stdout, Stderr: failWriter{}, Program: "hieropt-minimalloc"})
	assert.Equal(t, ExitInput, code)
	assert.FileExists(t, out)
}
