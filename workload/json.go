package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/internal/docjson"
)

// DocName returns how errors name the workload document in file.
func DocName(file string) string { return inputerr.Doc("workload", file) }

// ReadFile reads and validates a workload document.
func ReadFile(path string) (*Program, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &inputerr.Error{Doc: DocName(path), Rule: "cannot read: " + describeIOError(err), Err: err}
	}
	return Parse(path, data)
}

func describeIOError(err error) string {
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Parse decodes and validates a workload document; file names it in errors.
func Parse(file string, data []byte) (*Program, error) {
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
	p := &Program{}
	if p.Name, err = top.String("name", true); err != nil {
		return nil, err
	}
	if p.Source, err = top.String("source", false); err != nil {
		return nil, err
	}
	ops, err := top.Objects("ops", true)
	if err != nil {
		return nil, err
	}
	p.Ops = make([]Op, len(ops))
	if err := inOrder(len(ops), func(i int) (err error) {
		p.Ops[i], err = parseOp(i, ops[i])
		return err
	}); err != nil {
		return nil, err
	}
	blocks, err := top.Objects("blocks", true)
	if err != nil {
		return nil, err
	}
	p.Blocks = make([]Block, len(blocks))
	if err := inOrder(len(blocks), func(i int) (err error) {
		p.Blocks[i], err = parseBlock(doc, i, blocks[i], len(p.Ops))
		return err
	}); err != nil {
		return nil, err
	}
	if err := p.Validate(doc); err != nil {
		return nil, err
	}
	return p, nil
}

// parseChunk is how many ops or blocks a core of inOrder decodes at a
// time.
const parseChunk = 1024

// inOrder calls parse(i) for every i in [0, n), on all cores in chunks
// when there are several (each element decodes on its own), and returns
// the error of the lowest i that has one: the error a loop in order would
// stop at.
func inOrder(n int, parse func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), (n+parseChunk-1)/parseChunk)
	if workers <= 1 {
		for i := range n {
			if err := parse(i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		next  atomic.Int64
		mu    sync.Mutex
		first = n // the lowest i with an error so far
		ferr  error
	)
	work := func() {
		for {
			lo := int(next.Add(parseChunk)) - parseChunk
			mu.Lock()
			stop := lo >= first
			mu.Unlock()
			if lo >= n || stop {
				return // chunks are taken in order: the rest lie above
			}
			for i := lo; i < min(lo+parseChunk, n); i++ {
				if err := parse(i); err != nil {
					mu.Lock()
					if i < first {
						first, ferr = i, err
					}
					mu.Unlock()
					break
				}
			}
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return ferr
}

func parseOp(i int, e docjson.Elem) (Op, error) {
	o, err := e.Object(func(name string) string { return opItem(i, name) })
	if err != nil {
		return Op{}, err
	}
	var op Op
	if op.Name, err = o.String("name", true); err != nil {
		return op, err
	}
	if op.Type, err = o.String("type", false); err != nil {
		return op, err
	}
	if op.MACs, _, err = o.Int64("macs", false); err != nil {
		return op, err
	}
	return op, nil
}

// parseBlock decodes block i of a program of numOps ops. Validate checks
// the rules; only values too large for a timestep are caught here, with the
// message Validate would give.
func parseBlock(doc string, i int, e docjson.Elem, numOps int) (Block, error) {
	o, err := e.Object(func(name string) string {
		// strconv rather than fmt: every block is named so.
		if name != "" {
			return "block " + strconv.Quote(name)
		}
		return "block " + strconv.Itoa(i)
	})
	if err != nil {
		return Block{}, err
	}
	item := o.Item()
	var b Block
	if b.Name, err = o.String("name", true); err != nil {
		return b, err
	}
	if b.Size, _, err = o.Int64("size", true); err != nil {
		return b, err
	}
	kind, err := o.String("kind", true)
	if err != nil {
		return b, err
	}
	var ok bool
	if b.Kind, ok = ParseKind(kind); !ok {
		return b, inputerr.New(doc, item, "kind %q: want one of input, output, activation, scratch, constant", kind)
	}
	first, _, err := o.Int64("first", true)
	if err != nil {
		return b, err
	}
	last, _, err := o.Int64("last", true)
	if err != nil {
		return b, err
	}
	if !isStep(first) || !isStep(last) {
		return b, inputerr.New(doc, item, "%s", lifetimeRule(first, last, numOps))
	}
	b.First, b.Last = int(first), int(last)
	if b.Writes, err = steps(o, "writes", first, last); err != nil {
		return b, err
	}
	if b.Reads, err = steps(o, "reads", first, last); err != nil {
		return b, err
	}
	if b.Reusable, err = o.Bool("reusable", false); err != nil {
		return b, err
	}
	if b.Level, err = o.String("level", false); err != nil {
		return b, err
	}
	if o.Given("level") && b.Level == "" {
		return b, inputerr.New(doc, item, "field \"level\": empty level name")
	}
	align, present, err := o.Int64("align", false)
	if err != nil {
		return b, err
	}
	if present && align <= 0 {
		return b, inputerr.New(doc, item, "align %d: must be > 0 bytes", align)
	}
	b.Align = align
	tensor, present, err := o.Int64("tensor", false)
	if err != nil {
		return b, err
	}
	if present {
		if tensor < 0 || tensor > math.MaxInt32 {
			return b, inputerr.New(doc, item, "tensor %d: must be a tensor index >= 0", tensor)
		}
		t := int(tensor)
		b.Tensor = &t
	}
	return b, nil
}

// isStep reports whether v fits the int32 the indexes keep timesteps in.
func isStep(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

// steps reads the list of timesteps key of a block living on [first, last].
func steps(o *docjson.Object, key string, first, last int64) ([]int, error) {
	vs, err := o.IntList(key, true)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(vs))
	for i, v := range vs {
		if !isStep(v) {
			return nil, inputerr.New(o.Doc(), o.Item(), "%s", outsideRule(key, v, first, last))
		}
		out[i] = int(v)
	}
	return out, nil
}

// jsonBlock and jsonWorkload are the on-disk shapes, for writing.
type jsonOp struct {
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
	MACs int64  `json:"macs,omitempty"`
}

type jsonBlock struct {
	Name     string `json:"name"`
	Size     int64  `json:"size"`
	Kind     string `json:"kind"`
	First    int    `json:"first"`
	Last     int    `json:"last"`
	Writes   []int  `json:"writes"`
	Reads    []int  `json:"reads"`
	Reusable bool   `json:"reusable,omitempty"`
	Level    string `json:"level,omitempty"`
	Align    int64  `json:"align,omitempty"`
	Tensor   *int   `json:"tensor,omitempty"`
}

// Write writes p as a workload document: one op or block per line, so that
// large workloads stay readable and diffable.
func (p *Program) Write(w io.Writer) error {
	var buf bytes.Buffer
	head := struct {
		Format string `json:"format"`
		Name   string `json:"name"`
		Source string `json:"source,omitempty"`
	}{Format, p.Name, p.Source}
	h, err := json.Marshal(head)
	if err != nil {
		return err
	}
	buf.Write(h[:len(h)-1])
	buf.WriteString(",\n  \"ops\": [")
	for i, op := range p.Ops {
		line, err := json.Marshal(jsonOp(op))
		if err != nil {
			return err
		}
		writeElem(&buf, i, line)
	}
	buf.WriteString("\n  ],\n  \"blocks\": [")
	for i := range p.Blocks {
		b := &p.Blocks[i]
		jb := jsonBlock{Name: b.Name, Size: b.Size, Kind: b.Kind.String(), First: b.First, Last: b.Last,
			Writes: nonNil(b.Writes), Reads: nonNil(b.Reads), Reusable: b.Reusable, Level: b.Level, Align: b.Align, Tensor: b.Tensor}
		line, err := json.Marshal(jb)
		if err != nil {
			return err
		}
		writeElem(&buf, i, line)
	}
	buf.WriteString("\n  ]\n}\n")
	_, err = w.Write(buf.Bytes())
	return err
}

func writeElem(buf *bytes.Buffer, i int, line []byte) {
	if i > 0 {
		buf.WriteByte(',')
	}
	buf.WriteString("\n    ")
	buf.Write(line)
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}
