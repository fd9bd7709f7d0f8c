package main

import (
	"bytes"
	"encoding/json"
)

// marshalJSON encodes v on one line for machine-readable output. Unlike
// json.Marshal it leaves <, > and & as they are: our messages are full of
// "want 0 <= first", which json.Marshal would write as \u003c.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
