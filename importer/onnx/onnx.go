// Package onnx imports ONNX models as hieropt workloads.
//
// It reads the model's protobuf wire format directly (the subset of
// onnx.proto it needs, with google.golang.org/protobuf's protowire) and
// derives the workload the way the shipped workloads were traced:
//
//   - timesteps are the graph's nodes in order (ONNX graphs are
//     topologically sorted), except Constant nodes, whose outputs are
//     constants, and view-like nodes (Reshape, Flatten, Squeeze,
//     Unsqueeze, Identity, Dropout), which create nothing: their output
//     aliases their input, and ops that read it read the underlying block;
//   - every other node output is an activation block (an output block if
//     the graph returns it), live from its producer to its last consumer;
//   - initializers (and Constant outputs) are constant blocks loaded at
//     timestep 0, sized from dims and data type (their data may be absent);
//   - graph inputs that are not initializers are input blocks;
//   - an input or activation whose last consumer is an elementwise op with
//     an output of the same size is reusable (the op can run in place).
//
// Shapes come from graph inputs, outputs and value_info; a tensor without
// one is an error that suggests running shape inference. Symbolic
// dimensions take values from Options.Dims.
package onnx

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

// Options tune an import.
type Options struct {
	// DTypeBytes, if positive, replaces the element size of every
	// floating-point tensor (e.g. 1 for an int8 deployment); integer and
	// boolean tensors keep their size.
	DTypeBytes int64
	// Dims gives values to symbolic dimensions (dim_param), e.g. "batch": 1.
	Dims map[string]int64
	// Name is the workload's name; default: the file's base name without
	// its extension (exporters often give every graph the same name).
	Name string
}

// DocName returns how errors name the model in file.
func DocName(file string) string { return inputerr.Doc("ONNX model", file) }

// ReadFile imports the model in path.
func ReadFile(path string, o Options) (*workload.Program, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		rule := err.Error()
		if pe := (*os.PathError)(nil); errors.As(err, &pe) {
			rule = pe.Err.Error()
		}
		return nil, &inputerr.Error{Doc: DocName(path), Rule: "cannot read: " + rule, Err: err}
	}
	return Import(path, data, o)
}

// elemSize is the byte size of each ONNX TensorProto.DataType; float
// marks floating-point types.
var elemSize = map[int32]struct {
	bytes int64
	float bool
}{
	1: {4, true}, 2: {1, false}, 3: {1, false}, 4: {2, false}, 5: {2, false}, 6: {4, false},
	7: {8, false}, 9: {1, false}, 10: {2, true}, 11: {8, true}, 12: {4, false}, 13: {8, false},
	16: {2, true}, 17: {1, true}, 18: {1, true}, 19: {1, true}, 20: {1, true},
}

var views = map[string]bool{"Reshape": true, "Flatten": true, "Squeeze": true, "Unsqueeze": true, "Identity": true, "Dropout": true}

var elementwise = map[string]bool{
	"Relu": true, "LeakyRelu": true, "PRelu": true, "Sigmoid": true, "Tanh": true, "Clip": true,
	"HardSigmoid": true, "HardSwish": true, "Elu": true, "Selu": true, "Softplus": true, "Gelu": true,
	"Add": true, "Sub": true, "Mul": true, "Div": true, "Neg": true, "Abs": true, "Sqrt": true,
	"Exp": true, "Log": true, "Erf": true, "BatchNormalization": true, "Where": true,
}

type info struct {
	elemType int32
	dims     []dim
	known    bool
}

// Import converts an ONNX model (the bytes of a .onnx file) to a
// validated workload; file names it in errors.
func Import(file string, data []byte, o Options) (*workload.Program, error) {
	doc := DocName(file)
	m, err := parseModel(data)
	if err != nil {
		return nil, inputerr.New(doc, "", "not an ONNX model (protobuf): %v", err)
	}
	g := &m.graph
	if len(g.nodes) == 0 {
		return nil, inputerr.New(doc, "", "the graph has no nodes")
	}
	shapes := map[string]info{}
	for _, list := range [][]valueInfo{g.inputs, g.valueInfo, g.outputs} {
		for _, vi := range list {
			if vi.hasShape {
				shapes[vi.name] = info{vi.elemType, vi.dims, true}
			} else if _, ok := shapes[vi.name]; !ok {
				shapes[vi.name] = info{elemType: vi.elemType}
			}
		}
	}
	if err := checkDims(doc, g, o.Dims); err != nil {
		return nil, err
	}
	consts := map[string]tensor{}
	for _, t := range g.initializer {
		consts[t.name] = t
	}
	// Aliases of views, and Constant nodes, are resolved first; the
	// remaining nodes are the ops.
	alias := map[string]string{}
	root := func(name string) string {
		for {
			r, ok := alias[name]
			if !ok {
				return name
			}
			name = r
		}
	}
	type op struct {
		n    *node
		name string
	}
	var ops []op
	usedNames := map[string]int{}
	// ONNX names each tensor once: a node output may be neither a graph
	// input, an initializer nor an earlier output. (A view of a tensor
	// that is not there yet, or its own output, would make an alias cycle.)
	produced := map[string]bool{}
	for _, t := range g.initializer {
		produced[t.name] = true
	}
	for _, vi := range g.inputs {
		produced[vi.name] = true
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		if views[n.opType] && len(n.inputs) > 0 && len(n.outputs) > 0 && !produced[root(n.inputs[0])] {
			return nil, inputerr.New(doc, nodeItem(i, n), "input %q is produced by no earlier node, initializer or graph input", n.inputs[0])
		}
		for _, out := range n.outputs {
			if out == "" {
				continue
			}
			if produced[out] {
				return nil, inputerr.New(doc, nodeItem(i, n), "output %q is already a graph input, an initializer or an earlier node's output (ONNX names each tensor once)", out)
			}
			produced[out] = true
		}
		switch {
		case n.opType == "Constant":
			for _, a := range n.attrs {
				if a.name == "value" && a.t != nil && len(n.outputs) > 0 {
					t := *a.t
					t.name = n.outputs[0]
					consts[t.name] = t
				}
			}
			if len(n.outputs) > 0 {
				if _, ok := consts[n.outputs[0]]; !ok {
					return nil, inputerr.New(doc, nodeItem(i, n), "Constant node without a tensor 'value' attribute is not supported")
				}
			}
			continue
		case views[n.opType] && len(n.inputs) > 0 && len(n.outputs) > 0:
			alias[n.outputs[0]] = root(n.inputs[0])
			continue
		}
		name := n.name
		if name == "" {
			name = fmt.Sprintf("%s_%d", n.opType, i)
		}
		if k := usedNames[name]; k > 0 {
			usedNames[name] = k + 1
			name = fmt.Sprintf("%s#%d", name, k)
		} else {
			usedNames[name] = 1
		}
		ops = append(ops, op{n, name})
	}
	if len(ops) == 0 {
		return nil, inputerr.New(doc, "", "the graph has no compute nodes (only constants and views)")
	}
	T := len(ops)
	isOutput := map[string]bool{}
	for _, vi := range g.outputs {
		isOutput[root(vi.name)] = true
	}
	isInput := map[string]bool{}
	var inputOrder []string
	for _, vi := range g.inputs {
		if _, c := consts[vi.name]; !c {
			isInput[vi.name] = true
			inputOrder = append(inputOrder, vi.name)
		}
	}
	// Producers and consumers of every underlying tensor.
	producer := map[string]int{}
	consumers := map[string][]int{}
	var order []string // tensors in first-seen order, for a stable block order
	seen := map[string]bool{}
	note := func(name string) {
		if !seen[name] {
			seen[name] = true
			order = append(order, name)
		}
	}
	for _, in := range inputOrder {
		note(in)
	}
	for t, op := range ops {
		for _, in := range op.n.inputs {
			if in == "" {
				continue
			}
			r := root(in)
			_, isConst := consts[r]
			_, produced := producer[r]
			if !isConst && !produced && !isInput[r] {
				return nil, inputerr.New(doc, nodeItem(t, op.n), "input %q is produced by no earlier node, initializer or graph input", in)
			}
			note(r)
			if c := consumers[r]; len(c) == 0 || c[len(c)-1] != t {
				consumers[r] = append(consumers[r], t)
			}
		}
		for _, out := range op.n.outputs {
			if out == "" {
				continue
			}
			producer[out] = t
			note(out)
		}
	}
	p := &workload.Program{Name: o.Name, Source: fmt.Sprintf("imported from ONNX model %s (graph %q) by hieropt import onnx", filepath.Base(file), g.name)}
	if p.Name == "" && file != "-" {
		p.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if p.Name == "" {
		p.Name = cmp(g.name, "onnx-model")
	}
	size := func(name string) (int64, error) {
		var dims []dim
		var et int32
		if c, ok := consts[name]; ok {
			et = c.dataType
			for _, d := range c.dims {
				dims = append(dims, dim{value: d, set: true})
			}
		} else {
			s, ok := shapes[name]
			if !ok || !s.known {
				return 0, inputerr.New(doc, fmt.Sprintf("tensor %q", name), "shape unknown: run ONNX shape inference (onnx.shape_inference.infer_shapes) on the model first, so that value_info holds every tensor's shape")
			}
			et, dims = s.elemType, s.dims
		}
		es, ok := elemSize[et]
		if !ok {
			return 0, inputerr.New(doc, fmt.Sprintf("tensor %q", name), "data type %d is not supported", et)
		}
		bytes := es.bytes
		if es.float && o.DTypeBytes > 0 {
			bytes = o.DTypeBytes
		}
		n := int64(1)
		for _, d := range dims {
			v := d.value
			if d.param != "" || !d.set {
				var ok bool
				if v, ok = o.Dims[d.param]; !ok || d.param == "" {
					return 0, inputerr.New(doc, fmt.Sprintf("tensor %q", name), "dimension %q has no value: give one with --dim %s=N", d.param, cmp(d.param, "name"))
				}
			}
			if v < 0 {
				return 0, inputerr.New(doc, fmt.Sprintf("tensor %q", name), "negative dimension %d", v)
			}
			if v != 0 && n > math.MaxInt64/v {
				return 0, inputerr.New(doc, fmt.Sprintf("tensor %q", name), "size overflows 64 bits")
			}
			n *= v
		}
		if n > math.MaxInt64/bytes {
			return 0, inputerr.New(doc, fmt.Sprintf("tensor %q", name), "size overflows 64 bits")
		}
		return max(n*bytes, 1), nil
	}
	for t, op := range ops {
		p.Ops = append(p.Ops, workload.Op{Name: op.name, Type: op.n.opType})
		if macs, ok := macsOf(op.n, shapes, consts, root); ok {
			p.Ops[t].MACs = macs
		}
	}
	blockOf := map[string]int{}
	for _, name := range order {
		cons := consumers[name]
		b := workload.Block{Name: name, Reads: slices.Clone(cons)}
		switch {
		case isConstName(consts, name):
			if len(cons) == 0 {
				continue // an unused weight
			}
			b.Kind, b.First, b.Last = workload.Constant, 0, cons[len(cons)-1]
		case isInput[name]:
			b.Kind, b.First, b.Writes = workload.Input, 0, []int{0}
			b.Last = 0
			if len(cons) > 0 {
				b.Last = cons[len(cons)-1]
			}
		default:
			t := producer[name]
			b.Kind, b.First, b.Writes, b.Last = workload.Activation, t, []int{t}, t
			if len(cons) > 0 {
				b.Last = cons[len(cons)-1]
			}
		}
		if isOutput[name] && b.Kind != workload.Constant {
			b.Kind, b.Last = workload.Output, T-1
			if !slices.Contains(b.Reads, T-1) {
				b.Reads = append(b.Reads, T-1)
			}
			if b.Kind == workload.Output && isInput[name] {
				b.Kind = workload.Input // an input the graph returns as is
			}
		}
		s, err := size(name)
		if err != nil {
			return nil, err
		}
		b.Size = s
		sort.Ints(b.Reads)
		blockOf[name] = len(p.Blocks)
		p.Blocks = append(p.Blocks, b)
	}
	// In place: the last consumer is elementwise and its output has the
	// same size.
	for i := range p.Blocks {
		b := &p.Blocks[i]
		if (b.Kind != workload.Activation && b.Kind != workload.Input) || len(b.Reads) == 0 || b.Last != b.Reads[len(b.Reads)-1] {
			continue
		}
		n := ops[b.Last].n
		if !elementwise[n.opType] || len(n.outputs) == 0 {
			continue
		}
		if j, ok := blockOf[n.outputs[0]]; ok && p.Blocks[j].Size == b.Size {
			b.Reusable = true
		}
	}
	if err := p.Validate(doc); err != nil {
		return nil, err
	}
	return p, nil
}

func isConstName(consts map[string]tensor, name string) bool {
	_, ok := consts[name]
	return ok
}

// checkDims rejects a value given for a symbolic dimension that no graph
// input, output or value_info of the model uses (a misspelt name would
// otherwise be ignored), naming the dimensions the model has.
func checkDims(doc string, g *graph, given map[string]int64) error {
	if len(given) == 0 {
		return nil
	}
	has := map[string]bool{}
	for _, list := range [][]valueInfo{g.inputs, g.valueInfo, g.outputs} {
		for _, vi := range list {
			for _, d := range vi.dims {
				if d.param != "" {
					has[d.param] = true
				}
			}
		}
	}
	var unknown []string
	for name := range given {
		if !has[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	var names []string
	for _, name := range slices.Sorted(maps.Keys(has)) {
		names = append(names, bare(name))
	}
	list := "it has none"
	if len(names) > 0 {
		list = "it has " + strings.Join(names, ", ")
	}
	return inputerr.New(doc, fmt.Sprintf("dimension %q", unknown[0]), "given a value, but the model has no such symbolic dimension (%s)", list)
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func nodeItem(i int, n *node) string {
	if n.name != "" {
		return fmt.Sprintf("node %d %q (%s)", i, n.name, bare(n.opType))
	}
	return fmt.Sprintf("node %d (%s)", i, bare(n.opType))
}

// bare returns s as it is if it looks like an identifier (as op types and
// dimension names do), else quoted, so that a message stays one line
// whatever the model holds.
func bare(s string) string {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_.-:/", r) {
			return strconv.Quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

// macsOf counts the multiply-accumulates of Conv, Gemm and MatMul from
// known shapes.
func macsOf(n *node, shapes map[string]info, consts map[string]tensor, root func(string) string) (int64, bool) {
	dimsOf := func(name string) ([]int64, bool) {
		name = root(name)
		if c, ok := consts[name]; ok {
			return c.dims, true
		}
		s, ok := shapes[name]
		if !ok || !s.known {
			return nil, false
		}
		out := make([]int64, len(s.dims))
		for i, d := range s.dims {
			if !d.set || d.param != "" {
				return nil, false
			}
			out[i] = d.value
		}
		return out, true
	}
	prod := func(v []int64) int64 {
		p := int64(1)
		for _, x := range v {
			p *= x
		}
		return p
	}
	if len(n.inputs) < 2 || len(n.outputs) == 0 {
		return 0, false
	}
	out, ok1 := dimsOf(n.outputs[0])
	w, ok2 := dimsOf(n.inputs[1])
	if !ok1 || !ok2 {
		return 0, false
	}
	switch n.opType {
	case "Conv":
		if len(w) < 2 {
			return 0, false
		}
		// Each output element takes C_in/group x kernel MACs; the weight
		// is [C_out, C_in/group, k...].
		return prod(out) * prod(w[1:]), true
	case "Gemm", "MatMul":
		a, ok := dimsOf(n.inputs[0])
		if !ok || len(a) == 0 {
			return 0, false
		}
		k := a[len(a)-1]
		for _, at := range n.attrs {
			if at.name == "transA" && at.i == 1 && len(a) >= 2 {
				k = a[len(a)-2]
			}
		}
		return prod(out) * k, true
	}
	return 0, false
}
