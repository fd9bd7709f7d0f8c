// Package tflite imports TensorFlow Lite models (.tflite flatbuffers) as
// hieropt workloads, the way TensorFlow Lite Micro (TFLM) sees their
// memory. It reads the model with the code that flatc generates from
// TFLite's schema (package schema) and derives:
//
//   - one op per operator of subgraph 0, in order; its type is the builtin
//     operator's name (CONV_2D) or the custom code; MACs are counted for
//     CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, TRANSPOSE_CONV and
//     CONV_3D from the shapes of their output and filter;
//   - one block per tensor that TFLM would place, keeping the tensor's
//     index (Block.Tensor): its size is the element count times the
//     type's width (int8 and uint8 1 byte, int16 and float16 2, int32 and
//     float32 4, int64 8, int4 1 byte per element), as TFLM's
//     TfLiteEvalTensorByteLength computes a tensor's bytes; types that
//     TFLM cannot size (string, resource, int2, float8) are an error;
//   - a tensor whose buffer holds data is a constant, from timestep 0 to
//     its last reader; a graph input lives from timestep 0, a graph output
//     to the last timestep, a variable tensor for the whole run (an input
//     block), a tensor read before any op writes it (Vela's scratch) from
//     timestep 0 (an input block), and every other tensor from the first
//     op that writes it to the last op that reads or writes it (TFLM's
//     lifetimes, from op order, in micro_allocation_info.cc);
//   - a tensor of zero bytes, a constant that no op reads, and a tensor
//     that is neither a graph input or output nor any op's input or output
//     get no block (TFLM never plans them);
//   - an input or activation whose last reader is an elementwise or
//     reshaping op (ADD, RELU, RESHAPE, ...) with an output of the same
//     size is reusable (the op can run in place), as the ONNX importer
//     marks it. TFLM's reference kernels run every such op in place with
//     the same outputs (cmd/hieropt's TestTFLMHarnessEndToEnd, on
//     testdata/tflite/elementwise.tflite and the shared models), but
//     QUANTIZE, DEQUANTIZE, RELU_N1_TO_1 and RELU_0_TO_1, which that test
//     does not run (taken as elementwise from their definitions).
//
// Models with more than one subgraph (control flow) are refused: TFLM's
// offline plan covers the tensors of every subgraph.
package tflite

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/hieropt/hieropt/importer/tflite/schema"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

// Options tune an import.
type Options struct {
	// Name is the workload's name; default: the file's base name without
	// its extension.
	Name string
}

// DocName returns how errors name the model in file.
func DocName(file string) string { return inputerr.Doc("TFLite model", file) }

// ReadFile imports the model in path.
func ReadFile(path string, o Options) (*workload.Program, error) {
	data, err := inputerr.ReadFile(DocName(path), path)
	if err != nil {
		return nil, err
	}
	return Import(path, data, o)
}

// elemBytes is the width in bytes of each tensor type TFLM can plan.
var elemBytes = map[schema.TensorType]int64{
	schema.TensorTypeFLOAT32: 4, schema.TensorTypeFLOAT16: 2, schema.TensorTypeINT32: 4,
	schema.TensorTypeUINT8: 1, schema.TensorTypeINT64: 8, schema.TensorTypeBOOL: 1,
	schema.TensorTypeINT16: 2, schema.TensorTypeCOMPLEX64: 8, schema.TensorTypeINT8: 1,
	schema.TensorTypeFLOAT64: 8, schema.TensorTypeCOMPLEX128: 16, schema.TensorTypeUINT64: 8,
	schema.TensorTypeUINT32: 4, schema.TensorTypeUINT16: 2, schema.TensorTypeINT4: 1,
	schema.TensorTypeBFLOAT16: 2,
}

// inPlace are the operators that may write their output over an input of
// the same size: elementwise ops and reshapes.
var inPlace = map[string]bool{
	"ADD": true, "SUB": true, "MUL": true, "DIV": true, "RELU": true, "RELU6": true,
	"RELU_N1_TO_1": true, "RELU_0_TO_1": true, "LEAKY_RELU": true, "LOGISTIC": true, "TANH": true,
	"HARD_SWISH": true, "ABS": true, "NEG": true, "SQRT": true, "RSQRT": true, "EXP": true,
	"LOG": true, "QUANTIZE": true, "DEQUANTIZE": true, "RESHAPE": true, "SQUEEZE": true,
	"EXPAND_DIMS": true,
}

// InPlace reports whether an operator of this type may write its first
// output over an input of the same size (elementwise ops and reshapes), as
// the importer marks such inputs reusable.
func InPlace(opType string) bool { return inPlace[opType] }

// Tensor is what the import reads of a tensor of subgraph 0.
type Tensor struct {
	Name     string
	Dims     []int64
	Type     schema.TensorType
	Constant bool // its buffer holds data
	Variable bool
}

// Operator is one operator of subgraph 0: its type (the builtin
// operator's name, or a custom op's code) and its tensors (optional
// inputs left out, -1, dropped).
type Operator struct {
	Type            string
	Custom          bool // a custom op (Type is its custom_code)
	Inputs, Outputs []int
}

// Graph is subgraph 0 of a model, as Parse reads it.
type Graph struct {
	Tensors         []Tensor
	Ops             []Operator
	Inputs, Outputs []int
}

// Import converts a TFLite model (the bytes of a .tflite file) to a
// validated workload; file names it in errors.
func Import(file string, data []byte, o Options) (*workload.Program, error) {
	g, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	doc := DocName(file)
	p := newProgram(file, o)
	for i, op := range g.Ops {
		w := workload.Op{Name: fmt.Sprintf("%s_%d", op.Type, i), Type: op.Type}
		w.MACs = macs(op, g.Tensors)
		p.Ops = append(p.Ops, w)
	}
	if err := buildBlocks(doc, p, g); err != nil {
		return nil, err
	}
	if err := p.Validate(doc); err != nil {
		return nil, err
	}
	return p, nil
}

// Parse reads subgraph 0 of a TFLite model (the bytes of a .tflite
// file): its tensors, operators, inputs and outputs; file names it in
// errors. Models with more than one subgraph are refused.
func Parse(file string, data []byte) (g *Graph, err error) {
	doc := DocName(file)
	if len(data) < 8 || string(data[4:8]) != "TFL3" {
		return nil, inputerr.New(doc, "", "not a TFLite model (no flatbuffer with file identifier TFL3)")
	}
	// The generated code trusts the buffer's offsets and panics on a
	// malformed one; that is the file's fault, reported as such.
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, FlatbufferError(doc, len(data), r)
		}
	}()
	// The generated code slices the buffer with its own lengths: a slice
	// may run up to the capacity of data, past its end, unless the
	// capacity is cut to the length.
	data = data[:len(data):len(data)]
	// Every offset and length the readers follow is checked first, so
	// that the error names the item; the recover above is for what this
	// check would miss.
	if err := checkModel(data); err != nil {
		var c corruptAt
		if errors.As(err, &c) {
			return nil, inputerr.New(doc, c.item, "truncated or corrupt flatbuffer: %s (the file has %d bytes)", c.what, len(data))
		}
		return nil, err
	}
	m := schema.GetRootAsModel(data, 0)
	if v := m.Version(); v != 3 {
		return nil, inputerr.New(doc, "", "schema version %d: only version 3 is supported", v)
	}
	if n := m.SubgraphsLength(); n != 1 {
		return nil, inputerr.New(doc, "", "%d subgraphs: only models with exactly one subgraph are supported (no control flow)", n)
	}
	var sg schema.SubGraph
	m.Subgraphs(&sg, 0)
	g = &Graph{}
	if g.Tensors, err = readTensors(doc, m, &sg); err != nil {
		return nil, err
	}
	if g.Ops, err = readOps(doc, m, &sg, len(g.Tensors)); err != nil {
		return nil, err
	}
	if g.Inputs, err = indexList(doc, m, "subgraph 0 inputs", sg.InputsLength(), sg.Inputs, len(g.Tensors)); err != nil {
		return nil, err
	}
	if g.Outputs, err = indexList(doc, m, "subgraph 0 outputs", sg.OutputsLength(), sg.Outputs, len(g.Tensors)); err != nil {
		return nil, err
	}
	return g, nil
}

// FlatbufferError is the error for a panic r of the generated flatbuffer
// code while it read a model of size bytes, which doc names. That code
// trusts the offsets and lengths in the buffer: an index or slice out of
// range means one of them points past the end, the file truncated or
// corrupt, an input error said in one line (not in the runtime's words).
// Any other panic is a bug and panics on. Recovering is confined to the
// functions that read a model's flatbuffer (Parse here; tflm's Read and
// Write). Parse checks every offset it follows first (checkModel), which
// names the item, so for it this is a safety net; tflm's Write reads
// fields Parse does not, with its own checks and this net.
func FlatbufferError(doc string, size int, r any) error {
	if e, ok := r.(runtime.Error); ok && strings.Contains(e.Error(), "out of range") {
		return inputerr.New(doc, "", "truncated or corrupt flatbuffer: an offset or a length in it points past the end (the file has %d bytes)", size)
	}
	panic(r)
}

func newProgram(file string, o Options) *workload.Program {
	p := &workload.Program{Name: o.Name, Source: fmt.Sprintf("imported from TFLite model %s (subgraph 0) by hieropt import tflite", filepath.Base(file))}
	if p.Name == "" && file != "-" {
		p.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if p.Name == "" {
		p.Name = "tflite-model"
	}
	return p
}

// readTensors reads the tensors of subgraph g of model m.
func readTensors(doc string, m *schema.Model, g *schema.SubGraph) ([]Tensor, error) {
	n := g.TensorsLength()
	if err := vectorFits(doc, m, "subgraph 0 tensors", n); err != nil {
		return nil, err
	}
	out := make([]Tensor, n)
	var t schema.Tensor
	var b schema.Buffer
	for i := range n {
		g.Tensors(&t, i)
		ti := Tensor{Name: string(t.Name()), Type: t.Type(), Variable: t.IsVariable()}
		if err := vectorFits(doc, m, tensorItem(i, ti.Name)+" shape", t.ShapeLength()); err != nil {
			return nil, err
		}
		for j := range t.ShapeLength() {
			ti.Dims = append(ti.Dims, int64(t.Shape(j)))
		}
		if buf := int(t.Buffer()); buf > 0 {
			if buf >= m.BuffersLength() {
				return nil, inputerr.New(doc, tensorItem(i, ti.Name), "buffer %d: the model has %d buffers", buf, m.BuffersLength())
			}
			m.Buffers(&b, buf)
			ti.Constant = b.DataLength() > 0 || (b.Offset() > 1 && b.Size() > 0)
		}
		out[i] = ti
	}
	return out, nil
}

// vectorFits checks that a vector of n 4-byte entries (table offsets,
// int32s) fits in the model's bytes before it is read: a corrupt length
// must be an error, not an allocation of gigabytes or billions of reads
// (positions wrap around in 32 bits).
func vectorFits(doc string, m *schema.Model, item string, n int) error {
	if !Fits(m.Table().Bytes, n, 4) {
		return inputerr.New(doc, item, "malformed TFLite flatbuffer: a vector of %d entries in a file of %d bytes", n, len(m.Table().Bytes))
	}
	return nil
}

// Fits reports whether n entries of elem bytes each fit in data: a
// vector length read from a flatbuffer must pass it before it is used.
func Fits(data []byte, n, elem int) bool {
	return n >= 0 && int64(n)*int64(elem) <= int64(len(data))
}

// readOps reads the operators of subgraph g, naming each by its operator
// code.
func readOps(doc string, m *schema.Model, g *schema.SubGraph, numTensors int) ([]Operator, error) {
	n := g.OperatorsLength()
	if err := vectorFits(doc, m, "subgraph 0 operators", n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, inputerr.New(doc, "", "subgraph 0 has no operators")
	}
	out := make([]Operator, n)
	var op schema.Operator
	var code schema.OperatorCode
	for i := range n {
		g.Operators(&op, i)
		item := fmt.Sprintf("operator %d", i)
		idx := int(op.OpcodeIndex())
		if idx >= m.OperatorCodesLength() {
			return nil, inputerr.New(doc, item, "opcode_index %d: the model has %d operator codes", idx, m.OperatorCodesLength())
		}
		m.OperatorCodes(&code, idx)
		typ, err := opType(&code)
		if err != nil {
			return nil, inputerr.New(doc, item, "%s", err.Error())
		}
		oi := Operator{Type: typ, Custom: max(schema.BuiltinOperator(code.DeprecatedBuiltinCode()), code.BuiltinCode()) == schema.BuiltinOperatorCUSTOM}
		item = fmt.Sprintf("operator %d (%s)", i, bare(typ))
		if oi.Inputs, err = indexList(doc, m, item+" inputs", op.InputsLength(), op.Inputs, numTensors); err != nil {
			return nil, err
		}
		if oi.Outputs, err = indexList(doc, m, item+" outputs", op.OutputsLength(), op.Outputs, numTensors); err != nil {
			return nil, err
		}
		out[i] = oi
	}
	return out, nil
}

// opType is the name of a builtin operator (the larger of builtin_code and
// deprecated_builtin_code, as TFLite reads it) or a custom op's code.
func opType(c *schema.OperatorCode) (string, error) {
	code := max(schema.BuiltinOperator(c.DeprecatedBuiltinCode()), c.BuiltinCode())
	if code == schema.BuiltinOperatorCUSTOM {
		cc := string(c.CustomCode())
		if cc == "" {
			return "", errors.New("custom operator without a custom_code")
		}
		return cc, nil
	}
	name, ok := schema.EnumNamesBuiltinOperator[code]
	if !ok {
		return "", fmt.Errorf("builtin operator code %d is unknown to this schema", code)
	}
	return name, nil
}

// indexList reads a list of n tensor indexes; -1 (an optional input left
// out) is dropped.
func indexList(doc string, m *schema.Model, item string, n int, at func(int) int32, numTensors int) ([]int, error) {
	if err := vectorFits(doc, m, item, n); err != nil {
		return nil, err
	}
	var out []int
	for j := range n {
		v := int(at(j))
		if v == -1 {
			continue
		}
		if v < 0 || v >= numTensors {
			return nil, inputerr.New(doc, item, "tensor index %d: subgraph 0 has %d tensors", v, numTensors)
		}
		out = append(out, v)
	}
	return out, nil
}

// size returns the bytes of tensor t: elements times its type's width (0
// for a tensor with a zero dimension).
func size(doc string, i int, t Tensor) (int64, error) {
	w, ok := elemBytes[t.Type]
	if !ok {
		return 0, inputerr.New(doc, tensorItem(i, t.Name), "type %s is not supported (TFLM cannot size it)", t.Type)
	}
	n := w
	for _, d := range t.Dims {
		if d < 0 {
			return 0, inputerr.New(doc, tensorItem(i, t.Name), "dimension %d: dynamic shapes are not supported", d)
		}
		if d != 0 && n > math.MaxInt64/d {
			return 0, inputerr.New(doc, tensorItem(i, t.Name), "size overflows 64 bits")
		}
		n *= d
	}
	return n, nil
}

// Bytes returns the bytes of tensor i as TFLM counts them (its elements
// times its type's width; TfLiteEvalTensorByteLength); doc names the
// model in errors (an unsupported type or a dynamic shape).
func (g *Graph) Bytes(doc string, i int) (int64, error) { return size(doc, i, g.Tensors[i]) }

// Scopes returns each tensor's lifetime as TFLM's planner computes it
// (AllocationInfoBuilder::MarkAllocationLifetimes): in allocation scopes,
// 0 for the graph inputs and i+1 during op i. A tensor is created at the
// first scope that makes it (a graph input, an op's output; graph outputs
// at the last scope if nothing made them) and used up to the last scope
// that reads or writes it (graph outputs to the last scope). -1 is TFLM's
// unset lifetime: first is -1 for a tensor that is read but never made (a
// constant, or a Vela scratch tensor), both are for a tensor that nothing
// touches.
func (g *Graph) Scopes() (first, last []int) {
	n := len(g.Tensors)
	first, last = make([]int, n), make([]int, n)
	for i := range n {
		first[i], last[i] = -1, -1
	}
	create := func(i, s int) {
		if first[i] < 0 {
			first[i] = s
		}
	}
	for _, i := range g.Inputs {
		create(i, 0)
		last[i] = 0
	}
	for t, op := range g.Ops {
		s := t + 1
		for _, i := range op.Outputs {
			create(i, s)
		}
		for _, i := range op.Inputs {
			last[i] = s
		}
		for _, i := range op.Outputs {
			last[i] = s
		}
	}
	T := len(g.Ops)
	for _, i := range g.Outputs {
		create(i, T)
		last[i] = T
	}
	return first, last
}

// buildBlocks adds a block per tensor that TFLM places, in tensor order,
// with TFLM's lifetimes. TFLM counts scopes: 0 before the first op, i+1
// for op i; graph inputs are created at scope 0, an op's outputs at its
// scope if not before, every tensor an op reads or writes is used up to
// its scope, and graph outputs up to the last scope. Scope s is timestep
// max(s-1, 0); a tensor read before any op writes it (a scratch tensor of
// a Vela-compiled op, say) is alive from the start, as TFLM's lifetime of
// -1 makes it.
func buildBlocks(doc string, p *workload.Program, g *Graph) error {
	tensors, ops, inputs, outputs := g.Tensors, g.Ops, g.Inputs, g.Outputs
	T := len(ops)
	n := len(tensors)
	first, last := g.Scopes()
	reads, writes := make([][]int, n), make([][]int, n)
	isInput, isOutput := make([]bool, n), make([]bool, n)
	for _, i := range inputs {
		isInput[i] = true
	}
	for t, op := range ops {
		for _, i := range op.Outputs {
			if tensors[i].Constant {
				return inputerr.New(doc, fmt.Sprintf("operator %d (%s)", t, bare(op.Type)), "writes %s, a constant", tensorItem(i, tensors[i].Name))
			}
			writes[i] = addStep(writes[i], t)
		}
		for _, i := range op.Inputs {
			reads[i] = addStep(reads[i], t)
		}
	}
	for _, i := range outputs {
		isOutput[i] = true
	}
	// early: read before any op writes it (op t reads at scope t+1).
	early := func(i int) bool {
		return !tensors[i].Constant && len(reads[i]) > 0 && (first[i] < 0 || reads[i][0]+1 < first[i])
	}
	names := map[string]int{}
	blockOf := make([]int, n)
	for i, ti := range tensors {
		blockOf[i] = -1
		if last[i] < 0 {
			continue // no op reads or writes it, nor is it a graph input or output
		}
		b := workload.Block{Reads: reads[i], Writes: writes[i], First: max(first[i]-1, 0), Last: max(last[i]-1, 0)}
		switch {
		case ti.Constant:
			if len(b.Reads) == 0 {
				continue
			}
			b.Kind, b.First, b.Writes = workload.Constant, 0, nil
		case ti.Variable:
			b.Kind, b.First, b.Last = workload.Input, 0, T-1
		case isInput[i] || early(i):
			b.Kind, b.First = workload.Input, 0
		case isOutput[i]:
			b.Kind = workload.Output
		default:
			b.Kind = workload.Activation
		}
		if b.Kind == workload.Input && !slices.Contains(b.Writes, 0) {
			b.Writes = append([]int{0}, b.Writes...)
		}
		if isOutput[i] && b.Kind != workload.Constant {
			b.Reads = addStep(b.Reads, T-1)
		}
		s, err := size(doc, i, ti)
		if err != nil {
			return err
		}
		if s == 0 {
			continue // TFLM plans no zero-byte tensor
		}
		b.Size = s
		b.Name = uniqueName(names, i, ti.Name)
		idx := i
		b.Tensor = &idx
		blockOf[i] = len(p.Blocks)
		p.Blocks = append(p.Blocks, b)
	}
	markInPlace(p, g, blockOf)
	return nil
}

// addStep adds timestep t to the sorted list ts, which holds none later.
func addStep(ts []int, t int) []int {
	if len(ts) > 0 && ts[len(ts)-1] == t {
		return ts
	}
	return append(ts, t)
}

// markInPlace marks reusable the block of every tensor that an op may
// write its output over (Graph.InPlaceOutput).
func markInPlace(p *workload.Program, g *Graph, blockOf []int) {
	first, last := g.Scopes()
	bytes := func(i int) int64 {
		n, err := g.Bytes("", i)
		if err != nil {
			return -1
		}
		return n
	}
	for i, b := range blockOf {
		if b >= 0 {
			if out := g.InPlaceOutput(i, first, last, bytes); out >= 0 && blockOf[out] >= 0 {
				p.Blocks[b].Reusable = true
			}
		}
	}
}

// InPlaceOutput returns the tensor that an op may write over tensor a in
// place, -1 if none: the op whose input a is last used at (first and last
// are Scopes), if it runs in place (InPlace), and its first output, which
// must be made there and have a's bytes (bytes(i) gives tensor i's). Graph
// outputs, variables and constants are never written over: their bytes
// must outlive the op. The importer marks such tensors reusable; package
// tflm lets the two share an offset.
func (g *Graph) InPlaceOutput(a int, first, last []int, bytes func(int) int64) int {
	t := g.Tensors[a]
	k := last[a] - 1 // the op of a's last scope
	if t.Constant || t.Variable || slices.Contains(g.Outputs, a) || k < 0 || k >= len(g.Ops) {
		return -1
	}
	op := g.Ops[k]
	if !inPlace[op.Type] || len(op.Outputs) == 0 || !slices.Contains(op.Inputs, a) {
		return -1
	}
	out := op.Outputs[0]
	if out == a || first[out] != last[a] || slices.Contains(op.Outputs[1:], a) || bytes(out) != bytes(a) || bytes(a) < 0 {
		return -1
	}
	return out
}

// uniqueName names the block of tensor i: its name, else tensor_i, with
// #i added when an earlier block has the same name.
func uniqueName(used map[string]int, i int, name string) string {
	if name == "" {
		name = fmt.Sprintf("tensor_%d", i)
	}
	if _, dup := used[name]; dup {
		name = fmt.Sprintf("%s#%d", name, i)
	}
	used[name] = i
	return name
}

func prod(v []int64) int64 {
	p := int64(1)
	for _, x := range v {
		p *= x
	}
	return p
}

// macs counts the multiply-accumulates of the convolutions and fully
// connected layers from their output and filter shapes; 0 for other ops.
func macs(op Operator, tensors []Tensor) int64 {
	if len(op.Inputs) < 2 || len(op.Outputs) == 0 {
		return 0
	}
	out := tensors[op.Outputs[0]].Dims
	w := tensors[op.Inputs[1]].Dims
	switch op.Type {
	case "CONV_2D": // filter [C_out, kh, kw, C_in/groups]
		if len(w) == 4 {
			return prod(out) * prod(w[1:])
		}
	case "DEPTHWISE_CONV_2D": // filter [1, kh, kw, C_out]
		if len(w) == 4 {
			return prod(out) * w[1] * w[2]
		}
	case "FULLY_CONNECTED": // weights [units, K]
		if len(w) == 2 {
			return prod(out) * w[1]
		}
	case "CONV_3D": // filter [kd, kh, kw, C_in, C_out]
		if len(w) == 5 {
			return prod(out) * prod(w[:4])
		}
	case "TRANSPOSE_CONV": // inputs: output shape, filter [C_out, kh, kw, C_in], input
		if len(op.Inputs) >= 3 && len(w) == 4 {
			return prod(tensors[op.Inputs[2]].Dims) * prod(w[:3])
		}
	}
	return 0
}

func tensorItem(i int, name string) string {
	if name == "" {
		return fmt.Sprintf("tensor %d", i)
	}
	return fmt.Sprintf("tensor %d %s", i, bare(name))
}

// bare returns s as it is if it looks like an identifier, else quoted, so
// that a message stays one line whatever the model holds.
func bare(s string) string {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_.-:/;", r) {
			return strconv.Quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}
