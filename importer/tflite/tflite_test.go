package tflite

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/importer/tflite/schema"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

func testdata(name string) string { return filepath.Join("..", "..", "testdata", "tflite", name) }

// flatcDump is the part of flatc's JSON dump of a model that the test
// reads (flatc --json --strict-json --raw-binary schema.fbs -- model).
type flatcDump struct {
	Buffers []struct {
		Data []int `json:"data"`
	} `json:"buffers"`
	Subgraphs []struct {
		Tensors []struct {
			Name   string  `json:"name"`
			Type   string  `json:"type"`
			Shape  []int64 `json:"shape"`
			Buffer int     `json:"buffer"`
		} `json:"tensors"`
		Inputs    []int `json:"inputs"`
		Outputs   []int `json:"outputs"`
		Operators []struct {
			Inputs  []int `json:"inputs"`
			Outputs []int `json:"outputs"`
		} `json:"operators"`
	} `json:"subgraphs"`
}

// TestHelloWorldInt8 checks the import of hello_world_int8 against
// flatc's own JSON reading of the same file (testdata/tflite/
// hello_world_int8.json): every tensor is a block with its index, sized
// from the dump's shape and type, a constant exactly when its buffer has
// data, alive from its writer (or timestep 0) to its last reader (or the
// end for the graph output).
func TestHelloWorldInt8(t *testing.T) {
	raw, err := os.ReadFile(testdata("hello_world_int8.json"))
	require.NoError(t, err)
	var d flatcDump
	require.NoError(t, json.Unmarshal(raw, &d))
	require.Len(t, d.Subgraphs, 1)
	g := d.Subgraphs[0]

	p, err := ReadFile(testdata("hello_world_int8.tflite"), Options{})
	require.NoError(t, err)
	assert.Equal(t, "hello_world_int8", p.Name)
	require.Len(t, p.Ops, len(g.Operators))
	require.Len(t, p.Ops, 3)
	for i, op := range p.Ops {
		assert.Equal(t, "FULLY_CONNECTED", op.Type)
		// FULLY_CONNECTED: output elements x the weights' inner dimension.
		out := g.Tensors[g.Operators[i].Outputs[0]].Shape
		w := g.Tensors[g.Operators[i].Inputs[1]].Shape
		assert.Equal(t, out[0]*out[1]*w[1], op.MACs, "op %d", i)
	}
	assert.Equal(t, []int64{16, 256, 16}, []int64{p.Ops[0].MACs, p.Ops[1].MACs, p.Ops[2].MACs})

	width := map[string]int64{"INT8": 1, "INT32": 4, "FLOAT32": 4}
	require.Len(t, p.Blocks, len(g.Tensors))
	require.Len(t, p.Blocks, 10)
	T := len(g.Operators)
	for _, b := range p.Blocks {
		require.NotNil(t, b.Tensor, b.Name)
		tn := g.Tensors[*b.Tensor]
		assert.Equal(t, tn.Name, b.Name)
		size := width[tn.Type]
		for _, x := range tn.Shape {
			size *= x
		}
		assert.Equal(t, size, b.Size, b.Name)
		constant := len(d.Buffers[tn.Buffer].Data) > 0
		assert.Equal(t, constant, b.Kind == workload.Constant, b.Name)
		first, last := -1, -1
		for i, op := range g.Operators {
			for _, in := range op.Inputs {
				if in == *b.Tensor {
					last = i
				}
			}
			for _, out := range op.Outputs {
				if out == *b.Tensor && first < 0 {
					first = i
				}
			}
		}
		switch {
		case constant:
			first = 0
		case *b.Tensor == g.Inputs[0]:
			first = 0
			assert.Equal(t, workload.Input, b.Kind)
		case *b.Tensor == g.Outputs[0]:
			last = T - 1
			assert.Equal(t, workload.Output, b.Kind)
		default:
			assert.Equal(t, workload.Activation, b.Kind)
		}
		assert.Equal(t, first, b.First, b.Name)
		assert.Equal(t, last, b.Last, b.Name)
	}
	// A few by hand: the input (1 int8), the 16x16 weights, the first
	// activation and the output.
	byTensor := map[int]workload.Block{}
	for _, b := range p.Blocks {
		byTensor[*b.Tensor] = b
	}
	assert.Equal(t, workload.Block{Name: "serving_default_dense_input:0", Size: 1, Kind: workload.Input, First: 0, Last: 0, Writes: []int{0}, Reads: []int{0}, Tensor: ptr(0)}, byTensor[0])
	assert.Equal(t, workload.Block{Name: "sequential/dense_1/MatMul", Size: 256, Kind: workload.Constant, First: 0, Last: 1, Reads: []int{1}, Tensor: ptr(4)}, byTensor[4])
	assert.Equal(t, int64(16), byTensor[7].Size)
	assert.Equal(t, [2]int{0, 1}, [2]int{byTensor[7].First, byTensor[7].Last})
	assert.Equal(t, workload.Block{Name: "StatefulPartitionedCall:0", Size: 1, Kind: workload.Output, First: 2, Last: 2, Writes: []int{2}, Reads: []int{2}, Tensor: ptr(9)}, byTensor[9])
}

func ptr(i int) *int { return &i }

// TestModels imports every model of testdata/tflite, and those of
// shared/models/tflite when they are there: each gives a valid workload
// with a block per planned tensor, tensor indexes unique.
func TestModels(t *testing.T) {
	files, _ := filepath.Glob(testdata("*.tflite"))
	shared, _ := filepath.Glob("/work/shared/models/tflite/*.tflite")
	require.NotEmpty(t, files)
	for _, f := range append(files, shared...) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := ReadFile(f, Options{})
			require.NoError(t, err)
			require.NoError(t, p.Validate("w"))
			seen := map[int]bool{}
			for _, b := range p.Blocks {
				require.NotNil(t, b.Tensor)
				assert.False(t, seen[*b.Tensor])
				seen[*b.Tensor] = true
			}
		})
	}
}

// TestMicroSpeech: a RESHAPE of the graph input makes it reusable (the
// op can run in place), a DEPTHWISE_CONV_2D counts kh x kw MACs per
// output element.
func TestMicroSpeech(t *testing.T) {
	p, err := ReadFile(testdata("micro_speech_quantized.tflite"), Options{})
	require.NoError(t, err)
	require.Len(t, p.Ops, 4)
	assert.Equal(t, []string{"RESHAPE", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "SOFTMAX"}, []string{p.Ops[0].Type, p.Ops[1].Type, p.Ops[2].Type, p.Ops[3].Type})
	for _, b := range p.Blocks {
		assert.Equal(t, b.Name == "Reshape_1", b.Reusable, b.Name)
	}
	assert.Equal(t, int64(16000), p.Ops[2].MACs) // 4 outputs x 4000 inputs
}

// TestBadInput: files that are not TFLite, or broken, give one line that
// names the file, never a panic.
func TestBadInput(t *testing.T) {
	good, err := os.ReadFile(testdata("hello_world_int8.tflite"))
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	corrupt := append([]byte(nil), good...)
	for i := 8; i < len(corrupt); i += 7 {
		corrupt[i] ^= 0xa5
	}
	cases := map[string][]byte{
		"empty":   {},
		"json":    []byte(`{"format": "hieropt.workload/v1"}`),
		"random":  random,
		"corrupt": corrupt,
	}
	for _, n := range []int{8, 12, 100, 1000, 2000} {
		cases[fmt.Sprintf("truncated at %d", n)] = good[:n]
	}
	for name, data := range cases {
		_, err := Import("bad.tflite", data, Options{})
		require.Error(t, err, name)
		msg := err.Error()
		assert.True(t, strings.HasPrefix(msg, `TFLite model "bad.tflite": `), "%s: %s", name, msg)
		assert.NotContains(t, msg, "\n", name)
	}
	_, err = Import("x.json", cases["json"], Options{})
	assert.EqualError(t, err, `TFLite model "x.json": not a TFLite model (no flatbuffer with file identifier TFL3)`)
}

// TestTruncated: a model cut short anywhere, or with a byte changed
// anywhere, is an input error in one line that names the file and says
// what is wrong, never the runtime's words (issue 30 item 10: a truncated
// model printed "runtime error: slice bounds out of range [49772:1000]").
// Every length of hello_world_int8 and of elementwise, and every 97th of
// person_detect (300 KB).
func TestTruncated(t *testing.T) {
	check := func(name string, data []byte) {
		t.Helper()
		p, err := Import("m.tflite", data, Options{})
		if err == nil {
			// A cut that leaves a whole model: it must be a valid one.
			require.NoError(t, p.Validate("m"), name)
			return
		}
		msg := err.Error()
		var ie *inputerr.Error
		require.ErrorAs(t, err, &ie, "%s: %T %v", name, err, err)
		require.True(t, strings.HasPrefix(msg, `TFLite model "m.tflite": `), "%s: %s", name, msg)
		require.NotContains(t, msg, "\n", name)
		require.NotContains(t, msg, "runtime error", name)
		require.NotContains(t, msg, "out of range [", name)
		if strings.Contains(ie.Rule, "truncated or corrupt") {
			// Found by the bounds check, which names the item, not by
			// the recover behind it.
			require.NotEmpty(t, ie.Item, "%s: %s", name, msg)
		}
	}
	for _, file := range []string{"hello_world_int8.tflite", "elementwise.tflite", "person_detect.tflite"} {
		good, err := os.ReadFile(testdata(file))
		require.NoError(t, err)
		step := 1
		if len(good) > 50000 {
			step = 97
		}
		for n := 0; n < len(good); n += step {
			check(fmt.Sprintf("%s cut at %d", file, n), good[:n])
		}
		for i := 8; i < len(good); i += step * 13 {
			bad := append([]byte(nil), good...)
			bad[i] ^= 0xff
			check(fmt.Sprintf("%s byte %d flipped", file, i), bad)
		}
	}
	good, err := os.ReadFile(testdata("hello_world_int8.tflite"))
	require.NoError(t, err)
	_, err = Import("m.tflite", good[:1000], Options{})
	assert.EqualError(t, err, `TFLite model "m.tflite": operator codes: truncated or corrupt flatbuffer: a vector's offset points past the end (the file has 1000 bytes)`)
	// The shipped models pass the check whole.
	for _, file := range []string{"hello_world_int8.tflite", "hello_world_float.tflite", "elementwise.tflite", "branchy.tflite",
		"keyword_scrambled.tflite", "micro_speech_quantized.tflite", "person_detect.tflite", "person_detect_vela.tflite"} {
		data, err := os.ReadFile(testdata(file))
		require.NoError(t, err)
		assert.NoError(t, checkModel(data), file)
	}
}

// FuzzImport feeds the importer arbitrary bytes (a .tflite file is
// untrusted input): an import either fails with one line that names the
// model, as an input error, or gives a valid workload. It never panics.
// Seeds: a model built here, hello_world_int8 (2.7 KB), and junk.
func FuzzImport(f *testing.F) {
	f.Add(model(1, 3))
	if good, err := os.ReadFile(testdata("hello_world_int8.tflite")); err == nil {
		f.Add(good)
		f.Add(good[:1000])
	}
	f.Add([]byte(nil))
	f.Add([]byte("\x00\x00\x00\x00TFL3"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Import("fuzz.tflite", data, Options{})
		if err != nil {
			require.True(t, inputerr.Is(err), "%T: %v", err, err)
			require.NotContains(t, err.Error(), "\n")
			require.NotContains(t, err.Error(), "runtime error")
			require.True(t, strings.HasPrefix(err.Error(), `TFLite model "fuzz.tflite": `), err.Error())
			return
		}
		require.NoError(t, p.Validate("fuzz"))
	})
}

// model builds a TFLite flatbuffer with the given number of subgraphs,
// each one FULLY_CONNECTED-free ADD of two inputs, and the given version.
func model(subgraphs int, version uint32) []byte {
	b := flatbuffers.NewBuilder(256)
	var gs []flatbuffers.UOffsetT
	for range subgraphs {
		var ts []flatbuffers.UOffsetT
		for range 3 {
			schema.TensorStartShapeVector(b, 1)
			b.PrependInt32(4)
			shape := b.EndVector(1)
			schema.TensorStart(b)
			schema.TensorAddShape(b, shape)
			schema.TensorAddType(b, schema.TensorTypeINT8)
			ts = append(ts, schema.TensorEnd(b))
		}
		schema.SubGraphStartTensorsVector(b, len(ts))
		for i := len(ts) - 1; i >= 0; i-- {
			b.PrependUOffsetT(ts[i])
		}
		tv := b.EndVector(len(ts))
		ints := func(start func(*flatbuffers.Builder, int) flatbuffers.UOffsetT, v ...int32) flatbuffers.UOffsetT {
			start(b, len(v))
			for i := len(v) - 1; i >= 0; i-- {
				b.PrependInt32(v[i])
			}
			return b.EndVector(len(v))
		}
		opIn := ints(schema.OperatorStartInputsVector, 0, 1)
		opOut := ints(schema.OperatorStartOutputsVector, 2)
		schema.OperatorStart(b)
		schema.OperatorAddInputs(b, opIn)
		schema.OperatorAddOutputs(b, opOut)
		op := schema.OperatorEnd(b)
		schema.SubGraphStartOperatorsVector(b, 1)
		b.PrependUOffsetT(op)
		ov := b.EndVector(1)
		in := ints(schema.SubGraphStartInputsVector, 0, 1)
		out := ints(schema.SubGraphStartOutputsVector, 2)
		schema.SubGraphStart(b)
		schema.SubGraphAddTensors(b, tv)
		schema.SubGraphAddOperators(b, ov)
		schema.SubGraphAddInputs(b, in)
		schema.SubGraphAddOutputs(b, out)
		gs = append(gs, schema.SubGraphEnd(b))
	}
	schema.ModelStartSubgraphsVector(b, len(gs))
	for i := len(gs) - 1; i >= 0; i-- {
		b.PrependUOffsetT(gs[i])
	}
	gv := b.EndVector(len(gs))
	schema.OperatorCodeStart(b)
	schema.OperatorCodeAddBuiltinCode(b, schema.BuiltinOperatorADD)
	schema.OperatorCodeAddDeprecatedBuiltinCode(b, int8(schema.BuiltinOperatorADD))
	oc := schema.OperatorCodeEnd(b)
	schema.ModelStartOperatorCodesVector(b, 1)
	b.PrependUOffsetT(oc)
	ocv := b.EndVector(1)
	schema.ModelStart(b)
	schema.ModelAddVersion(b, version)
	schema.ModelAddOperatorCodes(b, ocv)
	schema.ModelAddSubgraphs(b, gv)
	b.FinishWithFileIdentifier(schema.ModelEnd(b), []byte("TFL3"))
	return b.FinishedBytes()
}

// TestBuiltModels: a model built here imports (the ADD's two inputs are
// reusable, its output of the same size); two subgraphs or another schema
// version are refused in one line.
func TestBuiltModels(t *testing.T) {
	p, err := Import("m.tflite", model(1, 3), Options{})
	require.NoError(t, err)
	require.Len(t, p.Ops, 1)
	assert.Equal(t, "ADD", p.Ops[0].Type)
	require.Len(t, p.Blocks, 3)
	assert.True(t, p.Blocks[0].Reusable)
	assert.Equal(t, int64(4), p.Blocks[2].Size)
	assert.Equal(t, workload.Output, p.Blocks[2].Kind)

	_, err = Import("m.tflite", model(2, 3), Options{})
	assert.EqualError(t, err, `TFLite model "m.tflite": 2 subgraphs: only models with exactly one subgraph are supported (no control flow)`)
	_, err = Import("m.tflite", model(1, 2), Options{})
	assert.EqualError(t, err, `TFLite model "m.tflite": schema version 2: only version 3 is supported`)
}
