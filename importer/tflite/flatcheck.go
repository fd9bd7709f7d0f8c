package tflite

import (
	"encoding/binary"
	"fmt"
)

// The flatc-generated readers (package schema) trust every offset and
// length in the buffer: one that points past its end panics. checkModel
// walks, before they run, every table, vector and string that Parse and
// package tflm read (the fields below, by their vtable slots in
// schema.fbs's generated code), and says which one points past the end.
// Other fields are not read, so not checked.

// Vtable slots of the fields read, and their widths.
const (
	slotModelVersion       = 4  // uint32
	slotModelOperatorCodes = 6  // [OperatorCode]
	slotModelSubgraphs     = 8  // [SubGraph]
	slotModelBuffers       = 12 // [Buffer]
	slotModelMetadata      = 16 // [Metadata]

	slotOpCodeDeprecated = 4  // int8
	slotOpCodeCustom     = 6  // string
	slotOpCodeVersion    = 8  // int32
	slotOpCodeBuiltin    = 10 // int32

	slotSubGraphTensors   = 4  // [Tensor]
	slotSubGraphInputs    = 6  // [int32]
	slotSubGraphOutputs   = 8  // [int32]
	slotSubGraphOperators = 10 // [Operator]

	slotTensorShape    = 4  // [int32]
	slotTensorType     = 6  // int8
	slotTensorBuffer   = 8  // uint32
	slotTensorName     = 10 // string
	slotTensorVariable = 14 // bool

	slotOperatorOpcode  = 4 // uint32
	slotOperatorInputs  = 6 // [int32]
	slotOperatorOutputs = 8 // [int32]

	slotBufferData   = 4 // [ubyte]
	slotBufferOffset = 6 // uint64
	slotBufferSize   = 8 // uint64

	slotMetadataName   = 4 // string
	slotMetadataBuffer = 6 // uint32
)

// fbTable is a table whose own bytes and vtable are inside the buffer.
type fbTable struct {
	b                []byte
	pos, vt          uint64
	vtSize, tabBytes uint64
}

// corruptAt says which item of the model points past its end, and how.
type corruptAt struct{ item, what string }

func (c corruptAt) Error() string { return c.item + ": " + c.what }

func corrupt(item, what string) error { return corruptAt{item, what} }

func u32(b []byte, at uint64) uint64 { return uint64(binary.LittleEndian.Uint32(b[at:])) }
func u16(b []byte, at uint64) uint64 { return uint64(binary.LittleEndian.Uint16(b[at:])) }

// inside reports whether n bytes from at are in b.
func inside(b []byte, at, n uint64) bool { return at <= uint64(len(b)) && n <= uint64(len(b))-at }

// table checks the table at pos: its soffset, its vtable and its inline
// bytes inside b.
func table(b []byte, pos uint64, item string) (fbTable, error) {
	if !inside(b, pos, 4) {
		return fbTable{}, corrupt(item, "the table's offset points past the end")
	}
	vt := int64(pos) - int64(int32(binary.LittleEndian.Uint32(b[pos:])))
	if vt < 0 || !inside(b, uint64(vt), 4) {
		return fbTable{}, corrupt(item, "the table's vtable offset points past the end")
	}
	t := fbTable{b: b, pos: pos, vt: uint64(vt), vtSize: u16(b, uint64(vt)), tabBytes: u16(b, uint64(vt)+2)}
	if t.vtSize < 4 || !inside(b, t.vt, t.vtSize) || !inside(b, pos, t.tabBytes) {
		return fbTable{}, corrupt(item, "the table runs past the end")
	}
	return t, nil
}

// field returns the offset of a field in the table, 0 if absent.
func (t fbTable) field(slot uint64) uint64 {
	if slot >= t.vtSize {
		return 0
	}
	return u16(t.b, t.vt+slot)
}

// scalar checks a scalar field of width bytes.
func (t fbTable) scalar(slot, width uint64, item string) error {
	if o := t.field(slot); o != 0 && !inside(t.b, t.pos+o, width) {
		return corrupt(item, "a field runs past the end")
	}
	return nil
}

// vector checks a vector (or string) field of elements of elem bytes and
// returns where its elements start and how many there are.
func (t fbTable) vector(slot, elem uint64, item string) (start, n uint64, err error) {
	o := t.field(slot)
	if o == 0 {
		return 0, 0, nil
	}
	at := t.pos + o
	if !inside(t.b, at, 4) {
		return 0, 0, corrupt(item, "a field runs past the end")
	}
	v := at + u32(t.b, at)
	if !inside(t.b, v, 4) {
		return 0, 0, corrupt(item, "a vector's offset points past the end")
	}
	n = u32(t.b, v)
	if !inside(t.b, v+4, n*elem) {
		return 0, 0, corrupt(item, fmt.Sprintf("a vector of %d entries runs past the end", n))
	}
	return v + 4, n, nil
}

// tables checks a vector of tables (named vec, e.g. "buffers") and each
// table (named each and its index, "buffer 3") with check.
func (t fbTable) tables(slot uint64, vec, each string, check func(fbTable, string) error) error {
	start, n, err := t.vector(slot, 4, vec)
	if err != nil {
		return err
	}
	for i := range n {
		at := start + 4*i
		sub := fmt.Sprintf("%s %d", each, i)
		e, err := table(t.b, at+u32(t.b, at), sub)
		if err != nil {
			return err
		}
		if err := check(e, sub); err != nil {
			return err
		}
	}
	return nil
}

// checkFields checks scalars (slot: width) and vectors (slot: element
// width, negative) of a table.
func checkFields(t fbTable, item string, fields ...[2]int64) error {
	for _, f := range fields {
		if f[1] < 0 {
			if _, _, err := t.vector(uint64(f[0]), uint64(-f[1]), item); err != nil {
				return err
			}
		} else if err := t.scalar(uint64(f[0]), uint64(f[1]), item); err != nil {
			return err
		}
	}
	return nil
}

// checkModel checks the model's root table and every table, vector and
// string below it that the readers use; the error names the first item
// that points past the end of data.
func checkModel(data []byte) error {
	m, err := table(data, u32(data, 0), "model")
	if err != nil {
		return err
	}
	if err := m.scalar(slotModelVersion, 4, "model version"); err != nil {
		return err
	}
	if err := m.tables(slotModelOperatorCodes, "operator codes", "operator code", func(t fbTable, item string) error {
		return checkFields(t, item, [2]int64{slotOpCodeDeprecated, 1}, [2]int64{slotOpCodeCustom, -1},
			[2]int64{slotOpCodeVersion, 4}, [2]int64{slotOpCodeBuiltin, 4})
	}); err != nil {
		return err
	}
	if err := m.tables(slotModelSubgraphs, "subgraphs", "subgraph", func(g fbTable, item string) error {
		if err := checkFields(g, item, [2]int64{slotSubGraphInputs, -4}, [2]int64{slotSubGraphOutputs, -4}); err != nil {
			return err
		}
		if err := g.tables(slotSubGraphTensors, item+" tensors", item+" tensor", func(t fbTable, item string) error {
			return checkFields(t, item, [2]int64{slotTensorShape, -4}, [2]int64{slotTensorType, 1}, [2]int64{slotTensorBuffer, 4},
				[2]int64{slotTensorName, -1}, [2]int64{slotTensorVariable, 1})
		}); err != nil {
			return err
		}
		return g.tables(slotSubGraphOperators, item+" operators", item+" operator", func(t fbTable, item string) error {
			return checkFields(t, item, [2]int64{slotOperatorOpcode, 4}, [2]int64{slotOperatorInputs, -4}, [2]int64{slotOperatorOutputs, -4})
		})
	}); err != nil {
		return err
	}
	if err := m.tables(slotModelBuffers, "buffers", "buffer", func(t fbTable, item string) error {
		return checkFields(t, item, [2]int64{slotBufferData, -1}, [2]int64{slotBufferOffset, 8}, [2]int64{slotBufferSize, 8})
	}); err != nil {
		return err
	}
	return m.tables(slotModelMetadata, "metadata", "metadata entry", func(t fbTable, item string) error {
		return checkFields(t, item, [2]int64{slotMetadataName, -1}, [2]int64{slotMetadataBuffer, 4})
	})
}
