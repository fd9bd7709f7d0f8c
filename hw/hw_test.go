package hw_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
)

// doc is the document name FromMap reports errors under below.
const doc = `hardware profile "p.yaml"`

// validMap returns a fresh two-level profile document, decoded as a YAML
// library would decode it.
func validMap() map[string]any {
	return map[string]any{
		"format":      "hieropt.hw/v1",
		"name":        "p",
		"description": "a test profile",
		"time_unit":   "cycle",
		"levels": []any{
			map[string]any{
				"name": "SRAM", "capacity": 4096, "alignment": 16,
				"in":  map[string]any{"latency": 8, "bandwidth": 32},
				"out": map[string]any{"latency": 8, "bandwidth": 32},
			},
			map[string]any{
				"name": "DRAM", "capacity": 1 << 20, "alignment": 64,
				"in":  map[string]any{"latency": 120, "bandwidth": 8.5},
				"out": map[string]any{"latency": 100, "bandwidth": 8},
			},
		},
	}
}

// level returns level i of a document made by validMap.
func level(m map[string]any, i int) map[string]any {
	return m["levels"].([]any)[i].(map[string]any)
}

// assertInputError checks that err is an input error for doc, printed
// exactly as want on one line.
func assertInputError(t *testing.T, err error, want string) {
	t.Helper()
	require.Error(t, err)
	assert.Equal(t, want, err.Error())
	assert.True(t, inputerr.Is(err), "want an inputerr.Error, got %T", err)
	assert.NotContains(t, err.Error(), "\n")
	var ie *inputerr.Error
	if assert.True(t, errors.As(err, &ie)) {
		assert.Equal(t, doc, ie.Doc)
	}
}

func TestFromMapValid(t *testing.T) {
	p, err := hw.FromMap(doc, validMap())
	require.NoError(t, err)
	want := &hw.Profile{
		Name:        "p",
		Description: "a test profile",
		TimeUnit:    hw.Cycle,
		Levels: []hw.Level{
			{Name: "SRAM", Capacity: 4096, Alignment: 16, In: hw.Link{Latency: 8, Bandwidth: 32}, Out: hw.Link{Latency: 8, Bandwidth: 32}},
			{Name: "DRAM", Capacity: 1 << 20, Alignment: 64, In: hw.Link{Latency: 120, Bandwidth: 8.5}, Out: hw.Link{Latency: 100, Bandwidth: 8}},
		},
	}
	assert.Equal(t, want, p)
	assert.Equal(t, []string{"SRAM", "DRAM"}, p.LevelNames())
	i, ok := p.LevelIndex("DRAM")
	assert.True(t, ok)
	assert.Equal(t, 1, i)
	_, ok = p.LevelIndex("dram")
	assert.False(t, ok, "level names are case-sensitive")
	assert.Equal(t, `level "DRAM"`, p.LevelItem(1))
	assert.Equal(t, `level 5`, p.LevelItem(5))
}

// TestFromMapDecodings covers the shapes YAML and JSON decoders produce:
// map[any]any, every integer width, floats for integers, keys in any case
// (viper lowercases them; a plain YAML library does not) and extra fields.
func TestFromMapDecodings(t *testing.T) {
	m := map[string]any{
		"FORMAT":    "hieropt.hw/v1",
		"Name":      "p",
		"time_unit": "ns",
		"extra":     []any{1, "two"},
		"levels": []any{
			map[any]any{
				"name": "L0", "Capacity": int64(1 << 40), "alignment": uint64(8), "note": "ignored",
				"in":  map[any]any{"latency": float32(0.5), "bandwidth": int32(16)},
				"out": map[string]any{"LATENCY": uint(2), "bandwidth": int64(4)},
			},
			map[string]any{
				"name": "L1", "capacity": float64(1e6), "alignment": int32(1),
				"in":  map[string]any{"latency": 1e-3, "bandwidth": uint64(1)},
				"out": map[string]any{"latency": 3, "bandwidth": 1e12},
			},
		},
	}
	p, err := hw.FromMap(doc, m)
	require.NoError(t, err)
	assert.Equal(t, hw.NS, p.TimeUnit)
	assert.Equal(t, "", p.Description, "description is optional")
	assert.Equal(t, []hw.Level{
		{Name: "L0", Capacity: 1 << 40, Alignment: 8, In: hw.Link{Latency: 0.5, Bandwidth: 16}, Out: hw.Link{Latency: 2, Bandwidth: 4}},
		{Name: "L1", Capacity: 1e6, Alignment: 1, In: hw.Link{Latency: 1e-3, Bandwidth: 1}, Out: hw.Link{Latency: 3, Bandwidth: 1e12}},
	}, p.Levels)
}

func TestFromMapBad(t *testing.T) {
	tests := []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"missing format", func(m map[string]any) { delete(m, "format") }, doc + `: missing required field "format"`},
		{"null format", func(m map[string]any) { m["format"] = nil }, doc + `: missing required field "format"`},
		{"format not a string", func(m map[string]any) { m["format"] = 1 }, doc + `: field "format": want a string, got number 1`},
		{"wrong format", func(m map[string]any) { m["format"] = "hieropt.workload/v1" },
			doc + `: format "hieropt.workload/v1" is not supported: want "hieropt.hw/v1"`},
		{"unknown version", func(m map[string]any) { m["format"] = "hieropt.hw/v2" },
			doc + `: format "hieropt.hw/v2" is not supported: want "hieropt.hw/v1"`},
		{"missing name", func(m map[string]any) { delete(m, "name") }, doc + `: missing required field "name"`},
		{"empty name", func(m map[string]any) { m["name"] = "" }, doc + `: missing required field "name"`},
		{"description not a string", func(m map[string]any) { m["description"] = []any{"a"} },
			doc + `: field "description": want a string, got a list`},
		{"missing time_unit", func(m map[string]any) { delete(m, "time_unit") }, doc + `: missing required field "time_unit"`},
		{"time_unit s", func(m map[string]any) { m["time_unit"] = "s" }, doc + `: time_unit "s": want "cycle" or "ns"`},
		{"time_unit in capitals", func(m map[string]any) { m["time_unit"] = "Cycle" }, doc + `: time_unit "Cycle": want "cycle" or "ns"`},
		{"missing levels", func(m map[string]any) { delete(m, "levels") }, doc + `: missing required field "levels"`},
		{"no levels", func(m map[string]any) { m["levels"] = []any{} }, doc + `: "levels" is empty: a profile needs at least one level`},
		{"levels a mapping", func(m map[string]any) { m["levels"] = map[string]any{"name": "SRAM"} },
			doc + `: field "levels": want a list of levels, got a mapping`},
		{"level not a mapping", func(m map[string]any) { m["levels"] = []any{"SRAM"} },
			doc + `: level 0: want a mapping with name, capacity, alignment, in and out; got string "SRAM"`},
		{"level without name", func(m map[string]any) { delete(level(m, 1), "name") }, doc + `: level 1: missing required field "name"`},
		{"level name a number", func(m map[string]any) { level(m, 1)["name"] = 3 }, doc + `: level 1: field "name": want a string, got number 3`},
		{"missing capacity", func(m map[string]any) { delete(level(m, 0), "capacity") }, doc + `: level "SRAM": missing required field "capacity"`},
		{"capacity 1.5", func(m map[string]any) { level(m, 0)["capacity"] = 1.5 }, doc + `: level "SRAM": field "capacity": want an integer, got 1.5`},
		{"capacity a string", func(m map[string]any) { level(m, 0)["capacity"] = "4096" },
			doc + `: level "SRAM": field "capacity": want an integer, got string "4096"`},
		{"capacity NaN", func(m map[string]any) { level(m, 0)["capacity"] = math.NaN() }, doc + `: level "SRAM": field "capacity": want an integer, got NaN`},
		{"capacity +Inf", func(m map[string]any) { level(m, 0)["capacity"] = math.Inf(1) }, doc + `: level "SRAM": field "capacity": want an integer, got +Inf`},
		{"capacity 1e20", func(m map[string]any) { level(m, 0)["capacity"] = 1e20 },
			doc + `: level "SRAM": field "capacity": integer 1e+20 does not fit in 64 bits`},
		{"capacity 2^63 as uint64", func(m map[string]any) { level(m, 0)["capacity"] = uint64(1) << 63 },
			doc + `: level "SRAM": field "capacity": integer 9223372036854775808 does not fit in 64 bits`},
		{"capacity 2^60 as float", func(m map[string]any) { level(m, 0)["capacity"] = float64(1 << 60) },
			doc + `: level "SRAM": field "capacity": integer 1.152921504606847e+18 is too large to be exact; write it without a fraction or exponent`},
		{"capacity 0", func(m map[string]any) { level(m, 0)["capacity"] = 0 }, doc + `: level "SRAM": capacity 0: must be > 0 bytes`},
		{"negative capacity", func(m map[string]any) { level(m, 0)["capacity"] = -1 }, doc + `: level "SRAM": capacity -1: must be > 0 bytes`},
		{"missing alignment", func(m map[string]any) { delete(level(m, 0), "alignment") }, doc + `: level "SRAM": missing required field "alignment"`},
		{"alignment 0", func(m map[string]any) { level(m, 0)["alignment"] = 0 }, doc + `: level "SRAM": alignment 0: must be > 0 bytes`},
		{"negative alignment", func(m map[string]any) { level(m, 0)["alignment"] = -16 }, doc + `: level "SRAM": alignment -16: must be > 0 bytes`},
		{"alignment > capacity", func(m map[string]any) { level(m, 0)["alignment"] = 8192 },
			doc + `: level "SRAM": alignment 8192 is larger than the capacity 4096`},
		{"duplicate level names", func(m map[string]any) { level(m, 1)["name"] = "SRAM" },
			doc + `: level "SRAM": duplicate level name (also level 0)`},
		{"missing in", func(m map[string]any) { delete(level(m, 1), "in") }, doc + `: level "DRAM": missing required field "in"`},
		{"in not a mapping", func(m map[string]any) { level(m, 1)["in"] = []any{8, 32} },
			doc + `: level "DRAM": field "in": want a mapping {latency, bandwidth}, got a list`},
		{"missing out", func(m map[string]any) { delete(level(m, 1), "out") }, doc + `: level "DRAM": missing required field "out"`},
		{"missing out.bandwidth", func(m map[string]any) { delete(level(m, 1)["out"].(map[string]any), "bandwidth") },
			doc + `: level "DRAM": missing required field "out.bandwidth"`},
		{"missing in.latency", func(m map[string]any) { delete(level(m, 1)["in"].(map[string]any), "latency") },
			doc + `: level "DRAM": missing required field "in.latency"`},
		{"latency a string", func(m map[string]any) { level(m, 1)["in"].(map[string]any)["latency"] = "fast" },
			doc + `: level "DRAM": field "in.latency": want a number, got string "fast"`},
		{"bandwidth a boolean", func(m map[string]any) { level(m, 1)["out"].(map[string]any)["bandwidth"] = true },
			doc + `: level "DRAM": field "out.bandwidth": want a number, got a boolean`},
		{"latency NaN", func(m map[string]any) { level(m, 0)["in"].(map[string]any)["latency"] = math.NaN() },
			doc + `: level "SRAM": in.latency NaN: must be a number, not NaN`},
		{"bandwidth +Inf", func(m map[string]any) { level(m, 0)["out"].(map[string]any)["bandwidth"] = math.Inf(1) },
			doc + `: level "SRAM": out.bandwidth +Inf: must be finite`},
		{"latency -Inf", func(m map[string]any) { level(m, 0)["out"].(map[string]any)["latency"] = math.Inf(-1) },
			doc + `: level "SRAM": out.latency -Inf: must be finite`},
		{"bandwidth 0", func(m map[string]any) { level(m, 0)["in"].(map[string]any)["bandwidth"] = 0 },
			doc + `: level "SRAM": in.bandwidth 0: must be > 0`},
		{"negative latency", func(m map[string]any) { level(m, 1)["out"].(map[string]any)["latency"] = -0.5 },
			doc + `: level "DRAM": out.latency -0.5: must be > 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := validMap()
			tt.change(m)
			p, err := hw.FromMap(doc, m)
			assert.Nil(t, p)
			assertInputError(t, err, tt.want)
		})
	}
}

// TestValidateBuiltInCode covers a profile built in code, which has no
// decoder in front of Validate.
func TestValidateBuiltInCode(t *testing.T) {
	link := hw.Link{Latency: 1, Bandwidth: 1}
	ok := hw.Level{Name: "L", Capacity: 64, Alignment: 64, In: link, Out: link}
	tests := []struct {
		name string
		p    hw.Profile
		want string // "" when valid
	}{
		{"valid", hw.Profile{Name: "p", TimeUnit: hw.NS, Levels: []hw.Level{ok}}, ""},
		{"no time unit", hw.Profile{Name: "p", Levels: []hw.Level{ok}}, `code: time_unit "": want "cycle" or "ns"`},
		{"no levels", hw.Profile{Name: "p", TimeUnit: hw.Cycle}, `code: "levels" is empty: a profile needs at least one level`},
		{"unnamed level", hw.Profile{Name: "p", TimeUnit: hw.Cycle, Levels: []hw.Level{ok, {Capacity: 1}}},
			`code: level 1: missing required field "name"`},
		{"zero links", hw.Profile{Name: "p", TimeUnit: hw.Cycle, Levels: []hw.Level{{Name: "L", Capacity: 1, Alignment: 1}}},
			`code: level "L": in.latency 0: must be > 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.p.Validate("code")
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.True(t, inputerr.Is(err))
		})
	}
}

func TestLinkTime(t *testing.T) {
	l := hw.Link{Latency: 8, Bandwidth: 32}
	assert.Equal(t, 8.0, l.Time(0))
	assert.Equal(t, 8.0+4096.0/32, l.Time(4096)) // 8 + 128 = 136
	assert.Equal(t, 160+1.0/0.25, hw.Link{Latency: 160, Bandwidth: 0.25}.Time(1))
}

func TestDocName(t *testing.T) {
	assert.Equal(t, `hardware profile "x.yaml"`, hw.DocName("x.yaml"))
	assert.Equal(t, `hardware profile`, hw.DocName(""))
}
