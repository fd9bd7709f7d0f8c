package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tfliteimp "github.com/hieropt/hieropt/importer/tflite"
	"github.com/hieropt/hieropt/internal/testmode"
	"github.com/hieropt/hieropt/tflm"
)

// plan tflm writes a model whose offline plan verify --model accepts;
// export tflm turns a plan of the imported workload into one; bad input
// and plans TFLM cannot run exit with one line and write nothing.
func TestPlanAndExportTFLM(t *testing.T) {
	dir := t.TempDir()
	model := repo("testdata", "tflite", "person_detect.tflite")
	out := filepath.Join(dir, "pd.tflite")
	r := runCLI(t, "", "plan", "tflm", model, "--arena", "64K", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	m, err := tflm.ReadFile(model)
	require.NoError(t, err)
	_, greedy := m.Greedy()
	assert.Contains(t, r.stdout, "TFLM's own plan "+strconv.FormatInt(greedy, 10)+" B")
	r = runCLI(t, "", "verify", "--model", out)
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "valid")

	small := filepath.Join(dir, "small.tflite")
	// The kernels' scratch buffers count in the heads printed: on
	// scratchy (MEAN's int8 kernel requests them) the saving is the one
	// at run time, below what the tensors alone would save.
	sc := repo("testdata", "tflite", "scratchy.tflite")
	ms, err := tflm.ReadFile(sc)
	require.NoError(t, err)
	_, scGreedy := ms.Greedy()
	r = runCLI(t, "", "plan", "tflm", sc, "--arena", "1M", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "TFLM's own plan "+strconv.FormatInt(scGreedy, 10)+" B")
	assert.Contains(t, r.stderr, "of kernels' scratch buffers")
	sm, err := tflm.ReadFile(out)
	require.NoError(t, err)
	_, scHead := ms.Head(sm.Offline.Offsets)
	assert.Contains(t, r.stdout, fmt.Sprintf("head %d B by pack", scHead))
	assert.Less(t, scHead, scGreedy)
	// --scratch gives an operator's requests; bad ones are usage errors.
	mean := -1
	for k, op := range ms.Graph.Ops {
		if op.Type == "MEAN" {
			mean = k
			break
		}
	}
	big := filepath.Join(dir, "big.tflite")
	r = runCLI(t, "", "plan", "tflm", sc, "--arena", "1M", "--scratch", fmt.Sprintf("%d=64K", mean), "-o", big)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.NotContains(t, r.stdout, fmt.Sprintf("TFLM's own plan %d B", scGreedy), "a 64K scratch buffer changes TFLM's head")
	for _, bad := range []string{"x=1", "1", fmt.Sprintf("%d=-5", mean), "99999=1"} {
		r = runCLI(t, "", "plan", "tflm", sc, "--arena", "1M", "--scratch", bad, "-o", small)
		assert.Equal(t, exitInput, r.code, bad)
		assert.Contains(t, r.stderr, "--scratch", bad)
		assert.NoFileExists(t, small)
	}
	// An operator the model does not have: one line naming the model.
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
	assert.Contains(t, r.stderr, "scratchy.tflite")

	// Too small an arena: exit 1, nothing written.
	r = runCLI(t, "", "plan", "tflm", model, "--arena", "1K", "-o", small)
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
	assert.NoFileExists(t, small)
	// Not a model.
	r = runCLI(t, "", "plan", "tflm", repo("testdata", "tflite", "README.md"), "--arena", "1M", "-o", small)
	assert.Equal(t, exitInput, r.code)
	assert.Contains(t, r.stderr, "not a TFLite model")
	assert.NoFileExists(t, small)
	// Vela's plan is smaller than any hieropt may write: kept.
	r = runCLI(t, "", "plan", "tflm", repo("testdata", "tflite", "person_detect_vela.tflite"), "--arena", "1M", "-o", small)
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "not replaced")
	r = runCLI(t, "", "verify", "--model", repo("testdata", "tflite", "person_detect_vela.tflite"))
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "note: ")
	r = runCLI(t, "", "verify", "--model", model, "--workload", "x.json")
	assert.Equal(t, exitInput, r.code)

	// export: a plan of the imported workload on the Ethos-U55 profile
	// (activations in its 4 MiB SRAM, weights read from flash or copied).
	w := filepath.Join(dir, "pd.json")
	require.Equal(t, exitOK, runCLI(t, "", "import", "tflite", model, "-o", w).code)
	pl := filepath.Join(dir, "pd.plan.json")
	require.Equal(t, exitOK, runCLI(t, "", "optimize", "-q", "--workload", w, "--hw", "ethos-u55", "-o", pl).code)
	ex := filepath.Join(dir, "pd.e.tflite")
	r = runCLI(t, "", "export", "tflm", "--workload", w, "--hw", "ethos-u55", pl, "--model", model, "-o", ex)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "in SRAM")
	r = runCLI(t, "", "verify", "--model", ex)
	require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
	// The plan spreads the tensors over the SRAM (its constants copied
	// there too): in the model's one arena the head is no larger than plan
	// tflm's, nor than TFLM's own.
	me, err := tflm.ReadFile(ex)
	require.NoError(t, err)
	require.NotNil(t, me.Offline)
	exported := me.Check(me.Offline.Offsets)
	res, err := m.Plan(context.Background(), tflm.PlanOptions{NodeLimit: planTFLMNodeLimit})
	require.NoError(t, err)
	assert.LessOrEqual(t, exported.Head, res.Head, "export tflm's head against plan tflm's")
	assert.LessOrEqual(t, exported.Head, greedy, "export tflm's head against TFLM's own")
	assert.Contains(t, r.stdout, fmt.Sprintf("head %d B", exported.Head))
	// A plan that keeps activations in two levels: refused, one line.
	two := repo("testdata", "hw", "two-level-5k.yaml")
	pl2 := filepath.Join(dir, "pd.two.json")
	require.Equal(t, exitOK, runCLI(t, "", "optimize", "-q", "--workload", w, "--hw", two, "-o", pl2).code)
	r = runCLI(t, "", "export", "tflm", "--workload", w, "--hw", two, pl2, "--model", model, "-o", small)
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "TFLM's arena is one memory")
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
	assert.NoFileExists(t, small)
	// Against another model: refused.
	r = runCLI(t, "", "export", "tflm", "--workload", w, "--hw", "ethos-u55", pl, "--model", repo("testdata", "tflite", "hello_world_int8.tflite"), "-o", small)
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "not this model's workload")
	assert.NoFileExists(t, small)
}

// tflmHarness returns the TFLM harness (shared/tflm/build.sh builds it,
// once, and prints its path), or skips: HIEROPT_TFLM_HARNESS names the
// binary, else build.sh is looked for in HIEROPT_SHARED/tflm or in a
// folder "shared" beside the repository or one of its parents.
func tflmHarness(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("HIEROPT_TFLM_HARNESS"); h != "" {
		return h
	}
	if testmode.Quick() {
		// Building TFLM takes 6-16 minutes on 2 cores: more than the
		// quick tests' whole budget. CI builds it first and sets
		// HIEROPT_TFLM_HARNESS (.ci/run).
		t.Skip("TFLM harness not given: set HIEROPT_TFLM_HARNESS to the path ../shared/tflm/build.sh prints, or " + testmode.Variable + "=1 to build it here")
	}
	var script string
	if s := os.Getenv("HIEROPT_SHARED"); s != "" {
		script = filepath.Join(s, "tflm", "build.sh")
	} else {
		for d := absRepo(t); d != filepath.Dir(d); d = filepath.Dir(d) {
			if c := filepath.Join(filepath.Dir(d), "shared", "tflm", "build.sh"); fileExists(c) {
				script = c
				break
			}
		}
	}
	if script == "" || !fileExists(script) {
		t.Skip("TFLM harness not available: no shared/tflm/build.sh beside the repository (set HIEROPT_SHARED or HIEROPT_TFLM_HARNESS)")
	}
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("TFLM harness not available: g++ is missing (apt-get install g++)")
	}
	out, err := exec.Command("bash", script).Output()
	require.NoError(t, err, "%s", script)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

func absRepo(t *testing.T) string {
	d, err := filepath.Abs(repo())
	require.NoError(t, err)
	return d
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// harnessRun runs the harness; it returns the outputs' lines (offsets in
// the arena left out), arena_used_bytes and the exit status.
func harnessRun(t *testing.T, h, model string, arena int64, seed int) (outputs string, used int64, code int) {
	t.Helper()
	var stdout bytes.Buffer
	cmd := exec.Command(h, model, strconv.FormatInt(arena, 10), strconv.Itoa(seed), "--full")
	cmd.Stdout = &stdout
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return "", 0, ee.ExitCode()
	}
	require.NoError(t, err)
	off := regexp.MustCompile(` arena_offset=\d+`)
	var keep []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "output["), strings.HasPrefix(l, "input["):
			keep = append(keep, off.ReplaceAllString(l, ""))
		case strings.HasPrefix(l, "arena_used_bytes="):
			used, err = strconv.ParseInt(strings.TrimPrefix(l, "arena_used_bytes="), 10, 64)
			require.NoError(t, err)
		}
	}
	require.Positive(t, used, stdout.String())
	return strings.Join(keep, "\n"), used, 0
}

// Every shared TFLite model and testdata/tflite/branchy.tflite, run by
// the real TFLM runtime: planned by
// plan tflm, and by optimize on the Ethos-U55 profile then export tflm
// (offsets of hieropt's own planner, not TFLM's), with 3 input seeds: the
// outputs are byte-identical to the model planned online; the planned
// model runs in an arena of its own measured size, and no larger one than
// TFLM's own plan needs when hieropt's head is no larger. A deliberately
// overlapping plan is refused by the checker (TestCheckRejects... in
// package tflm) and here shown to change the outputs where TFLM runs it.
func TestTFLMHarnessEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the TFLM runtime")
	}
	h := tflmHarness(t)
	dir := t.TempDir()
	models, err := filepath.Glob(filepath.Join(sharedModels(t), "*.tflite"))
	require.NoError(t, err)
	require.NotEmpty(t, models)
	// And a model where hieropt's head is a third below TFLM's own
	// (tflm/branchy_test.go made it).
	models = append(models, repo("testdata", "tflite", "branchy.tflite"))
	// And a chain of every op the importer lets run in place, each over
	// its input below (tflm/branchy_test.go made it).
	models = append(models, repo("testdata", "tflite", "elementwise.tflite"))
	// And a model whose MEAN kernels request scratch buffers, where a
	// plan of the tensors alone grows TFLM's arena at run time
	// (tflm/scratchy_test.go made it).
	models = append(models, repo("testdata", "tflite", "scratchy.tflite"))
	const big = 8 << 20
	corrupted := 0 // models whose outputs an overlapping plan changes
	defer func() {
		// Not every such overlap shows in the outputs (an int8 output
		// may round to the same values), but it must in some model.
		assert.Positive(t, corrupted, "no overlapping plan changed any model's outputs")
	}()
	for _, model := range models {
		name := strings.TrimSuffix(filepath.Base(model), ".tflite")
		t.Run(name, func(t *testing.T) {
			m, err := tflm.ReadFile(model)
			require.NoError(t, err)
			planned := filepath.Join(dir, name+".planned.tflite")
			r := runCLI(t, "", "plan", "tflm", model, "--arena", "8M", "-o", planned)
			if m.Offline != nil {
				// person_detect_vela: Vela's plan is kept (and it needs
				// the Ethos-U operator, which the host runtime lacks).
				require.Equal(t, exitFailed, r.code, r.stderr)
				return
			}
			require.Equal(t, exitOK, r.code, r.stderr)
			// The saving plan tflm prints is what the runtime's
			// arena_used_bytes shows.
			sv := regexp.MustCompile(`saves (\d+) B`).FindStringSubmatch(r.stdout)
			require.NotNil(t, sv, r.stdout)
			printed, err := strconv.ParseInt(sv[1], 10, 64)
			require.NoError(t, err)
			w := filepath.Join(dir, name+".json")
			require.Equal(t, exitOK, runCLI(t, "", "import", "tflite", model, "-o", w).code)
			pl := filepath.Join(dir, name+".plan.json")
			require.Equal(t, exitOK, runCLI(t, "", "optimize", "-q", "--workload", w, "--hw", "ethos-u55", "-o", pl).code)
			exported := filepath.Join(dir, name+".exported.tflite")
			r = runCLI(t, "", "export", "tflm", "--workload", w, "--hw", "ethos-u55", pl, "--model", model, "-o", exported)
			require.Equal(t, exitOK, r.code, r.stderr)
			for seed := 1; seed <= 3; seed++ {
				want, online, code := harnessRun(t, h, model, big, seed)
				require.Zero(t, code)
				got, used, code := harnessRun(t, h, planned, big, seed)
				require.Zero(t, code)
				require.Equal(t, want, got, "plan tflm, seed %d", seed)
				require.LessOrEqual(t, used, online, "plan tflm's model uses more arena than TFLM's own plan")
				require.Equal(t, printed, online-used, "plan tflm's printed saving against the runtime's")
				got, usedExported, code := harnessRun(t, h, exported, big, seed)
				require.Zero(t, code)
				require.Equal(t, want, got, "export tflm, seed %d", seed)
				require.LessOrEqual(t, usedExported, used, "export tflm's model uses more arena than plan tflm's")
			}
			// The head hieropt computes for an offline plan is the
			// runtime's, scratch buffers and all: TFLM's plan of the
			// tensors alone (without the scratch buffers), offline,
			// where TFLM puts the scratch buffers around it.
			alone, err := tflm.ReadFile(model)
			require.NoError(t, err)
			alone.Scratch = nil
			offs, _ := alone.Greedy()
			copyPlan := filepath.Join(dir, name+".copy.tflite")
			data, err := m.Write(to32(offs))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(copyPlan, data, 0o644))
			_, online, _ := harnessRun(t, h, model, big, 1)
			_, usedCopy, code := harnessRun(t, h, copyPlan, big, 1)
			require.Zero(t, code)
			_, greedy := m.Greedy()
			_, headCopy := m.Head(to32(offs))
			require.Equal(t, headCopy-greedy, usedCopy-online, "an offline copy of TFLM's plan of the tensors: hieropt's head against the runtime's (%d scratch buffers)", len(m.Scratch))
			t.Logf("%s: %d scratch buffers, %d B; the tensors' plan offline %+d B at run time", name, len(m.Scratch), m.ScratchBytes(), usedCopy-online)
			// TFLM's own plan puts the inputs and outputs where
			// hieropt's copy of its planner (pack.TFLM) says.
			offs, _ = m.Greedy()
			at := harnessOffsets(t, h, model, big)
			for k, i := range m.Graph.Inputs {
				require.Equal(t, offs[i], at[fmt.Sprintf("input[%d]", k)], "input %d", k)
			}
			for k, i := range m.Graph.Outputs {
				require.Equal(t, offs[i], at[fmt.Sprintf("output[%d]", k)], "output %d", k)
			}
			// The smallest arena each runs in (TFLM needs a little more
			// than arena_used_bytes while it prepares): the planned
			// model's is no larger, and where hieropt's head is smaller
			// than TFLM's the original fails in it.
			least := minArena(t, h, planned, big)
			orig := minArena(t, h, model, big)
			require.LessOrEqual(t, least, orig)
			res, err := m.Plan(context.Background(), tflm.PlanOptions{NodeLimit: planTFLMNodeLimit})
			require.NoError(t, err)
			if res.Head < res.Greedy {
				_, _, code := harnessRun(t, h, model, least, 1)
				require.NotZero(t, code, "TFLM's own plan runs in hieropt's arena")
				// It saves at most what the head saves: less where the
				// least arena is set by TFLM's planner's own working
				// space (per tensor) rather than by the head.
				require.LessOrEqual(t, orig-least, res.Greedy-res.Head)
			}
			// In place: every pair an in-place op may share (its output
			// over its last input) moved together above the rest, so
			// that they share; the runtime computes the same outputs.
			if shared, n := inPlaceVariant(m); n > 0 {
				require.True(t, m.Check(shared).Valid(), "%v", m.Check(shared).Problems)
				data, err := m.Write(shared)
				require.NoError(t, err)
				ip := filepath.Join(dir, name+".inplace.tflite")
				require.NoError(t, os.WriteFile(ip, data, 0o644))
				for seed := 1; seed <= 3; seed++ {
					want, _, _ := harnessRun(t, h, model, big, seed)
					got, _, code := harnessRun(t, h, ip, big, seed)
					require.Zero(t, code)
					require.Equal(t, want, got, "%d in-place pairs, seed %d", n, seed)
				}
				t.Logf("%s: %d in-place pairs run in place", name, n)
			}
			// A CONV_2D or FULLY_CONNECTED output over its live input:
			// the checker refuses it, and TFLM, which does not check,
			// computes something else.
			if bad := overlapping(m); bad != nil {
				require.False(t, m.Check(bad).Valid())
				data, err := m.Write(bad)
				require.NoError(t, err)
				bp := filepath.Join(dir, name+".bad.tflite")
				require.NoError(t, os.WriteFile(bp, data, 0o644))
				want, _, _ := harnessRun(t, h, model, big, 1)
				got, _, code := harnessRun(t, h, bp, big, 1)
				if code != 0 || want != got {
					corrupted++
				}
				t.Logf("%s: an output over its live input: exit %d, outputs changed: %v", name, code, want != got)
			}
			t.Logf("%s: least arena %d B planned, %d B online; head %d B, TFLM's %d B", name, least, orig, res.Head, res.Greedy)
		})
	}
}

// inPlaceVariant returns TFLM's own plan of m with every pair an in-place
// op may share (tflite.InPlace: its first output and an input whose life
// ends there, of the same size) moved above the rest, each pair at one
// offset (a chain of such ops all at one offset); and the number of
// pairs.
func inPlaceVariant(m *tflm.Model) ([]int32, int) {
	offs, head := m.Greedy()
	plan := make([]int32, len(offs))
	for i, o := range offs {
		plan[i] = int32(o)
	}
	top, n := head, 0
	moved := map[int]bool{} // tensors already given a shared offset
	for k, op := range m.Graph.Ops {
		if !tfliteimp.InPlace(op.Type) || len(op.Outputs) == 0 {
			continue
		}
		out := m.Tensors[op.Outputs[0]]
		for _, a := range op.Inputs {
			in := m.Tensors[a]
			if plan[a] < 0 || plan[out.Index] < 0 || in.Last != k+1 || out.First != k+1 || in.Bytes != out.Bytes || in.Variable || out.Variable {
				continue
			}
			if moved[a] { // a chain: the output joins its input's offset
				plan[out.Index] = plan[a]
			} else {
				plan[a], plan[out.Index] = int32(top), int32(top)
				top += in.Size()
			}
			moved[a], moved[out.Index] = true, true
			n++
			break
		}
	}
	return plan, n
}

// overlapping returns TFLM's own plan of m with the output of its first
// CONV_2D or FULLY_CONNECTED that reads an activation put over that input;
// nil if it has none.
func overlapping(m *tflm.Model) []int32 {
	offs, _ := m.Greedy()
	for _, op := range m.Graph.Ops {
		if (op.Type == "CONV_2D" || op.Type == "FULLY_CONNECTED") && offs[op.Inputs[0]] >= 0 && offs[op.Outputs[0]] >= 0 {
			plan := make([]int32, len(offs))
			for i, o := range offs {
				plan[i] = int32(o)
			}
			plan[op.Outputs[0]] = plan[op.Inputs[0]]
			return plan
		}
	}
	return nil
}

// harnessOffsets returns where the harness says each input and output
// sits in the arena ("input[0]": offset).
func harnessOffsets(t *testing.T, h, model string, arena int64) map[string]int64 {
	t.Helper()
	out, err := exec.Command(h, model, strconv.FormatInt(arena, 10), "1").Output()
	require.NoError(t, err)
	at := map[string]int64{}
	for _, m := range regexp.MustCompile(`(?m)^((?:in|out)put\[\d+\]) .*arena_offset=(\d+)`).FindAllStringSubmatch(string(out), -1) {
		v, err := strconv.ParseInt(m[2], 10, 64)
		require.NoError(t, err)
		at[m[1]] = v
	}
	require.NotEmpty(t, at, string(out))
	return at
}

// minArena is the smallest arena (to 16 bytes) in which the harness runs
// the model (seed 1); the model runs in hi.
func minArena(t *testing.T, h, model string, hi int64) int64 {
	t.Helper()
	lo := int64(0) // fails
	for hi-lo > 16 {
		mid := (lo + hi) / 2 / 16 * 16
		if mid <= lo {
			mid = lo + 16
		}
		if _, _, code := harnessRun(t, h, model, mid, 1); code == 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// sharedModels is shared/models/tflite beside the harness's build script.
func sharedModels(t *testing.T) string {
	t.Helper()
	if s := os.Getenv("HIEROPT_SHARED"); s != "" {
		return filepath.Join(s, "models", "tflite")
	}
	for d := absRepo(t); d != filepath.Dir(d); d = filepath.Dir(d) {
		if c := filepath.Join(filepath.Dir(d), "shared", "models", "tflite"); fileExists(c) {
			return c
		}
	}
	t.Skip("shared/models/tflite not found beside the repository (set HIEROPT_SHARED)")
	return ""
}

func to32(v []int64) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}
