package tflm

import (
	"encoding/binary"
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/hieropt/hieropt/importer/tflite/schema"
)

// bufferAlign is the alignment of every buffer's data in a written model:
// schema.fbs asks 16 (force_align) for it, as TFLite's converter writes.
const bufferAlign = 16

// Write returns a copy of the model with offsets as its offline plan
// (version Version, 1 subgraph, N = len(offsets)): the existing
// OfflineMemoryAllocation entry's buffer gets the new plan, else a buffer
// and a metadata entry are added. Everything else the model holds is
// unchanged in meaning (the flatbuffer is rebuilt by the object API of
// package schema, with every buffer's data aligned to 16 bytes).
// Models that keep buffers outside the flatbuffer (over 2 GB) are refused.
func (m *Model) Write(offsets []int32) (out []byte, err error) {
	doc := DocName(m.File)
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%s: malformed TFLite flatbuffer (truncated or corrupt): %v", doc, r)
		}
	}()
	mt := schema.GetRootAsModel(m.data, 0).UnPack()
	for i, b := range mt.Buffers {
		if b != nil && b.Offset > 1 {
			return nil, fmt.Errorf("%s: buffer %d: data stored outside the flatbuffer (offset %d) is not supported", doc, i, b.Offset)
		}
	}
	payload := make([]byte, 4*(3+len(offsets)))
	binary.LittleEndian.PutUint32(payload[0:], Version)
	binary.LittleEndian.PutUint32(payload[4:], 1)
	binary.LittleEndian.PutUint32(payload[8:], uint32(len(offsets)))
	for k, o := range offsets {
		binary.LittleEndian.PutUint32(payload[12+4*k:], uint32(o))
	}
	if m.Offline != nil {
		mt.Buffers[m.Offline.Buffer] = &schema.BufferT{Data: payload}
	} else {
		mt.Buffers = append(mt.Buffers, &schema.BufferT{Data: payload})
		mt.Metadata = append(mt.Metadata, &schema.MetadataT{Name: MetadataName, Buffer: uint32(len(mt.Buffers) - 1)})
	}
	b := flatbuffers.NewBuilder(len(m.data) + len(payload) + 1024)
	b.FinishWithFileIdentifier(packModel(b, mt), []byte("TFL3"))
	return b.FinishedBytes(), nil
}

// packModel is schema.ModelT.Pack with each buffer's data aligned to
// bufferAlign (the generated code aligns it to 4 only).
func packModel(b *flatbuffers.Builder, t *schema.ModelT) flatbuffers.UOffsetT {
	tables := func(n int, pack func(int) flatbuffers.UOffsetT, start func(*flatbuffers.Builder, int) flatbuffers.UOffsetT) flatbuffers.UOffsetT {
		if n == 0 {
			return 0
		}
		offs := make([]flatbuffers.UOffsetT, n)
		for j := range offs {
			offs[j] = pack(j)
		}
		start(b, n)
		for j := n - 1; j >= 0; j-- {
			b.PrependUOffsetT(offs[j])
		}
		return b.EndVector(n)
	}
	opCodes := tables(len(t.OperatorCodes), func(j int) flatbuffers.UOffsetT { return t.OperatorCodes[j].Pack(b) }, schema.ModelStartOperatorCodesVector)
	subgraphs := tables(len(t.Subgraphs), func(j int) flatbuffers.UOffsetT { return t.Subgraphs[j].Pack(b) }, schema.ModelStartSubgraphsVector)
	description := b.CreateString(t.Description)
	buffers := tables(len(t.Buffers), func(j int) flatbuffers.UOffsetT { return packBuffer(b, t.Buffers[j]) }, schema.ModelStartBuffersVector)
	metadataBuffer := flatbuffers.UOffsetT(0)
	if t.MetadataBuffer != nil {
		schema.ModelStartMetadataBufferVector(b, len(t.MetadataBuffer))
		for j := len(t.MetadataBuffer) - 1; j >= 0; j-- {
			b.PrependInt32(t.MetadataBuffer[j])
		}
		metadataBuffer = b.EndVector(len(t.MetadataBuffer))
	}
	metadata := tables(len(t.Metadata), func(j int) flatbuffers.UOffsetT { return t.Metadata[j].Pack(b) }, schema.ModelStartMetadataVector)
	signatures := tables(len(t.SignatureDefs), func(j int) flatbuffers.UOffsetT { return t.SignatureDefs[j].Pack(b) }, schema.ModelStartSignatureDefsVector)
	groups := tables(len(t.ExternalBufferGroups), func(j int) flatbuffers.UOffsetT { return t.ExternalBufferGroups[j].Pack(b) }, schema.ModelStartExternalBufferGroupsVector)
	external := tables(len(t.ExternalBuffers), func(j int) flatbuffers.UOffsetT { return t.ExternalBuffers[j].Pack(b) }, schema.ModelStartExternalBuffersVector)
	schema.ModelStart(b)
	schema.ModelAddVersion(b, t.Version)
	schema.ModelAddOperatorCodes(b, opCodes)
	schema.ModelAddSubgraphs(b, subgraphs)
	schema.ModelAddDescription(b, description)
	schema.ModelAddBuffers(b, buffers)
	schema.ModelAddMetadataBuffer(b, metadataBuffer)
	schema.ModelAddMetadata(b, metadata)
	schema.ModelAddSignatureDefs(b, signatures)
	schema.ModelAddExternalBufferGroups(b, groups)
	schema.ModelAddExternalBuffers(b, external)
	return schema.ModelEnd(b)
}

// packBuffer is schema.BufferT.Pack with the data aligned to bufferAlign.
func packBuffer(b *flatbuffers.Builder, t *schema.BufferT) flatbuffers.UOffsetT {
	if t == nil {
		return 0
	}
	data := flatbuffers.UOffsetT(0)
	if t.Data != nil {
		b.StartVector(1, len(t.Data), bufferAlign)
		for j := len(t.Data) - 1; j >= 0; j-- {
			b.PlaceByte(t.Data[j])
		}
		data = b.EndVector(len(t.Data))
	}
	schema.BufferStart(b)
	schema.BufferAddData(b, data)
	schema.BufferAddOffset(b, t.Offset)
	schema.BufferAddSize(b, t.Size)
	return schema.BufferEnd(b)
}
