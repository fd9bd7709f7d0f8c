package onnx_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/hieropt/hieropt/importer/onnx"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

func testdata(name string) string { return filepath.Join("..", "..", "testdata", "onnx", name) }

// TestShippedModels imports the two ONNX exports of testdata/onnx. The
// counts follow from their README: resnet18 has 49 nodes (20 Conv, 17 Relu,
// 8 Add, MaxPool, GlobalAveragePool, Flatten, Gemm); Flatten is a view, so
// 48 ops. Blocks: the input, 47 activations (48 op outputs, one of them the
// output) and 42 initializers; total bytes = 11,684,712 weight elements x 4
// + activations. MACs: the 20 Convs 1,813,561,344 and the Gemm, which
// reads the Flatten's [1,512] (not the pool's [1,512,1,1] under it), 1x1000
// outputs of 512 each, 512,000: 1,814,073,344.
func TestShippedModels(t *testing.T) {
	cases := []struct {
		file                                    string
		ops, blocks, constants, reusable        int
		totalBytes, int8Bytes, constBytes, macs int64
	}{
		{"resnet18.onnx", 48, 91, 42, 33, 70327616, 17581904, 46738848, 1814073344},
		// mobilenet_v2: 170 nodes, 70 of them Constant (the Clip bounds,
		// constants) and one Flatten: 99 ops; 106 initializers + 70 = 176
		// constants. MACs: the 52 Convs 299,494,272 and the Gemm after the
		// Flatten, 1x1000 outputs of 1280 each, 1,280,000: 300,774,272.
		{"mobilenet_v2.onnx", 99, 276, 176, 55, 66563928, 16640982, 13951544, 300774272},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p, err := onnx.ReadFile(testdata(c.file), onnx.Options{})
			require.NoError(t, err)
			s := p.ComputeStats()
			assert.Equal(t, c.ops, s.Ops)
			assert.Equal(t, c.blocks, s.Blocks)
			assert.Equal(t, c.constants, s.BlocksByKind[workload.Constant])
			assert.Equal(t, 1, s.BlocksByKind[workload.Input])
			assert.Equal(t, 1, s.BlocksByKind[workload.Output])
			assert.Equal(t, c.totalBytes, s.TotalBytes)
			assert.Equal(t, c.constBytes, s.ConstBytes)
			assert.Equal(t, c.macs, s.MACs)
			n := 0
			for _, b := range p.Blocks {
				if b.Reusable {
					n++
				}
			}
			assert.Equal(t, c.reusable, n)
			// The input is 1x3x224x224 float32.
			in := p.Blocks[0]
			assert.Equal(t, "input", in.Name)
			assert.Equal(t, int64(3*224*224*4), in.Size)
			// --dtype-bytes 1: every float tensor shrinks four times.
			p8, err := onnx.ReadFile(testdata(c.file), onnx.Options{DTypeBytes: 1, Name: "x-int8"})
			require.NoError(t, err)
			assert.Equal(t, c.int8Bytes, p8.ComputeStats().TotalBytes)
			assert.Equal(t, "x-int8", p8.Name)
		})
	}
}

// model builds a small ONNX model in the wire format: nodes (op, inputs,
// outputs), value infos (name, dims; a negative dim is symbolic "N").
type vi struct {
	name  string
	dims  []int64
	shape bool
}

func valueInfo(v vi) []byte {
	var shape []byte
	for _, d := range v.dims {
		var dim []byte
		if d < 0 {
			dim = protowire.AppendTag(dim, 2, protowire.BytesType)
			dim = protowire.AppendString(dim, "N")
		} else {
			dim = protowire.AppendTag(dim, 1, protowire.VarintType)
			dim = protowire.AppendVarint(dim, uint64(d))
		}
		shape = protowire.AppendTag(shape, 1, protowire.BytesType)
		shape = protowire.AppendBytes(shape, dim)
	}
	var tt []byte
	tt = protowire.AppendTag(tt, 1, protowire.VarintType)
	tt = protowire.AppendVarint(tt, 1) // FLOAT
	if v.shape {
		tt = protowire.AppendTag(tt, 2, protowire.BytesType)
		tt = protowire.AppendBytes(tt, shape)
	}
	var typ []byte
	typ = protowire.AppendTag(typ, 1, protowire.BytesType)
	typ = protowire.AppendBytes(typ, tt)
	var out []byte
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendString(out, v.name)
	out = protowire.AppendTag(out, 2, protowire.BytesType)
	return protowire.AppendBytes(out, typ)
}

type nd struct {
	op      string
	in, out []string
}

func model(nodes []nd, inputs, outputs, infos []vi) []byte {
	var g []byte
	for _, n := range nodes {
		var b []byte
		for _, s := range n.in {
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendString(b, s)
		}
		for _, s := range n.out {
			b = protowire.AppendTag(b, 2, protowire.BytesType)
			b = protowire.AppendString(b, s)
		}
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendString(b, n.op)
		g = protowire.AppendTag(g, 1, protowire.BytesType)
		g = protowire.AppendBytes(g, b)
	}
	for _, list := range []struct {
		num protowire.Number
		vs  []vi
	}{{11, inputs}, {12, outputs}, {13, infos}} {
		for _, v := range list.vs {
			g = protowire.AppendTag(g, list.num, protowire.BytesType)
			g = protowire.AppendBytes(g, valueInfo(v))
		}
	}
	var m []byte
	m = protowire.AppendTag(m, 7, protowire.BytesType)
	return protowire.AppendBytes(m, g)
}

func TestSmallModels(t *testing.T) {
	// x -> Relu -> r -> Reshape -> v -> Add(v, x) -> y: the Reshape is a
	// view of r, so Add reads r; r's last use is Add, elementwise, same
	// size: r is reusable; x's last use is Add too.
	data := model(
		[]nd{{"Relu", []string{"x"}, []string{"r"}}, {"Reshape", []string{"r"}, []string{"v"}}, {"Add", []string{"v", "x"}, []string{"y"}}},
		[]vi{{"x", []int64{1, 8}, true}}, []vi{{"y", []int64{1, 8}, true}}, []vi{{"r", []int64{1, 8}, true}, {"v", []int64{8}, true}})
	p, err := onnx.Import("m.onnx", data, onnx.Options{})
	require.NoError(t, err)
	require.Len(t, p.Ops, 2, "Relu and Add; the Reshape is a view")
	require.Len(t, p.Blocks, 3)
	x, r, y := p.Blocks[0], p.Blocks[1], p.Blocks[2]
	assert.Equal(t, workload.Block{Name: "x", Size: 32, Kind: workload.Input, First: 0, Last: 1, Writes: []int{0}, Reads: []int{0, 1}, Reusable: true}, x)
	assert.Equal(t, workload.Block{Name: "r", Size: 32, Kind: workload.Activation, First: 0, Last: 1, Writes: []int{0}, Reads: []int{1}, Reusable: true}, r)
	assert.Equal(t, workload.Block{Name: "y", Size: 32, Kind: workload.Output, First: 1, Last: 1, Writes: []int{1}, Reads: []int{1}}, y)
	assert.Equal(t, "m", p.Name)

	// A symbolic dimension needs --dim.
	sym := model([]nd{{"Relu", []string{"x"}, []string{"y"}}}, []vi{{"x", []int64{-1, 8}, true}}, []vi{{"y", []int64{-1, 8}, true}}, nil)
	_, err = onnx.Import("s.onnx", sym, onnx.Options{})
	assert.EqualError(t, err, `ONNX model "s.onnx": tensor "x": dimension "N" has no value: give one with --dim N=N`)
	p, err = onnx.Import("s.onnx", sym, onnx.Options{Dims: map[string]int64{"N": 4}})
	require.NoError(t, err)
	assert.Equal(t, int64(4*8*4), p.Blocks[0].Size)
	// A value for a dimension the model does not have is an error naming
	// the ones it has (a misspelt name must not pass silently).
	_, err = onnx.Import("s.onnx", sym, onnx.Options{Dims: map[string]int64{"N": 4, "nosuchdim": 7}})
	assert.EqualError(t, err, `ONNX model "s.onnx": dimension "nosuchdim": given a value, but the model has no such symbolic dimension (it has N)`)
	assert.True(t, inputerr.Is(err))
	_, err = onnx.Import("m.onnx", data, onnx.Options{Dims: map[string]int64{"batch": 1}})
	assert.EqualError(t, err, `ONNX model "m.onnx": dimension "batch": given a value, but the model has no such symbolic dimension (it has none)`)

	// A missing shape names the tensor and suggests shape inference.
	noShape := model([]nd{{"Relu", []string{"x"}, []string{"r"}}, {"Relu", []string{"r"}, []string{"y"}}},
		[]vi{{"x", []int64{2}, true}}, []vi{{"y", []int64{2}, true}}, nil)
	_, err = onnx.Import("n.onnx", noShape, onnx.Options{})
	assert.EqualError(t, err, `ONNX model "n.onnx": tensor "r": shape unknown: run ONNX shape inference (onnx.shape_inference.infer_shapes) on the model first, so that value_info holds every tensor's shape`)
	assert.True(t, inputerr.Is(err))

	// An input nobody produces.
	dangling := model([]nd{{"Add", []string{"x", "ghost"}, []string{"y"}}}, []vi{{"x", []int64{2}, true}}, []vi{{"y", []int64{2}, true}}, nil)
	_, err = onnx.Import("d.onnx", dangling, onnx.Options{})
	assert.EqualError(t, err, `ONNX model "d.onnx": node 0 (Add): input "ghost" is produced by no earlier node, initializer or graph input`)

	// Not a protobuf at all.
	_, err = onnx.Import("junk.onnx", []byte("\xff\xff\xff\xff not onnx"), onnx.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `ONNX model "junk.onnx": not an ONNX model (protobuf):`)
	_, err = onnx.Import("empty.onnx", nil, onnx.Options{})
	assert.EqualError(t, err, `ONNX model "empty.onnx": not an ONNX model (protobuf): no graph in the model`)
	_, err = onnx.ReadFile("nope/missing.onnx", onnx.Options{})
	assert.EqualError(t, err, `ONNX model "nope/missing.onnx": cannot read: no such file or directory`)
}

// TestMACsThroughView: a MatMul that reads a Flatten's output counts its
// multiply-accumulates with the view's shape, not that of the tensor under
// it. x [2,3,4] -> Flatten -> f [2,12] -> MatMul(f, w [12,5]) -> y [2,5]:
// 2x5 outputs of 12 each, 120 (x's last dimension, 4, gave 40).
func TestMACsThroughView(t *testing.T) {
	data := model([]nd{{"Flatten", []string{"x"}, []string{"f"}}, {"MatMul", []string{"f", "w"}, []string{"y"}}},
		[]vi{{"x", []int64{2, 3, 4}, true}, {"w", []int64{12, 5}, true}}, []vi{{"y", []int64{2, 5}, true}},
		[]vi{{"f", []int64{2, 12}, true}})
	p, err := onnx.Import("mm.onnx", data, onnx.Options{})
	require.NoError(t, err)
	require.Len(t, p.Ops, 1)
	assert.Equal(t, int64(2*5*12), p.Ops[0].MACs)
}

// TestTensorsNamedOnce: a node output that reuses a name (its own input, a
// graph input, an earlier output) is an error, and so is a view of a
// tensor nothing produced yet; either made the alias of a view point to
// itself and the import loop forever.
func TestTensorsNamedOnce(t *testing.T) {
	in, out := []vi{{"x", []int64{2}, true}}, []vi{{"y", []int64{2}, true}}
	for _, c := range []struct {
		nodes []nd
		want  string
	}{
		{[]nd{{"Identity", []string{"x"}, []string{"x"}}, {"Relu", []string{"x"}, []string{"y"}}},
			`node 0 (Identity): output "x" is already a graph input, an initializer or an earlier node's output (ONNX names each tensor once)`},
		{[]nd{{"Relu", []string{"x"}, []string{"r"}}, {"Relu", []string{"x"}, []string{"r"}}, {"Add", []string{"r", "x"}, []string{"y"}}},
			`node 1 (Relu): output "r" is already a graph input, an initializer or an earlier node's output (ONNX names each tensor once)`},
		{[]nd{{"Identity", []string{"a"}, []string{"b"}}, {"Identity", []string{"b"}, []string{"a"}}, {"Add", []string{"a", "x"}, []string{"y"}}},
			`node 0 (Identity): input "a" is produced by no earlier node, initializer or graph input`},
	} {
		_, err := onnx.Import("c.onnx", model(c.nodes, in, out, []vi{{"r", []int64{2}, true}}), onnx.Options{})
		assert.EqualError(t, err, `ONNX model "c.onnx": `+c.want)
		assert.True(t, inputerr.Is(err))
	}
}

// TestMessagesOneLine: an op type that is not an identifier is quoted in
// messages, which stay one line (found by FuzzImport).
func TestMessagesOneLine(t *testing.T) {
	in, out := []vi{{"x", []int64{2}, true}}, []vi{{"y", []int64{2}, true}}
	_, err := onnx.Import("q.onnx", model([]nd{{"Add\nMul", []string{"x", "ghost"}, []string{"y"}}}, in, out, nil), onnx.Options{})
	assert.EqualError(t, err, `ONNX model "q.onnx": node 0 ("Add\nMul"): input "ghost" is produced by no earlier node, initializer or graph input`)
}
