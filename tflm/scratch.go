package tflm

import (
	"fmt"
	"slices"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/hieropt/hieropt/importer/tflite/schema"
)

// Scratch is a scratch buffer a kernel requests in its Prepare
// (RequestScratchBufferInArena). TFLM plans it in the head with the
// tensors, always at run time (an offline plan cannot place it), alive
// at its operator's scope only, at its size rounded up to 16 bytes.
type Scratch struct {
	// Op is the operator whose kernel requests it.
	Op int
	// Bytes is the size requested.
	Bytes int64
}

// Size is the scratch buffer's size in the arena: Bytes rounded up to
// Alignment.
func (s Scratch) Size() int64 { return (s.Bytes + Alignment - 1) / Alignment * Alignment }

// PointerBytes is the size of a pointer on the machine that runs TFLM,
// which ADD_N's scratch buffer holds one of per input: 8 on a 64-bit host
// (the harness of shared/tflm); 4 on a 32-bit microcontroller, where the
// request is smaller (give it with SetScratch where it matters).
const PointerBytes = 8

// The custom operators whose kernels in TFLM (commit 90b983c) request no
// scratch buffer. Every other custom operator's are unknown.
var customNoScratch = map[string]bool{
	"ethos-u": true, "CIRCULAR_BUFFER": true, "TFLM_DECODE": true,
	"SignalDelay": true, "SignalEnergy": true, "SignalFftAutoScale": true,
	"SignalFilterBank": true, "SignalFilterBankLog": true,
	"SignalFilterBankSpectralSubtraction": true, "SignalFilterBankSquareRoot": true,
	"SignalFramer": true, "SignalIrfft": true, "SignalOverlapAdd": true,
	"SignalPCAN": true, "SignalStacker": true, "SignalWindow": true,
}

// scratchOf returns the scratch buffers that TFLM's reference kernels
// (tflite-micro commit 90b983c, the kernels shared/tflm builds) request
// in Prepare for operator k of the model, in the order they request
// them, from the operator's tensors and options; ok is false where they
// are not known here (a custom operator whose kernel may request some,
// with sizes from its options, such as TFLite_Detection_PostProcess and
// SignalRfft). The builtin kernels not listed request none.
//
//	ADD_N (float32, int8)         one pointer per input
//	CONV_2D, DEPTHWISE_CONV_2D,
//	FULLY_CONNECTED (int4 filter) the filter unpacked, one byte each
//	MIRROR_PAD                    2 x 4 B per input dimension
//	MEAN, SUM                     int8/int16: 4 B per output element;
//	                              then 4 B per input dimension and per axis
//	REDUCE_MAX, REDUCE_MIN,
//	REDUCE_ALL                    4 B per input dimension, 4 B per axis
//	SVDF                          4 B x batch x filters; int8 also
//	                              4 B x batch x units (filters / rank)
//	TRANSPOSE_CONV                int8 input: 4 B per output element;
//	                              int16: 8 B per output element, then
//	                              8 B per bias element if the bias is int16
//	UNIDIRECTIONAL_SEQUENCE_LSTM  4 x batch x state size x cell state's
//	                              element size
func (m *Model) scratchOf(k int, op *schema.Operator) (sizes []int64, ok bool) {
	o := m.Graph.Ops[k]
	if o.Custom {
		return nil, customNoScratch[o.Type]
	}
	in := func(j int) int { // the j-th input as the kernel counts them, -1 if absent
		if j >= op.InputsLength() {
			return -1
		}
		return int(op.Inputs(j))
	}
	ts := m.Graph.Tensors
	dims := func(i int) []int64 {
		if i < 0 || i >= len(ts) {
			return nil
		}
		return ts[i].Dims
	}
	flat := func(i int) int64 {
		if i < 0 || i >= len(ts) {
			return 0
		}
		n := int64(1)
		for _, d := range ts[i].Dims {
			n *= d
		}
		return n
	}
	typ := func(i int) schema.TensorType {
		if i < 0 || i >= len(ts) {
			return -1
		}
		return ts[i].Type
	}
	dim := func(i, d int) int64 {
		if v := dims(i); d < len(v) {
			return v[d]
		}
		return 0
	}
	out := -1
	if len(o.Outputs) > 0 {
		out = o.Outputs[0]
	}
	rank := func(i int) int64 { return int64(len(dims(i))) }
	switch o.Type {
	case "ADD_N":
		if t := typ(out); t == schema.TensorTypeFLOAT32 || t == schema.TensorTypeINT8 {
			return []int64{PointerBytes * int64(op.InputsLength())}, true
		}
	case "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED":
		if typ(in(1)) == schema.TensorTypeINT4 {
			return []int64{flat(in(1))}, true
		}
	case "MIRROR_PAD":
		return []int64{4 * rank(in(0)), 4 * rank(in(0))}, true
	case "MEAN", "SUM":
		if t := typ(in(0)); t == schema.TensorTypeINT8 || t == schema.TensorTypeINT16 {
			sizes = append(sizes, 4*flat(out))
		}
		return append(sizes, 4*rank(in(0)), 4*flat(in(1))), true
	case "REDUCE_MAX", "REDUCE_MIN", "REDUCE_ALL":
		return []int64{4 * rank(in(0)), 4 * flat(in(1))}, true
	case "SVDF":
		var opt schema.SVDFOptions
		var tab flatbuffers.Table
		if op.BuiltinOptionsType() != schema.BuiltinOptionsSVDFOptions || !op.BuiltinOptions(&tab) {
			return nil, false
		}
		opt.Init(tab.Bytes, tab.Pos)
		batch, filters := dim(in(0), 0), dim(in(1), 0)
		sizes = []int64{4 * batch * filters}
		if typ(in(0)) == schema.TensorTypeINT8 {
			r := int64(opt.Rank())
			if r <= 0 {
				return nil, false
			}
			sizes = append(sizes, 4*batch*(filters/r))
		}
		return sizes, true
	case "TRANSPOSE_CONV":
		switch typ(in(2)) {
		case schema.TensorTypeINT8:
			return []int64{4 * flat(out)}, true
		case schema.TensorTypeINT16:
			sizes = []int64{8 * flat(out)}
			if b := in(3); b >= 0 && typ(b) == schema.TensorTypeINT16 {
				sizes = append(sizes, 8*flat(b))
			}
			return sizes, true
		}
	case "UNIDIRECTIONAL_SEQUENCE_LSTM":
		var opt schema.UnidirectionalSequenceLSTMOptions
		var tab flatbuffers.Table
		if op.BuiltinOptionsType() != schema.BuiltinOptionsUnidirectionalSequenceLSTMOptions || !op.BuiltinOptions(&tab) {
			return nil, false
		}
		opt.Init(tab.Bytes, tab.Pos)
		batch := dim(in(0), 0)
		if opt.TimeMajor() {
			batch = dim(in(0), 1)
		}
		elem := int64(4)
		if typ(in(19)) == schema.TensorTypeINT16 {
			elem = 2
		}
		s := batch * dim(in(18), 1) * elem
		return []int64{s, s, s, s}, true
	}
	return nil, true
}

// readScratch sets the model's scratch buffers from the kernels' table
// (scratchOf) and lists the operators whose requests are not known.
func (m *Model) readScratch(fm *schema.Model) {
	var sg schema.SubGraph
	fm.Subgraphs(&sg, 0)
	var op schema.Operator
	m.Scratch, m.unknown = nil, nil
	for k := range m.Graph.Ops {
		sg.Operators(&op, k)
		sizes, ok := m.scratchOf(k, &op)
		if !ok {
			m.unknown = append(m.unknown, k)
			continue
		}
		for _, b := range sizes {
			m.Scratch = append(m.Scratch, Scratch{Op: k, Bytes: b})
		}
	}
}

// SetScratch gives the sizes of the scratch buffers that operator op's
// kernel requests, in the order it requests them (none: an empty list),
// in place of what the table says or where it does not know them.
func (m *Model) SetScratch(op int, sizes []int64) error {
	if op < 0 || op >= len(m.Graph.Ops) {
		return fmt.Errorf("operator %d: the model has %d operators (0-%d)", op, len(m.Graph.Ops), len(m.Graph.Ops)-1)
	}
	for _, b := range sizes {
		if b < 0 {
			return fmt.Errorf("operator %d: scratch buffer of %d bytes: want a size of 0 or more", op, b)
		}
	}
	m.unknown = slices.DeleteFunc(m.unknown, func(k int) bool { return k == op })
	m.Scratch = slices.DeleteFunc(m.Scratch, func(s Scratch) bool { return s.Op == op })
	at, _ := slices.BinarySearchFunc(m.Scratch, op, func(s Scratch, k int) int { return s.Op - k })
	add := make([]Scratch, len(sizes))
	for i, b := range sizes {
		add[i] = Scratch{Op: op, Bytes: b}
	}
	m.Scratch = slices.Insert(m.Scratch, at, add...)
	return nil
}

// UnknownScratch lists the operators whose kernels' scratch buffers are
// not known (neither the table nor SetScratch gives them), one
// "operator K (TYPE)" each; nil when every one is known.
func (m *Model) UnknownScratch() []string {
	var s []string
	for _, k := range m.unknown {
		s = append(s, fmt.Sprintf("operator %d (%s)", k, m.Graph.Ops[k].Type))
	}
	return s
}

// ScratchBytes is the sum of the known scratch buffers' sizes in the
// arena (each rounded up to 16 bytes).
func (m *Model) ScratchBytes() int64 {
	var n int64
	for _, s := range m.Scratch {
		n += s.Size()
	}
	return n
}
