package docjson

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzSplit: the splitting of valid JSON gives what the decoder gives
// (members as map[string]json.RawMessage does, the last of a key
// counting; elements as []json.RawMessage; strings; Name as a struct
// with one field "name").
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a": 1, "a": 2}`, `{"name": "x", "NAME": "y"}`, `{"Name": null}`,
		`{"name": 1e999}`, `{"n\u0061me": "z", "b": [1, {"c": "]"}], "d": "\"}"}`,
		` { "name" : "\u00e9\ud83d\ude00" , "k": true } `, `["a", 1.5e3, null, {"x": []}, [[]]]`,
		`{"nam\u212a": "kelvin"}`, `{"naMe": "a", "name": 3}`, "{\"name\": \"\xff\"}", `"s\n"`, `12`,
		`{"a":{"b":{"c":[1,2,{"d":"}"}]}},"name":"deep"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		raw := bytes.Trim(data, " \t\r\n")
		require.Equal(t, slowName(data), Name(data), "Name(%q)", data)
		switch raw[0] {
		case '{':
			fs, err := members(raw)
			require.NoError(t, err)
			var want map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &want))
			got := map[string]json.RawMessage{}
			for _, f := range fs {
				got[string(f.key)] = f.raw
			}
			require.Equal(t, want, got, "%q", raw)
			o, err := Elem{doc: "d", raw: raw}.Object(func(name string) string { return "item " + name })
			require.NoError(t, err)
			require.Equal(t, "item "+Name(raw), o.Item())
		case '[':
			items, ok := elements(raw)
			require.True(t, ok)
			var want []json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &want))
			require.Equal(t, want, items, "%q", raw)
		case '"':
			s, ok := stringValue(raw)
			require.True(t, ok)
			var want string
			require.NoError(t, json.Unmarshal(raw, &want))
			require.Equal(t, want, s)
		}
	})
}
