package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/workload"
)

func TestImportONNX(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r18.json")
	r := runCLI(t, "", "import", "onnx", repo("testdata", "onnx", "resnet18.onnx"), "--dtype-bytes", "1", "-o", out)
	require.Equal(t, exitOK, r.code, r.stderr)
	prog, err := workload.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "resnet18", prog.Name)
	assert.Len(t, prog.Ops, 48)
	assert.Len(t, prog.Blocks, 91)
	// The imported workload plans and verifies like any other.
	plan := filepath.Join(dir, "p.json")
	r = runCLI(t, "", "optimize", "--workload", out, "--hw", "ethos-u55", "-q", "-o", plan)
	require.Equal(t, exitOK, r.code, r.stderr)
	verifyPlan(t, out, "ethos-u55", plan)

	r = runCLI(t, "", "import", "onnx", "nope.onnx", "-o", filepath.Join(dir, "x.json"))
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: ONNX model \"nope.onnx\": cannot read: no such file or directory\n", r.stderr)
	r = runCLI(t, "", "import", "onnx", repo("testdata", "onnx", "resnet18.onnx"), "--dim", "oops", "-o", filepath.Join(dir, "x.json"))
	assert.Equal(t, exitInput, r.code)
	assert.NoFileExists(t, filepath.Join(dir, "x.json"))
	// A dimension the model does not have: an error naming the ones it
	// has, not silently ignored.
	r = runCLI(t, "", "import", "onnx", repo("testdata", "onnx", "resnet18.onnx"), "--dim", "nosuchdim=7", "-o", filepath.Join(dir, "x.json"))
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: ONNX model \""+repo("testdata", "onnx", "resnet18.onnx")+"\": dimension \"nosuchdim\": given a value, but the model has no such symbolic dimension (it has none)\n", r.stderr)
	assert.NoFileExists(t, filepath.Join(dir, "x.json"))
}

func TestSeedPlanners(t *testing.T) {
	dir := t.TempDir()
	hw := repo("testdata", "hw", "one-level-8k.yaml")
	for _, c := range []struct{ name, arena string }{{"seed000", "5120"}, {"seed001", "7168"}, {"seed004", "5120"}} {
		out := filepath.Join(dir, c.name+".json")
		r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", hw, "--initializer", c.name, "-o", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stderr, "planner    "+c.name+": arena of "+c.arena+" B in level MEM")
		verifyPlan(t, "seed000-example", hw, out)
	}
	r := runCLI(t, "", "optimize", "--workload", "seed000-example", "--hw", hw, "--initializer", "nope")
	assert.Equal(t, exitInput, r.code)
	// mobilenet_v2-fp32 fits k210 (its constants in the read-only Flash),
	// but its arena fits no writable level.
	r = runCLI(t, "", "optimize", "--workload", "mobilenet_v2-fp32", "--hw", "k210", "--initializer", "seed001")
	assert.Equal(t, exitFailed, r.code, r.stderr)
	assert.Contains(t, r.stderr, "hieropt: planner seed001 needs an arena larger than every writable level (AISRAM 2097152 B, SRAM 6291456 B); read-only Flash holds constants only\n")
}

// TestImportTFLite imports every TFLite model of testdata/tflite (and of
// shared/models/tflite when it is there), plans each on ethos-u55 and
// verifies the plan; bad input exits 2 with one line and no output file.
func TestImportTFLite(t *testing.T) {
	dir := t.TempDir()
	models, _ := filepath.Glob(repo("testdata", "tflite", "*.tflite"))
	require.NotEmpty(t, models)
	shared, _ := filepath.Glob("/work/shared/models/tflite/*.tflite")
	for i, m := range append(models, shared...) {
		out := filepath.Join(dir, fmt.Sprintf("w%d.json", i))
		r := runCLI(t, "", "import", "tflite", m, "-o", out)
		require.Equal(t, exitOK, r.code, r.stderr)
		prog, err := workload.ReadFile(out)
		require.NoError(t, err)
		require.NotEmpty(t, prog.Blocks)
		for _, b := range prog.Blocks {
			require.NotNil(t, b.Tensor, "%s: block %s keeps no tensor index", m, b.Name)
		}
		plan := filepath.Join(dir, fmt.Sprintf("p%d.json", i))
		r = runCLI(t, "", "optimize", "--workload", out, "--hw", "ethos-u55", "-q", "-o", plan)
		require.Equal(t, exitOK, r.code, "%s: %s", m, r.stderr)
		verifyPlan(t, out, "ethos-u55", plan)
	}

	x := filepath.Join(dir, "x.json")
	r := runCLI(t, "", "import", "tflite", repo("README.md"), "-o", x)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: TFLite model \""+repo("README.md")+"\": not a TFLite model (no flatbuffer with file identifier TFL3)\n", r.stderr)
	assert.NoFileExists(t, x)
	good, err := os.ReadFile(repo("testdata", "tflite", "hello_world_int8.tflite"))
	require.NoError(t, err)
	trunc := filepath.Join(dir, "trunc.tflite")
	require.NoError(t, os.WriteFile(trunc, good[:1000], 0o644))
	r = runCLI(t, "", "import", "tflite", trunc, "-o", x)
	assert.Equal(t, exitInput, r.code)
	// One line naming the file, not the runtime's "slice bounds out of
	// range" (issue 30 item 10).
	assert.Equal(t, "hieropt: TFLite model \""+trunc+"\": operator codes: truncated or corrupt flatbuffer: a vector's offset points past the end (the file has 1000 bytes)\n", r.stderr)
	assert.NoFileExists(t, x)
	r = runCLI(t, "", "import", "tflite", "nope.tflite", "-o", x)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, "hieropt: TFLite model \"nope.tflite\": cannot read: no such file or directory\n", r.stderr)
}
