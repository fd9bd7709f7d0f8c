// Package plan is the plan document of FORMATS.md section 3
// ("hieropt.plan/v1"): for every block, where it lives over its lifetime
// (placements) and when it moves (transfers), with its cost.
//
// It is the document only, plain data: its types, Parse and ReadFile to
// read it (the syntax and the fields; not the rules), Write to write it.
// It imports nothing of the planner. Package verify checks a plan against
// its workload and profile, rule by rule; the planner's side converts
// between plans and its layouts (state.Layout.Plan, state.LayoutOf).
package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/internal/docjson"
)

// Format is the value of the "format" field of a plan document.
const Format = "hieropt.plan/v1"

// Placement says that Block sits at Offset of Level during [From, To].
type Placement struct {
	Block  string `json:"block"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Level  string `json:"level"`
	Offset int64  `json:"offset"`
}

// Transfer says that Block moves at timestep At: from FromLevel at
// FromOffset (its placement until At-1) to ToLevel at ToOffset (its
// placement from At on). Under the timeline model (FORMATS.md section 6.2)
// the copy is issued at the beginning of timestep Start <= At, and a
// transfer may be a load (Load): the copy of a constant's stored bytes
// from its home level into its first placement, At its first timestep.
//
// In the document, start is written only where it differs from at, and a
// load has no from_offset (MarshalJSON), so a plan without either reads and
// writes as before section 6.
type Transfer struct {
	Block string
	At    int
	// Start is the timestep at whose beginning the copy is issued; the
	// document's start, At when it has none. Code that builds a transfer
	// sets it (a zero Start is timestep 0, a prefetch from the start of the
	// program, not "the default").
	Start      int
	FromLevel  string
	FromOffset int64 // 0 for a load
	ToLevel    string
	ToOffset   int64
	// Load says the transfer is a load: the document has no from_offset.
	Load bool
}

// MarshalJSON writes the transfer as one object of the document, its
// fields in the order block, at, start, from_level, from_offset, to_level,
// to_offset; start only where it differs from at, from_offset only where
// the transfer is not a load.
func (x Transfer) MarshalJSON() ([]byte, error) {
	type doc struct {
		Block      string `json:"block"`
		At         int    `json:"at"`
		Start      *int   `json:"start,omitempty"`
		FromLevel  string `json:"from_level"`
		FromOffset *int64 `json:"from_offset,omitempty"`
		ToLevel    string `json:"to_level"`
		ToOffset   int64  `json:"to_offset"`
	}
	d := doc{Block: x.Block, At: x.At, FromLevel: x.FromLevel, ToLevel: x.ToLevel, ToOffset: x.ToOffset}
	if x.Start != x.At {
		d.Start = &x.Start
	}
	if !x.Load {
		d.FromOffset = &x.FromOffset
	}
	return json.Marshal(d)
}

// Cost is the plan's cost: Initial is the initializer's plan, Final this
// one.
type Cost struct {
	Initial float64
	Final   float64
}

// Plan is a plan document.
type Plan struct {
	Workload  string
	Hardware  string
	TimeUnit  string
	CostModel string // "" means the default model
	Cost      Cost
	// Planner records how the plan was made (extra field, informational).
	Planner    string
	Placements []Placement
	Transfers  []Transfer
}

// DocName returns how errors name the plan document in file.
func DocName(file string) string { return inputerr.Doc("plan", file) }

// ReadFile reads a plan document (it does not check it against a
// workload and a profile: see package verify).
func ReadFile(path string) (*Plan, error) {
	data, err := inputerr.ReadFile(DocName(path), path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes a plan document; file names it in errors. A transfer
// without start gets Start = At; one without from_offset is a load (Load).
func Parse(file string, data []byte) (*Plan, error) {
	doc := DocName(file)
	top, err := docjson.ParseDocument(doc, data)
	if err != nil {
		return nil, err
	}
	format, err := top.String("format", true)
	if err != nil {
		return nil, err
	}
	if format != Format {
		return nil, inputerr.New(doc, "", "format %q is not supported: want %q", format, Format)
	}
	pl := &Plan{}
	if pl.Workload, err = top.String("workload", true); err != nil {
		return nil, err
	}
	if pl.Hardware, err = top.String("hardware", true); err != nil {
		return nil, err
	}
	if pl.TimeUnit, err = top.String("time_unit", true); err != nil {
		return nil, err
	}
	if pl.CostModel, err = top.String("cost_model", false); err != nil {
		return nil, err
	}
	if pl.Planner, err = top.String("planner", false); err != nil {
		return nil, err
	}
	cost, err := top.Object("cost", true)
	if err != nil {
		return nil, err
	}
	if pl.Cost.Initial, _, err = cost.Float("initial", true); err != nil {
		return nil, err
	}
	if pl.Cost.Final, _, err = cost.Float("final", true); err != nil {
		return nil, err
	}
	places, err := top.Objects("placements", true)
	if err != nil {
		return nil, err
	}
	pl.Placements = make([]Placement, len(places))
	for i, e := range places {
		item := fmt.Sprintf("placements[%d]", i)
		o, err := e.Object(func(string) string { return item })
		if err != nil {
			return nil, err
		}
		p := &pl.Placements[i]
		if p.Block, err = o.String("block", true); err != nil {
			return nil, err
		}
		if p.From, err = step(o, item, "from"); err != nil {
			return nil, err
		}
		if p.To, err = step(o, item, "to"); err != nil {
			return nil, err
		}
		if p.Level, err = o.String("level", true); err != nil {
			return nil, err
		}
		if p.Offset, _, err = o.Int64("offset", true); err != nil {
			return nil, err
		}
	}
	transfers, err := top.Objects("transfers", true)
	if err != nil {
		return nil, err
	}
	pl.Transfers = make([]Transfer, len(transfers))
	for i, e := range transfers {
		item := fmt.Sprintf("transfers[%d]", i)
		o, err := e.Object(func(string) string { return item })
		if err != nil {
			return nil, err
		}
		x := &pl.Transfers[i]
		if x.Block, err = o.String("block", true); err != nil {
			return nil, err
		}
		if x.At, err = step(o, item, "at"); err != nil {
			return nil, err
		}
		x.Start = x.At
		if o.Has("start") {
			if !o.Given("start") {
				return nil, inputerr.New(doc, item, "field \"start\": want an integer timestep, got null (leave it out to issue the copy at \"at\")")
			}
			if x.Start, err = step(o, item, "start"); err != nil {
				return nil, err
			}
		}
		if x.FromLevel, err = o.String("from_level", true); err != nil {
			return nil, err
		}
		// A transfer without from_offset is a load (FORMATS.md 6.2); one
		// with from_offset null is neither.
		x.Load = !o.Has("from_offset")
		if o.Has("from_offset") && !o.Given("from_offset") {
			return nil, inputerr.New(doc, item, "field \"from_offset\": want an integer, got null (a load has no from_offset at all)")
		}
		if !x.Load {
			if x.FromOffset, _, err = o.Int64("from_offset", true); err != nil {
				return nil, err
			}
		}
		if x.ToLevel, err = o.String("to_level", true); err != nil {
			return nil, err
		}
		if x.ToOffset, _, err = o.Int64("to_offset", true); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// step reads a timestep field of item (a placement or transfer, named so
// in errors).
func step(o *docjson.Object, item, key string) (int, error) {
	v, _, err := o.Int64(key, true)
	if err != nil {
		return 0, err
	}
	if v < -1<<31 || v > 1<<31-1 {
		return 0, inputerr.New(o.Doc(), item, "field %q: timestep %d out of range", key, v)
	}
	return int(v), nil
}

// Write writes the plan document: header fields first, then one placement
// or transfer per line. The output depends on nothing but the plan.
func (pl *Plan) Write(w io.Writer) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  \"format\": %s,\n  \"workload\": %s,\n  \"hardware\": %s,\n  \"time_unit\": %s,\n",
		quote(Format), quote(pl.Workload), quote(pl.Hardware), quote(pl.TimeUnit))
	if pl.CostModel != "" {
		fmt.Fprintf(&buf, "  \"cost_model\": %s,\n", quote(pl.CostModel))
	}
	if pl.Planner != "" {
		fmt.Fprintf(&buf, "  \"planner\": %s,\n", quote(pl.Planner))
	}
	fmt.Fprintf(&buf, "  \"cost\": {\"initial\": %s, \"final\": %s},\n", num(pl.Cost.Initial), num(pl.Cost.Final))
	buf.WriteString("  \"placements\": [")
	for i := range pl.Placements {
		elemStart(&buf, i)
		pl.Placements[i].appendJSON(&buf)
	}
	if len(pl.Placements) > 0 {
		buf.WriteString("\n  ")
	}
	buf.WriteString("],\n  \"transfers\": [")
	for i := range pl.Transfers {
		elemStart(&buf, i)
		pl.Transfers[i].appendJSON(&buf)
	}
	if len(pl.Transfers) > 0 {
		buf.WriteString("\n  ")
	}
	buf.WriteString("]\n}\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// elemStart begins element i of an array, one a line.
func elemStart(buf *bytes.Buffer, i int) {
	if i > 0 {
		buf.WriteByte(',')
	}
	buf.WriteString("\n    ")
}

// appendJSON writes the placement as json.Marshal does (its fields in
// struct order), without reflection: a plan has a line per placement.
func (p *Placement) appendJSON(buf *bytes.Buffer) {
	buf.WriteString(`{"block":`)
	appendString(buf, p.Block)
	buf.WriteString(`,"from":`)
	buf.WriteString(strconv.Itoa(p.From))
	buf.WriteString(`,"to":`)
	buf.WriteString(strconv.Itoa(p.To))
	buf.WriteString(`,"level":`)
	appendString(buf, p.Level)
	buf.WriteString(`,"offset":`)
	buf.WriteString(strconv.FormatInt(p.Offset, 10))
	buf.WriteByte('}')
}

// appendJSON writes the transfer as MarshalJSON does, without reflection.
func (x *Transfer) appendJSON(buf *bytes.Buffer) {
	buf.WriteString(`{"block":`)
	appendString(buf, x.Block)
	buf.WriteString(`,"at":`)
	buf.WriteString(strconv.Itoa(x.At))
	if x.Start != x.At {
		buf.WriteString(`,"start":`)
		buf.WriteString(strconv.Itoa(x.Start))
	}
	buf.WriteString(`,"from_level":`)
	appendString(buf, x.FromLevel)
	if !x.Load {
		buf.WriteString(`,"from_offset":`)
		buf.WriteString(strconv.FormatInt(x.FromOffset, 10))
	}
	buf.WriteString(`,"to_level":`)
	appendString(buf, x.ToLevel)
	buf.WriteString(`,"to_offset":`)
	buf.WriteString(strconv.FormatInt(x.ToOffset, 10))
	buf.WriteByte('}')
}

// appendString writes s as json.Marshal does: as it is where every byte
// is printable ASCII that needs no escape (json.Marshal escapes <, > and &
// too), else through json.Marshal.
func appendString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			buf.WriteString(quote(s))
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// num formats a cost with every digit a float64 holds, so that a reader
// recomputes the same value.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
