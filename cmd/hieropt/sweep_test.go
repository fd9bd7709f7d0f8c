package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runSweep runs `hieropt sweep ARGS` through newSweepCmd as run() does
// through the root command: the exit code, and the one-line message on
// stderr after an error.
func runSweep(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	cmd := newSweepCmd(a)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetArgs(args)
	c, err := cmd.ExecuteC()
	code := exitCode(err)
	if err != nil {
		msg := oneLine(err.Error())
		if errors.As(err, new(*usageError)) {
			errb.WriteString("hieropt: " + msg + "\n" + usageHint(c) + "\n")
		} else {
			errb.WriteString("hieropt: " + msg + "\n")
		}
	}
	return result{code, out.String(), errb.String()}
}

func readCSVFile(t *testing.T, file string) [][]string {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return recs
}

// dropColumn returns the records without the named column.
func dropColumn(t *testing.T, recs [][]string, name string) [][]string {
	t.Helper()
	col := -1
	for i, h := range recs[0] {
		if h == name {
			col = i
		}
	}
	require.GreaterOrEqual(t, col, 0, "no column %s", name)
	var out [][]string
	for _, r := range recs {
		out = append(out, append(append([]string(nil), r[:col]...), r[col+1:]...))
	}
	return out
}

// withoutTimes drops the summary lines that hold times.
func withoutTimes(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, "time") && !strings.HasPrefix(l, "merged ") && !strings.HasPrefix(l, "shard ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

var sweep3x3x2 = []string{"--workloads", "seed000-example,squeezenet1_1-int8,resnet18-int8", "--hw", "ethos-u55,ethos-u65,k210", "--set", "beam=1,4"}

func TestSweepGridShardsAndMerge(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "runs.csv")
	r := runSweep(t, append(sweep3x3x2, "-o", full)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	t.Log("\n" + r.stdout)
	assert.Contains(t, r.stdout, "18 of the grid's 18 runs (3 workloads x 3 profiles x 2 setting combinations); wall time ")
	assert.Contains(t, r.stdout, "18 runs, 18 valid, 0 without a plan; planning time ")
	assert.Regexp(t, `(?m)^  group   runs valid     mean       sd      p10      p50      p90  geomean$`, r.stdout)
	assert.Regexp(t, `(?m)^  all       18    18 +\d+\.\d\d +\d+\.\d\d `, r.stdout)
	assert.Regexp(t, `(?m)^  beam=1     9     9 `, r.stdout)
	assert.Regexp(t, `(?m)^  beam=4     9     9 `, r.stdout)
	assert.NotContains(t, r.stdout, "scale sensitivity")

	recs := readCSVFile(t, full)
	require.Len(t, recs, 1+18)
	assert.Equal(t, []string{"run", "runs", "workload", "profile", "scale", "beam", "status", "initial_cost", "final_cost",
		"reduction_pct", "seconds", "commits", "replans", "replan_steps"}, recs[0])
	k := 0
	for _, w := range []string{"seed000-example", "squeezenet1_1-int8", "resnet18-int8"} {
		for _, h := range []string{"ethos-u55", "ethos-u65", "k210"} {
			for _, beam := range []string{"1", "4"} {
				rec := recs[1+k]
				assert.Equal(t, []string{strconv.Itoa(k), "18", w, h, "", beam, "valid"}, rec[:7], "run %d", k)
				k++
			}
		}
	}

	// Shards 1/2 and 2/2, merged (in either order), give the same rows;
	// only the seconds differ.
	s1, s2 := filepath.Join(dir, "shard-1.csv"), filepath.Join(dir, "shard-2.csv")
	r1 := runSweep(t, append(sweep3x3x2, "--shard", "1/2", "-o", s1, "-j", "1")...)
	require.Equal(t, exitOK, r1.code, r1.stderr)
	assert.Contains(t, r1.stdout, "shard 1/2: 9 of the grid's 18 runs")
	r2 := runSweep(t, append(sweep3x3x2, "--shard", "2/2", "-o", s2)...)
	require.Equal(t, exitOK, r2.code, r2.stderr)
	for i, rec := range readCSVFile(t, s1)[1:] {
		assert.Equal(t, strconv.Itoa(2*i), rec[0], "shard 1/2 has the even runs")
	}
	merged := filepath.Join(dir, "merged.csv")
	m := runSweep(t, "merge", s2, s1, "-o", merged)
	require.Equal(t, exitOK, m.code, m.stderr)
	assert.Equal(t, dropColumn(t, recs, "seconds"), dropColumn(t, readCSVFile(t, merged), "seconds"))
	assert.Contains(t, m.stdout, "merged 2 files: the grid's 18 runs\n")
	assert.Equal(t, withoutTimes(r.stdout), withoutTimes(m.stdout), "the same summary")

	// A missing shard is named by its runs; a shard given twice too.
	m = runSweep(t, "merge", s1, "-o", merged+".2")
	assert.Equal(t, exitInput, m.code)
	assert.Equal(t, "hieropt: sweep merge: 9 of 18 runs missing: 1, 3, 5, 7, 9, 11, 13, 15, 17 (a shard not given or not finished?)\n", m.stderr)
	assert.NoFileExists(t, merged+".2")
	m = runSweep(t, "merge", s1, s2, s1, "-o", merged+".2")
	assert.Equal(t, exitInput, m.code)
	assert.Equal(t, "hieropt: sweep merge: run 0 is twice in "+s1+"\n", m.stderr)
	m = runSweep(t, "merge", filepath.Join(dir, "nope.csv"), "-o", merged+".2")
	assert.Equal(t, exitInput, m.code)
	assert.Equal(t, `hieropt: sweep CSV "`+filepath.Join(dir, "nope.csv")+`": cannot read: no such file or directory`+"\n", m.stderr)
	m = runSweep(t, "merge", full, "-o", "-")
	assert.Equal(t, exitOK, m.code, m.stderr)
	data, err := os.ReadFile(full)
	require.NoError(t, err)
	assert.Equal(t, string(data), m.stdout, "-o -: the CSV on stdout, the summary on stderr")
	assert.Contains(t, m.stderr, "18 runs, 18 valid")
}

func TestSweepScaleAndSettings(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "runs.csv")
	// k210 has an AISRAM level, ethos-u55 none: its variants are skipped.
	workloads := []string{"seed000-example", "squeezenet1_1-int8", "mobilenet_v2-int8"}
	if testmode.Quick() {
		workloads = workloads[:2]
	}
	r := runSweep(t, "--workloads", strings.Join(workloads, ","), "--hw", "ethos-u55,k210",
		"--scale", "AISRAM.bandwidth=0.5,1,2", "--scale", "Flash.capacity=0.75",
		"--set", "actions=move+swap;move+swap+reuse+evict", "--set", "no-search=true,false", "--max-candidates", "2", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	t.Log("\n" + r.stdout)
	assert.Equal(t, "note: profile ethos-u55 has no level \"AISRAM\": AISRAM.bandwidth skipped for it\nnote: profile ethos-u55 has no level \"Flash\": Flash.capacity skipped for it\n", r.stderr)
	recs := readCSVFile(t, out)
	// The workloads x (ethos-u55 + k210 and its 3 variants) x 2 x 2.
	require.Len(t, recs, 1+len(workloads)*5*4)
	assert.Equal(t, []string{"run", "runs", "workload", "profile", "scale", "actions", "no-search"}, recs[0][:7])
	var profiles []string
	for i := 0; i < 5; i++ {
		profiles = append(profiles, recs[1+4*i][3]+"|"+recs[1+4*i][4])
	}
	assert.Equal(t, []string{"ethos-u55|", "k210|", "k210[AISRAM.bandwidth*0.5]|AISRAM.bandwidth*0.5", "k210[AISRAM.bandwidth*2]|AISRAM.bandwidth*2", "k210[Flash.capacity*0.75]|Flash.capacity*0.75"}, profiles)
	assert.Equal(t, []string{"move,swap", "true"}, recs[1][5:7])
	assert.Equal(t, []string{"move,swap", "false"}, recs[2][5:7])
	assert.Equal(t, []string{"move,swap,reuse,evict", "true"}, recs[3][5:7])
	for _, rec := range recs[1:] {
		if rec[6] == "true" && rec[7] == "valid" {
			assert.Equal(t, rec[8], rec[9], "--no-search: the initializer's plan")
		}
	}
	assert.Contains(t, r.stdout, "scale sensitivity")
	assert.Regexp(t, `(?m)^  k210\[AISRAM.bandwidth\*0.5\] +\d+ `, r.stdout)
	assert.Regexp(t, `(?m)^  scale=none `, r.stdout)
	assert.Regexp(t, `(?m)^  actions=move,swap,reuse,evict `, r.stdout)
	assert.Regexp(t, `(?m)^  no-search=true `, r.stdout)
}

func TestSweepSettingsFromEnvironment(t *testing.T) {
	// An environment variable is split at commas on its way in: the
	// pieces without '=' join the previous setting again.
	t.Setenv("HIEROPT_SET", "beam=1,2,rounds=1,2")
	out := filepath.Join(t.TempDir(), "runs.csv")
	r := runSweep(t, "--workloads", "seed000-example", "--hw", "ethos-u55", "-o", out, "--quiet")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stdout, "--quiet: no summary")
	recs := readCSVFile(t, out)
	require.Len(t, recs, 5)
	assert.Equal(t, []string{"beam", "rounds"}, recs[0][5:7])
	assert.Equal(t, []string{"2", "1"}, recs[3][5:7])
}

func TestSweepWorkloadDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"seed000-example", "squeezenet1_1-int8"} {
		data, err := os.ReadFile(repo("workloads", n+".json"))
		require.NoError(t, err)
		// Written in the reverse of name order: the directory is sorted.
		require.NoError(t, os.WriteFile(filepath.Join(dir, map[string]string{"seed000-example": "b.json", "squeezenet1_1-int8": "a.json"}[n]), data, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a workload"), 0o644))
	out := filepath.Join(t.TempDir(), "runs.csv")
	r := runSweep(t, "--workloads", dir, "--hw", "ethos-u55", "--no-search", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	recs := readCSVFile(t, out)
	require.Len(t, recs, 3)
	assert.Equal(t, "squeezenet1_1-int8", recs[1][2])
	assert.Equal(t, "seed000-example", recs[2][2])
}

func TestSweepUsageErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "runs.csv")
	base := []string{"--workloads", "seed000-example", "--hw", "ethos-u55,k210", "-o", out}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--set", "speed=1,2"}, `--set "speed=1,2": unknown setting "speed" (known: segments, beam, actions, max-candidates, rounds, horizon, initial-only, cost-model, no-search, repack)`},
		{[]string{"--set", "beam"}, `--set "beam": want KEY=V1,V2,...`},
		{[]string{"--set", "beam=0,4"}, `--set beam=0: --beam 0: want a positive number, or -1 for unbounded`},
		{[]string{"--set", "beam=1,x"}, `--set beam=x: "x" is not an integer`},
		{[]string{"--set", "beam=1,1"}, `--set "beam=1,1": value "1" repeated`},
		{[]string{"--set", "segments=every,sometimes"}, `--set segments=sometimes: --segments "sometimes": unknown strategy (want every, fixed:N, at:t1,t2,... or auto)`},
		{[]string{"--set", "actions=move+fly"}, `--set actions=move,fly: --actions "move,fly": unknown action "fly" (known: move, swap, reuse, evict, prefetch)`},
		{[]string{"--set", "initial-only=maybe"}, `--set initial-only=maybe: "maybe": want true or false`},
		{[]string{"--set", "cost-model=free"}, `--set cost-model=free: --cost-model "free" is not known (known: seed003, timeline, vela-dma)`},
		{[]string{"--set", "beam=1", "--set", "beam=4"}, `--set "beam=4": beam is already swept by an earlier --set`},
		{[]string{"--scale", "SRAM.speed=2"}, `--scale "SRAM.speed=2": want LEVEL.FIELD=F1,F2,... with FIELD one of bandwidth, latency, in.bandwidth, out.bandwidth, in.latency, out.latency, capacity`},
		{[]string{"--scale", "SRAM.latency=-1"}, `--scale "SRAM.latency=-1": factor "-1": want a number > 0`},
		{[]string{"--scale", "HBM.latency=2"}, `sweep: HBM.latency: no profile has a level "HBM" (levels: SRAM, OffChipFlash, AISRAM, Flash)`},
		{[]string{"--shard", "3/2"}, `--shard "3/2": want i/n with 1 <= i <= n (i is 1-based: JOB_COMPLETION_INDEX+1)`},
		{[]string{"--shard", "0/2"}, `--shard "0/2": want i/n with 1 <= i <= n (i is 1-based: JOB_COMPLETION_INDEX+1)`},
		{[]string{"--shard", "x"}, `--shard "x": want i/n with 1 <= i <= n (i is 1-based: JOB_COMPLETION_INDEX+1)`},
		{[]string{"--beam", "0"}, `--beam 0: want a positive number, or -1 for unbounded`},
		{[]string{"--no-such-flag"}, `unknown flag: --no-such-flag`},
		{[]string{"extra"}, `accepts 0 arg(s), received 1`},
	} {
		r := runSweep(t, append(append([]string(nil), base...), tc.args...)...)
		assert.Equal(t, exitInput, r.code, "%v: %s", tc.args, r.stderr)
		assert.Equal(t, "hieropt: "+tc.msg+"\nRun 'hieropt sweep --help' for usage.\n", r.stderr, "%v", tc.args)
		assert.NoFileExists(t, out)
	}
	r := runSweep(t, "--workload", "nope.json", "--hw", "ethos-u55", "-o", out)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: workload \"nope.json\": cannot read: no such file or directory\n", r.stderr)
	r = runSweep(t, "merge", "-o", out)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: sweep merge: give the CSV files of the shards\nRun 'hieropt sweep merge --help' for usage.\n", r.stderr)
}
