package docjson_test

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/internal/docjson"
)

// doc is the document name every object below reports errors under.
const doc = `test "t.json"`

// parse parses a document that must be a valid JSON object.
func parse(t *testing.T, src string) *docjson.Object {
	t.Helper()
	o, err := docjson.ParseDocument(doc, []byte(src))
	require.NoError(t, err, src)
	require.NotNil(t, o)
	return o
}

// assertInputError checks that err is an input error printed exactly as
// want on one line.
func assertInputError(t *testing.T, err error, want string) {
	t.Helper()
	require.Error(t, err)
	assert.Equal(t, want, err.Error())
	assert.True(t, inputerr.Is(err), "want an inputerr.Error, got %T", err)
	assert.NotContains(t, err.Error(), "\n")
}

func TestParseDocumentErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"empty", ``, doc + `: empty document: want a JSON object`},
		{"white space", "\r\n \t", doc + `: empty document: want a JSON object`},
		{"truncated", `{"a": [1, 2`, doc + `: invalid JSON: unexpected end of file`},
		{"unclosed string", `{"a": "b`, doc + `: invalid JSON: unexpected end of file`},
		{"bad first byte", `x`, doc + `: invalid JSON at line 1, column 1: invalid character 'x' looking for beginning of value`},
		{"bad value on line 3", "{\n\"a\": 1,\n\"b\": tru }", doc + `: invalid JSON at line 3, column 9: invalid character ' ' in literal true (expecting 'e')`},
		{"single quotes", `{'a': 1}`, doc + `: invalid JSON at line 1, column 2: invalid character '\'' looking for beginning of object key string`},
		{"trailing comma", `{"a": 1,}`, doc + `: invalid JSON at line 1, column 9: invalid character '}' looking for beginning of object key string`},
		{"trailing garbage", `{"a": 1} x`, doc + `: invalid JSON at line 1, column 10: data after the top-level object`},
		{"second object", "{}\n\n  {}", doc + `: invalid JSON at line 3, column 3: data after the top-level object`},
		{"stray bracket", `{}]`, doc + `: invalid JSON at line 1, column 3: data after the top-level object`},
		{"array", `[{}]`, doc + `: want a JSON object, got an array`},
		{"number", `12`, doc + `: want a JSON object, got number 12`},
		{"string", `"s"`, doc + `: want a JSON object, got string "s"`},
		{"long string", `"` + string(make([]byte, 50)) + `"`, doc + `: invalid JSON at line 1, column 2: invalid character '\x00' in string literal`},
		{"boolean", `true`, doc + `: want a JSON object, got a boolean`},
		{"null", `null`, doc + `: want a JSON object, got null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := docjson.ParseDocument(doc, []byte(tt.src))
			assert.Nil(t, o)
			assertInputError(t, err, tt.want)
		})
	}
}

func TestParseDocumentAcceptsWhiteSpace(t *testing.T) {
	o := parse(t, "\n\t {\"a\": 1} \r\n\t ")
	assert.True(t, o.Has("a"))
	assert.Equal(t, doc, o.Doc())
	assert.Equal(t, "", o.Item())
}

func TestInt64(t *testing.T) {
	tests := []struct {
		name    string
		value   string // the JSON value of field "n"
		want    int64
		wantErr string // the rule after `field "n": `; "" for success
	}{
		{"plain", `42`, 42, ""},
		{"zero", `0`, 0, ""},
		{"negative", `-7`, -7, ""},
		{"max int64", `9223372036854775807`, math.MaxInt64, ""},
		{"min int64", `-9223372036854775808`, math.MinInt64, ""},
		{"beyond 2^53 exactly", `9007199254740993`, 1<<53 + 1, ""},
		{"exponent", `1e3`, 1000, ""},
		{"capital exponent", `2E2`, 200, ""},
		{"integral fraction", `1024.0`, 1024, ""},
		{"negative exponent, integral", `5000e-3`, 5, ""},
		{"2^53 as exponent", `9.007199254740992e15`, 1 << 53, ""},
		{"beyond 2^53 as exponent", `9.007199254740993e15`, 1<<53 + 1, ""},
		{"1e18", `1e18`, 1_000_000_000_000_000_000, ""},
		{"max int64 as exponent", `9.223372036854775807e18`, math.MaxInt64, ""},
		{"min int64 as exponent", `-9.223372036854775808e18`, math.MinInt64, ""},
		{"plus exponent", `1E+2`, 100, ""},
		{"negative zero fraction", `-0.0`, 0, ""},
		{"zero with huge exponent", `0e99999999999`, 0, ""},
		{"trailing fraction zeros", `12.500e1`, 125, ""},
		{"fraction", `1.5`, 0, `want an integer, got 1.5`},
		{"negative exponent, fractional", `1e-3`, 0, `want an integer, got 1e-3`},
		{"fraction a float64 rounds away", `1.0000000000000001`, 0, `want an integer, got 1.0000000000000001`},
		{"tiny", `1e-400`, 0, `want an integer, got 1e-400`},
		{"tinier than any exponent", `1e-99999999999`, 0, `want an integer, got 1e-99999999999`},
		{"fraction of a large number", `92233720368547758.075e2`, 0, `want an integer, got 92233720368547758.075e2`},
		{"2^63", `9223372036854775808`, 0, `integer 9223372036854775808 does not fit in 64 bits`},
		{"below min int64", `-9223372036854775809`, 0, `integer -9223372036854775809 does not fit in 64 bits`},
		{"beyond int64", `99999999999999999999`, 0, `integer 99999999999999999999 does not fit in 64 bits`},
		{"2^63 as exponent", `9.223372036854775808e18`, 0, `integer 9.223372036854775808e18 does not fit in 64 bits`},
		{"1e300", `1e300`, 0, `integer 1e300 does not fit in 64 bits`},
		{"1e19", `1e19`, 0, `integer 1e19 does not fit in 64 bits`},
		{"1e400 overflows float64", `1e400`, 0, `integer 1e400 does not fit in 64 bits`},
		{"huge exponent", `1e99999999999`, 0, `integer 1e99999999999 does not fit in 64 bits`},
		{"string", `"42"`, 0, `want an integer, got string "42"`},
		{"boolean", `true`, 0, `want an integer, got a boolean`},
		{"array", `[1]`, 0, `want an integer, got an array`},
		{"object", `{"v": 1}`, 0, `want an integer, got an object`},
		{"long number", `1.00000000000000000000000000000000000000000001`, 0,
			`want an integer, got 1.00000000000000000000000000000000000000000001`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := parse(t, `{"n": `+tt.value+`}`)
			v, present, err := o.Int64("n", true)
			if tt.wantErr != "" {
				assertInputError(t, err, doc+`: field "n": `+tt.wantErr)
				assert.False(t, present)
				return
			}
			require.NoError(t, err)
			assert.True(t, present)
			assert.Equal(t, tt.want, v)
		})
	}
}

func TestMissingAndNull(t *testing.T) {
	o := parse(t, `{"nul": null}`)
	for _, key := range []string{"absent", "nul"} {
		t.Run(key, func(t *testing.T) {
			assert.Equal(t, key == "nul", o.Has(key), "Has")
			assert.False(t, o.Given(key), "Given")
			want := doc + `: missing required field "` + key + `"`

			_, present, err := o.Int64(key, true)
			assertInputError(t, err, want)
			assert.False(t, present)
			v, present, err := o.Int64(key, false)
			require.NoError(t, err)
			assert.False(t, present)
			assert.Zero(t, v)

			_, _, err = o.Float(key, true)
			assertInputError(t, err, want)
			f, present, err := o.Float(key, false)
			require.NoError(t, err)
			assert.False(t, present)
			assert.Zero(t, f)

			_, err = o.String(key, true)
			assertInputError(t, err, want)
			s, err := o.String(key, false)
			require.NoError(t, err)
			assert.Equal(t, "", s)

			_, err = o.IntList(key, true)
			assertInputError(t, err, want)
			l, err := o.IntList(key, false)
			require.NoError(t, err)
			assert.Nil(t, l)

			_, err = o.Array(key, true)
			assertInputError(t, err, want)
			a, err := o.Array(key, false)
			require.NoError(t, err)
			assert.Nil(t, a)

			_, err = o.Object(key, true)
			assertInputError(t, err, want)
			sub, err := o.Object(key, false)
			require.NoError(t, err)
			assert.Nil(t, sub)

			b, err := o.Bool(key, true)
			require.NoError(t, err)
			assert.True(t, b, "the default")
		})
	}
}

func TestFloat(t *testing.T) {
	tests := []struct {
		name, value string
		want        float64
		wantErr     string
	}{
		{"integer", `8`, 8, ""},
		{"fraction", `0.25`, 0.25, ""},
		{"exponent", `2.5e-3`, 0.0025, ""},
		{"negative", `-1.5`, -1.5, ""},
		{"huge", `1e308`, 1e308, ""},
		{"overflow", `1e400`, 0, `number 1e400 is out of range`},
		{"string", `"1.5"`, 0, `want a number, got string "1.5"`},
		{"boolean", `false`, 0, `want a number, got a boolean`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := parse(t, `{"f": `+tt.value+`}`)
			v, present, err := o.Float("f", true)
			if tt.wantErr != "" {
				assertInputError(t, err, doc+`: field "f": `+tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.True(t, present)
			assert.Equal(t, tt.want, v)
		})
	}
}

func TestStringBoolAndLists(t *testing.T) {
	o := parse(t, `{"s": "x", "ns": 3, "b": false, "nb": "true", "l": [3, 1e1, -2], "nl": {"a": 1},
		"bad": [1, 2.5], "mix": [1, "2"], "arr": [{}, 1, "x"], "narr": "x", "empty": []}`)

	s, err := o.String("s", true)
	require.NoError(t, err)
	assert.Equal(t, "x", s)
	_, err = o.String("ns", true)
	assertInputError(t, err, doc+`: field "ns": want a string, got number 3`)

	b, err := o.Bool("b", true)
	require.NoError(t, err)
	assert.False(t, b)
	_, err = o.Bool("nb", false)
	assertInputError(t, err, doc+`: field "nb": want true or false, got string "true"`)

	l, err := o.IntList("l", true)
	require.NoError(t, err)
	assert.Equal(t, []int64{3, 10, -2}, l)
	l, err = o.IntList("empty", true)
	require.NoError(t, err)
	assert.Equal(t, []int64{}, l)
	_, err = o.IntList("nl", true)
	assertInputError(t, err, doc+`: field "nl": want an array of integers, got an object`)
	_, err = o.IntList("bad", true)
	assertInputError(t, err, doc+`: field "bad": element 1: want an integer, got 2.5`)
	_, err = o.IntList("mix", true)
	assertInputError(t, err, doc+`: field "mix": element 1: want an integer, got string "2"`)

	a, err := o.Array("arr", true)
	require.NoError(t, err)
	assert.Equal(t, []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`1`), json.RawMessage(`"x"`)}, a)
	_, err = o.Array("narr", true)
	assertInputError(t, err, doc+`: field "narr": want an array, got string "x"`)
}

// TestNestedObjects checks that errors inside nested objects name the item
// and the path of fields that leads to them.
func TestNestedObjects(t *testing.T) {
	o := parse(t, `{"outer": {"inner": {"n": "x", "ok": 5}, "s": 1}, "list": [{"name": "b0", "size": "big"}, {"size": 1}], "notobj": [1]}`)

	outer, err := o.Object("outer", true)
	require.NoError(t, err)
	assert.Equal(t, "outer", outer.Item())
	_, err = outer.String("s", true)
	assertInputError(t, err, doc+`: outer: field "s": want a string, got number 1`)

	inner, err := outer.Object("inner", true)
	require.NoError(t, err)
	assert.Equal(t, "outer: inner", inner.Item())
	_, _, err = inner.Int64("n", true)
	assertInputError(t, err, doc+`: outer: inner: field "n": want an integer, got string "x"`)
	v, _, err := inner.Int64("ok", true)
	require.NoError(t, err)
	assert.Equal(t, int64(5), v)
	_, err = inner.String("gone", true)
	assertInputError(t, err, doc+`: outer: inner: missing required field "gone"`)

	_, err = o.Object("notobj", true)
	assertInputError(t, err, doc+`: field "notobj": want an object, got an array`)

	// Elements of an array are named by the caller, by name when they have
	// one; NewObject keeps that item in its errors.
	items, err := o.Array("list", true)
	require.NoError(t, err)
	require.Len(t, items, 2)
	assert.Equal(t, "b0", docjson.Name(items[0]))
	assert.Equal(t, "", docjson.Name(items[1]))
	b0, err := docjson.NewObject(doc, `block "b0"`, items[0])
	require.NoError(t, err)
	_, _, err = b0.Int64("size", true)
	assertInputError(t, err, doc+`: block "b0": field "size": want an integer, got string "big"`)
	sub, err := b0.Object("size", false)
	assert.Nil(t, sub)
	assertInputError(t, err, doc+`: block "b0": field "size": want an object, got string "big"`)

	_, err = docjson.NewObject(doc, `block 3`, json.RawMessage(`"s"`))
	assertInputError(t, err, doc+`: block 3: want a JSON object, got string "s"`)
}

func TestName(t *testing.T) {
	tests := []struct {
		raw, want string
	}{
		{`{"name": "conv1"}`, "conv1"},
		{`{"name": 5}`, ""},
		{`{"name": null}`, ""},
		{`{}`, ""},
		{`[1]`, ""},
		{`not json`, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, docjson.Name(json.RawMessage(tt.raw)), tt.raw)
	}
}

// FuzzInt64 checks Int64 against math/big: a number is accepted exactly when
// it is an integer that fits in 64 bits, and then read without rounding.
func FuzzInt64(f *testing.F) {
	for _, s := range []string{"0", "-1", "1e3", "1.5", "9223372036854775808", "1e300", "1024.0", "\"1\"",
		"1.0000000000000001", "-9.223372036854775808e18", "12.500e1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		o, err := docjson.ParseDocument(doc, []byte(`{"n": `+value+`}`))
		if err != nil {
			require.True(t, inputerr.Is(err), err.Error())
			return
		}
		v, _, err := o.Int64("n", false)
		if err != nil {
			require.True(t, inputerr.Is(err), err.Error())
			require.NotContains(t, err.Error(), "\n")
		}
		dec := json.NewDecoder(strings.NewReader(value))
		dec.UseNumber()
		var x any
		require.NoError(t, dec.Decode(&x), "ParseDocument accepted it")
		n, isNum := x.(json.Number)
		if !isNum {
			require.Error(t, err, "%s is not a number", value)
			return
		}
		if !smallExponent(n.String()) {
			return // too costly for big.Rat
		}
		r, ok := new(big.Rat).SetString(n.String())
		require.True(t, ok, value)
		want := r.IsInt() && r.Num().IsInt64()
		require.Equal(t, want, err == nil, "%s: %v", value, err)
		if want {
			require.Equal(t, r.Num().Int64(), v, value)
		}
	})
}

// smallExponent reports whether the number literal s has an exponent of at
// most 400 in magnitude (or none).
func smallExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return true
	}
	e, err := strconv.Atoi(s[i+1:])
	return err == nil && e >= -400 && e <= 400
}
