package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/pack"
	"github.com/hieropt/hieropt/workload"
)

// readProblem reads a MiniMalloc CSV with the library reader.
func readProblem(t *testing.T, path string) *pack.Problem {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	p, err := pack.ReadCSV(path, f)
	require.NoError(t, err)
	return p
}

// readSolution reads a solution file id,lower,upper,size,offset and
// returns its offsets in the order of p's buffers, after checking that it
// lists exactly p's buffers.
func readSolution(t *testing.T, p *pack.Problem, path string) *pack.Solution {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Equal(t, "id,lower,upper,size,offset", lines[0])
	require.Len(t, lines, len(p.Buffers)+1)
	s := &pack.Solution{Offsets: make([]int64, len(p.Buffers))}
	for i, line := range lines[1:] {
		f := strings.Split(line, ",")
		require.Len(t, f, 5, line)
		b := p.Buffers[i]
		require.Equal(t, []string{b.ID, itoa(b.Lower), itoa(b.Upper), itoa(b.Size)}, f[:4], "row %d", i+1)
		o, err := strconv.ParseInt(f[4], 10, 64)
		require.NoError(t, err, line)
		s.Offsets[i] = o
		s.Peak = max(s.Peak, o+b.Size)
	}
	return s
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// packJSON is the --format json summary.
type packJSON struct {
	Inputs []packRow `json:"inputs"`
	Total  packTotal `json:"total"`
}

func parsePackJSON(t *testing.T, stderr string) packJSON {
	t.Helper()
	var out packJSON
	require.NoError(t, json.Unmarshal([]byte(stderr), &out), stderr)
	return out
}

// TestPackTight packs a tight challenging instance (max-live equals the
// capacity) through the command line and checks the written solution
// against the original problem.
func TestPackTight(t *testing.T) {
	dir := t.TempDir()
	in := repo("testdata", "minimalloc", "G.1048576.csv")
	out := filepath.Join(dir, "G.solution.csv")
	r := runCLI(t, "", "pack", in, "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "G.1048576: 308 buffers, capacity 1048576 B (from the file name), max-live 1048576 B (1.0 MiB)\n")
	assert.Contains(t, r.stderr, "peak       1048576 B (1.0 MiB), 0.00% above max-live: optimal: the peak equals max-live\n")
	assert.Contains(t, r.stderr, "solution   "+out+": 308 offsets, checked\n")
	p := readProblem(t, in)
	p.Capacity = 1048576
	s := readSolution(t, p, out)
	require.NoError(t, pack.Check(p, s))
	assert.Equal(t, int64(1048576), s.Peak)

	// The solution file is a problem file too (the offset column is
	// ignored), and -o - writes the same bytes to stdout.
	r = runCLI(t, "", "pack", out, "--capacity", "1M", "-o", "-", "-q")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "id,lower,upper,size,offset\n"))
}

// tflite is the 8-tensor example of TFLite's memory planner tests, as
// (first, last, size) with inclusive lifetimes.
var tflite = [][3]int64{{0, 1, 32}, {1, 4, 28}, {2, 5, 36}, {3, 5, 16}, {4, 5, 8}, {5, 7, 64}, {6, 8, 10}, {7, 8, 40}}

func writeTFLite(t *testing.T, path string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,lower,upper,size\n")
	for i, x := range tflite {
		b.WriteString("t" + itoa(int64(i)) + "," + itoa(x[0]) + "," + itoa(x[1]+1) + "," + itoa(x[2]) + "\n")
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
}

func TestPackMinimizeTFLite(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "tflite.csv")
	writeTFLite(t, in)
	out := filepath.Join(dir, "out.csv")
	r := runCLI(t, "", "pack", in, "--minimize", "-o", out, "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	js := parsePackJSON(t, r.stderr)
	require.Len(t, js.Inputs, 1)
	row := js.Inputs[0]
	assert.Equal(t, int64(124), row.Peak)
	assert.Equal(t, int64(124), row.MaxLive)
	assert.True(t, row.Solved)
	assert.True(t, row.Optimal)
	assert.True(t, row.Minimize)
	assert.Equal(t, "none", row.CapacityFrom)
	assert.Equal(t, out, row.Output)
	p := readProblem(t, in)
	require.NoError(t, pack.Check(p, readSolution(t, p, out)))

	// Without a capacity and without --minimize: a usage error.
	r = runCLI(t, "", "pack", in)
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, "no capacity: give --capacity C")
	// Within a capacity below max-live: none exists, and nothing is written.
	out2 := filepath.Join(dir, "none.csv")
	r = runCLI(t, "", "pack", in, "--capacity", "123", "-o", out2)
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "hieropt: no packing found within capacity 123: best peak 124 (max-live 124); max-live exceeds the capacity, so none exists\n", r.stderr)
	assert.NoFileExists(t, out2)
}

// gap18 needs a peak of 19 although its max-live is 18: the search proves
// that capacity 18 does not fit.
const gap18 = "id,lower,upper,size\nb0,7,12,9\nb1,0,2,6\nb2,1,6,7\nb3,2,7,1\nb4,5,8,9\nb5,0,1,9\nb6,1,5,5\n"

func TestPackExitCodes(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "gap.18.csv")
	require.NoError(t, os.WriteFile(in, []byte(gap18), 0o644))
	out := filepath.Join(dir, "out.csv")
	r := runCLI(t, "", "pack", in, "-o", out)
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "hieropt: no packing found within capacity 18: best peak 19 (max-live 18); the search proved that none exists\n", r.stderr)
	assert.NoFileExists(t, out)
	r = runCLI(t, "", "pack", in, "-o", out, "--format", "json")
	assert.Equal(t, exitFailed, r.code)
	assert.JSONEq(t, `{"error":{"kind":"infeasible or invalid","message":"no packing found within capacity 18: best peak 19 (max-live 18); the search proved that none exists","exit_code":1}}`, r.stderr)

	// --minimize within a larger capacity proves 19 optimal; the capacity
	// in the file name would not fit, --capacity replaces it.
	r = runCLI(t, "", "pack", in, "--capacity", "64", "--minimize", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "peak       19 B, 5.56% above max-live: optimal: the search proved that no smaller peak fits\n")
	p := readProblem(t, in)
	require.NoError(t, pack.Check(p, readSolution(t, p, out)))

	// Settings from the environment, like every command.
	t.Setenv("HIEROPT_CAPACITY", "19")
	r = runCLI(t, "", "pack", in, "-q")
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	t.Setenv("HIEROPT_CAPACITY", "")

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"pack"}, "pack needs MiniMalloc CSV files"},
		{[]string{"pack", in, "--format", "xml"}, `--format "xml"`},
		{[]string{"pack", in, "--capacity", "-3"}, `--capacity "-3"`},
		{[]string{"pack", in, "--time-limit", "-1s"}, "--time-limit"},
		{[]string{"pack", in, in, "-o", "-"}, "-o -: with 2 inputs"},
		{[]string{"pack", in, "-o", in}, "cannot write " + in + ": it is the input CSV"},
		{[]string{"pack", "-", "--workload", "-"}, "only one input can read stdin"},
		{[]string{"pack", filepath.Join(dir, "nope.5.csv")}, "cannot read: no such file or directory"},
	} {
		r := runCLI(t, "", c.args...)
		assert.Equal(t, exitInput, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.msg, c.args)
	}
	data, err := os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, gap18, string(data), "the input is intact")
}

// TestPackSeveral packs several inputs at once: a table row each, totals,
// and each solution in the -o directory under its input's name.
func TestPackSeveral(t *testing.T) {
	dir := t.TempDir()
	tfl := filepath.Join(dir, "tflite.124.csv")
	writeTFLite(t, tfl)
	ins := []string{repo("testdata", "minimalloc", "input.12.csv"), repo("testdata", "minimalloc", "F.1048576.csv"), tfl}
	outDir := filepath.Join(dir, "solutions")
	r := runCLI(t, "", append([]string{"pack", "--format", "md", "-o", outDir}, ins...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	require.Len(t, lines, 6, r.stderr)
	assert.Equal(t, "| instance | buffers | capacity | max-live | solved | peak | gap % | TFLM | saved % | optimal | nodes | time |", lines[0])
	assert.Regexp(t, `^\| input\.12 \| 5 \| 12 \| 12 \| yes \| 12 \| 0\.00 \| \d+ \| -?\d+\.\d\d \| yes \| 0 \| .* \|$`, lines[2])
	assert.Regexp(t, `^\| F\.1048576 \| 296 \| 1048576 \| 1048576 \| yes \| 1048576 \| 0\.00 \| \d+ \| \d+\.\d\d \| yes \| \d+ \| .* \|$`, lines[3])
	assert.Regexp(t, `^\| tflite\.124 \| 8 \| 124 \| 124 \| yes \| 124 \|`, lines[4])
	assert.Regexp(t, `^\| total \(3\) \| 309 \| {2}\| {2}\| 3/3 \| {2}\| {2}\| {2}\| {2}\| 3/3 \|`, lines[5])
	for _, in := range ins {
		p := readProblem(t, in)
		p.Capacity, _ = capacityFromName(in)
		require.NoError(t, pack.Check(p, readSolution(t, p, filepath.Join(outDir, filepath.Base(in)))), in)
	}

	// The text table, and JSON with totals.
	r = runCLI(t, "", append([]string{"pack"}, ins...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `(?m)^ +instance +buffers +capacity +max-live +solved +peak +gap % +TFLM +saved % +optimal +nodes +time$`, r.stderr)
	assert.Contains(t, r.stderr, "3 inputs: 3 solved, 3 optimal; 309 buffers, ")
	r = runCLI(t, "", append([]string{"pack", "--format", "json"}, ins...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	js := parsePackJSON(t, r.stderr)
	assert.Len(t, js.Inputs, 3)
	assert.Equal(t, packTotal{Inputs: 3, Solved: 3, Optimal: 3, Buffers: 309, Nodes: js.Total.Nodes, Seconds: js.Total.Seconds}, js.Total)

	// One input that does not fit: the others are still packed and
	// written, the table says which, and the exit status is 1.
	small := filepath.Join(dir, "small.10.csv")
	data, err := os.ReadFile(ins[0])
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(small, data, 0o644))
	outDir2 := filepath.Join(dir, "sol2")
	r = runCLI(t, "", "pack", ins[0], small, "-o", outDir2)
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "2 inputs: 1 solved")
	assert.Contains(t, r.stderr, "hieropt: 1 of 2 inputs not packed within their capacity: small.10: no packing found within capacity 10: best peak 12 (max-live 12)")
	assert.FileExists(t, filepath.Join(outDir2, "input.12.csv"))
	assert.NoFileExists(t, filepath.Join(outDir2, "small.10.csv"))
}

// tflmPeak is TFLite Micro's greedy peak on the buffers of a CSV file, as
// the library computes it (pack.TFLMAligned; pack.TFLM where no buffer has
// an alignment).
func tflmPeak(t *testing.T, path string) int64 {
	t.Helper()
	p := readProblem(t, path)
	_, peak, err := pack.TFLMAligned(p, nil)
	require.NoError(t, err)
	return peak
}

// TestPackTFLMBaseline: the summary, the tables and JSON show TFLite
// Micro's greedy peak beside hieropt's, the one pack.TFLM gives on the
// same buffers, and what hieropt saves against it.
func TestPackTFLMBaseline(t *testing.T) {
	in := repo("testdata", "minimalloc", "A.1048576.csv")
	offs, want := pack.TFLM(readProblem(t, in), nil, nil)
	require.NotNil(t, offs)
	require.Equal(t, want, tflmPeak(t, in), "no alignments: TFLMAligned is TFLM")
	// A's packing reaches its capacity, 1048576 (the summary's peak line
	// says so); TFLM's is above it.
	saved := want - 1048576
	require.Positive(t, saved)
	pct := 100 * float64(saved) / float64(want)

	r := runCLI(t, "", "pack", in)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "peak       1048576 B (1.0 MiB), 0.00% above max-live")
	assert.Contains(t, r.stderr, fmt.Sprintf("\nTFLM       %s, TFLite Micro's greedy planner: hieropt saves %d B, %.2f%%\n", exactBytes(want), saved, pct))
	assert.Regexp(t, `(?m)^time       .*: read .*, TFLM .*, first pass `, r.stderr)

	r = runCLI(t, "", "pack", in, "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	row := parsePackJSON(t, r.stderr).Inputs[0]
	require.NotNil(t, row.TFLMPeak)
	assert.Equal(t, want, *row.TFLMPeak)
	require.NotNil(t, row.TFLMSavedPct)
	assert.InDelta(t, pct, *row.TFLMSavedPct, 1e-9)
	assert.Empty(t, row.TFLMNote)
	assert.Contains(t, r.stderr, fmt.Sprintf(`"tflm_peak":%d,"tflm_saved_pct":`, want))

	for _, format := range []string{"md", "text"} {
		r = runCLI(t, "", "pack", in, repo("testdata", "minimalloc", "input.12.csv"), "--format", format)
		require.Equal(t, exitOK, r.code, r.stderr)
		sep := `\s+`
		if format == "md" {
			sep = ` \| `
		}
		assert.Regexp(t, `A\.1048576`+sep+`154`+sep+`1048576`+sep+`1048576`+sep+`yes`+sep+`1048576`+sep+`0\.00`+sep+
			strconv.FormatInt(want, 10)+sep+regexp.QuoteMeta(fmt.Sprintf("%.2f", pct))+sep+`yes`, r.stderr, format)
	}

	// Sizes are rounded up to the buffers' alignments (here 16), not to
	// TFLM's 16 where none is given: a (24 B, align 8) and b (16 B, align
	// 16) live together, c (40 B) after them. TFLM on 32, 16, 48 puts b at
	// 32: peak 48; hieropt packs b at 0, a at 16: peak 40.
	dir := t.TempDir()
	aligned := filepath.Join(dir, "aligned.csv")
	require.NoError(t, os.WriteFile(aligned, []byte("id,lower,upper,size,align\na,0,2,24,8\nb,0,2,16,16\nc,2,3,40,1\n"), 0o644))
	r = runCLI(t, "", "pack", aligned, "--minimize", "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	row = parsePackJSON(t, r.stderr).Inputs[0]
	require.NotNil(t, row.TFLMPeak)
	assert.Equal(t, tflmPeak(t, aligned), *row.TFLMPeak)
	_, raw := pack.TFLM(readProblem(t, aligned), nil, nil)
	assert.Greater(t, *row.TFLMPeak, raw, "rounded to the alignments")
	assert.Equal(t, int64(40), row.Peak)
}

// TestPackNeverAboveTFLM: on MiniMalloc's challenging set, minimized,
// hieropt's peak is never above TFLite Micro's greedy's on the same
// buffers, however soon the time limit cuts the search. The capacity is
// 2 MiB, above every TFLM peak (at the files' 1 MiB, D's packing takes
// the search about 2 s, longer under the race detector: a time limit
// would decide the outcome).
func TestPackNeverAboveTFLM(t *testing.T) {
	ins, err := filepath.Glob(repo("testdata", "minimalloc", "[A-K].1048576.csv"))
	require.NoError(t, err)
	require.Len(t, ins, 11)
	r := runCLI(t, "", append([]string{"pack", "--minimize", "--capacity", "2M", "--time-limit", "2s", "--format", "json"}, ins...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	rows := parsePackJSON(t, r.stderr).Inputs
	require.Len(t, rows, 11)
	for i, row := range rows {
		require.NotNil(t, row.TFLMPeak, row.Instance)
		assert.Equal(t, tflmPeak(t, ins[i]), *row.TFLMPeak, row.Instance)
		assert.LessOrEqual(t, row.Peak, *row.TFLMPeak, row.Instance)
		assert.GreaterOrEqual(t, *row.TFLMSavedPct, 0.0, row.Instance)
	}
}

// TestPackTimeLimit: a --minimize run cut by its time limit still gives a
// checked packing, not proven optimal.
func TestPackTimeLimit(t *testing.T) {
	r := runCLI(t, "", "pack", repo("testdata", "minimalloc", "D.1048576.csv"), "--capacity", "2M", "--minimize", "--time-limit", "300ms", "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	row := parsePackJSON(t, r.stderr).Inputs[0]
	assert.True(t, row.Solved)
	assert.LessOrEqual(t, row.Peak, int64(2<<20))
	assert.Greater(t, row.Peak, row.MaxLive, "D's optimum is unknown, above max-live")
	assert.False(t, row.Optimal)
	assert.True(t, row.TimeLimitHit)
}

// TestPackWorkload packs a workload's blocks as one arena.
func TestPackWorkload(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "seed000.csv")
	r := runCLI(t, "", "pack", "--workload", "seed000-example", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "seed000-example: 6 buffers, capacity none (minimized), max-live 5120 B (5.0 KiB)\n")
	assert.Contains(t, r.stderr, "peak       5120 B (5.0 KiB), 0.00% above max-live: optimal: the peak equals max-live\n")
	p := readProblem(t, out)
	p.Capacity = 5120
	require.NoError(t, pack.Check(p, readSolution(t, p, out)))
	// Block i is buffer i, alive on [first, last+1).
	prog, _, err := (&app{}).loadWorkload("seed000-example")
	require.NoError(t, err)
	for i, b := range prog.Blocks {
		assert.Equal(t, pack.Buffer{ID: b.Name, Lower: int64(b.First), Upper: int64(b.Last + 1), Size: b.Size}, p.Buffers[i])
	}
	// Several workloads and a capacity, as a table; squeezenet's max-live
	// does not fit 4 MiB.
	r = runCLI(t, "", "pack", "--workload", "seed000-example,squeezenet1_1-fp32", "--capacity", "4M", "--format", "json")
	assert.Equal(t, exitFailed, r.code)
	first, _, _ := strings.Cut(r.stderr, "\n")
	js := parsePackJSON(t, first)
	require.Len(t, js.Inputs, 2)
	assert.True(t, js.Inputs[0].Solved)
	assert.False(t, js.Inputs[1].Solved)
	assert.Contains(t, r.stderr, `"exit_code":1`)
}

// TestMiniMallocRoundTrip: import a MiniMalloc problem, plan it in one
// level, export the plan: the CSV lists the original buffers (ids, times,
// sizes) with offsets that solve the original problem.
func TestMiniMallocRoundTrip(t *testing.T) {
	dir := t.TempDir()
	hw := filepath.Join(dir, "one-level-2m.yaml")
	require.NoError(t, os.WriteFile(hw, []byte(`format: hieropt.hw/v1
name: one-level-2m
description: one level of 2 MiB (a test profile)
time_unit: cycle
levels:
  - name: MEM
    capacity: 2097152
    alignment: 1
    in: {latency: 1, bandwidth: 8}
    out: {latency: 1, bandwidth: 8}
`), 0o644))
	for _, c := range []struct {
		file string
		opt  []string
	}{
		{"input.12.csv", nil},
		{"input.12.csv", []string{"--initializer", "seed004"}},
		{"F.1048576.csv", []string{"--no-search"}},
		{"F.1048576.csv", []string{"--initializer", "seed000"}},
		{"K.1048576.csv", []string{"--initializer", "seed004"}},
	} {
		name := strings.TrimSuffix(c.file, ".csv")
		in := repo("testdata", "minimalloc", c.file)
		w := filepath.Join(dir, name+".json")
		r := runCLI(t, "", "import", "minimalloc", in, "-o", w)
		require.Equal(t, exitOK, r.code, r.stderr)
		prog, err := workload.ReadFile(w)
		require.NoError(t, err)
		orig := readProblem(t, in)
		assert.Equal(t, name, prog.Name)
		assert.Len(t, prog.Blocks, len(orig.Buffers))
		assert.Equal(t, pack.MaxLive(orig), prog.ComputeStats().MaxLive, "the same max-live")

		pl := filepath.Join(dir, name+".plan.json")
		r = runCLI(t, "", append([]string{"optimize", "--workload", w, "--hw", hw, "-q", "-o", pl}, c.opt...)...)
		require.Equal(t, exitOK, r.code, r.stderr)
		out := filepath.Join(dir, name+".solution.csv")
		r = runCLI(t, "", "export", "minimalloc", "--workload", w, "--hw", hw, pl, "-o", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stderr, "wrote "+out+": ")
		orig.Capacity = 2097152
		require.NoError(t, pack.Check(orig, readSolution(t, orig, out)), "%s %v", c.file, c.opt)
		// --level names the level; the same bytes.
		r = runCLI(t, "", "export", "minimalloc", "--workload", w, "--hw", hw, pl, "--level", "MEM")
		require.Equal(t, exitOK, r.code, r.stderr)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Equal(t, string(data), r.stdout)
	}
	r := runCLI(t, "", "export", "minimalloc", "--workload", filepath.Join(dir, "input.12.json"), "--hw", hw,
		filepath.Join(dir, "input.12.plan.json"), "--level", "SRAM")
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, `--level "SRAM": profile one-level-2m has no such level (levels: MEM)`)

	// A header without buffers makes no workload.
	empty := filepath.Join(dir, "empty.8.csv")
	require.NoError(t, os.WriteFile(empty, []byte("id,lower,upper,size\n"), 0o644))
	r = runCLI(t, "", "import", "minimalloc", empty, "-o", filepath.Join(dir, "e.json"))
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: CSV \""+empty+"\": no buffers: a workload needs at least one\n", r.stderr)
	assert.NoFileExists(t, filepath.Join(dir, "e.json"))
}

// TestExportInPlace: a plan that runs ops in place cannot be written as
// MiniMalloc buffers as it is; with --in-place the blocks taken over end a
// timestep early and the CSV checks.
func TestExportInPlace(t *testing.T) {
	dir := t.TempDir()
	pl := filepath.Join(dir, "plan.json")
	r := runCLI(t, "", "optimize", "--workload", "squeezenet1_1-int8", "--hw", "tpu-v4-core", "--no-search", "-q", "-o", pl)
	require.Equal(t, exitOK, r.code, r.stderr)
	out := filepath.Join(dir, "out.csv")
	r = runCLI(t, "", "export", "minimalloc", "--workload", "squeezenet1_1-int8", "--hw", "tpu-v4-core", pl, "-o", out)
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "not a MiniMalloc solution")
	assert.Contains(t, r.stderr, "--in-place")
	assert.NoFileExists(t, out)
	r = runCLI(t, "", "export", "minimalloc", "--workload", "squeezenet1_1-int8", "--hw", "tpu-v4-core", pl, "--in-place", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	p := readProblem(t, out)
	p.Capacity = 16 << 20
	require.NoError(t, pack.Check(p, readSolution(t, p, out)))
}
