package hw

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hieropt/hieropt/inputerr"
)

// The keys of each mapping of the format, in the order they are read (and
// in which a missing one is reported). A key of the document that is not
// here is ignored (FORMATS.md: readers ignore the fields they do not know),
// unless it differs from one of these only in case or in '_' against '-':
// that is a mistake, and an error naming both. A new field is a key here,
// a line in the mapping's reader and a field in its struct.
var (
	profileKeys = []string{"format", "name", "description", "time_unit", "cost_model", "compute", "dma", "levels"}
	levelKeys   = []string{"name", "capacity", "alignment", "in", "out", "read_only"}
	linkKeys    = []string{"latency", "bandwidth"}
	computeKeys = []string{"macs_per_unit", "op_overhead"}
	dmaKeys     = []string{"channels"}
)

// Ignored is a key of a profile document that this reader does not know and
// ignored, as FORMATS.md requires of readers; `hieropt profiles FILE`
// lists them, since a misspelt optional field would be ignored too.
type Ignored struct {
	Line int    // 1-based line of the key
	Item string // the level it is in (`level "SRAM"`), "" at the top
	Key  string // the key, with its parent's ("in.note") inside in and out
}

func (g Ignored) String() string {
	item := ""
	if g.Item != "" {
		item = g.Item + ": "
	}
	return fmt.Sprintf("%sline %d: key %q is not a field of %s; ignored", item, g.Line, g.Key, Format)
}

// ReadFile reads and validates the profile document at path.
func ReadFile(path string) (*Profile, error) {
	data, err := inputerr.ReadFile(DocName(path), path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads a YAML profile document (FORMATS.md section 2) and checks
// every rule of the format (Validate); file names it in errors. Keys are
// matched exactly: a key that differs from a field of the format only in
// case or in '_' against '-' ("Capacity", "time-unit") is an error naming
// the field; any other key is ignored (ParseIgnored lists them). Errors
// about a place in the document give its line.
func Parse(file string, data []byte) (*Profile, error) {
	p, _, err := ParseIgnored(file, data)
	return p, err
}

// ParseIgnored is Parse that also returns the keys it ignored, in document
// order.
func ParseIgnored(file string, data []byte) (*Profile, []Ignored, error) {
	d := &decoder{doc: DocName(file)}
	p, err := d.profile(data)
	if err != nil {
		return nil, nil, err
	}
	if err := p.Validate(d.doc); err != nil {
		return nil, nil, err
	}
	sort.SliceStable(d.ignored, func(i, j int) bool { return d.ignored[i].Line < d.ignored[j].Line })
	return p, d.ignored, nil
}

const wantMapping = "want a YAML mapping with format, name, time_unit and levels"

type decoder struct {
	doc     string
	ignored []Ignored
}

func (d *decoder) profile(data []byte) (*Profile, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, inputerr.New(d.doc, "", "empty document: "+wantMapping)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &inputerr.Error{Doc: d.doc, Rule: "invalid YAML: " + oneLine(strings.TrimPrefix(err.Error(), "yaml: ")), Err: err}
	}
	if dup := duplicateKeys(&root); len(dup) > 0 {
		return nil, inputerr.New(d.doc, "", "invalid YAML: %s", strings.Join(dup, "; "))
	}
	top := &root
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		top = top.Content[0]
	}
	top = resolve(top)
	if top.Kind != yaml.MappingNode {
		if top.Kind == 0 || top.Kind == yaml.DocumentNode || top.ShortTag() == "!!null" {
			return nil, inputerr.New(d.doc, "", wantMapping)
		}
		return nil, inputerr.New(d.doc, "", "%s, got %s", wantMapping, nodeKind(top))
	}
	m, err := d.mapping(top, "", "", profileKeys)
	if err != nil {
		return nil, err
	}
	format, err := m.str("format", true)
	if err != nil {
		return nil, err
	}
	if format != Format {
		return nil, inputerr.New(d.doc, "", "format %q is not supported: want %q", format, Format)
	}
	p := &Profile{}
	if p.Name, err = m.str("name", true); err != nil {
		return nil, err
	}
	if p.Description, err = m.str("description", false); err != nil {
		return nil, err
	}
	if p.TimeUnit, err = m.str("time_unit", true); err != nil {
		return nil, err
	}
	if err := m.timeline(p); err != nil {
		return nil, err
	}
	levels, ok := m.get("levels")
	if !ok {
		return nil, inputerr.New(d.doc, "", "missing required field \"levels\"")
	}
	if levels.Kind != yaml.SequenceNode {
		return nil, m.errorf("levels", "want a list of levels, got %s", nodeKind(levels))
	}
	p.Levels = make([]Level, len(levels.Content))
	for i, n := range levels.Content {
		if p.Levels[i], err = d.level(i, resolve(n)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (d *decoder) level(i int, n *yaml.Node) (Level, error) {
	var l Level
	item := fmt.Sprintf("level %d", i)
	if n.Kind != yaml.MappingNode {
		return l, inputerr.New(d.doc, item, "line %d: want a mapping with name, capacity, alignment, in and out; got %s", n.Line, nodeKind(n))
	}
	// The level is named by its name in errors, when it has one.
	for j := 0; j+1 < len(n.Content); j += 2 {
		if k, v := n.Content[j], resolve(n.Content[j+1]); k.Value == "name" && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && v.Value != "" {
			item = fmt.Sprintf("level %q", v.Value)
		}
	}
	m, err := d.mapping(n, item, "", levelKeys)
	if err != nil {
		return l, err
	}
	if l.Name, err = m.str("name", true); err != nil {
		return l, err
	}
	if l.Capacity, err = m.integer("capacity"); err != nil {
		return l, err
	}
	if l.Alignment, err = m.integer("alignment"); err != nil {
		return l, err
	}
	if l.In, err = m.link("in"); err != nil {
		return l, err
	}
	if l.Out, err = m.link("out"); err != nil {
		return l, err
	}
	if l.ReadOnly, err = m.boolean("read_only"); err != nil {
		return l, err
	}
	return l, nil
}

// timeline reads the top-level fields of FORMATS.md 6.1 into p:
// cost_model, compute and dma, all optional. The rules of their values
// that Validate checks too (macs_per_unit > 0, op_overhead >= 0) are left
// to it; those it cannot see are checked here: an empty cost_model, a
// compute section without macs_per_unit, dma.channels < 1 (0 in a Profile
// means the default).
func (m *mapping) timeline(p *Profile) error {
	var err error
	if p.CostModel, err = m.str("cost_model", false); err != nil {
		return err
	}
	if m.given("cost_model") && p.CostModel == "" {
		return m.errorf("cost_model", "want the name of a cost model, got an empty string")
	}
	if n, ok := m.get("compute"); ok {
		if n.Kind != yaml.MappingNode {
			return m.errorf("compute", "want a mapping {macs_per_unit, op_overhead}, got %s", nodeKind(n))
		}
		sub, err := m.d.mapping(n, m.item, "compute.", computeKeys)
		if err != nil {
			return err
		}
		c := &Compute{}
		if c.MACsPerUnit, err = sub.number("macs_per_unit"); err != nil {
			return err
		}
		if _, ok := sub.get("op_overhead"); ok {
			if c.OpOverhead, err = sub.number("op_overhead"); err != nil {
				return err
			}
		}
		p.Compute = c
	}
	if n, ok := m.get("dma"); ok {
		if n.Kind != yaml.MappingNode {
			return m.errorf("dma", "want a mapping {channels}, got %s", nodeKind(n))
		}
		sub, err := m.d.mapping(n, m.item, "dma.", dmaKeys)
		if err != nil {
			return err
		}
		if _, ok := sub.get("channels"); ok {
			ch, err := sub.integer("channels")
			if err != nil {
				return err
			}
			if ch < 1 || ch > math.MaxInt32 {
				return sub.errorf("channels", "%d: want an integer >= 1 (copies that can run at once)", ch)
			}
			p.DMA.Channels = int(ch)
		}
	}
	return nil
}

// link reads the link at key of m.
func (m *mapping) link(key string) (Link, error) {
	var l Link
	n, ok := m.get(key)
	if !ok {
		return l, m.missing(key)
	}
	if n.Kind != yaml.MappingNode {
		return l, m.errorf(key, "want a mapping {latency, bandwidth}, got %s", nodeKind(n))
	}
	sub, err := m.d.mapping(n, m.item, m.path+key+".", linkKeys)
	if err != nil {
		return l, err
	}
	if l.Latency, err = sub.number("latency"); err != nil {
		return l, err
	}
	if l.Bandwidth, err = sub.number("bandwidth"); err != nil {
		return l, err
	}
	return l, nil
}

// mapping is one mapping node of the document being read, its known keys
// found.
type mapping struct {
	d    *decoder
	node *yaml.Node
	item string                // the level, "" at the top
	path string                // the parent key and a dot inside in and out ("in."), else ""
	vals map[string]*yaml.Node // as written: an alias is resolved by get
}

// mapping checks the keys of n against known and returns the mapping. A
// key that is not known is ignored (and recorded) unless it resembles a
// known one (same letters in another case, or '-' for '_'), which is an
// error naming the key it resembles.
func (d *decoder) mapping(n *yaml.Node, item, path string, known []string) (*mapping, error) {
	m := &mapping{d: d, node: n, item: item, path: path, vals: make(map[string]*yaml.Node, len(known))}
	for _, kv := range pairs(n, 0) {
		k, v := kv[0], kv[1]
		key := k.Value
		if isKnown(key, known) {
			if _, set := m.vals[key]; !set {
				m.vals[key] = v
			}
			continue
		}
		if like, ok := resembles(key, known); ok {
			return nil, inputerr.New(d.doc, item, "line %d: key %q: keys are case-sensitive; did you mean %q?", k.Line, path+key, path+like)
		}
		d.ignored = append(d.ignored, Ignored{Line: k.Line, Item: item, Key: path + key})
	}
	return m, nil
}

// pairs returns the key-value pairs of the mapping n, its own first, then
// those of the mappings its merge keys ("<<: *defaults") name, as YAML
// merges them: a key already there wins.
func pairs(n *yaml.Node, depth int) [][2]*yaml.Node {
	var own, merged [][2]*yaml.Node
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!merge" || depth > 16 {
			own = append(own, [2]*yaml.Node{k, v})
			continue
		}
		v = resolve(v)
		from := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			from = v.Content
		}
		for _, src := range from {
			if src = resolve(src); src.Kind == yaml.MappingNode {
				merged = append(merged, pairs(src, depth+1)...)
			}
		}
	}
	return append(own, merged...)
}

func isKnown(key string, known []string) bool {
	for _, k := range known {
		if k == key {
			return true
		}
	}
	return false
}

// resembles returns the known key that key differs from only in case or
// in '-' for '_'.
func resembles(key string, known []string) (string, bool) {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }
	for _, k := range known {
		if norm(key) == norm(k) {
			return k, true
		}
	}
	return "", false
}

// get returns the value of key, an alias resolved; a null value counts as
// missing.
func (m *mapping) get(key string) (*yaml.Node, bool) {
	v, ok := m.vals[key]
	if !ok {
		return nil, false
	}
	if v = resolve(v); v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return nil, false
	}
	return v, true
}

// given reports whether key is written in m with a value other than null.
func (m *mapping) given(key string) bool {
	_, ok := m.get(key)
	return ok
}

// missing is the error of a required key that m lacks (or holds null);
// inside a level it gives the line where the mapping starts.
func (m *mapping) missing(key string) error {
	if m.item == "" {
		return inputerr.New(m.d.doc, "", "missing required field %q", m.path+key)
	}
	return inputerr.New(m.d.doc, m.item, "line %d: missing required field %q", m.node.Line, m.path+key)
}

// errorf is the error of the value of key, at the line where it is
// written (where an alias names it, not where its anchor is).
func (m *mapping) errorf(key, rule string, args ...any) error {
	return inputerr.New(m.d.doc, m.item, fmt.Sprintf("line %d: field %q: ", m.vals[key].Line, m.path+key)+fmt.Sprintf(rule, args...))
}

// scalar decodes the scalar value n as YAML does for an untyped value:
// int, uint64 or float64 for numbers, string, bool; ok is false for a
// list or a mapping.
func scalar(n *yaml.Node) (any, bool) {
	if n.Kind != yaml.ScalarNode {
		return nil, false
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value, true
	}
	return v, true
}

func (m *mapping) str(key string, required bool) (string, error) {
	n, ok := m.get(key)
	if !ok {
		if required {
			return "", m.missing(key)
		}
		return "", nil
	}
	v, _ := scalar(n)
	s, ok := v.(string)
	if !ok || n.ShortTag() != "!!str" {
		return "", m.errorf(key, "want a string, got %s", nodeKind(n))
	}
	if s == "" && required {
		return "", m.missing(key)
	}
	return s, nil
}

// boolean reads the optional boolean at key: false when it is missing.
func (m *mapping) boolean(key string) (bool, error) {
	n, ok := m.get(key)
	if !ok {
		return false, nil
	}
	v, _ := scalar(n)
	b, isBool := v.(bool)
	if !isBool || n.ShortTag() != "!!bool" {
		return false, m.errorf(key, "want true or false, got %s", nodeKind(n))
	}
	return b, nil
}

func (m *mapping) integer(key string) (int64, error) {
	n, ok := m.get(key)
	if !ok {
		return 0, m.missing(key)
	}
	v, _ := scalar(n)
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case uint64:
		if x > math.MaxInt64 {
			return 0, m.errorf(key, "integer %d does not fit in 64 bits", x)
		}
		return int64(x), nil
	case float64:
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0) || x != math.Trunc(x):
			return 0, m.errorf(key, "want an integer, got %v", x)
		case x >= 1<<63 || x < -(1<<63): // a YAML integer too large for 64 bits is a float
			return 0, m.errorf(key, "integer %v does not fit in 64 bits", x)
		case math.Abs(x) > 1<<53:
			return 0, m.errorf(key, "integer %v is too large to be exact; write it without a fraction or exponent", x)
		}
		return int64(x), nil
	}
	return 0, m.errorf(key, "want an integer, got %s", nodeKind(n))
}

func (m *mapping) number(key string) (float64, error) {
	n, ok := m.get(key)
	if !ok {
		return 0, m.missing(key)
	}
	v, _ := scalar(n)
	switch x := v.(type) {
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, m.errorf(key, "want a number, got %s", nodeKind(n))
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// nodeKind says what n is, for "want X, got Y".
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		v, _ := scalar(n)
		switch t := v.(type) {
		case nil:
			return "nothing"
		case string:
			if len(t) > 40 {
				return "a string"
			}
			return fmt.Sprintf("string %q", t)
		case bool:
			return "a boolean"
		case int, int64, uint64, float64:
			return fmt.Sprintf("number %v", t)
		}
		return fmt.Sprintf("%s %q", strings.TrimPrefix(n.ShortTag(), "!!"), n.Value)
	}
	return "nothing"
}

// duplicateKeys lists the keys defined twice in a mapping of the document,
// as the YAML library words it ("line 7: mapping key "capacity" already
// defined at line 6"): a document with one is not valid YAML, even where
// the key would be ignored. Aliases are not followed (they name nodes
// checked where they are defined), so the walk is linear in the document.
func duplicateKeys(n *yaml.Node) []string {
	var out []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			seen := make(map[string]*yaml.Node, len(n.Content)/2)
			for j := 0; j+1 < len(n.Content); j += 2 {
				k := n.Content[j]
				if k.Kind != yaml.ScalarNode {
					continue
				}
				if first, dup := seen[k.Value]; dup {
					out = append(out, fmt.Sprintf("line %d: mapping key %q already defined at line %d", k.Line, k.Value, first.Line))
					continue
				}
				seen[k.Value] = k
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return out
}

// oneLine puts a YAML error on one line. Most are one line already; a
// decoding error lists its problems on the lines after a heading, which
// are the message: they are joined with "; " and the heading dropped.
func oneLine(s string) string {
	head, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return s
	}
	var parts []string
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return head
	}
	if strings.HasSuffix(head, ":") {
		return strings.Join(parts, "; ")
	}
	return head + ": " + strings.Join(parts, "; ")
}
