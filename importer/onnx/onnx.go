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
	"fmt"
	"maps"
	"math"
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
	data, err := inputerr.ReadFile(DocName(path), path)
	if err != nil {
		return nil, err
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

// op is a compute node, one timestep of the workload.
type op struct {
	n    *node
	name string
}

// importer is one import in progress; Import's steps fill it in order.
type importer struct {
	doc string
	o   Options
	g   *graph
	// shapes holds the element type and, when known, the shape of every
	// tensor that the graph's inputs, value_info and outputs describe.
	shapes map[string]info
	// consts holds the initializers and the Constant nodes' tensors.
	consts map[string]tensor
	// alias maps the output of a view to the tensor it reads.
	alias map[string]string
	// ops are the compute nodes in order, each with a unique name.
	ops []op
	// isInput holds the graph inputs that are not initializers
	// (inputOrder lists them in the graph's order), isOutput the tensors
	// under the graph's outputs.
	isInput    map[string]bool
	inputOrder []string
	isOutput   map[string]bool
	// producer and consumers give the timesteps that write and read each
	// underlying tensor; order lists the tensors as first seen, for a
	// stable block order.
	producer  map[string]int
	consumers map[string][]int
	order     []string
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
	im := &importer{doc: doc, o: o, g: g, shapes: readShapes(g)}
	if err := checkDims(doc, g, o.Dims); err != nil {
		return nil, err
	}
	if err := im.resolveNodes(); err != nil {
		return nil, err
	}
	im.findInputsOutputs()
	if err := im.traceTensors(); err != nil {
		return nil, err
	}
	p := im.newProgram(file)
	im.buildOps(p)
	blockOf, err := im.buildBlocks(p)
	if err != nil {
		return nil, err
	}
	im.markInPlace(p, blockOf)
	if err := p.Validate(doc); err != nil {
		return nil, err
	}
	return p, nil
}

// readShapes reads the element types and shapes of the graph's inputs,
// value_info and outputs; an entry with a shape overrides an earlier one.
func readShapes(g *graph) map[string]info {
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
	return shapes
}

// isView reports whether n is a view: its output aliases its input.
func isView(n *node) bool {
	return views[n.opType] && len(n.inputs) > 0 && len(n.outputs) > 0
}

// root returns the tensor under name: name itself, or the tensor that its
// view (or chain of views) reads.
func (im *importer) root(name string) string {
	for {
		r, ok := im.alias[name]
		if !ok {
			return name
		}
		name = r
	}
}

// resolveNodes sorts the nodes out in order: a Constant node adds a
// constant, a view an alias of its input, and every other node is an op.
func (im *importer) resolveNodes() error {
	im.consts = map[string]tensor{}
	im.alias = map[string]string{}
	produced := map[string]bool{}
	for _, t := range im.g.initializer {
		im.consts[t.name] = t
		produced[t.name] = true
	}
	for _, vi := range im.g.inputs {
		produced[vi.name] = true
	}
	usedNames := map[string]int{}
	for i := range im.g.nodes {
		n := &im.g.nodes[i]
		if err := im.checkNamedOnce(i, n, produced); err != nil {
			return err
		}
		switch {
		case n.opType == "Constant":
			if err := im.addConstant(i, n); err != nil {
				return err
			}
		case isView(n):
			im.alias[n.outputs[0]] = im.root(n.inputs[0])
		default:
			im.ops = append(im.ops, op{n, uniqueName(usedNames, i, n)})
		}
	}
	if len(im.ops) == 0 {
		return inputerr.New(im.doc, "", "the graph has no compute nodes (only constants and views)")
	}
	return nil
}

// checkNamedOnce checks node i against the tensors produced before it and
// adds its outputs. ONNX names each tensor once: a node output may be
// neither a graph input, an initializer nor an earlier output. (A view of
// a tensor that is not there yet, or its own output, would make an alias
// cycle.)
func (im *importer) checkNamedOnce(i int, n *node, produced map[string]bool) error {
	if isView(n) && !produced[im.root(n.inputs[0])] {
		return inputerr.New(im.doc, nodeItem(i, n), "input %q is produced by no earlier node, initializer or graph input", n.inputs[0])
	}
	for _, out := range n.outputs {
		if out == "" {
			continue
		}
		if produced[out] {
			return inputerr.New(im.doc, nodeItem(i, n), "output %q is already a graph input, an initializer or an earlier node's output (ONNX names each tensor once)", out)
		}
		produced[out] = true
	}
	return nil
}

// addConstant makes the tensor of Constant node i (its 'value' attribute)
// a constant named after the node's output.
func (im *importer) addConstant(i int, n *node) error {
	if len(n.outputs) == 0 {
		return nil
	}
	for _, a := range n.attrs {
		if a.name == "value" && a.t != nil {
			t := *a.t
			t.name = n.outputs[0]
			im.consts[t.name] = t
		}
	}
	if _, ok := im.consts[n.outputs[0]]; !ok {
		return inputerr.New(im.doc, nodeItem(i, n), "Constant node without a tensor 'value' attribute is not supported")
	}
	return nil
}

// uniqueName names op node i: its name, else type_i, with #k added to the
// k-th repeat of a name (used counts the uses).
func uniqueName(used map[string]int, i int, n *node) string {
	name := n.name
	if name == "" {
		name = fmt.Sprintf("%s_%d", n.opType, i)
	}
	k := used[name]
	used[name] = k + 1
	if k > 0 {
		return fmt.Sprintf("%s#%d", name, k)
	}
	return name
}

// findInputsOutputs finds the graph's inputs (those that are not
// initializers) and the tensors under its outputs.
func (im *importer) findInputsOutputs() {
	im.isOutput = map[string]bool{}
	for _, vi := range im.g.outputs {
		im.isOutput[im.root(vi.name)] = true
	}
	im.isInput = map[string]bool{}
	for _, vi := range im.g.inputs {
		if _, c := im.consts[vi.name]; !c {
			im.isInput[vi.name] = true
			im.inputOrder = append(im.inputOrder, vi.name)
		}
	}
}

// traceTensors finds the producer and the consumers of every underlying
// tensor, and the order in which the tensors are first seen (the inputs,
// then each op's inputs and outputs).
func (im *importer) traceTensors() error {
	im.producer = map[string]int{}
	im.consumers = map[string][]int{}
	seen := map[string]bool{}
	note := func(name string) {
		if !seen[name] {
			seen[name] = true
			im.order = append(im.order, name)
		}
	}
	for _, in := range im.inputOrder {
		note(in)
	}
	for t, op := range im.ops {
		for _, in := range op.n.inputs {
			if in == "" {
				continue
			}
			r, err := im.readBy(t, op.n, in)
			if err != nil {
				return err
			}
			note(r)
		}
		for _, out := range op.n.outputs {
			if out != "" {
				im.producer[out] = t
				note(out)
			}
		}
	}
	return nil
}

// readBy records that op t (node n) reads tensor in, and returns the
// tensor under it, which must be a constant, a graph input or an earlier
// op's output.
func (im *importer) readBy(t int, n *node, in string) (string, error) {
	r := im.root(in)
	_, isConst := im.consts[r]
	_, produced := im.producer[r]
	if !isConst && !produced && !im.isInput[r] {
		return "", inputerr.New(im.doc, nodeItem(t, n), "input %q is produced by no earlier node, initializer or graph input", in)
	}
	if c := im.consumers[r]; len(c) == 0 || c[len(c)-1] != t {
		im.consumers[r] = append(c, t)
	}
	return r, nil
}

// newProgram names the workload: Options.Name, else the file's base name
// without its extension, else the graph's name.
func (im *importer) newProgram(file string) *workload.Program {
	p := &workload.Program{Name: im.o.Name, Source: fmt.Sprintf("imported from ONNX model %s (graph %q) by hieropt import onnx", filepath.Base(file), im.g.name)}
	if p.Name == "" && file != "-" {
		p.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if p.Name == "" {
		p.Name = cmp(im.g.name, "onnx-model")
	}
	return p
}

// buildOps adds an op per compute node, with its multiply-accumulates
// where they are known.
func (im *importer) buildOps(p *workload.Program) {
	for _, op := range im.ops {
		o := workload.Op{Name: op.name, Type: op.n.opType}
		if macs, ok := im.macsOf(op.n); ok {
			o.MACs = macs
		}
		p.Ops = append(p.Ops, o)
	}
}

// buildBlocks adds a block per underlying tensor, in the order first
// seen (an unused weight has none), and returns the index of each.
func (im *importer) buildBlocks(p *workload.Program) (map[string]int, error) {
	blockOf := map[string]int{}
	for _, name := range im.order {
		b, ok := im.block(name)
		if !ok {
			continue
		}
		s, err := im.size(name)
		if err != nil {
			return nil, err
		}
		b.Size = s
		blockOf[name] = len(p.Blocks)
		p.Blocks = append(p.Blocks, b)
	}
	return blockOf, nil
}

// block returns the block of tensor name but its size: its kind, life,
// writes and reads; false for a weight that no op reads. A constant lives
// from timestep 0 to its last read; an input from 0, an activation from
// its producer, to its last read; an output (or an input that the graph
// returns) to the last timestep, which reads it.
func (im *importer) block(name string) (workload.Block, bool) {
	cons := im.consumers[name]
	b := workload.Block{Name: name, Reads: slices.Clone(cons)}
	switch {
	case isConstName(im.consts, name):
		if len(cons) == 0 {
			return b, false
		}
		b.Kind, b.First, b.Last = workload.Constant, 0, cons[len(cons)-1]
	case im.isInput[name]:
		b.Kind, b.First, b.Writes, b.Last = workload.Input, 0, []int{0}, lastOr(cons, 0)
	default:
		t := im.producer[name]
		b.Kind, b.First, b.Writes, b.Last = workload.Activation, t, []int{t}, lastOr(cons, t)
	}
	if im.isOutput[name] && b.Kind != workload.Constant {
		T := len(im.ops)
		b.Kind, b.Last = workload.Output, T-1
		if !slices.Contains(b.Reads, T-1) {
			b.Reads = append(b.Reads, T-1)
		}
		if im.isInput[name] {
			b.Kind = workload.Input // an input the graph returns as is
		}
	}
	sort.Ints(b.Reads)
	return b, true
}

// lastOr returns the last of ts, or def if there is none.
func lastOr(ts []int, def int) int {
	if len(ts) == 0 {
		return def
	}
	return ts[len(ts)-1]
}

// size returns the bytes of tensor name (at least 1): its elements times
// its element size (Options.DTypeBytes for a floating-point type).
func (im *importer) size(name string) (int64, error) {
	var dims []dim
	var et int32
	if c, ok := im.consts[name]; ok {
		et = c.dataType
		for _, d := range c.dims {
			dims = append(dims, dim{value: d, set: true})
		}
	} else {
		s, ok := im.shapes[name]
		if !ok || !s.known {
			return 0, inputerr.New(im.doc, fmt.Sprintf("tensor %q", name), "shape unknown: run ONNX shape inference (onnx.shape_inference.infer_shapes) on the model first, so that value_info holds every tensor's shape")
		}
		et, dims = s.elemType, s.dims
	}
	es, ok := elemSize[et]
	if !ok {
		return 0, inputerr.New(im.doc, fmt.Sprintf("tensor %q", name), "data type %d is not supported", et)
	}
	bytes := es.bytes
	if es.float && im.o.DTypeBytes > 0 {
		bytes = im.o.DTypeBytes
	}
	n, err := im.elements(name, dims)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt64/bytes {
		return 0, inputerr.New(im.doc, fmt.Sprintf("tensor %q", name), "size overflows 64 bits")
	}
	return max(n*bytes, 1), nil
}

// elements returns the number of elements of tensor name of shape dims,
// a symbolic dimension taking its value from Options.Dims.
func (im *importer) elements(name string, dims []dim) (int64, error) {
	n := int64(1)
	for _, d := range dims {
		v := d.value
		if d.param != "" || !d.set {
			var ok bool
			if v, ok = im.o.Dims[d.param]; !ok || d.param == "" {
				return 0, inputerr.New(im.doc, fmt.Sprintf("tensor %q", name), "dimension %q has no value: give one with --dim %s=N", d.param, cmp(d.param, "name"))
			}
		}
		if v < 0 {
			return 0, inputerr.New(im.doc, fmt.Sprintf("tensor %q", name), "negative dimension %d", v)
		}
		if v != 0 && n > math.MaxInt64/v {
			return 0, inputerr.New(im.doc, fmt.Sprintf("tensor %q", name), "size overflows 64 bits")
		}
		n *= v
	}
	return n, nil
}

// markInPlace marks reusable an input or activation whose last consumer
// is elementwise and whose output has the same size (the op can run in
// place).
func (im *importer) markInPlace(p *workload.Program, blockOf map[string]int) {
	for i := range p.Blocks {
		b := &p.Blocks[i]
		if (b.Kind != workload.Activation && b.Kind != workload.Input) || len(b.Reads) == 0 || b.Last != b.Reads[len(b.Reads)-1] {
			continue
		}
		n := im.ops[b.Last].n
		if !elementwise[n.opType] || len(n.outputs) == 0 {
			continue
		}
		if j, ok := blockOf[n.outputs[0]]; ok && p.Blocks[j].Size == b.Size {
			b.Reusable = true
		}
	}
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

// dimsOf returns the shape of tensor name, if known and without symbolic
// dimensions. A view has a shape of its own (a Flatten's output is not
// shaped like its input): the shape of the tensor under it is only the
// fallback when the model does not give the view's.
func (im *importer) dimsOf(name string) ([]int64, bool) {
	if c, ok := im.consts[name]; ok {
		return c.dims, true
	}
	s, ok := im.shapes[name]
	if !ok || !s.known {
		if r := im.root(name); r != name {
			return im.dimsOf(r)
		}
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

func prod(v []int64) int64 {
	p := int64(1)
	for _, x := range v {
		p *= x
	}
	return p
}

// macsOf counts the multiply-accumulates of Conv, Gemm and MatMul from
// known shapes.
func (im *importer) macsOf(n *node) (int64, bool) {
	if len(n.inputs) < 2 || len(n.outputs) == 0 {
		return 0, false
	}
	out, ok1 := im.dimsOf(n.outputs[0])
	w, ok2 := im.dimsOf(n.inputs[1])
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
		a, ok := im.dimsOf(n.inputs[0])
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
