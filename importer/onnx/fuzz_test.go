package onnx_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/hieropt/hieropt/importer/onnx"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

// TestConvGemmModel: FuzzImport's richer seed is a valid model. Ops: Conv
// and Gemm (Constant and Reshape create nothing). Blocks: x, w, c (f is a
// view of it), g, y; k is read only by the view. MACs: the Conv has
// 1x4x6x6 = 144 outputs of 3x3x3 = 27 each, 3,888; the Gemm reads f
// [1,144] (not c [1,4,6,6], the tensor under the view): 1x10 outputs of
// 144 each, 1,440.
func TestConvGemmModel(t *testing.T) {
	p, err := onnx.Import("cg.onnx", convGemmModel(), onnx.Options{})
	require.NoError(t, err)
	s := p.ComputeStats()
	require.Equal(t, 2, s.Ops)
	require.Equal(t, 5, s.Blocks)
	require.Equal(t, 2, s.BlocksByKind[workload.Constant])
	require.Equal(t, int64(3888), p.Ops[0].MACs)
	require.Equal(t, int64(1440), p.Ops[1].MACs)
}

// FuzzImport feeds the hand-written protobuf decoder and the importer
// arbitrary bytes (an ONNX file is untrusted input), with an element size
// and one symbolic dimension's value. An import either fails with one
// line that names the model, as an input error, or gives a workload that
// survives writing and parsing back (the workload rules hold). It never
// panics or hangs. Seeds: small models of TestSmallModels' kinds and one
// with initializers, attributes and a Constant node; testdata/fuzz holds
// what it found (a view of itself looped forever). (Not the shipped
// models: the fuzzer minimizes every input that finds new code, which
// takes it minutes on a file of 50 KB.)
func FuzzImport(f *testing.F) {
	f.Add(convGemmModel(), int8(0), "", int64(0))
	f.Add(model(
		[]nd{{"Relu", []string{"x"}, []string{"r"}}, {"Reshape", []string{"r"}, []string{"v"}}, {"Add", []string{"v", "x"}, []string{"y"}}},
		[]vi{{"x", []int64{1, 8}, true}}, []vi{{"y", []int64{1, 8}, true}}, []vi{{"r", []int64{1, 8}, true}, {"v", []int64{8}, true}}),
		int8(1), "", int64(0))
	f.Add(model([]nd{{"Relu", []string{"x"}, []string{"y"}}}, []vi{{"x", []int64{-1, 8}, true}}, []vi{{"y", []int64{-1, 8}, true}}, nil),
		int8(0), "N", int64(4))
	f.Add([]byte(nil), int8(0), "", int64(0))
	f.Add([]byte("\xff\xff\xff\xff not onnx"), int8(0), "", int64(0))
	f.Fuzz(func(t *testing.T, data []byte, dtypeBytes int8, dim string, value int64) {
		o := onnx.Options{DTypeBytes: int64(dtypeBytes)}
		if dim != "" {
			o.Dims = map[string]int64{dim: value}
		}
		p, err := onnx.Import("fuzz.onnx", data, o)
		if err != nil {
			require.True(t, inputerr.Is(err), "%T: %v", err, err)
			require.NotContains(t, err.Error(), "\n")
			require.True(t, strings.HasPrefix(err.Error(), `ONNX model "fuzz.onnx": `), err.Error())
			return
		}
		p.ComputeStats()
		var buf bytes.Buffer
		require.NoError(t, p.Write(&buf))
		_, err = workload.Parse("fuzz.json", buf.Bytes())
		require.NoError(t, err, buf.String())
	})
}

// convGemmModel builds x [1,3,8,8] -> Conv(w [4,3,3,3]) -> c [1,4,6,6] ->
// Reshape(c, k) -> f [1,144] -> Gemm(f, g [144,10], transA=0) -> y [1,10],
// with w and g initializers and k a Constant node's tensor.
func convGemmModel() []byte {
	tensor := func(name string, dataType uint64, dims ...uint64) []byte {
		var t, packed []byte
		for _, d := range dims {
			packed = protowire.AppendVarint(packed, d)
		}
		t = protowire.AppendTag(t, 1, protowire.BytesType)
		t = protowire.AppendBytes(t, packed)
		t = protowire.AppendTag(t, 2, protowire.VarintType)
		t = protowire.AppendVarint(t, dataType)
		t = protowire.AppendTag(t, 8, protowire.BytesType)
		return protowire.AppendString(t, name)
	}
	node := func(op string, in, out []string, attrs ...[]byte) []byte {
		var b []byte
		for _, s := range in {
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendString(b, s)
		}
		for _, s := range out {
			b = protowire.AppendTag(b, 2, protowire.BytesType)
			b = protowire.AppendString(b, s)
		}
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendString(b, op+"_0")
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendString(b, op)
		for _, a := range attrs {
			b = protowire.AppendTag(b, 5, protowire.BytesType)
			b = protowire.AppendBytes(b, a)
		}
		return b
	}
	var value, transA []byte
	value = protowire.AppendTag(value, 1, protowire.BytesType)
	value = protowire.AppendString(value, "value")
	value = protowire.AppendTag(value, 5, protowire.BytesType)
	value = protowire.AppendBytes(value, tensor("", 7, 2))
	transA = protowire.AppendTag(transA, 1, protowire.BytesType)
	transA = protowire.AppendString(transA, "transA")
	transA = protowire.AppendTag(transA, 3, protowire.VarintType)
	transA = protowire.AppendVarint(transA, 0)
	var g []byte
	for _, n := range [][]byte{
		node("Conv", []string{"x", "w"}, []string{"c"}),
		node("Constant", nil, []string{"k"}, value),
		node("Reshape", []string{"c", "k"}, []string{"f"}),
		node("Gemm", []string{"f", "g"}, []string{"y"}, transA),
	} {
		g = protowire.AppendTag(g, 1, protowire.BytesType)
		g = protowire.AppendBytes(g, n)
	}
	g = protowire.AppendTag(g, 2, protowire.BytesType)
	g = protowire.AppendString(g, "convgemm")
	for _, t := range [][]byte{tensor("w", 1, 4, 3, 3, 3), tensor("g", 1, 144, 10)} {
		g = protowire.AppendTag(g, 5, protowire.BytesType)
		g = protowire.AppendBytes(g, t)
	}
	for _, v := range []struct {
		num protowire.Number
		vi  vi
	}{{11, vi{"x", []int64{1, 3, 8, 8}, true}}, {12, vi{"y", []int64{1, 10}, true}},
		{13, vi{"c", []int64{1, 4, 6, 6}, true}}, {13, vi{"f", []int64{1, 144}, true}}} {
		g = protowire.AppendTag(g, v.num, protowire.BytesType)
		g = protowire.AppendBytes(g, valueInfo(v.vi))
	}
	var m []byte
	m = protowire.AppendTag(m, 7, protowire.BytesType)
	return protowire.AppendBytes(m, g)
}
