package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/actions"
	"github.com/hieropt/hieropt/costmodel"
	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/plan"
	"github.com/hieropt/hieropt/profiles"
	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/verify"
	"github.com/hieropt/hieropt/workload"
	"github.com/hieropt/hieropt/workloads"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// result is one run of the command line.
type result struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return result{code, out.String(), errb.String()}
}

// seedHW is the path of the seed-model copy of the built-in profile name
// (testdata/hw/seed003/NAME.yaml: its levels without compute, dma,
// read-only levels or cost_model; named NAME-seed003), for the tests of
// the seed model's behaviour and numbers. The built-in profiles name the
// timeline model.
func seedHW(name string) string {
	return repo("testdata", "hw", "seed003", name+".yaml")
}

func repo(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

// testProblem loads a workload and a profile as the command line does.
func testProblem(t *testing.T, workloadArg, hwArg string) *state.Problem {
	t.Helper()
	a := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	p, err := a.loadProblem(workloadArg, hwArg)
	require.NoError(t, err)
	return p
}

// verifyPlan checks a plan file with the plan checker (package verify),
// cost.initial against the planner's initializer (or fallback) plan under
// the plan's cost model (the problem bound for that model's semantics, as
// hieropt verify binds it), and requires it valid.
func verifyPlan(t *testing.T, workloadArg, hwArg, planFile string) *verify.Report {
	t.Helper()
	pl, err := plan.ReadFile(planFile)
	require.NoError(t, err)
	p, err := planProblem(testProblem(t, workloadArg, hwArg), pl)
	require.NoError(t, err)
	model, ok := costmodel.Lookup(cmp.Or(pl.CostModel, costmodel.Default))
	require.True(t, ok, pl.CostModel)
	res, err := verify.Check(p.Prog, p.HW, pl, &verify.Options{Doc: plan.DocName(planFile),
		Initial: actions.VerifyInitial(context.Background(), p, model)})
	require.NoError(t, err)
	require.True(t, res.Valid(), "%s: %v", planFile, res.Violations)
	return res
}

// TestOptimizeEveryWorkloadAndProfile plans every shipped workload on every
// built-in profile with --no-search. Each either gives a plan that passes
// the validator (and verify), or fails with exit 1 and a clear one-line
// reason: the live blocks overflow the levels, or one block is larger than
// every level it may use (the same exit status).
func TestOptimizeEveryWorkloadAndProfile(t *testing.T) {
	dir := t.TempDir()
	planned := 0
	for _, w := range workloads.Names() {
		for _, h := range profiles.Names() {
			out := filepath.Join(dir, w+"."+h+".json")
			r := runCLI(t, "", "optimize", "--workload", w, "--hw", h, "--no-search", "-o", out)
			switch r.code {
			case exitOK:
				res := verifyPlan(t, w, h, out)
				pl, err := plan.ReadFile(out)
				require.NoError(t, err)
				assert.InDelta(t, res.Cost, pl.Cost.Final, 1e-9*res.Cost)
				assert.Equal(t, pl.Cost.Initial, pl.Cost.Final, "no search: the plan is the initializer's")
				v := runCLI(t, "", "verify", "--workload", w, "--hw", h, out)
				assert.Equal(t, exitOK, v.code, v.stderr)
				planned++
			case exitFailed:
				// A block larger than every level (every writable level on
				// the Ethos-U55 and the K210, whose flash is read-only:
				// FORMATS.md rule 7) is as infeasible as the live blocks
				// overflowing the levels.
				assert.Regexp(t, `^hieropt: (workload ".*" cannot fit hardware profile|block ".*" \(\d+ B\) created at timestep \d+ fits no level|workload "builtin:.*": block ".*": size \d+ B is larger than every (writable )?level)`, r.stderr)
				assert.NoFileExists(t, out)
			default:
				t.Fatalf("%s on %s: exit %d: %s", w, h, r.code, r.stderr)
			}
			if r.code != exitOK {
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			}
		}
	}
	// The 104 pairs but the 21 that fit nowhere (hieropt's
	// TestEveryShippedPair, unfitPairs, names them).
	assert.Equal(t, 83, planned)
}

func TestOptimizeIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	var first []byte
	for i := 0; i < 3; i++ {
		out := filepath.Join(dir, "plan.json")
		r := runCLI(t, "", "optimize", "--workload", "gpt2-small-like-int8", "--hw", "ethos-u65", "--no-search", "-o", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		if first == nil {
			first = data
		} else {
			require.Equal(t, first, data, "run %d differs", i)
		}
	}
}

func TestSeed000OneLevelSummary(t *testing.T) {
	r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "one-level-8k.yaml"), "--no-search")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "max-live   5120 B (in-place aware 5120 B)")
	assert.Contains(t, r.stderr, "planner    initializer (--no-search)")
	// Cost: 6 writes and 7 reads on MEM (1 + d/8 each):
	// writes 2048,2048,1024,2048,1024,4096 -> 6 + 12288/8 = 1542;
	// reads op0 x2, op1, op2, op3, op4, op5 = 2048*2+2048+1024+2048+1024+4096
	// = 14336 -> 7 + 14336/8 = 1799; total 3341.
	assert.Contains(t, r.stderr, "cost       3341.00 cycles")
}

// TestSummarySingular: counts of one are singular in the summary. The
// search commits one segment of seed000-example on two-level-5k.
func TestSummarySingular(t *testing.T) {
	r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "two-level-5k.yaml"))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "search     converged after 6 of 6 timesteps; 1 segment committed\n")
	assert.NotRegexp(t, `(^|\D)1 [a-z-]+s\b`, r.stderr)
}

// TestGoldenPlans pins the exact plan bytes of small cases. Run with
// -update to rewrite them after an intended change.
func TestGoldenPlans(t *testing.T) {
	cases := []struct{ name, workload, hw string }{
		{"seed000-example.one-level-8k", "seed000-example", repo("testdata", "hw", "one-level-8k.yaml")},
		{"seed000-example.two-level-5k", "seed000-example", repo("testdata", "hw", "two-level-5k.yaml")},
		{"squeezenet1_1-int8.ethos-u55", "squeezenet1_1-int8", "ethos-u55"},
		{"squeezenet1_1-int8.ethos-u55-seed003", "squeezenet1_1-int8", seedHW("ethos-u55")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, "", "optimize", "--workload", c.workload, "--hw", c.hw, "--no-search", "-q", "-o", "-")
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Empty(t, r.stderr, "-q prints no summary")
			golden := repo("testdata", "golden", c.name+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(r.stdout), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./cmd/hieropt -update to create it")
			assert.Equal(t, string(want), r.stdout)
			verifyPlan(t, c.workload, c.hw, golden)
		})
	}
}

func TestVerifyReportsEveryViolation(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "one-level-8k.yaml"), "-o", good)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	// op1.out onto op0.out's offset (they share timesteps 1-2), and a
	// wrong final cost.
	bad := strings.Replace(string(data), `{"block":"op1.out","from":1,"to":4,"level":"MEM","offset":6144}`,
		`{"block":"op1.out","from":1,"to":4,"level":"MEM","offset":0}`, 1)
	bad = strings.Replace(bad, `"final": 3341`, `"final": 3340`, 1)
	require.NotEqual(t, string(data), bad)
	badFile := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(badFile, []byte(bad), 0o644))
	v := runCLI(t, "", "verify", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "one-level-8k.yaml"), badFile)
	assert.Equal(t, exitFailed, v.code)
	assert.Contains(t, v.stdout, `rule 4: blocks "op0.out" and "op1.out" overlap in level MEM at timesteps [1,2], bytes [0,2048)`)
	assert.Contains(t, v.stdout, `rule 4: blocks "op1.out" and "op3.out" overlap in level MEM at timesteps [3,4], bytes [0,2048)`)
	assert.Contains(t, v.stdout, `rule 6: cost.final 3340 differs from the recomputed cost 3341`)
	assert.Contains(t, v.stderr, "is invalid: 3 violations")
}

// TestBadInput: every bad input gets one line naming the problem, exit 2,
// no stack trace, and no output file.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	okProfile := repo("testdata", "hw", "one-level-8k.yaml")
	cases := []struct {
		name     string
		args     []string
		stdin    string
		wantLine string
	}{
		{"missing workload flag", []string{"optimize", "--hw", "ethos-u55"}, "",
			"hieropt: --workload is required (a file, - for stdin, or a built-in: "},
		{"unknown built-in workload", []string{"optimize", "--workload", "nope", "--hw", "ethos-u55"}, "",
			`hieropt: workload "nope": no such file and no built-in workload of that name (built-ins: `},
		{"missing workload file", []string{"optimize", "--workload", "dir/nope.json", "--hw", "ethos-u55"}, "",
			`hieropt: workload "dir/nope.json": cannot read: no such file or directory`},
		{"broken workload JSON", []string{"optimize", "--workload", write("broken.json", `{"format": "hieropt.workload/v1", "name": `), "--hw", "ethos-u55"}, "",
			`hieropt: workload "` + filepath.Join(dir, "broken.json") + `": invalid JSON: unexpected end of file`},
		{"workload on stdin, wrong type", []string{"optimize", "--workload", "-", "--hw", "ethos-u55"},
			`{"format":"hieropt.workload/v1","name":"x","ops":[{"name":"a"}],"blocks":[{"name":"b","size":"big","kind":"activation","first":0,"last":0,"writes":[0],"reads":[0]}]}`,
			`hieropt: workload "-": block "b": field "size": want an integer, got string "big"`},
		{"unknown profile", []string{"optimize", "--workload", "seed000-example", "--hw", "nope"}, "",
			`hieropt: hardware profile "nope": no such file and no built-in profile of that name (built-ins: `},
		{"zero bandwidth", []string{"optimize", "--workload", "seed000-example", "--hw", write("zero.yaml",
			"format: hieropt.hw/v1\nname: z\ntime_unit: cycle\nlevels:\n  - {name: M, capacity: 8192, alignment: 1, in: {latency: 1, bandwidth: 0}, out: {latency: 1, bandwidth: 1}}\n")}, "",
			`hieropt: hardware profile "` + filepath.Join(dir, "zero.yaml") + `": level "M": in.bandwidth 0: must be > 0`},
		{"NaN latency", []string{"optimize", "--workload", "seed000-example", "--hw", write("nan.yaml",
			"format: hieropt.hw/v1\nname: z\ntime_unit: cycle\nlevels:\n  - {name: M, capacity: 8192, alignment: 1, in: {latency: .nan, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}\n")}, "",
			`hieropt: hardware profile "` + filepath.Join(dir, "nan.yaml") + `": level "M": in.latency NaN: must be a number, not NaN`},
		{"duplicate level names", []string{"optimize", "--workload", "seed000-example", "--hw", write("dup.yaml",
			"format: hieropt.hw/v1\nname: z\ntime_unit: cycle\nlevels:\n  - {name: M, capacity: 8192, alignment: 1, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}\n  - {name: M, capacity: 8192, alignment: 1, in: {latency: 1, bandwidth: 1}, out: {latency: 1, bandwidth: 1}}\n")}, "",
			`hieropt: hardware profile "` + filepath.Join(dir, "dup.yaml") + `": level "M": duplicate level name (also level 0)`},
		{"pin to a missing level", []string{"optimize", "--hw", okProfile, "--workload", write("pin.json",
			`{"format":"hieropt.workload/v1","name":"x","ops":[{"name":"a"}],"blocks":[{"name":"b","size":8,"kind":"activation","first":0,"last":0,"writes":[0],"reads":[0],"level":"SRAM"}]}`)}, "",
			`hieropt: workload "` + filepath.Join(dir, "pin.json") + `": block "b": pinned to level "SRAM", which hardware profile "one-level-8k" does not have (levels: MEM)`},
		{"unknown flag", []string{"optimize", "--frobnicate"}, "", "hieropt: unknown flag: --frobnicate"},
		{"unknown command", []string{"frobnicate"}, "", `hieropt: unknown command "frobnicate" for "hieropt"`},
		{"unknown cost model", []string{"optimize", "--workload", "seed000-example", "--hw", okProfile, "--cost-model", "nope"}, "",
			`hieropt: --cost-model "nope" is not known (known: seed003, timeline, vela-dma)`},
		{"plan for another workload", []string{"verify", "--workload", "seed000-example", "--hw", okProfile, write("other.json",
			`{"format":"hieropt.plan/v1","workload":"resnet18-int8","hardware":"one-level-8k","time_unit":"cycle","cost":{"initial":1,"final":1},"placements":[],"transfers":[]}`)}, "",
			`hieropt: plan "` + filepath.Join(dir, "other.json") + `": plan is for workload "resnet18-int8", not "seed000-example"`},
		{"verify without a plan", []string{"verify", "--workload", "seed000-example", "--hw", okProfile}, "",
			"hieropt: accepts 1 arg(s), received 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".plan.json")
			args := c.args
			if args[0] == "optimize" {
				args = append(args, "-o", out)
			}
			r := runCLI(t, c.stdin, args...)
			assert.Equal(t, exitInput, r.code, r.stderr)
			assert.True(t, strings.HasPrefix(r.stderr, c.wantLine), "stderr %q\nwant prefix %q", r.stderr, c.wantLine)
			first, _, _ := strings.Cut(r.stderr, "\n")
			assert.NotContains(t, r.stderr, "goroutine")
			assert.NotContains(t, r.stderr, "panic")
			assert.NotEmpty(t, first)
			lines := strings.Count(strings.TrimSuffix(r.stderr, "\n"), "\n") + 1
			if strings.Contains(r.stderr, "--help") {
				assert.Equal(t, 2, lines, "the error and a hint to --help")
			} else {
				assert.Equal(t, 1, lines, "one line: %q", r.stderr)
			}
			assert.NoFileExists(t, out)
		})
	}
}

// TestInfeasibleExitsOne: valid documents that cannot be planned together
// exit 1 whatever the reason (issue 30 item 5): the live blocks overflow
// the levels, or one block is larger than every level it may use (on a
// file profile, on a built-in one, or than its pinned level), with one
// line naming the block or the levels; no plan is written.
func TestInfeasibleExitsOne(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	r := runCLI(t, "", "optimize", "--workload", "resnet50-int8", "--hw", "k210", "-o", out)
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, `hieropt: workload "resnet50-int8" cannot fit hardware profile "k210": at timestep 0 its live blocks need at least 28407488 B but the levels hold 25165824 B in total (AISRAM 2097152 B + SRAM 6291456 B + Flash 16777216 B); largest live blocks: "layer4.0.conv2.weight" (2359296 B), "layer4.1.conv2.weight" (2359296 B), "layer4.2.conv2.weight" (2359296 B)`+"\n", r.stderr)

	pinned := filepath.Join(dir, "pinned.json")
	require.NoError(t, os.WriteFile(pinned, []byte(`{"format":"hieropt.workload/v1","name":"x","ops":[{"name":"a"}],"blocks":[{"name":"b","size":500000,"kind":"activation","first":0,"last":0,"writes":[0],"reads":[0],"level":"SRAM"}]}`), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "resnet18-int8", "--hw", repo("testdata", "hw", "one-level-8k.yaml")},
			`hieropt: workload "builtin:resnet18-int8": block "x": size 150528 B is larger than every level of hardware profile "one-level-8k" (MEM 8192 B)`},
		{[]string{"--workload", "resnet18-fp32", "--hw", "k210"},
			`hieropt: workload "builtin:resnet18-fp32": block "conv1.im2col": size 7375872 B is larger than every writable level of hardware profile "k210" (AISRAM 2097152 B, SRAM 6291456 B); read-only Flash holds constants only (FORMATS.md rule 7)`},
		{[]string{"--workload", pinned, "--hw", "ethos-u65", "--no-search"},
			`hieropt: workload "` + pinned + `": block "b": needs 500000 B (size 500000 aligned to 16) but its pinned level "SRAM" holds only 393216 B`},
	} {
		r := runCLI(t, "", append(append([]string{"optimize"}, c.args...), "-o", out)...)
		assert.Equal(t, exitFailed, r.code, r.stderr)
		assert.True(t, strings.HasPrefix(r.stderr, c.want), "stderr %q\nwant prefix %q", r.stderr, c.want)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
		assert.NoFileExists(t, out)
	}
	// As JSON: the document and the block named, as for an input error.
	r = runCLI(t, "", "optimize", "--workload", "resnet18-int8", "--hw", repo("testdata", "hw", "one-level-8k.yaml"), "-o", out, "--format", "json")
	assert.Equal(t, exitFailed, r.code)
	assert.JSONEq(t, `{"error":{"document":"workload","file":"builtin:resnet18-int8","item":"block \"x\"","rule":"size 150528 B is larger than every level of hardware profile \"one-level-8k\" (MEM 8192 B)","kind":"infeasible or invalid","message":"workload \"builtin:resnet18-int8\": block \"x\": size 150528 B is larger than every level of hardware profile \"one-level-8k\" (MEM 8192 B)","exit_code":1}}`, r.stderr)
}

func TestSettingsFromEnvAndConfig(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	t.Setenv("HIEROPT_HW", repo("testdata", "hw", "one-level-8k.yaml"))
	t.Setenv("HIEROPT_NO_SEARCH", "true")
	r := runCLI(t, "", "optimize", "--workload", "seed000-example", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "seed000-example on one-level-8k")
	assert.Contains(t, r.stderr, "(--no-search)")

	// A flag beats the environment.
	r = runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", "ethos-u55", "-q")
	require.Equal(t, exitOK, r.code, r.stderr)

	// The config file fills what flags and environment leave.
	t.Setenv("HIEROPT_HW", "")
	cfg := filepath.Join(dir, "hieropt.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("optimize:\n  hw: ethos-u65\n  workload: seed000-example\n"), 0o644))
	r = runCLI(t, "", "optimize", "--config", cfg)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "seed000-example on ethos-u65")
	t.Setenv("HIEROPT_CONFIG", cfg)
	r = runCLI(t, "", "optimize")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "seed000-example on ethos-u65")

	// A typo in the config file is an error, not silently ignored.
	require.NoError(t, os.WriteFile(cfg, []byte("optimize:\n  hw: ethos-u65\n  wrkload: x\n"), 0o644))
	r = runCLI(t, "", "optimize")
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, `hieropt: config "`+cfg+`": optimize.wrkload: unknown setting: optimize takes `)
	require.NoError(t, os.WriteFile(cfg, []byte("optimise:\n  hw: ethos-u65\n"), 0o644))
	r = runCLI(t, "", "optimize")
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, `optimise: unknown section: sections are command names`)

	// A subcommand's section sits inside its parent's.
	out = filepath.Join(dir, "a.json")
	require.NoError(t, os.WriteFile(cfg, []byte("import:\n  minimalloc:\n    name: from-config\n"), 0o644))
	r = runCLI(t, "", "import", "minimalloc", "../../testdata/minimalloc/input.12.csv", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"name":"from-config"`)
	require.NoError(t, os.WriteFile(cfg, []byte("import:\n  minimalloc:\n    nam: x\n"), 0o644))
	r = runCLI(t, "", "import", "minimalloc", "../../testdata/minimalloc/input.12.csv", "-o", out)
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, `import.minimalloc.nam: unknown setting: import minimalloc takes `)
	require.NoError(t, os.WriteFile(cfg, []byte("import:\n  onxx:\n    dtype-bytes: 1\n"), 0o644))
	r = runCLI(t, "", "import", "minimalloc", "../../testdata/minimalloc/input.12.csv", "-o", out)
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, `import.onxx: unknown setting: import takes `)
}

func TestHelp(t *testing.T) {
	r := runCLI(t, "", "--help")
	require.Equal(t, exitOK, r.code)
	for _, sub := range []string{"optimize", "verify", "profiles", "inspect"} {
		assert.Contains(t, r.stdout, sub)
		h := runCLI(t, "", sub, "--help")
		require.Equal(t, exitOK, h.code, sub)
		assert.Contains(t, h.stdout, "Usage:")
		assert.Contains(t, h.stdout, "Examples:")
	}
	assert.Contains(t, r.stdout, "Exit codes: 0 success; 1 infeasible problem or invalid plan; 2 bad input or")
	// The root's help and optimize's list every exit code the command can
	// return, each as "N what".
	o := runCLI(t, "", "optimize", "--help")
	require.Equal(t, exitOK, o.code)
	for _, h := range []struct{ name, text, head string }{{"root", r.stdout, "Exit codes:"}, {"optimize", o.stdout, "Exit status:"}} {
		_, codes, ok := strings.Cut(h.text, h.head)
		require.True(t, ok, "%s: no %q", h.name, h.head)
		codes, _, _ = strings.Cut(codes, "\n\n")
		codes = strings.Join(strings.Fields(codes), " ")
		for _, c := range []int{exitOK, exitFailed, exitInput, exitInternal, exitInterrupted} {
			assert.Regexp(t, fmt.Sprintf(`(^|; )%d [a-z]`, c), codes, "%s --help: exit code %d", h.name, c)
		}
	}
}

// TestUsageHint: a usage error points at the help of the command that was
// run, where its flags are documented, not at the root's.
func TestUsageHint(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
		hint string
	}{
		{[]string{"gen", "--ops", "10", "--mix", "rnn"}, `--mix "rnn": want cnn, transformer or mixed`, "hieropt gen --help"},
		{[]string{"optimize", "--beam", "0"}, `--beam 0: want a positive number, or -1 for unbounded`, "hieropt optimize --help"},
		{[]string{"import", "onnx", "--dim", "x", "m.onnx"}, `--dim "x": want name=value with a value >= 0`, "hieropt import onnx --help"},
		{[]string{"--no-such-flag"}, `unknown flag: --no-such-flag`, "hieropt --help"},
	} {
		r := runCLI(t, "", c.args...)
		assert.Equal(t, exitInput, r.code, "%v", c.args)
		assert.Equal(t, "hieropt: "+c.msg+"\nRun '"+c.hint+"' for usage.\n", r.stderr, "%v", c.args)
	}
}

func TestProfilesAndInspect(t *testing.T) {
	r := runCLI(t, "", "profiles")
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, n := range profiles.Names() {
		assert.Contains(t, r.stdout, n)
	}
	assert.Contains(t, r.stdout, "OffChipFlash")
	y := runCLI(t, "", "profiles", "ethos-u55")
	require.Equal(t, exitOK, y.code)
	data, _ := profiles.YAML("ethos-u55")
	assert.Equal(t, string(data), y.stdout)

	i := runCLI(t, "", "inspect", "--workload", "resnet50-int8")
	require.Equal(t, exitOK, i.code, i.stderr)
	assert.Contains(t, i.stdout, "max-live        28518120 B")
	assert.Contains(t, i.stdout, "largest block   layer4.0.conv2.weight (2359296 B")
	l := runCLI(t, "", "inspect", "--list")
	require.Equal(t, exitOK, l.code)
	assert.Equal(t, len(workloads.Names())+1, strings.Count(l.stdout, "\n"))
	f := runCLI(t, "", "inspect", "--workload", "resnet50-int8", "--hw", "k210")
	assert.Equal(t, exitFailed, f.code)
	assert.Contains(t, f.stdout, "\nfits            k210: no: workload \"resnet50-int8\" cannot fit hardware profile \"k210\": ")
	// A profile name longer than the others' column still reads as a
	// sentence.
	y = runCLI(t, "", "inspect", "--workload", "seed000-example", "--hw", repo("testdata", "hw", "two-level-5k.yaml"))
	require.Equal(t, exitOK, y.code, y.stderr)
	assert.Contains(t, y.stdout, "\nGMACs           0.000\nfits            two-level-5k: yes, its capacity allows it (run optimize for a plan)\n")
}

// TestProfilesFileKeys: `profiles FILE` checks a profile with exact keys.
// A key that is a field in the wrong case is an error naming the field
// (exit 2); any other unknown key is ignored, as FORMATS.md requires, and
// listed as a warning on stderr; optimize ignores it silently.
func TestProfilesFileKeys(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "extra.yaml")
	require.NoError(t, os.WriteFile(good, []byte(`format: hieropt.hw/v1
name: extra
time_unit: cycle
vendor: {part: X1}
levels:
  - name: SRAM
    capacity: 1048576
    alignment: 16
    banks: 4
    in:  {latency: 8, bandwidth: 32}
    out: {latency: 8, bandwidth: 32, note: burst}
`), 0o644))
	r := runCLI(t, "", "profiles", good)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, good+`: valid profile "extra" (cycles)`), r.stdout)
	doc := `hieropt: warning: hardware profile "` + good + `": `
	assert.Equal(t, doc+`line 4: key "vendor" is not a field of hieropt.hw/v1; ignored
`+doc+`level "SRAM": line 9: key "banks" is not a field of hieropt.hw/v1; ignored
`+doc+`level "SRAM": line 11: key "out.note" is not a field of hieropt.hw/v1; ignored
`, r.stderr)
	o := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", good, "-q", "-o", filepath.Join(dir, "plan.json"))
	require.Equal(t, exitOK, o.code, o.stderr)
	assert.Empty(t, o.stderr)

	bad := filepath.Join(dir, "case.yaml")
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(string(data), "capacity:", "Capacity:", 1)), 0o644))
	for _, args := range [][]string{{"profiles", bad}, {"optimize", "--workload", "seed000-example", "--hw", bad, "-o", filepath.Join(dir, "p2.json")}} {
		r = runCLI(t, "", args...)
		assert.Equal(t, exitInput, r.code, "%v", args)
		assert.Equal(t, `hieropt: hardware profile "`+bad+`": level "SRAM": line 7: key "Capacity": keys are case-sensitive; did you mean "capacity"?`+"\n", r.stderr)
		assert.Empty(t, r.stdout)
	}
	assert.NoFileExists(t, filepath.Join(dir, "p2.json"))
}

// TestBuiltinWorkloadsAreTheShippedFiles guards the embedding: the built-in
// workloads are exactly the files of workloads/.
func TestBuiltinWorkloadsAreTheShippedFiles(t *testing.T) {
	files, err := filepath.Glob(repo("workloads", "*.json"))
	require.NoError(t, err)
	require.Len(t, workloads.Names(), len(files))
	for _, f := range files {
		prog, err := workload.ReadFile(f)
		require.NoError(t, err)
		_, err = state.Bind(prog, mustProfile(t, "ethos-u65"), f)
		require.NoError(t, err)
	}
}

// TestBuiltinProfilesNameTheTimeline: every built-in profile names the
// timeline model with its compute and DMA figures (profiles lists them,
// a read-only level marked), and optimize prices plans on it by that
// model unless --cost-model says otherwise: under seed003 the Ethos-U65
// (no read-only level) gives the very plan of its seed-model copy.
func TestBuiltinProfilesNameTheTimeline(t *testing.T) {
	r := runCLI(t, "", "profiles")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, len(profiles.Names()), strings.Count(r.stdout, "  cost model timeline: "), r.stdout)
	assert.Contains(t, r.stdout, "\n           OffChipFlash (read-only)  128.0 MiB  16     64          1           64           1\n"+
		"           cost model timeline: 256 MACs per cycle + 500 cycles per op, 1 DMA channel\n")
	assert.Contains(t, r.stdout, "\n      Flash (read-only)  16.0 MiB  64     160         0.25        160          0.25\n")
	assert.Contains(t, r.stdout, "\n           cost model timeline: 256 MACs per cycle + 500 cycles per op, 2 DMA channels\n") // ethos-u65
	r = runCLI(t, "", "profiles", seedHW("ethos-u65"))
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "\n                   cost model seed003 (no cost_model: the default)\n")

	dir := t.TempDir()
	tl, seed, copied := filepath.Join(dir, "tl.json"), filepath.Join(dir, "seed.json"), filepath.Join(dir, "copy.json")
	r = runCLI(t, "", "optimize", "--workload", "squeezenet1_1-int8", "--hw", "ethos-u65", "--no-search", "-o", tl)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "cost       2164566.67 cycles (timeline model)")
	r = runCLI(t, "", "optimize", "--workload", "squeezenet1_1-int8", "--hw", "ethos-u65", "--no-search", "--cost-model", "seed003", "-o", seed)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "cost       1543598.33 cycles (seed003 model)")
	r = runCLI(t, "", "optimize", "--workload", "squeezenet1_1-int8", "--hw", seedHW("ethos-u65"), "--no-search", "-o", copied)
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, f := range []string{tl, seed} {
		verifyPlan(t, "squeezenet1_1-int8", "ethos-u65", f)
		v := runCLI(t, "", "verify", "--workload", "squeezenet1_1-int8", "--hw", "ethos-u65", f)
		assert.Equal(t, exitOK, v.code, v.stdout+v.stderr)
	}
	tlPlan, err := plan.ReadFile(tl)
	require.NoError(t, err)
	assert.Equal(t, "timeline", tlPlan.CostModel)
	a, err := os.ReadFile(seed)
	require.NoError(t, err)
	b, err := os.ReadFile(copied)
	require.NoError(t, err)
	assert.Contains(t, string(a), `"hardware": "ethos-u65",`)
	assert.NotContains(t, string(a), `"cost_model"`, "seed003, the format's default, is not written")
	assert.Equal(t, strings.Replace(string(b), `"hardware": "ethos-u65-seed003",`, `"hardware": "ethos-u65",`, 1), string(a))
}

func mustProfile(t *testing.T, name string) *hw.Profile {
	t.Helper()
	p, err := profiles.Get(name)
	require.NoError(t, err)
	return p
}

// TestMain lets the tests run this binary as a child process (for signal
// tests): with HIEROPT_TEST_MAIN set, the test binary is hieropt.
func TestMain(m *testing.M) {
	if os.Getenv("HIEROPT_TEST_MAIN") != "" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestOptimizeSearches: optimize on a built-in profile searches under the
// model the profile names, the timeline model (prefetch in the default
// action set); the initializer's plan of resnet50-int8 on the Ethos-U55
// costs 39015738 cycles there, under no planning's 40911666 (compare's
// first rows), and the search's less.
func TestOptimizeSearches(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	r := runCLI(t, "", "optimize", "--workload", "resnet50-int8", "--hw", "ethos-u55", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "planner    search: segments=auto beam=4 actions=move,swap,reuse,evict,prefetch max-candidates=4")
	assert.Regexp(t, `cost       \d+\.\d\d cycles \(timeline model\); initial 39015738\.00, \d+\.\d\d% less`, r.stderr)
	assert.Contains(t, r.stderr, "search     converged after 174 of 174 timesteps")
	res := verifyPlan(t, "resnet50-int8", "ethos-u55", out)
	pl, err := plan.ReadFile(out)
	require.NoError(t, err)
	assert.Less(t, pl.Cost.Final, pl.Cost.Initial)
	assert.InDelta(t, res.Cost, pl.Cost.Final, 1e-9*res.Cost)
	assert.Equal(t, res.InitialCost, pl.Cost.Initial)

	// The same plan whatever -j.
	a, err := os.ReadFile(out)
	require.NoError(t, err)
	r = runCLI(t, "", "optimize", "--workload", "resnet50-int8", "--hw", "ethos-u55", "-j", "1", "-q", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, a, b)

	// Every search flag.
	r = runCLI(t, "", "optimize", "--workload", "squeezenet1_1-int8", "--hw", "ethos-u65", "--segments", "fixed:3",
		"--beam", "-1", "--actions", "move,swap", "--max-candidates", "2", "--time-limit", "1m", "--check", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "segments=fixed:3 beam=unbounded actions=move,swap max-candidates=2")
	verifyPlan(t, "squeezenet1_1-int8", "ethos-u65", out)

	for _, bad := range [][]string{
		{"--segments", "sometimes"}, {"--beam", "0"}, {"--actions", "jump"}, {"--max-candidates", "0"}, {"--time-limit", "-1s"}, {"-j", "-2"},
	} {
		args := append([]string{"optimize", "--workload", "seed000-example", "--hw", "ethos-u55"}, bad...)
		r := runCLI(t, "", args...)
		assert.Equal(t, exitInput, r.code, "%v: %s", bad, r.stderr)
	}
}

func TestTimeLimitWritesAValidPlan(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "gen.json")
	r := runCLI(t, "", "gen", "--ops", "3000", "-o", w)
	require.Equal(t, exitOK, r.code, r.stderr)
	out := filepath.Join(dir, "p.json")
	r = runCLI(t, "", "optimize", "--workload", w, "--hw", "h100-sm", "--time-limit", "100ms", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "search     time limit after")
	verifyPlan(t, w, "h100-sm", out)
}

// TestInterrupt sends SIGINT to a running optimize: it must write the best
// plan so far, valid, say so and exit 130.
func TestInterrupt(t *testing.T) {
	if testmode.Quick() {
		t.Skip("runs a long search")
	}
	dir := t.TempDir()
	w := filepath.Join(dir, "gen.json")
	r := runCLI(t, "", "gen", "--ops", "40000", "--mix", "cnn", "-o", w)
	require.Equal(t, exitOK, r.code, r.stderr)
	out := filepath.Join(dir, "p.json")
	cmd := exec.Command(os.Args[0], "optimize", "--workload", w, "--hw", "h100-sm", "-o", out)
	cmd.Env = append(os.Environ(), "HIEROPT_TEST_MAIN=1")
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	// Wait until the search runs, then interrupt it. The workload (11.8
	// MiB) is announced first.
	rd := bufio.NewReader(pipe)
	line, err := rd.ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "loading "+w+" ("), line)
	line, err = rd.ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, "searching 40000 timesteps")
	time.Sleep(500 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	var stderr bytes.Buffer
	_, _ = stderr.ReadFrom(rd)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	assert.Equal(t, 130, ee.ExitCode(), stderr.String())
	assert.Contains(t, stderr.String(), "search     cancelled after")
	assert.Contains(t, stderr.String(), "hieropt: interrupted: wrote the best plan found so far")
	verifyPlan(t, w, "h100-sm", out)
}

// TestKillLeavesNoFile kills a running optimize with SIGKILL, which no
// program can catch: the output path must not exist (plans are written to
// a hidden temporary file and renamed only when complete), and a plan that
// was there before is left untouched.
func TestKillLeavesNoFile(t *testing.T) {
	if testmode.Quick() {
		t.Skip("runs a long search")
	}
	dir := t.TempDir()
	w := filepath.Join(dir, "gen.json")
	r := runCLI(t, "", "gen", "--ops", "40000", "--mix", "cnn", "-o", w)
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, before := range []string{"", "an earlier plan\n"} {
		out := filepath.Join(dir, "p.json")
		if before != "" {
			require.NoError(t, os.WriteFile(out, []byte(before), 0o644))
		}
		cmd := exec.Command(os.Args[0], "optimize", "--workload", w, "--hw", "h100-sm", "-o", out)
		cmd.Env = append(os.Environ(), "HIEROPT_TEST_MAIN=1")
		pipe, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		rd := bufio.NewReader(pipe)
		line, err := rd.ReadString('\n')
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(line, "loading "+w+" ("), line) // 11.8 MiB
		line, err = rd.ReadString('\n')
		require.NoError(t, err)
		require.Contains(t, line, "searching 40000 timesteps")
		time.Sleep(300 * time.Millisecond)
		require.NoError(t, cmd.Process.Kill())
		_ = cmd.Wait()
		data, err := os.ReadFile(out)
		if before == "" {
			assert.ErrorIs(t, err, os.ErrNotExist, "a killed optimize left %s", out)
		} else {
			require.NoError(t, err)
			assert.Equal(t, before, string(data), "a killed optimize changed the file that was there")
		}
		left, err := filepath.Glob(filepath.Join(dir, ".p.json"+tmpInfix+"*"))
		require.NoError(t, err)
		assert.Empty(t, left, "no temporary file before the search ends")
	}
}
