// Package docjson reads JSON documents field by field, so that a wrong type
// or a missing field becomes an inputerr.Error that names the document, the
// item and the field, rather than a decoder message with a byte offset.
//
// Numbers are read exactly: integers from their literal text, so sizes and
// offsets beyond 2^53 keep every digit, and a value beyond int64 is an error
// instead of a silent wrap. An integer may be written with an exponent or a
// zero fraction (1e3, 1024.0).
package docjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hieropt/hieropt/inputerr"
)

// Object is one JSON object of a document.
type Object struct {
	doc, item string
	// fields are the object's members in document order; a key given
	// twice is in it twice, and the later one counts (see get).
	fields []field
}

// field is one member of an object: its key, decoded, and its value as
// written (no white space around it).
type field struct {
	key []byte
	raw json.RawMessage
}

// get returns the value of key: the last member with that key, as
// decoding into a map gives it.
func (o *Object) get(key string) (json.RawMessage, bool) {
	for i := len(o.fields) - 1; i >= 0; i-- {
		if string(o.fields[i].key) == key {
			return o.fields[i].raw, true
		}
	}
	return nil, false
}

// ParseDocument decodes data as a JSON object. It rejects trailing data.
// A leading UTF-8 byte order mark, which some editors write, is skipped
// (RFC 8259 section 8.1 lets a parser ignore it); positions in errors count
// from after it, as an editor shows them.
func ParseDocument(doc string, data []byte) (*Object, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, inputerr.New(doc, "", "empty document: want a JSON object")
	}
	if json.Valid(data) {
		// One value with white space around it: the decoder below would
		// take it and find nothing after it. The members are split
		// without decoding them again (newObject).
		return newObject(doc, "", bytes.Trim(data, " \t\r\n"))
	}
	// Invalid: the decoder says where, as it always did.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, syntaxError(doc, data, err)
	}
	// Anything but white space after the object is an error, even when it
	// is not valid JSON itself (dec.Token would fail on it and hide it).
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		line, col := position(data, int64(len(data)-len(rest)))
		return nil, inputerr.New(doc, "", "invalid JSON at line %d, column %d: data after the top-level object", line, col)
	}
	return NewObject(doc, "", raw)
}

func syntaxError(doc string, data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the offending byte; position wants the bytes before it.
		line, col := position(data, max(se.Offset-1, 0))
		return &inputerr.Error{Doc: doc, Rule: fmt.Sprintf("invalid JSON at line %d, column %d: %s", line, col, se.Error()), Err: err}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &inputerr.Error{Doc: doc, Rule: "invalid JSON: unexpected end of file", Err: err}
	}
	return &inputerr.Error{Doc: doc, Rule: "invalid JSON: " + err.Error(), Err: err}
}

// position returns the 1-based line and column of the byte at offset.
func position(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// NewObject decodes raw as a JSON object that belongs to item of doc.
func NewObject(doc, item string, raw json.RawMessage) (*Object, error) {
	if !json.Valid(raw) {
		return nil, inputerr.New(doc, item, "want a JSON object, got %s", describe(raw))
	}
	return newObject(doc, item, bytes.Trim(raw, " \t\r\n"))
}

// newObject is NewObject of valid JSON text with no white space around
// it.
func newObject(doc, item string, raw []byte) (*Object, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, inputerr.New(doc, item, "want a JSON object, got %s", describe(raw))
	}
	fields, err := members(raw)
	if err != nil {
		return nil, inputerr.New(doc, item, "want a JSON object, got %s", describe(raw))
	}
	return &Object{doc: doc, item: item, fields: fields}, nil
}

// Doc returns the document name the object reports errors under.
func (o *Object) Doc() string { return o.doc }

// Item returns the item name the object reports errors under.
func (o *Object) Item() string { return o.item }

// Has reports whether the field is present (even as null).
func (o *Object) Has(key string) bool {
	_, ok := o.get(key)
	return ok
}

// Given reports whether the field is present and not null: whether an
// optional field was given a value.
func (o *Object) Given(key string) bool {
	raw, ok := o.get(key)
	return ok && !isNull(raw)
}

func (o *Object) errorf(key, rule string, args ...any) error {
	return inputerr.New(o.doc, o.item, fmt.Sprintf("field %q: ", key)+fmt.Sprintf(rule, args...))
}

func (o *Object) missing(key string) error {
	return inputerr.New(o.doc, o.item, "missing required field %q", key)
}

// String reads a string field. A missing optional field gives "".
func (o *Object) String(key string, required bool) (string, error) {
	raw, ok := o.get(key)
	if !ok || isNull(raw) {
		if required {
			return "", o.missing(key)
		}
		return "", nil
	}
	s, ok := stringValue(raw)
	if !ok {
		return "", o.errorf(key, "want a string, got %s", describe(raw))
	}
	return s, nil
}

// Bool reads a boolean field; a missing optional field gives def.
func (o *Object) Bool(key string, def bool) (bool, error) {
	raw, ok := o.get(key)
	if !ok || isNull(raw) {
		return def, nil
	}
	switch string(raw) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, o.errorf(key, "want true or false, got %s", describe(raw))
}

// Int64 reads an integer field. present is false for a missing optional
// field.
func (o *Object) Int64(key string, required bool) (v int64, present bool, err error) {
	raw, ok := o.get(key)
	if !ok || isNull(raw) {
		if required {
			return 0, false, o.missing(key)
		}
		return 0, false, nil
	}
	v, err = parseInt(raw)
	if err != nil {
		return 0, false, o.errorf(key, "%v", err)
	}
	return v, true, nil
}

// Float reads a finite number field.
func (o *Object) Float(key string, required bool) (v float64, present bool, err error) {
	raw, ok := o.get(key)
	if !ok || isNull(raw) {
		if required {
			return 0, false, o.missing(key)
		}
		return 0, false, nil
	}
	if !isNumber(raw) {
		return 0, false, o.errorf(key, "want a number, got %s", describe(raw))
	}
	n := string(raw)
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false, o.errorf(key, "number %s is out of range", n)
	}
	return f, true, nil
}

// IntList reads an array of integers. A missing optional field gives nil.
func (o *Object) IntList(key string, required bool) ([]int64, error) {
	raw, ok := o.get(key)
	if !ok || isNull(raw) {
		if required {
			return nil, o.missing(key)
		}
		return nil, nil
	}
	if len(raw) == 0 || raw[0] != '[' {
		return nil, o.errorf(key, "want an array of integers, got %s", describe(raw))
	}
	out := make([]int64, 0, 4)
	i := skipSpace(raw, 1)
	if raw[i] == ']' {
		return out, nil
	}
	for k := 0; ; k++ {
		end, err := skipValue(raw, i)
		if err != nil {
			return nil, o.errorf(key, "want an array of integers, got %s", describe(raw))
		}
		v, err := parseInt(raw[i:end])
		if err != nil {
			return nil, o.errorf(key, "element %d: %v", k, err)
		}
		out = append(out, v)
		i = skipSpace(raw, end)
		if raw[i] == ']' {
			return out, nil
		}
		i = skipSpace(raw, i+1) // past the comma
	}
}

// Array reads an array field as raw elements.
func (o *Object) Array(key string, required bool) ([]json.RawMessage, error) {
	raw, ok := o.get(key)
	if !ok || isNull(raw) {
		if required {
			return nil, o.missing(key)
		}
		return nil, nil
	}
	items, ok := elements(raw)
	if !ok {
		return nil, o.errorf(key, "want an array, got %s", describe(raw))
	}
	return items, nil
}

// Elem is an element of an array field read by Objects: valid JSON, read
// as an object (Object) when its turn comes.
type Elem struct {
	doc string
	raw []byte
}

// Objects reads an array field whose elements are objects, each to be
// read with Elem.Object: as Array, without decoding the elements twice.
func (o *Object) Objects(key string, required bool) ([]Elem, error) {
	items, err := o.Array(key, required)
	if err != nil {
		return nil, err
	}
	out := make([]Elem, len(items))
	for i, it := range items {
		out[i] = Elem{doc: o.doc, raw: it}
	}
	return out, nil
}

// Raw returns the element as written.
func (e Elem) Raw() json.RawMessage { return e.raw }

// Object reads the element as NewObject(doc, item(Name(raw)), raw) does:
// an object whose errors name the item that item makes of the object's
// "name" field (Name).
func (e Elem) Object(item func(name string) string) (*Object, error) {
	if len(e.raw) == 0 || e.raw[0] != '{' {
		return nil, inputerr.New(e.doc, item(""), "want a JSON object, got %s", describe(e.raw))
	}
	fields, err := members(e.raw)
	if err != nil {
		return nil, inputerr.New(e.doc, item(""), "want a JSON object, got %s", describe(e.raw))
	}
	return &Object{doc: e.doc, item: item(nameOf(e.raw, fields)), fields: fields}, nil
}

// Object reads an object field. A missing optional field gives nil.
func (o *Object) Object(key string, required bool) (*Object, error) {
	raw, ok := o.get(key)
	if !ok || isNull(raw) {
		if required {
			return nil, o.missing(key)
		}
		return nil, nil
	}
	sub, err := newObject(o.doc, o.item, raw)
	if err != nil {
		return nil, o.errorf(key, "want an object, got %s", describe(raw))
	}
	sub.item = strings.TrimPrefix(o.item+": "+key, ": ")
	return sub, nil
}

// Name peeks at the "name" field of a raw object, for naming it in errors
// before it is fully decoded. It returns "" when there is none.
func Name(raw json.RawMessage) string {
	if !json.Valid(raw) {
		return ""
	}
	raw = bytes.Trim(raw, " \t\r\n")
	if raw[0] != '{' {
		return slowName(raw)
	}
	fields, err := members(raw)
	if err != nil {
		return slowName(raw)
	}
	return nameOf(raw, fields)
}

// nameOf is Name of raw, a valid JSON object split into fields.
func nameOf(raw []byte, fields []field) string {
	// Decoding into a struct matches the key case-insensitively, and the
	// last member that matches counts. A value other than a string or
	// null (which may fail to decode), or a key beyond ASCII (Unicode
	// case folding), is left to the decoder.
	name := ""
	for _, f := range fields {
		if !asciiOnly(f.key) {
			return slowName(raw)
		}
		if !bytes.EqualFold(f.key, nameKey) {
			continue
		}
		switch f.raw[0] {
		case '"':
			s, ok := stringValue(f.raw)
			if !ok {
				return slowName(raw)
			}
			name = s
		case 'n':
			name = ""
		default:
			return slowName(raw)
		}
	}
	return name
}

var nameKey = []byte("name")

// slowName is Name through the decoder: a struct with one field "name".
func slowName(raw json.RawMessage) string {
	var v struct {
		Name any `json:"name"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	s, _ := v.Name.(string)
	return s
}

func asciiOnly(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// isNumber reports whether raw, a valid JSON value, is a number.
func isNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// parseInt reads raw, a valid JSON value, as an integer.
func parseInt(raw json.RawMessage) (int64, error) {
	if !isNumber(raw) {
		return 0, fmt.Errorf("want an integer, got %s", describe(raw))
	}
	n := string(raw)
	v, err := strconv.ParseInt(n, 10, 64)
	if err == nil {
		return v, nil
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("integer %s does not fit in 64 bits", n)
	}
	// Not a plain integer literal: accept 1e6 or 1024.0, which are integral,
	// but nothing fractional. The literal is read as decimal digits, not
	// through a float64, which would round 1.0000000000000001 to 1.
	v, isInt, fits := decimalInt(n)
	switch {
	case !isInt:
		return 0, fmt.Errorf("want an integer, got %s", n)
	case !fits:
		return 0, fmt.Errorf("integer %s does not fit in 64 bits", n)
	}
	return v, nil
}

// decimalInt reads a JSON number literal exactly. isInt says whether it
// denotes an integer, fits whether that integer fits in an int64.
func decimalInt(s string) (v int64, isInt, fits bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expStr, _ := strings.Cut(strings.ToLower(s), "e")
	exp, err := strconv.ParseInt(expStr, 10, 32)
	if expStr == "" {
		exp = 0
	} else if err != nil {
		// An exponent beyond ±2^31: far too large or far too small.
		exp = math.MaxInt32
		if strings.HasPrefix(expStr, "-") {
			exp = math.MinInt32
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	// The value is 0.digits x 10^point once leading zeros are gone.
	point := int64(len(intPart)) + exp
	trimmed := strings.TrimLeft(digits, "0")
	point -= int64(len(digits) - len(trimmed))
	digits = strings.TrimRight(trimmed, "0")
	switch {
	case digits == "":
		return 0, true, true
	case int64(len(digits)) > point:
		return 0, false, false // digits after the decimal point
	case point > 19:
		return 0, true, false // at least 10^19 > 2^63
	}
	lit := digits + strings.Repeat("0", int(point)-len(digits))
	if neg {
		lit = "-" + lit
	}
	v, err = strconv.ParseInt(lit, 10, 64)
	return v, true, err == nil
}

// describe names the JSON type of raw for error messages.
func describe(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return "nothing"
	}
	switch s[0] {
	case '"':
		if len(s) > 40 {
			return "a string"
		}
		return "string " + string(s)
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		if len(s) > 40 {
			return "number " + string(s[:40]) + "…"
		}
		return "number " + string(s)
	}
}
