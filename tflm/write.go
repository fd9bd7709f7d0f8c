package tflm

import (
	"encoding/binary"
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/hieropt/hieropt/importer/tflite"
	"github.com/hieropt/hieropt/importer/tflite/schema"
	"github.com/hieropt/hieropt/inputerr"
)

// The fields of table Model in schema.fbs, by id.
const (
	modelVersion = 0
	modelBuffers = 4
	modelMeta    = 6
	modelFields  = 10
)

// corrupt is Write's panic when an offset or a length of the model points
// past its end: its recover makes it the input error it is.
type corrupt string

// Write returns a copy of the model with offsets as its offline plan
// (version Version, 1 subgraph, N = len(offsets)): the existing
// OfflineMemoryAllocation entry's buffer is replaced, else a buffer and a
// metadata entry are added.
//
// The original bytes are kept as they are, after a new header: a new root
// table (Model) whose fields point into them, a new buffers vector (the
// old buffers' tables and the plan's), a new metadata vector if an entry
// is added, and the plan's tables. Flatbuffer offsets are relative, so
// every table, vector and byte of data of the original stays valid and
// unchanged, fields this reader does not use included; the header is a
// multiple of 16 bytes long, so data keeps its alignment. The old root
// table and, when replaced, the old plan's buffer stay in the file,
// unreferenced. Models that keep buffers outside the flatbuffer (over
// 2 GB, whose offsets count from the file's start) are refused.
func (m *Model) Write(offsets []int32) (out []byte, err error) {
	doc := DocName(m.File)
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(corrupt); ok {
				out, err = nil, inputerr.New(doc, "", "truncated or corrupt flatbuffer: %s", string(c))
				return
			}
			out, err = nil, tflite.FlatbufferError(doc, len(m.data), r)
		}
	}()
	old := m.data
	fm := schema.GetRootAsModel(old, 0)
	tab := fm.Table()
	if vt := tab.Pos - flatbuffers.UOffsetT(tab.GetSOffsetT(tab.Pos)); int(flatbuffers.GetVOffsetT(old[vt:])) > 4+2*modelFields {
		return nil, fmt.Errorf("%s: its Model table has fields newer than this schema: not written", doc)
	}
	field := func(id int) flatbuffers.UOffsetT { // absolute position of a field, 0 if absent
		if o := tab.Offset(flatbuffers.VOffsetT(4 + 2*id)); o != 0 {
			return tab.Pos + flatbuffers.UOffsetT(o)
		}
		return 0
	}
	target := func(at flatbuffers.UOffsetT) uint32 { // where the uoffset at at points
		t := uint64(at) + uint64(binary.LittleEndian.Uint32(old[at:]))
		if t+4 > uint64(len(old)) {
			panic(corrupt(fmt.Sprintf("an offset at %d points to %d, beyond the file's %d bytes", at, t, len(old))))
		}
		return uint32(t)
	}
	elems := func(id int) []uint32 { // the targets of a vector of tables
		at := field(id)
		if at == 0 {
			return nil
		}
		v := target(at)
		n := binary.LittleEndian.Uint32(old[v:])
		if !tflite.Fits(old, int(n), 4) {
			panic(corrupt(fmt.Sprintf("a vector of %d entries in %d bytes", n, len(old))))
		}
		out := make([]uint32, n)
		for j := range out {
			out[j] = target(flatbuffers.UOffsetT(v + 4 + 4*uint32(j)))
		}
		return out
	}
	if !tflite.Fits(old, fm.BuffersLength(), 4) {
		return nil, fmt.Errorf("%s: malformed TFLite flatbuffer: %d buffers in a file of %d bytes", doc, fm.BuffersLength(), len(old))
	}
	var b schema.Buffer
	for i := range fm.BuffersLength() {
		fm.Buffers(&b, i)
		if b.Offset() > 1 {
			return nil, fmt.Errorf("%s: buffer %d: data stored outside the flatbuffer (offset %d) is not supported", doc, i, b.Offset())
		}
	}
	payload := make([]byte, 4*(3+len(offsets)))
	binary.LittleEndian.PutUint32(payload[0:], Version)
	binary.LittleEndian.PutUint32(payload[4:], 1)
	binary.LittleEndian.PutUint32(payload[8:], uint32(len(offsets)))
	for k, o := range offsets {
		binary.LittleEndian.PutUint32(payload[12+4*k:], uint32(o))
	}

	w := &prefix{}
	w.u32(0) // the root's offset, patched below
	w.bytes([]byte("TFL3"))
	buffers := elems(modelBuffers)
	planBuffer := len(buffers) // the plan's buffer index
	addMeta := m.Offline == nil
	if !addMeta {
		planBuffer = m.Offline.Buffer
	}
	// Model: the old fields, but buffers and (when an entry is added)
	// metadata, which are new.
	present := make([]bool, modelFields)
	for id := range modelFields {
		present[id] = field(id) != 0 || id == modelBuffers || (id == modelMeta && addMeta)
	}
	root := w.table(present, func(id int) {
		switch {
		case id == modelVersion:
			w.u32(binary.LittleEndian.Uint32(old[field(id):]))
		case id == modelBuffers:
			w.ref("buffers")
		case id == modelMeta && addMeta:
			w.ref("metadata")
		default:
			w.oldRef(target(field(id)))
		}
	})
	w.vector("buffers", len(buffers)+map[bool]int{true: 1, false: 0}[addMeta], func(j int) {
		if j == planBuffer {
			w.ref("plan buffer")
		} else {
			w.oldRef(buffers[j])
		}
	})
	if addMeta {
		meta := elems(modelMeta)
		w.vector("metadata", len(meta)+1, func(j int) {
			if j == len(meta) {
				w.ref("plan metadata")
			} else {
				w.oldRef(meta[j])
			}
		})
		w.label("plan metadata", w.table([]bool{true, true}, func(id int) {
			if id == 0 {
				w.ref("plan name")
			} else {
				w.u32(uint32(planBuffer))
			}
		}))
		w.align(4, 0)
		w.label("plan name", len(w.b))
		w.u32(uint32(len(MetadataName)))
		w.bytes(append([]byte(MetadataName), 0))
	}
	w.label("plan buffer", w.table([]bool{true}, func(int) { w.ref("plan data") }))
	w.align(bufferAlign, 4) // the data, after its length, 16-aligned
	w.label("plan data", len(w.b))
	w.u32(uint32(len(payload)))
	w.bytes(payload)
	w.align(bufferAlign, 0)
	binary.LittleEndian.PutUint32(w.b[0:], uint32(root))
	return w.finish(old), nil
}

// bufferAlign is the alignment of a buffer's data (schema.fbs's
// force_align) and of the header Write puts before the original bytes.
const bufferAlign = 16

// prefix builds the bytes Write puts before the original model, front to
// back: every offset it writes points forward, to a later part of the
// prefix (ref, patched when the target's label is set) or into the
// original bytes (oldRef, patched once the prefix's length is known).
type prefix struct {
	b      []byte
	refs   map[string][]int // uoffsets to patch, by the label of their target
	labels map[string]int
	olds   [][2]uint32 // (position, target in the original)
}

func (w *prefix) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *prefix) u16(v uint16) { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *prefix) bytes(b []byte) {
	w.b = append(w.b, b...)
}

// align pads so that the position after the next skip bytes is a multiple
// of a.
func (w *prefix) align(a, skip int) {
	for (len(w.b)+skip)%a != 0 {
		w.b = append(w.b, 0)
	}
}

func (w *prefix) ref(label string) {
	if w.refs == nil {
		w.refs = map[string][]int{}
	}
	w.refs[label] = append(w.refs[label], len(w.b))
	w.u32(0)
}

func (w *prefix) oldRef(target uint32) {
	w.olds = append(w.olds, [2]uint32{uint32(len(w.b)), target})
	w.u32(0)
}

func (w *prefix) label(name string, at int) {
	if w.labels == nil {
		w.labels = map[string]int{}
	}
	w.labels[name] = at
}

// table writes a table of 4-byte fields (present[id] says which), each
// written by field(id), after its vtable; it returns the table's position.
func (w *prefix) table(present []bool, field func(id int)) int {
	n := 0
	for id, p := range present {
		if p {
			n = id + 1
		}
	}
	w.align(2, 0)
	vt := len(w.b)
	w.u16(uint16(4 + 2*n))
	sizeAt := len(w.b)
	w.u16(0)
	slots := len(w.b)
	for range n {
		w.u16(0)
	}
	w.align(4, 0)
	tbl := len(w.b)
	w.u32(uint32(int32(tbl - vt))) // soffset: the vtable is before the table
	for id := range n {
		if present[id] {
			binary.LittleEndian.PutUint16(w.b[slots+2*id:], uint16(len(w.b)-tbl))
			field(id)
		}
	}
	binary.LittleEndian.PutUint16(w.b[sizeAt:], uint16(len(w.b)-tbl))
	return tbl
}

// vector writes a vector of n uoffsets, each by elem(j), labelled name.
func (w *prefix) vector(name string, n int, elem func(j int)) {
	w.align(4, 0)
	w.label(name, len(w.b))
	w.u32(uint32(n))
	for j := range n {
		elem(j)
	}
}

// finish patches every offset and returns the prefix followed by old.
func (w *prefix) finish(old []byte) []byte {
	for name, ats := range w.refs {
		t, ok := w.labels[name]
		if !ok {
			panic("tflm: write: no label " + name)
		}
		for _, at := range ats {
			binary.LittleEndian.PutUint32(w.b[at:], uint32(t-at))
		}
	}
	p := uint32(len(w.b))
	for _, o := range w.olds {
		binary.LittleEndian.PutUint32(w.b[o[0]:], o[1]+p-o[0])
	}
	return append(w.b, old...)
}
