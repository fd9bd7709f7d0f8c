package tflm

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/importer/tflite/schema"
)

// scratchySeed is the seed of testdata/tflite/scratchy.tflite, the first
// from 1 whose tensors alone pack below TFLM's greedy plan of them but,
// laid out with the scratch buffers TFLM puts around them at run time,
// save less than that against TFLM's own head, while Plan, which packs
// with the scratch buffers, still saves (found by go test ./tflm -run
// TestScratchyModel -write-branchy).
const scratchySeed = 12

// scratchy builds a small int8 model of PAD, SLICE, ADD and MEAN ops over
// a random graph with branches, like branchy; every tensor is [1, n, 1]
// and MEAN reduces the last axis (keeping it), so that its int8 kernel
// requests a scratch buffer of 4 bytes per output element in Prepare
// (with two small ones), which TFLM plans in the head with the tensors.
func scratchy(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5c4))
	sizes := []int32{512, 1024, 1536, 2048, 3072, 4096, 6144}
	m := &schema.ModelT{Version: 3, Description: fmt.Sprintf("hieropt test model scratchy, seed %d (tflm/scratchy_test.go)", seed)}
	code := func(op schema.BuiltinOperator) *schema.OperatorCodeT {
		return &schema.OperatorCodeT{DeprecatedBuiltinCode: int8(op), BuiltinCode: op, Version: 1}
	}
	m.OperatorCodes = []*schema.OperatorCodeT{code(schema.BuiltinOperatorPAD), code(schema.BuiltinOperatorSLICE), code(schema.BuiltinOperatorADD), code(schema.BuiltinOperatorMEAN)}
	m.Buffers = []*schema.BufferT{{}}
	g := &schema.SubGraphT{Name: "main"}
	quant := func() *schema.QuantizationParametersT {
		return &schema.QuantizationParametersT{Scale: []float32{0.05}, ZeroPoint: []int64{0}}
	}
	tensor := func(name string, typ schema.TensorType, shape []int32, data []byte) int32 {
		m.Buffers = append(m.Buffers, &schema.BufferT{Data: data})
		t := &schema.TensorT{Name: name, Shape: shape, Type: typ, Buffer: uint32(len(m.Buffers) - 1)}
		if typ == schema.TensorTypeINT8 {
			t.Quantization = quant()
		}
		g.Tensors = append(g.Tensors, t)
		return int32(len(g.Tensors) - 1)
	}
	ints := func(v ...int32) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
		return b
	}
	act := func(name string, n int32) int32 { return tensor(name, schema.TensorTypeINT8, []int32{1, n, 1}, nil) }
	type value struct{ t, n int32 }
	in := value{act("input", 2048), 2048}
	g.Inputs = []int32{in.t}
	vals := []value{in}
	pick := func() value {
		k := len(vals) - 1 - r.IntN(min(3, len(vals)))
		if r.IntN(4) == 0 {
			k = r.IntN(len(vals))
		}
		return vals[k]
	}
	axis := tensor("mean_axis", schema.TensorTypeINT32, []int32{1}, ints(2))
	for op := 0; op < 14; op++ {
		a := pick()
		var same []value
		for _, v := range vals[max(0, len(vals)-4):] {
			if v.n == a.n && v.t != a.t {
				same = append(same, v)
			}
		}
		switch {
		case r.IntN(4) == 0:
			out := value{act(fmt.Sprintf("mean_%d", op), a.n), a.n}
			g.Operators = append(g.Operators, &schema.OperatorT{OpcodeIndex: 3, Inputs: []int32{a.t, axis}, Outputs: []int32{out.t},
				BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsReducerOptions, Value: &schema.ReducerOptionsT{KeepDims: true}}})
			vals = append(vals, out)
			continue
		case len(same) > 0 && r.IntN(3) == 0:
			b := same[r.IntN(len(same))]
			out := value{act(fmt.Sprintf("add_%d", op), a.n), a.n}
			g.Operators = append(g.Operators, &schema.OperatorT{OpcodeIndex: 2, Inputs: []int32{a.t, b.t}, Outputs: []int32{out.t},
				BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsAddOptions, Value: &schema.AddOptionsT{}}})
			vals = append(vals, out)
			continue
		}
		n := sizes[r.IntN(len(sizes))]
		if n == a.n {
			continue
		}
		out := value{act(fmt.Sprintf("op_%d", op), n), n}
		if n > a.n {
			pads := tensor(fmt.Sprintf("op_%d/paddings", op), schema.TensorTypeINT32, []int32{3, 2}, ints(0, 0, 0, n-a.n, 0, 0))
			g.Operators = append(g.Operators, &schema.OperatorT{OpcodeIndex: 0, Inputs: []int32{a.t, pads}, Outputs: []int32{out.t},
				BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsPadOptions, Value: &schema.PadOptionsT{}}})
		} else {
			begin := tensor(fmt.Sprintf("op_%d/begin", op), schema.TensorTypeINT32, []int32{3}, ints(0, r.Int32N(a.n-n+1), 0))
			size := tensor(fmt.Sprintf("op_%d/size", op), schema.TensorTypeINT32, []int32{3}, ints(1, n, 1))
			g.Operators = append(g.Operators, &schema.OperatorT{OpcodeIndex: 1, Inputs: []int32{a.t, begin, size}, Outputs: []int32{out.t},
				BuiltinOptions: &schema.BuiltinOptionsT{Type: schema.BuiltinOptionsSliceOptions, Value: &schema.SliceOptionsT{}}})
		}
		vals = append(vals, out)
	}
	g.Outputs = []int32{vals[len(vals)-1].t}
	m.Subgraphs = []*schema.SubGraphT{g}
	b := flatbuffers.NewBuilder(1 << 16)
	b.FinishWithFileIdentifier(m.Pack(b), []byte("TFL3"))
	return b.FinishedBytes()
}

// tensorsOnly is a plan of m's tensors alone, packed without the
// scratch buffers (what plan tflm wrote before it knew of them), and its
// head by the tensors alone.
func tensorsOnly(t *testing.T, m *Model) (offsets []int32, head int64) {
	t.Helper()
	saved := m.Scratch
	m.Scratch = nil
	defer func() { m.Scratch = saved }()
	r, err := m.Plan(context.Background(), PlanOptions{NodeLimit: 1 << 16})
	require.NoError(t, err)
	return r.Offsets, r.Head
}

// testdata/tflite/scratchy.tflite is what scratchy makes of scratchySeed:
// its tensors alone pack smaller than TFLM's plan of them, but save less
// once TFLM places the kernels' scratch buffers around them; Plan saves.
func TestScratchyModel(t *testing.T) {
	path := filepath.Join("..", "testdata", "tflite", "scratchy.tflite")
	check := func(data []byte) (ok bool, msg string) {
		m, err := Read("scratchy.tflite", data)
		require.NoError(t, err)
		if len(m.Scratch) == 0 {
			return false, "no scratch"
		}
		offs, head := tensorsOnly(t, m)
		saved := m.Scratch
		m.Scratch = nil
		_, greedyAlone := m.Greedy()
		m.Scratch = saved
		_, greedy := m.Greedy()
		_, runtime := m.Head(offs)
		r, err := m.Plan(context.Background(), PlanOptions{NodeLimit: 1 << 16})
		require.NoError(t, err)
		return head < greedyAlone && greedy-runtime < greedyAlone-head && r.Head < greedy,
			fmt.Sprintf("tensors alone: packed %d B, TFLM %d B; with scratch: that plan %d B at run time, TFLM %d B, Plan %d B", head, greedyAlone, runtime, greedy, r.Head)
	}
	if *writeBranchy {
		for seed := uint64(1); seed < 5000; seed++ {
			data := scratchy(seed)
			if ok, msg := check(data); ok {
				require.NoError(t, os.WriteFile(path, data, 0o644))
				t.Logf("seed %d: %s: wrote %s; set scratchySeed", seed, msg, path)
				return
			}
		}
		t.Fatal("no seed below 5000")
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.Equal(scratchy(scratchySeed), data), "%s is not scratchy(%d)", path, scratchySeed)
	ok, msg := check(data)
	require.True(t, ok, msg)
}

// The kernels' scratch buffers of scratchy's MEAN ops are TFLM's
// reference kernel's requests (reduce_common.cc, int8 input): 4 bytes per
// output element, then 4 per input dimension and 4 per axis, at the op's
// scope only; Plan lays its packings out as TFLM does at run time, with
// them, and its head is what TFLM makes of its offsets.
func TestPlanCountsScratch(t *testing.T) {
	m, err := ReadFile(filepath.Join("..", "testdata", "tflite", "scratchy.tflite"))
	require.NoError(t, err)
	var want []Scratch
	for k, op := range m.Graph.Ops {
		if op.Type == "MEAN" {
			out := m.Graph.Tensors[op.Outputs[0]]
			want = append(want, Scratch{k, 4 * out.Dims[1]}, Scratch{k, 4 * 3}, Scratch{k, 4 * 1})
		}
	}
	require.NotEmpty(t, want)
	require.Equal(t, want, m.Scratch)
	require.Empty(t, m.UnknownScratch())

	r, err := m.Plan(context.Background(), PlanOptions{NodeLimit: 1 << 16})
	require.NoError(t, err)
	_, greedy := m.Greedy()
	_, head := m.Head(r.Offsets)
	require.Equal(t, greedy, r.Greedy)
	require.Equal(t, head, r.Head, "the head is what TFLM makes of the plan")
	require.Less(t, r.Head, r.Greedy)
	require.Equal(t, m.ScratchBytes(), r.Scratch)

	// Unknown scratch buffers: every tensor left to TFLM, the operator
	// named; given, they count.
	op := want[0].Op
	m.unknown = append(m.unknown, op)
	m.Scratch = slices.DeleteFunc(slices.Clone(m.Scratch), func(s Scratch) bool { return s.Op == op })
	u, err := m.Plan(context.Background(), PlanOptions{NodeLimit: 1 << 16})
	require.NoError(t, err)
	require.Equal(t, []string{fmt.Sprintf("operator %d (MEAN)", op)}, u.Unknown)
	require.Equal(t, "TFLM greedy", u.By)
	for _, o := range u.Offsets {
		require.Equal(t, int32(Online), o)
	}
	require.NoError(t, m.SetScratch(op, []int64{want[0].Bytes, 12, 4}))
	require.Empty(t, m.UnknownScratch())
	require.Equal(t, want, m.Scratch)
	require.Error(t, m.SetScratch(len(m.Graph.Ops), nil))
	require.Error(t, m.SetScratch(0, []int64{-1}))
}

// Compact moves a plan's tensors down onto those alive with them below,
// keeping the order of every pair alive together: a valid plan stays
// valid, its head never grows, and a plan spread over a large level
// (every tensor at its own offset, gaps between) comes down to no more
// than the sum of sizes at any scope allows.
func TestCompact(t *testing.T) {
	for _, name := range []string{"branchy", "scratchy", "elementwise", "person_detect", "keyword_scrambled"} {
		m, err := ReadFile(filepath.Join("..", "testdata", "tflite", name+".tflite"))
		require.NoError(t, err)
		// Every tensor apart, in decreasing tensor order, with a gap of
		// 4 KiB after each: valid, and far from compact.
		spread := make([]int32, len(m.Tensors))
		var top int32
		for i := len(m.Tensors) - 1; i >= 0; i-- {
			spread[i] = Online
			if t := m.Tensors[i]; t.Planned(0) {
				spread[i] = top
				top += int32(t.Size()) + 4096
			}
		}
		before := m.Check(spread)
		require.True(t, before.Valid(), "%s: %v", name, before.Problems)
		c := m.Compact(spread)
		after := m.Check(c)
		require.True(t, after.Valid(), "%s: %v", name, after.Problems)
		require.Less(t, after.OfflineArena, before.OfflineArena, name)
		require.LessOrEqual(t, after.Head, before.Head, name)
		// Compact again: nothing moves.
		require.Equal(t, c, m.Compact(c), name)
		// TFLM's own plan of the tensors, offline, is already compact.
		offs, _ := m.Greedy()
		own := make([]int32, len(offs))
		for i, o := range offs {
			own[i] = int32(o)
		}
		require.LessOrEqual(t, m.Check(m.Compact(own)).OfflineArena, m.Check(own).OfflineArena, name)
	}
}
