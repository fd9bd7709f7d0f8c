package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/calibrate"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/profiles"
)

// execCmd runs one command built by newCmd (not through the root), as run
// would, and returns the exit code, stdout and stderr; the error message is
// on stderr as run prints it.
func execCmd(t *testing.T, newCmd func(*app) *cobra.Command, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	cmd := newCmd(a)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return asUsage(err) })
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	err := cmd.Execute()
	code := exitCode(err)
	if err != nil {
		errb.WriteString("hieropt: " + oneLine(err.Error()) + "\n")
	}
	return result{code, out.String(), errb.String()}
}

// writeSynthetic writes samples of known parameters (latency 20 ns; out
// bandwidths 200, 100, 50, 10 B/ns, in half of those) with 1% noise.
func writeSynthetic(t *testing.T, file string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var s []calibrate.Sample
	for i, l := range calibrate.LevelOrder {
		bw := []float64{200, 100, 50, 10}[i]
		for rep := 0; rep < 10; rep++ {
			for _, d := range []int64{8, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20} {
				s = append(s,
					calibrate.Sample{Level: l, Direction: calibrate.Out, Bytes: d, NS: (20 + float64(d)/bw) * (1 + 0.01*rng.NormFloat64())},
					calibrate.Sample{Level: l, Direction: calibrate.In, Bytes: d, NS: (20 + 2*float64(d)/bw) * (1 + 0.01*rng.NormFloat64())})
			}
		}
	}
	f, err := os.Create(file)
	require.NoError(t, err)
	require.NoError(t, calibrate.WriteSamples(f, s))
	require.NoError(t, f.Close())
}

func TestTuneWritesLoadableProfile(t *testing.T) {
	dir := t.TempDir()
	samples := filepath.Join(dir, "samples.csv")
	writeSynthetic(t, samples)
	out := filepath.Join(dir, "profile.yaml")
	r := execCmd(t, newTuneCmd, "", samples, "-o", out, "--name", "test-box")
	require.Equal(t, exitOK, r.code, r.stderr)

	p, err := profiles.Load(out)
	require.NoError(t, err)
	assert.Equal(t, "test-box", p.Name)
	assert.Equal(t, "ns", p.TimeUnit)
	assert.Equal(t, []string{"L1", "L2", "L3", "DRAM"}, p.LevelNames())
	for i, bw := range []float64{200, 100, 50, 10} {
		l := p.Levels[i]
		assert.InEpsilon(t, 20, l.Out.Latency, 0.02, l.Name)
		assert.InEpsilon(t, 20, l.In.Latency, 0.02, l.Name)
		assert.InEpsilon(t, bw, l.Out.Bandwidth, 0.02, l.Name)
		assert.InEpsilon(t, bw/2, l.In.Bandwidth, 0.02, l.Name)
		assert.Equal(t, int64(64), l.Alignment)
	}
	assert.Equal(t, int64(16<<30), p.Levels[3].Capacity)
	desc := strings.Join(strings.Fields(p.Description), " ")
	assert.Contains(t, desc, "Fitted by hieropt tune from the samples file")
	assert.Contains(t, desc, "R² per level: L1 in 0.99")

	// The table: a header, a rule and a row per level and direction.
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 2+8, r.stdout)
	assert.Contains(t, lines[0], "| level | dir | latency ns | latency 95% CI | bandwidth GB/s |")
	assert.Contains(t, lines[0], "R² | resid. std |")
	assert.True(t, strings.HasPrefix(lines[2], "| L1    | in  |"), lines[2])
	assert.True(t, strings.HasPrefix(lines[9], "| DRAM  | out |"), lines[9])
	for _, l := range lines {
		assert.Equal(t, len([]rune(lines[0])), len([]rune(l)), "aligned: %q", l)
	}
	assert.NotContains(t, r.stdout, "POOR")
	assert.Contains(t, r.stderr, "wrote "+out)

	// -o - writes the profile on stdout and the table on stderr.
	r = execCmd(t, newTuneCmd, "", samples, "-o", "-")
	require.Equal(t, exitOK, r.code, r.stderr)
	_, err = hw.Parse("stdout", []byte(r.stdout))
	require.NoError(t, err, r.stdout)
	assert.Contains(t, r.stderr, "| L1    | in  |")

	// Samples from stdin.
	data, err := os.ReadFile(samples)
	require.NoError(t, err)
	r = execCmd(t, newTuneCmd, string(data), "-", "-o", filepath.Join(dir, "stdin.yaml"))
	require.Equal(t, exitOK, r.code, r.stderr)
}

func TestTuneBase(t *testing.T) {
	dir := t.TempDir()
	samples := filepath.Join(dir, "samples.csv")
	writeSynthetic(t, samples)
	base := filepath.Join(dir, "base.yaml")
	require.NoError(t, os.WriteFile(base, []byte(`format: hieropt.hw/v1
name: box
time_unit: cycle
levels:
  - {name: DRAM, capacity: 1073741824, alignment: 128, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
  - {name: L3, capacity: 8388608, alignment: 64, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
  - {name: L2, capacity: 1310720, alignment: 64, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
  - {name: L1, capacity: 40960, alignment: 32, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}
`), 0o644))
	out := filepath.Join(dir, "tuned.yaml")
	r := execCmd(t, newTuneCmd, "", samples, "--base", base, "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	p, err := profiles.Load(out)
	require.NoError(t, err)
	assert.Equal(t, calibrate.DefaultName, p.Name)
	assert.Equal(t, []string{"DRAM", "L3", "L2", "L1"}, p.LevelNames())
	assert.Equal(t, []int64{1 << 30, 8 << 20, 1310720, 40960}, []int64{p.Levels[0].Capacity, p.Levels[1].Capacity, p.Levels[2].Capacity, p.Levels[3].Capacity})
	assert.Equal(t, int64(32), p.Levels[3].Alignment)

	// A built-in base whose names differ.
	r = execCmd(t, newTuneCmd, "", samples, "--base", "cpu-sapphire-rapids", "-o", out)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, `hieropt: hardware profile "cpu-sapphire-rapids": level "L1D": no samples for this level (the samples have L1, L2, L3, DRAM): the base's level names must match`+"\n", r.stderr)
}

func TestTuneBadCSV(t *testing.T) {
	dir := t.TempDir()
	const h = "level,direction,bytes,ns\n"
	for _, tc := range []struct{ in, want string }{
		{"", `line 1: missing header "level,direction,bytes,ns" (the file is empty)`},
		{"L1,out,8,1\n", `line 1: missing header "level,direction,bytes,ns" (got "L1,out,8,1")`},
		{h + "L1,out,8\n", `line 2: 3 columns, want 4 (level,direction,bytes,ns)`},
		{h + "L1,out,8,1\nL1,out,x,1\n", `line 3: bytes "x" is not a number`},
		{h + "L1,out,8,-2\n", `line 2: ns -2 is negative`},
		{h + "L1,sideways,8,1\n", `line 2: unknown direction "sideways": want "in" or "out"`},
		{h + "L1,out,8,1\nL1,out,16,2\n", `level "L1" direction "out": 2 samples at 2 sizes: a fit needs at least 3 samples at 2 or more sizes`},
	} {
		file := filepath.Join(dir, "bad.csv")
		require.NoError(t, os.WriteFile(file, []byte(tc.in), 0o644))
		out := filepath.Join(dir, "never.yaml")
		r := execCmd(t, newTuneCmd, "", file, "-o", out)
		assert.Equal(t, exitInput, r.code, tc.in)
		assert.Equal(t, `hieropt: samples "`+file+`": `+tc.want+"\n", r.stderr, tc.in)
		assert.Empty(t, r.stdout)
		assert.NoFileExists(t, out)
	}

	r := execCmd(t, newTuneCmd, "", filepath.Join(dir, "absent.csv"))
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, `hieropt: samples "`+filepath.Join(dir, "absent.csv")+`": cannot read: no such file or directory`+"\n", r.stderr)

	for _, args := range [][]string{
		{"s.csv", "--time-unit", "cycle"},
		{"s.csv", "--name", ""},
		{},
		{"a.csv", "b.csv"},
		{"s.csv", "--no-such-flag"},
	} {
		r := execCmd(t, newTuneCmd, "", args...)
		assert.Equal(t, exitInput, r.code, args)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
	}
}

// TestCalibrateQuick measures this machine for real (a quick run of about
// a second) and checks the CSV, then tunes a profile from it.
func TestCalibrateQuick(t *testing.T) {
	if testmode.Quick() {
		t.Skip("measures the machine for about a second")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "samples.csv")
	r := execCmd(t, newCalibrateCmd, "", "--quick", "--repeat", "2", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(data), "\n")
	assert.Equal(t, "level,direction,bytes,ns", first)
	samples, err := calibrate.ReadSamples(out, bytes.NewReader(data))
	require.NoError(t, err)
	levels := map[string]bool{}
	for _, s := range samples {
		levels[s.Level+" "+s.Direction] = true
		assert.Greater(t, s.NS, 0.0)
	}
	assert.Len(t, levels, 8)
	assert.Contains(t, r.stderr, "calibrate: L1 (")
	assert.Regexp(t, `calibrate: \d+ samples and \d+ copies in .*, samples written to `, r.stderr)

	// The copy check: a table per level (timings not asserted), then what
	// the errors mean.
	assert.Contains(t, r.stderr, "calibrate: copy check: copying b bytes from one buffer into another")
	for _, l := range calibrate.LevelOrder {
		_, table, ok := strings.Cut(r.stderr, "\n"+l+", copies of ")
		require.True(t, ok, "no copy table for %s: %s", l, r.stderr)
		table, _, _ = strings.Cut(table, "\n\n")
		lines := strings.Split(table, "\n")
		require.Greater(t, len(lines), 3, table)
		assert.Contains(t, lines[0], "; model out ")
		assert.Regexp(t, `^\| copy bytes \| measured ns \| model ns \| +error \|$`, lines[1])
		for _, row := range lines[3:] {
			assert.Regexp(t, `^\| +\d+ \| +[\d.]+ \| +[\d.]+ \| +[+-]\d+\.\d% \|$`, row)
		}
	}
	flat := strings.Join(strings.Fields(r.stderr), " ")
	assert.Contains(t, flat, "calibrate: measured: the model")
	assert.Contains(t, flat, "(mean per level: L1 ")
	assert.Less(t, strings.Index(r.stderr, "copy check"), strings.Index(r.stderr, "samples written"))

	prof := filepath.Join(dir, "here.yaml")
	r = execCmd(t, newTuneCmd, "", out, "-o", prof)
	require.Equal(t, exitOK, r.code, r.stderr)
	_, err = profiles.Load(prof)
	require.NoError(t, err)

	// --levels, quiet, stdout.
	r = execCmd(t, newCalibrateCmd, "", "--quick", "--repeat", "1", "--levels", "L1", "--quiet")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "level,direction,bytes,ns\nL1,out,"), r.stdout)
	assert.NotContains(t, r.stdout, "L2")
}

// TestCalibrateCopyCheckTable prints the copy check of known samples and
// copies.
func TestCalibrateCopyCheckTable(t *testing.T) {
	plan := []calibrate.LevelPlan{{Level: "L1", CopySizes: []int64{1000, 3000}}, {Level: "DRAM", CopySizes: []int64{1 << 20}}}
	var samples []calibrate.Sample
	for _, d := range []int64{8, 1000, 2000, 4000} {
		samples = append(samples,
			calibrate.Sample{Level: "L1", Direction: calibrate.Out, Bytes: d, NS: 1 + float64(d)/200},
			calibrate.Sample{Level: "L1", Direction: calibrate.In, Bytes: d, NS: 1 + float64(d)/100},
			calibrate.Sample{Level: "DRAM", Direction: calibrate.Out, Bytes: d, NS: 100 + float64(d)/20},
			calibrate.Sample{Level: "DRAM", Direction: calibrate.In, Bytes: d, NS: 100 + float64(d)/10})
	}
	copies := []calibrate.CopySample{
		{Level: "L1", Bytes: 1000, NS: 10}, {Level: "L1", Bytes: 1000, NS: 11}, {Level: "L1", Bytes: 1000, NS: 9},
		{Level: "L1", Bytes: 3000, NS: 32}, {Level: "DRAM", Bytes: 1 << 20, NS: 200000},
	}
	var b bytes.Buffer
	writeCopyCheck(&b, plan, samples, copies)
	// L1 1000 B: 1 + 5 + 1 + 10 = 17 ns against a median of 10; 3000 B:
	// 47 ns against 32; DRAM 1 MiB: 200 + 52428.8 + 104857.6 = 157486.4 ns
	// against 200000.
	assert.Equal(t, `calibrate: copy check: copying b bytes from one buffer into another, the two together in the level,
against the model fitted to these samples: out latency + b/out bandwidth + in latency + b/in
bandwidth. Measured ns is the median of the repetitions; error is model/measured - 1.

L1, copies of 1000 B to 2.9 KiB; model out 1.000 ns + b/200.0 GB/s, in 1.000 ns + b/100.0 GB/s:
| copy bytes | measured ns | model ns |  error |
| ---------: | ----------: | -------: | -----: |
|       1000 |       10.00 |    17.00 | +70.0% |
|       3000 |       32.00 |    47.00 | +46.9% |

DRAM, copies of 1.0 MiB; model out 100.0 ns + b/20.00 GB/s, in 100.0 ns + b/10.00 GB/s:
| copy bytes | measured ns | model ns |  error |
| ---------: | ----------: | -------: | -----: |
|    1048576 |      200000 |   157486 | -21.3% |

calibrate: measured: the model's error ranges from -21.3% to +70.0% (mean per level: L1 +58.4%,
DRAM -21.3%). A copy overlaps its reads and writes, so the model's sum of the two is expected to
overestimate it, by up to ~2x (+100%) on a core that reads and writes in the same cycle. The copies
check the model; they are not in the samples.
`, b.String())

	// Every copy faster than the model.
	b.Reset()
	writeCopyCheck(&b, plan[:1], samples, copies[:4])
	assert.Contains(t, strings.Join(strings.Fields(b.String()), " "), "calibrate: measured: the model overestimates every copy, by 46.9% to 70.0% (mean per level: L1 +58.4%).")

	// Every copy slower than the model.
	b.Reset()
	writeCopyCheck(&b, plan[1:], samples, copies[4:])
	assert.Contains(t, strings.Join(strings.Fields(b.String()), " "), "calibrate: measured: the model underestimates every copy, by 21.3% (mean per level: DRAM -21.3%).")

	// Samples that cannot be fitted: no table, one line.
	b.Reset()
	writeCopyCheck(&b, plan, samples[:4], copies)
	assert.Equal(t, "calibrate: copy check skipped: samples: level \"L1\" direction \"in\": 1 samples at 1 sizes: a fit needs at least 3 samples at 2 or more sizes\n", b.String())
}

func TestCalibrateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--repeat", "0"}, "hieropt: --repeat 0: want at least 1\n"},
		{[]string{"--levels", "L1,L4"}, `hieropt: --levels: unknown level "L4": want L1, L2, L3, DRAM` + "\n"},
		{[]string{"--levels", ""}, "hieropt: --levels is empty: want some of L1,L2,L3,DRAM\n"},
		{[]string{"extra"}, "hieropt: accepts 0 arg(s), received 1\n"},
	} {
		r := execCmd(t, newCalibrateCmd, "", tc.args...)
		assert.Equal(t, exitInput, r.code, tc.args)
		assert.Equal(t, tc.want, r.stderr, tc.args)
	}
}
