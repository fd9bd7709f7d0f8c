// Package tflm is hieropt's side of TensorFlow Lite Micro's memory. TFLM
// runs a .tflite model in one arena; its planner puts the tensors that
// need memory at run time in the arena's non-persistent section (the
// "head"). This package knows:
//
//   - which tensors TFLM plans, with TFLM's sizes and lifetimes
//     (micro_allocation_info.cc, micro_allocator.cc): every tensor of the
//     model that has no data in the model, is not a variable (variables go
//     to the persistent section, unless an offline plan places them) and
//     has bytes; each at a size rounded up to 16 bytes
//     (MicroArenaBufferAlignment), alive over TFLM's allocation scopes
//     (tflite.Graph.Scopes);
//   - the scratch buffers kernels request in Prepare
//     (RequestScratchBufferInArena), from a table of TFLM's reference
//     kernels (scratch.go) or sizes the user gives: TFLM plans them in the
//     head with the tensors, always at run time, each alive at its
//     operator's scope;
//   - the plan TFLM's own GreedyMemoryPlanner makes of them (pack.TFLM),
//     the arena every TFLM user gets by default, and the one it makes
//     around an offline plan: the head the runtime's arena_used_bytes
//     counts (with its persistent section);
//   - offline plans: the metadata entry "OfflineMemoryAllocation", whose
//     buffer holds little-endian int32 [version, subgraphs, N, offset_0 ..
//     offset_N-1], one offset per tensor (in bytes from the start of the
//     head, -1 for "plan at run time"). TFLM takes those offsets as given,
//     checks only N and places the other tensors around them; it never
//     checks that two of them do not overlap: a wrong plan runs and
//     computes garbage. Check checks that too; Write writes a plan into a
//     copy of the model.
//
// Only models with one subgraph are handled (as by the importer).
package tflm

import (
	"encoding/binary"
	"fmt"

	"github.com/hieropt/hieropt/importer/tflite"
	"github.com/hieropt/hieropt/importer/tflite/schema"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/pack"
)

const (
	// Alignment is TFLM's buffer alignment (MicroArenaBufferAlignment):
	// planned sizes are rounded up to it, and offsets should be multiples
	// of it.
	Alignment = 16
	// MetadataName names the offline plan's metadata entry.
	MetadataName = "OfflineMemoryAllocation"
	// Online is the offset that leaves a tensor to TFLM's planner
	// (kOnlinePlannedBuffer).
	Online = -1
	// Version is the version this package writes in an offline plan (the
	// first int32); TFLM does not read it.
	Version = 1
)

// Tensor is what TFLM's planner knows of a tensor.
type Tensor struct {
	Index int
	Name  string
	// Bytes is the tensor's size, TfLiteEvalTensorByteLength.
	Bytes int64
	// Constant: its buffer holds data (TFLM reads it from the model).
	Constant bool
	Variable bool
	// First and Last are TFLM's lifetime in allocation scopes (0: the
	// graph inputs; i+1: op i), -1 where TFLM leaves it unset.
	First, Last int
}

// Size is the tensor's size in the arena: Bytes rounded up to Alignment.
func (t Tensor) Size() int64 { return (t.Bytes + Alignment - 1) / Alignment * Alignment }

// Planned reports whether TFLM's planner places the tensor given its
// offline offset (Online for none): needs_allocating in TFLM.
func (t Tensor) Planned(offset int32) bool {
	if t.Bytes == 0 || t.Constant {
		return false
	}
	return !t.Variable || offset != Online
}

// Offline is an offline plan as stored in a model.
type Offline struct {
	Version, Subgraphs int32
	// Offsets are the N offsets, as stored.
	Offsets []int32
	// Buffer is the index of the model's buffer that holds the plan.
	Buffer int
}

// Model is a TFLite model as TFLM's planner sees it.
type Model struct {
	File    string
	Graph   *tflite.Graph
	Tensors []Tensor
	// Offline is the model's offline plan, nil if it has none.
	Offline *Offline
	// Scratch are the scratch buffers the kernels request, in the order
	// TFLM's Prepare calls request them (operator order): from the table
	// of the reference kernels (scratchOf) or SetScratch.
	Scratch []Scratch
	// unknown lists the operators whose scratch buffers are not known.
	unknown []int
	data    []byte
	// first and last are the tensors' scopes (Tensor.First, .Last).
	first, last []int
}

// DocName returns how errors name the model in file.
func DocName(file string) string { return tflite.DocName(file) }

// ReadFile reads the model in path.
func ReadFile(path string) (*Model, error) {
	data, err := inputerr.ReadFile(DocName(path), path)
	if err != nil {
		return nil, err
	}
	return Read(path, data)
}

// Read reads a model from the bytes of a .tflite file; file names it in
// errors.
func Read(file string, data []byte) (m *Model, err error) {
	data = data[:len(data):len(data)] // no reading past the end (tflite.Parse)
	g, err := tflite.Parse(file, data)
	if err != nil {
		return nil, err
	}
	doc := DocName(file)
	first, last := g.Scopes()
	m = &Model{File: file, Graph: g, data: data, first: first, last: last}
	for i, t := range g.Tensors {
		b, err := g.Bytes(doc, i)
		if err != nil {
			return nil, err
		}
		m.Tensors = append(m.Tensors, Tensor{Index: i, Name: t.Name, Bytes: b, Constant: t.Constant, Variable: t.Variable, First: first[i], Last: last[i]})
	}
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, tflite.FlatbufferError(doc, len(data), r)
		}
	}()
	fm := schema.GetRootAsModel(data, 0)
	if m.Offline, err = readOffline(doc, fm); err != nil {
		return nil, err
	}
	m.readScratch(fm)
	return m, nil
}

// readOffline reads the offline plan of fm, nil if it has none.
func readOffline(doc string, fm *schema.Model) (*Offline, error) {
	if !tflite.Fits(fm.Table().Bytes, fm.MetadataLength(), 4) {
		return nil, inputerr.New(doc, "metadata", "malformed TFLite flatbuffer: %d entries in a file of %d bytes", fm.MetadataLength(), len(fm.Table().Bytes))
	}
	var md schema.Metadata
	for i := range fm.MetadataLength() {
		fm.Metadata(&md, i)
		if string(md.Name()) != MetadataName {
			continue
		}
		item := fmt.Sprintf("metadata %d (%s)", i, MetadataName)
		bi := int(md.Buffer())
		if bi >= fm.BuffersLength() {
			return nil, inputerr.New(doc, item, "buffer %d: the model has %d buffers", bi, fm.BuffersLength())
		}
		var b schema.Buffer
		fm.Buffers(&b, bi)
		data := b.DataBytes()
		if len(data) < 12 || len(data)%4 != 0 {
			return nil, inputerr.New(doc, item, "buffer %d holds %d bytes: want 4-byte [version, subgraphs, N, N offsets]", bi, len(data))
		}
		v := make([]int32, len(data)/4)
		for k := range v {
			v[k] = int32(binary.LittleEndian.Uint32(data[4*k:]))
		}
		if n := int(v[2]); n < 0 || n != len(v)-3 {
			return nil, inputerr.New(doc, item, "N is %d but the buffer holds %d offsets", v[2], len(v)-3)
		}
		return &Offline{Version: v[0], Subgraphs: v[1], Offsets: v[3:], Buffer: bi}, nil
	}
	return nil, nil
}

// problem returns the buffers TFLM's planner places under offline offsets
// offsets (nil: none), in the order TFLM adds them to its planner: one
// per planned tensor, in tensor order, of the tensor's arena size, alive
// over its scopes (shifted by one so that TFLM's unset -1 is 0), with the
// offline offset as fixed (-1 for online); then the known scratch
// buffers, online, each alive at its operator's scope. idx maps each
// buffer to its tensor, -1 for a scratch buffer.
func (m *Model) problem(offsets []int32) (p *pack.Problem, fixed []int64, idx []int) {
	p = &pack.Problem{}
	for i, t := range m.Tensors {
		off := int32(Online)
		if offsets != nil {
			off = offsets[i]
		}
		if !t.Planned(off) {
			continue
		}
		p.Buffers = append(p.Buffers, pack.Buffer{ID: fmt.Sprint(i), Lower: int64(t.First) + 1, Upper: int64(t.Last) + 2, Size: t.Size()})
		fixed = append(fixed, int64(off))
		idx = append(idx, i)
	}
	for k, s := range m.Scratch {
		// Scope s.Op+1, shifted by one as the tensors'.
		p.Buffers = append(p.Buffers, pack.Buffer{ID: fmt.Sprintf("scratch %d (operator %d)", k, s.Op), Lower: int64(s.Op) + 2, Upper: int64(s.Op) + 3, Size: s.Size()})
		fixed = append(fixed, Online)
		idx = append(idx, -1)
	}
	return p, fixed, idx
}

// Greedy returns the plan TFLM's own planner makes of the model with no
// offline plan: one offset per tensor (Online for the tensors it does not
// place) and the head's size, the known scratch buffers of the kernels
// planned with the tensors as TFLM does (UnknownScratch lists those that
// are not known, and not counted).
func (m *Model) Greedy() (offsets []int64, head int64) {
	return m.Head(nil)
}

// Head returns what TFLM makes of offline offsets (nil: none): the offset
// of every tensor it places (the offline ones as given, the others around
// them by its greedy planner with the known scratch buffers; Online for
// the tensors it does not place) and the head's size, which the runtime's
// arena_used_bytes counts with its persistent section.
func (m *Model) Head(offline []int32) (offsets []int64, head int64) {
	p, fixed, idx := m.problem(offline)
	offs, head := pack.TFLM(p, fixed, nil)
	offsets = make([]int64, len(m.Tensors))
	for i := range offsets {
		offsets[i] = Online
	}
	for k, i := range idx {
		if i >= 0 {
			offsets[i] = offs[k]
		}
	}
	return offsets, head
}

// inPlace reports whether tensors a and b, at offsets offA and offB, may
// share their bytes: at one offset, one is the tensor an op may write over
// the other in place (tflite.Graph.InPlaceOutput). TFLM's kernels for such
// ops read each element before writing it, or skip their copy when input
// and output coincide.
func (m *Model) inPlace(a, b int, offA, offB int64) bool {
	return offA == offB && (m.inPlaceOutput(a) == b || m.inPlaceOutput(b) == a)
}

// inPlaceOutput is tflite.Graph.InPlaceOutput on the model's tensors.
func (m *Model) inPlaceOutput(a int) int {
	return m.Graph.InPlaceOutput(a, m.first, m.last, func(i int) int64 { return m.Tensors[i].Bytes })
}
