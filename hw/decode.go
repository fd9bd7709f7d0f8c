package hw

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/hieropt/hieropt/inputerr"
)

// FromMap builds and validates a Profile from a decoded YAML or JSON
// document (maps with string keys, lists, strings, numbers, booleans), as a
// YAML library or viper's AllSettings returns it. Keys are matched without
// regard to case, because viper lowercases them. doc names the document in
// errors.
func FromMap(doc string, m map[string]any) (*Profile, error) {
	top := mapReader{doc: doc, m: m}
	format, err := top.str("format", true)
	if err != nil {
		return nil, err
	}
	if format != Format {
		return nil, inputerr.New(doc, "", "format %q is not supported: want %q", format, Format)
	}
	p := &Profile{}
	if p.Name, err = top.str("name", true); err != nil {
		return nil, err
	}
	if p.Description, err = top.str("description", false); err != nil {
		return nil, err
	}
	if p.TimeUnit, err = top.str("time_unit", true); err != nil {
		return nil, err
	}
	raw, ok := top.get("levels")
	if !ok || raw == nil {
		return nil, inputerr.New(doc, "", "missing required field \"levels\"")
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, inputerr.New(doc, "", "field \"levels\": want a list of levels, got %s", typeName(raw))
	}
	p.Levels = make([]Level, len(list))
	for i, it := range list {
		item := fmt.Sprintf("level %d", i)
		lm, ok := asMap(it)
		if !ok {
			return nil, inputerr.New(doc, item, "want a mapping with name, capacity, alignment, in and out; got %s", typeName(it))
		}
		lr := mapReader{doc: doc, item: item, m: lm}
		if n, ok := lr.get("name"); ok {
			if s, ok := n.(string); ok && s != "" {
				lr.item = fmt.Sprintf("level %q", s)
			}
		}
		if p.Levels[i], err = lr.level(); err != nil {
			return nil, err
		}
	}
	if err := p.Validate(doc); err != nil {
		return nil, err
	}
	return p, nil
}

type mapReader struct {
	doc, item string
	m         map[string]any
}

func (r mapReader) get(key string) (any, bool) {
	if v, ok := r.m[key]; ok {
		return v, true
	}
	// Case-insensitive fallback, in a fixed order for determinism.
	keys := make([]string, 0, len(r.m))
	for k := range r.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.EqualFold(k, key) {
			return r.m[k], true
		}
	}
	return nil, false
}

func (r mapReader) errorf(key, rule string, args ...any) error {
	return inputerr.New(r.doc, r.item, fmt.Sprintf("field %q: ", key)+fmt.Sprintf(rule, args...))
}

func (r mapReader) str(key string, required bool) (string, error) {
	v, ok := r.get(key)
	if !ok || v == nil {
		if required {
			return "", inputerr.New(r.doc, r.item, "missing required field %q", key)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", r.errorf(key, "want a string, got %s", typeName(v))
	}
	return s, nil
}

func (r mapReader) integer(key string) (int64, error) {
	v, ok := r.get(key)
	if !ok || v == nil {
		return 0, inputerr.New(r.doc, r.item, "missing required field %q", key)
	}
	switch n := v.(type) {
	case int:
		return int64(n), nil
	case int64:
		return n, nil
	case int32:
		return int64(n), nil
	case uint64:
		if n > math.MaxInt64 {
			return 0, r.errorf(key, "integer %d does not fit in 64 bits", n)
		}
		return int64(n), nil
	case uint:
		if uint64(n) > math.MaxInt64 {
			return 0, r.errorf(key, "integer %d does not fit in 64 bits", n)
		}
		return int64(n), nil
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, r.errorf(key, "want an integer, got %v", n)
		}
		if n != math.Trunc(n) {
			return 0, r.errorf(key, "want an integer, got %v", n)
		}
		// A YAML integer too large for int64 arrives as a float.
		if n >= 1<<63 || n < -(1<<63) {
			return 0, r.errorf(key, "integer %v does not fit in 64 bits", n)
		}
		if math.Abs(n) > 1<<53 {
			return 0, r.errorf(key, "integer %v is too large to be exact; write it without a fraction or exponent", n)
		}
		return int64(n), nil
	}
	return 0, r.errorf(key, "want an integer, got %s", typeName(v))
}

func (r mapReader) number(key string) (float64, error) {
	v, ok := r.get(key)
	if !ok || v == nil {
		return 0, inputerr.New(r.doc, r.item, "missing required field %q", key)
	}
	switch n := v.(type) {
	case int:
		return float64(n), nil
	case int64:
		return float64(n), nil
	case int32:
		return float64(n), nil
	case uint64:
		return float64(n), nil
	case uint:
		return float64(n), nil
	case float64:
		return n, nil
	case float32:
		return float64(n), nil
	}
	return 0, r.errorf(key, "want a number, got %s", typeName(v))
}

func (r mapReader) link(key string) (Link, error) {
	v, ok := r.get(key)
	if !ok || v == nil {
		return Link{}, inputerr.New(r.doc, r.item, "missing required field %q", key)
	}
	m, ok := asMap(v)
	if !ok {
		return Link{}, r.errorf(key, "want a mapping {latency, bandwidth}, got %s", typeName(v))
	}
	sub := mapReader{doc: r.doc, item: r.item, m: m}
	var l Link
	var err error
	if l.Latency, err = sub.number("latency"); err != nil {
		return l, prefixField(err, key)
	}
	if l.Bandwidth, err = sub.number("bandwidth"); err != nil {
		return l, prefixField(err, key)
	}
	return l, nil
}

// prefixField turns `field "latency"` into `field "in.latency"`.
func prefixField(err error, parent string) error {
	if e := (*inputerr.Error)(nil); errors.As(err, &e) {
		e.Rule = strings.Replace(e.Rule, `field "`, `field "`+parent+`.`, 1)
		return err
	}
	return err
}

func (r mapReader) level() (Level, error) {
	var l Level
	var err error
	if l.Name, err = r.str("name", true); err != nil {
		return l, err
	}
	if l.Capacity, err = r.integer("capacity"); err != nil {
		return l, err
	}
	if l.Alignment, err = r.integer("alignment"); err != nil {
		return l, err
	}
	if l.In, err = r.link("in"); err != nil {
		return l, err
	}
	if l.Out, err = r.link("out"); err != nil {
		return l, err
	}
	return l, nil
}

func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, val := range m {
			out[fmt.Sprint(k)] = val
		}
		return out, true
	}
	return nil, false
}

func typeName(v any) string {
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
	case []any:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping"
	case int, int64, int32, uint, uint64, float64, float32:
		return fmt.Sprintf("number %v", t)
	}
	return fmt.Sprintf("%T", v)
}
