package docjson

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// The functions below split JSON text that json.Valid has accepted (a
// document, or a value within one) into its parts, without checking it
// again: an object into its members, an array into its elements. They
// give what decoding into map[string]json.RawMessage and
// []json.RawMessage gives, at a fraction of its cost: keys decoded, values
// as written.

// errNotValid is returned for text that is not what was expected; it
// cannot happen for text json.Valid accepted.
var errNotValid = errors.New("docjson: not valid JSON")

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string that begins at b[i]
// (a quote), and whether it holds an escape.
func skipString(b []byte, i int) (end int, escaped bool, err error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++ // the escaped byte; \u's hex digits are plain bytes
		case '"':
			return j + 1, escaped, nil
		}
	}
	return 0, false, errNotValid
}

// skipValue returns the index just past the value that begins at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errNotValid
	}
	switch b[i] {
	case '"':
		end, _, err := skipString(b, i)
		return end, err
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errNotValid
	default: // a number, true, false or null
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return j, nil
			}
			j++
		}
		return j, nil
	}
}

// stringValue decodes raw, a valid JSON value, as a string; ok is false
// when it is not one.
func stringValue(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if plainString(body) {
		return string(body), true
	}
	// Escapes, or bytes the decoder replaces (invalid UTF-8): the
	// decoder's own reading.
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// stringBytes is stringValue as bytes: the body itself where it reads
// as itself (no copy).
func stringBytes(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	if body := raw[1 : len(raw)-1]; plainString(body) {
		return body, true
	}
	s, ok := stringValue(raw)
	return []byte(s), ok
}

// plainString reports whether a string's body reads as itself: no
// escape, and valid UTF-8.
func plainString(body []byte) bool {
	ascii := true
	for _, c := range body {
		if c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(body)
}

// members splits raw, a valid JSON object with no white space around it,
// into its members in document order.
func members(raw []byte) ([]field, error) {
	out := make([]field, 0, 12)
	i := skipSpace(raw, 1)
	if i < len(raw) && raw[i] == '}' {
		return []field{}, nil
	}
	for i < len(raw) {
		if raw[i] != '"' {
			return nil, errNotValid
		}
		end, _, err := skipString(raw, i)
		if err != nil {
			return nil, err
		}
		key, ok := stringBytes(raw[i:end])
		if !ok {
			return nil, errNotValid
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, errNotValid
		}
		i = skipSpace(raw, i+1)
		vend, err := skipValue(raw, i)
		if err != nil {
			return nil, err
		}
		out = append(out, field{key: key, raw: raw[i:vend:vend]})
		i = skipSpace(raw, vend)
		if i >= len(raw) {
			return nil, errNotValid
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return out, nil
		default:
			return nil, errNotValid
		}
	}
	return nil, errNotValid
}

// elements splits raw, a valid JSON value with no white space around it,
// into the elements of the array it is; ok is false when it is not an
// array.
func elements(raw []byte) (items []json.RawMessage, ok bool) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	items = []json.RawMessage{}
	i := skipSpace(raw, 1)
	if i < len(raw) && raw[i] == ']' {
		return items, true
	}
	for i < len(raw) {
		end, err := skipValue(raw, i)
		if err != nil {
			return nil, false
		}
		items = append(items, raw[i:end:end])
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return items, true
		default:
			return nil, false
		}
	}
	return nil, false
}
