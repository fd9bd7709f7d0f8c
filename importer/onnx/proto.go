package onnx

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// The subset of the ONNX protobuf schema (onnx.proto3) the importer
// reads, decoded field by field from the wire format. Field numbers are
// those of onnx.proto.

type model struct {
	graph graph
}

type graph struct {
	name        string
	nodes       []node
	initializer []tensor
	inputs      []valueInfo
	outputs     []valueInfo
	valueInfo   []valueInfo
}

type node struct {
	inputs, outputs []string
	name, opType    string
	attrs           []attribute
}

type attribute struct {
	name string
	i    int64
	ints []int64
	t    *tensor
}

type tensor struct {
	name     string
	dims     []int64
	dataType int32
}

type valueInfo struct {
	name     string
	elemType int32
	hasShape bool
	dims     []dim
}

type dim struct {
	value int64 // valid when param == "" and set
	param string
	set   bool
}

// fields walks the fields of one message.
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			if err := f(num, typ, nil, x); err != nil {
				return err
			}
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			if err := f(num, typ, v, 0); err != nil {
				return err
			}
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	return nil
}

// varints reads a repeated int64 field, packed or not.
func varints(typ protowire.Type, v []byte, x uint64, out []int64) ([]int64, error) {
	if typ == protowire.VarintType {
		return append(out, int64(x)), nil
	}
	for len(v) > 0 {
		y, n := protowire.ConsumeVarint(v)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		out = append(out, int64(y))
		v = v[n:]
	}
	return out, nil
}

func parseModel(b []byte) (*model, error) {
	m := &model{}
	seenGraph := false
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num == 7 && typ == protowire.BytesType { // ModelProto.graph
			seenGraph = true
			return parseGraph(v, &m.graph)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !seenGraph {
		return nil, fmt.Errorf("no graph in the model")
	}
	return m, nil
}

func parseGraph(b []byte, g *graph) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1: // node
			var n node
			if err := parseNode(v, &n); err != nil {
				return err
			}
			g.nodes = append(g.nodes, n)
		case 2:
			g.name = string(v)
		case 5: // initializer
			var t tensor
			if err := parseTensor(v, &t); err != nil {
				return err
			}
			g.initializer = append(g.initializer, t)
		case 11, 12, 13: // input, output, value_info
			var vi valueInfo
			if err := parseValueInfo(v, &vi); err != nil {
				return err
			}
			switch num {
			case 11:
				g.inputs = append(g.inputs, vi)
			case 12:
				g.outputs = append(g.outputs, vi)
			default:
				g.valueInfo = append(g.valueInfo, vi)
			}
		}
		return nil
	})
}

func parseNode(b []byte, n *node) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			n.inputs = append(n.inputs, string(v))
		case 2:
			n.outputs = append(n.outputs, string(v))
		case 3:
			n.name = string(v)
		case 4:
			n.opType = string(v)
		case 5:
			var a attribute
			if err := parseAttribute(v, &a); err != nil {
				return err
			}
			n.attrs = append(n.attrs, a)
		}
		return nil
	})
}

func parseAttribute(b []byte, a *attribute) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		var err error
		switch {
		case num == 1 && typ == protowire.BytesType:
			a.name = string(v)
		case num == 3 && typ == protowire.VarintType: // i
			a.i = int64(x)
		case num == 5 && typ == protowire.BytesType: // t
			a.t = &tensor{}
			err = parseTensor(v, a.t)
		case num == 8: // ints
			a.ints, err = varints(typ, v, x, a.ints)
		}
		return err
	})
}

func parseTensor(b []byte, t *tensor) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		var err error
		switch {
		case num == 1: // dims
			t.dims, err = varints(typ, v, x, t.dims)
		case num == 2 && typ == protowire.VarintType:
			t.dataType = int32(x)
		case num == 8 && typ == protowire.BytesType:
			t.name = string(v)
		}
		return err
	})
}

func parseValueInfo(b []byte, vi *valueInfo) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			vi.name = string(v)
		case 2: // TypeProto
			return fields(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if num != 1 || typ != protowire.BytesType { // tensor_type
					return nil
				}
				return fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
					switch {
					case num == 1 && typ == protowire.VarintType:
						vi.elemType = int32(x)
					case num == 2 && typ == protowire.BytesType: // shape
						vi.hasShape = true
						return fields(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
							if num != 1 || typ != protowire.BytesType {
								return nil
							}
							var d dim
							err := fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
								switch {
								case num == 1 && typ == protowire.VarintType:
									d.value, d.set = int64(x), true
								case num == 2 && typ == protowire.BytesType:
									d.param = string(v)
								}
								return nil
							})
							vi.dims = append(vi.dims, d)
							return err
						})
					}
					return nil
				})
			})
		}
		return nil
	})
}
