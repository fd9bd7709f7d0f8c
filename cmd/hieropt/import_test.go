package main

import (
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
