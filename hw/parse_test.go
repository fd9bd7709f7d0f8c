package hw_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
)

// base is a valid one-level profile; the bad cases below each change one
// thing in it. Its lines: 1 format, 2 name, 3 description, 4 time_unit,
// 5 levels, 6 - name: SRAM, 7 capacity, 8 alignment, 9 in, 10 out.
const base = `format: hieropt.hw/v1
name: p
description: a test profile
time_unit: cycle
levels:
  - name: SRAM
    capacity: 4096
    alignment: 16
    in:  {latency: 8, bandwidth: 32}
    out: {latency: 8, bandwidth: 32}
`

// twoLevels is base with a second level appended (lines 11-15).
const twoLevels = base + `  - name: DRAM
    capacity: 65536
    alignment: 64
    in:  {latency: 120, bandwidth: 8}
    out: {latency: 100, bandwidth: 8}
`

// head is base without its levels.
var head = base[:strings.Index(base, "levels:")]

// replace returns s with old replaced by new once; old must occur in s.
func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	require.Contains(t, s, old)
	return strings.Replace(s, old, new, 1)
}

// TestParseMaxCapacity: the largest capacity, 2^60, aligned to itself,
// is a profile; one byte more is not (see the bad cases).
func TestParseMaxCapacity(t *testing.T) {
	in := replace(t, replace(t, base, "capacity: 4096", "capacity: 1152921504606846976"), "alignment: 16", "alignment: 1152921504606846976")
	p, err := hw.Parse("p.yaml", []byte(in))
	require.NoError(t, err)
	assert.Equal(t, int64(hw.MaxCapacity), p.Levels[0].Capacity)
}

func TestParseValid(t *testing.T) {
	p, err := hw.Parse("p.yaml", []byte(twoLevels))
	require.NoError(t, err)
	assert.Equal(t, &hw.Profile{
		Name: "p", Description: "a test profile", TimeUnit: hw.Cycle,
		Levels: []hw.Level{
			{Name: "SRAM", Capacity: 4096, Alignment: 16, In: hw.Link{Latency: 8, Bandwidth: 32}, Out: hw.Link{Latency: 8, Bandwidth: 32}},
			{Name: "DRAM", Capacity: 65536, Alignment: 64, In: hw.Link{Latency: 120, Bandwidth: 8}, Out: hw.Link{Latency: 100, Bandwidth: 8}},
		},
	}, p)
}

// timelineProfile is twoLevels with every field of FORMATS.md 6.1.
const timelineProfile = `format: hieropt.hw/v1
name: p
time_unit: cycle
cost_model: timeline
compute:
  macs_per_unit: 256
  op_overhead: 2.5
dma:
  channels: 2
levels:
  - name: SRAM
    capacity: 4096
    alignment: 16
    in:  {latency: 8, bandwidth: 32}
    out: {latency: 8, bandwidth: 32}
  - name: Flash
    capacity: 65536
    alignment: 64
    in:  {latency: 120, bandwidth: 8}
    out: {latency: 100, bandwidth: 8}
    read_only: true
`

func TestParseTimeline(t *testing.T) {
	p, err := hw.Parse("p.yaml", []byte(timelineProfile))
	require.NoError(t, err)
	assert.Equal(t, &hw.Profile{
		Name: "p", TimeUnit: hw.Cycle, CostModel: "timeline",
		Compute: &hw.Compute{MACsPerUnit: 256, OpOverhead: 2.5}, DMA: hw.DMA{Channels: 2},
		Levels: []hw.Level{
			{Name: "SRAM", Capacity: 4096, Alignment: 16, In: hw.Link{Latency: 8, Bandwidth: 32}, Out: hw.Link{Latency: 8, Bandwidth: 32}},
			{Name: "Flash", Capacity: 65536, Alignment: 64, In: hw.Link{Latency: 120, Bandwidth: 8}, Out: hw.Link{Latency: 100, Bandwidth: 8}, ReadOnly: true},
		},
	}, p)
	assert.Equal(t, 2, p.Channels())

	// The defaults: op_overhead 0, channels 1 (DMA.Channels 0), read_only
	// false, and no compute or cost model when the keys are absent or null.
	in := replace(t, timelineProfile, "  op_overhead: 2.5\n", "")
	in = replace(t, in, "  channels: 2\n", "  channels:\n")
	in = replace(t, in, "read_only: true", "read_only: false")
	p, err = hw.Parse("p.yaml", []byte(in))
	require.NoError(t, err)
	assert.Equal(t, &hw.Compute{MACsPerUnit: 256}, p.Compute)
	assert.Equal(t, hw.DMA{}, p.DMA)
	assert.Equal(t, 1, p.Channels())
	assert.False(t, p.Levels[1].ReadOnly)
	p, err = hw.Parse("p.yaml", []byte(replace(t, replace(t, twoLevels, "time_unit: cycle\n", "time_unit: cycle\ncost_model:\ncompute: ~\n"), "    alignment: 64\n", "    alignment: 64\n    read_only: ~\n")))
	require.NoError(t, err)
	assert.Equal(t, "", p.CostModel)
	assert.Nil(t, p.Compute)
	assert.False(t, p.Levels[1].ReadOnly)

	// Unknown keys inside compute and dma are ignored and listed; a
	// misspelt one is an error.
	_, ignored, err := hw.ParseIgnored("p.yaml", []byte(replace(t, timelineProfile, "  channels: 2", "  channels: 2\n  burst: 64")))
	require.NoError(t, err)
	assert.Equal(t, []hw.Ignored{{Line: 10, Key: "dma.burst"}}, ignored)
	_, err = hw.Parse("p.yaml", []byte(replace(t, timelineProfile, "macs_per_unit", "MACs_per_unit")))
	assert.EqualError(t, err, `hardware profile "p.yaml": line 6: key "compute.MACs_per_unit": keys are case-sensitive; did you mean "compute.macs_per_unit"?`)
	_, err = hw.Parse("p.yaml", []byte(replace(t, timelineProfile, "read_only", "read-only")))
	assert.EqualError(t, err, `hardware profile "p.yaml": level "Flash": line 21: key "read-only": keys are case-sensitive; did you mean "read_only"?`)
}

// TestParseTimelineBad: every malformed value of FORMATS.md 6.1 is a
// one-line error naming the field and the rule.
func TestParseTimelineBad(t *testing.T) {
	const doc = `hardware profile "p.yaml": `
	tests := []struct{ name, old, new, want string }{
		{"empty cost_model", "cost_model: timeline", `cost_model: ""`, `line 4: field "cost_model": want the name of a cost model, got an empty string`},
		{"cost_model a number", "cost_model: timeline", "cost_model: 3", `line 4: field "cost_model": want a string, got number 3`},
		{"compute a number", "compute:\n  macs_per_unit: 256\n  op_overhead: 2.5", "compute: 256", `line 5: field "compute": want a mapping {macs_per_unit, op_overhead}, got number 256`},
		{"compute without macs_per_unit", "  macs_per_unit: 256\n", "", `missing required field "compute.macs_per_unit"`},
		{"macs_per_unit 0", "macs_per_unit: 256", "macs_per_unit: 0", `compute.macs_per_unit 0: must be > 0`},
		{"macs_per_unit negative", "macs_per_unit: 256", "macs_per_unit: -1", `compute.macs_per_unit -1: must be > 0`},
		{"macs_per_unit .inf", "macs_per_unit: 256", "macs_per_unit: .inf", `compute.macs_per_unit +Inf: must be finite`},
		{"macs_per_unit .nan", "macs_per_unit: 256", "macs_per_unit: .nan", `compute.macs_per_unit NaN: must be a number, not NaN`},
		{"macs_per_unit a word", "macs_per_unit: 256", "macs_per_unit: many", `line 6: field "compute.macs_per_unit": want a number, got string "many"`},
		{"op_overhead negative", "op_overhead: 2.5", "op_overhead: -0.5", `compute.op_overhead -0.5: must be >= 0`},
		{"op_overhead .inf", "op_overhead: 2.5", "op_overhead: .inf", `compute.op_overhead +Inf: must be finite`},
		{"op_overhead a list", "op_overhead: 2.5", "op_overhead: [1]", `line 7: field "compute.op_overhead": want a number, got a list`},
		{"dma a list", "dma:\n  channels: 2", "dma: [2]", `line 8: field "dma": want a mapping {channels}, got a list`},
		{"channels 0", "channels: 2", "channels: 0", `line 9: field "dma.channels": 0: want an integer >= 1 (copies that can run at once)`},
		{"channels negative", "channels: 2", "channels: -2", `line 9: field "dma.channels": -2: want an integer >= 1 (copies that can run at once)`},
		{"channels 1.5", "channels: 2", "channels: 1.5", `line 9: field "dma.channels": want an integer, got 1.5`},
		{"channels a word", "channels: 2", "channels: two", `line 9: field "dma.channels": want an integer, got string "two"`},
		{"channels beyond int32", "channels: 2", "channels: 4294967296", `line 9: field "dma.channels": 4294967296: want an integer >= 1 (copies that can run at once)`},
		{"read_only yes", "read_only: true", "read_only: yes", `level "Flash": line 21: field "read_only": want true or false, got string "yes"`},
		{"read_only 1", "read_only: true", "read_only: 1", `level "Flash": line 21: field "read_only": want true or false, got number 1`},
		{"read_only a string", "read_only: true", `read_only: "true"`, `level "Flash": line 21: field "read_only": want true or false, got string "true"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := hw.Parse("p.yaml", []byte(replace(t, timelineProfile, tt.old, tt.new)))
			assert.Nil(t, p)
			require.Error(t, err)
			assert.Equal(t, doc+tt.want, err.Error())
			assert.True(t, inputerr.Is(err))
		})
	}
}

// TestParseNumbersAndShapes covers the YAML spellings a profile may use:
// flow and block mappings, integers in other bases and with signs, floats
// for numbers, integers written as floats, anchors, aliases and merge keys,
// a byte-order mark, and description optional.
func TestParseNumbersAndShapes(t *testing.T) {
	in := "\ufeff" + `format: "hieropt.hw/v1"
name: 'p'
time_unit: ns
defaults: &link {latency: 0.5, bandwidth: 16}
levels:
  - {name: L0, capacity: 0x10000000000, alignment: 0o10, in: *link, out: {latency: +2, bandwidth: 4}}
  - name: L1
    capacity: 1e6
    alignment: 1
    in:
      <<: *link
      bandwidth: 1
    out:
      latency: 3
      bandwidth: 1.0e12
`
	p, ignored, err := hw.ParseIgnored("p.yaml", []byte(in))
	require.NoError(t, err)
	assert.Equal(t, &hw.Profile{Name: "p", TimeUnit: hw.NS, Levels: []hw.Level{
		{Name: "L0", Capacity: 1 << 40, Alignment: 8, In: hw.Link{Latency: 0.5, Bandwidth: 16}, Out: hw.Link{Latency: 2, Bandwidth: 4}},
		{Name: "L1", Capacity: 1e6, Alignment: 1, In: hw.Link{Latency: 0.5, Bandwidth: 1}, Out: hw.Link{Latency: 3, Bandwidth: 1e12}},
	}}, p)
	assert.Equal(t, []hw.Ignored{{Line: 4, Key: "defaults"}}, ignored)
}

// TestParseKeys: keys are matched exactly. A key that differs from a field
// of the format only in case or in '-' for '_' is an error naming the
// field it resembles; any other key is ignored (FORMATS.md: readers ignore
// the fields they do not know) and listed by ParseIgnored.
func TestParseKeys(t *testing.T) {
	const doc = `hardware profile "p.yaml"`
	bad := []struct {
		name, old, new, want string
	}{
		{"Capacity", "capacity: 4096", "Capacity: 4096",
			doc + `: level "SRAM": line 7: key "Capacity": keys are case-sensitive; did you mean "capacity"?`},
		{"FORMAT", "format:", "FORMAT:", doc + `: line 1: key "FORMAT": keys are case-sensitive; did you mean "format"?`},
		{"time-unit", "time_unit:", "time-unit:", doc + `: line 4: key "time-unit": keys are case-sensitive; did you mean "time_unit"?`},
		{"Time_Unit", "time_unit:", "Time_Unit:", doc + `: line 4: key "Time_Unit": keys are case-sensitive; did you mean "time_unit"?`},
		{"Levels", "levels:", "Levels:", doc + `: line 5: key "Levels": keys are case-sensitive; did you mean "levels"?`},
		{"Name of a level", "  - name: SRAM", "  - Name: SRAM", doc + `: level 0: line 6: key "Name": keys are case-sensitive; did you mean "name"?`},
		{"IN", "in:  {latency", "IN:  {latency", doc + `: level "SRAM": line 9: key "IN": keys are case-sensitive; did you mean "in"?`},
		{"Latency inside out", "out: {latency", "out: {Latency",
			doc + `: level "SRAM": line 10: key "out.Latency": keys are case-sensitive; did you mean "out.latency"?`},
		// The mistake is reported even when the right key is there too.
		{"both", "capacity: 4096", "capacity: 4096\n    CAPACITY: 8192",
			doc + `: level "SRAM": line 8: key "CAPACITY": keys are case-sensitive; did you mean "capacity"?`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			p, err := hw.Parse("p.yaml", []byte(replace(t, base, tt.old, tt.new)))
			assert.Nil(t, p)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.True(t, inputerr.Is(err))
		})
	}

	// Unknown keys, at every depth, with any value: ignored and listed.
	in := replace(t, twoLevels, "time_unit: cycle\n", "time_unit: cycle\nvendor:\n  part: [1, 2]\n")
	in = replace(t, in, "    alignment: 64\n", "    alignment: 64\n    banks: 4\n")
	in = replace(t, in, "out: {latency: 100,", "out: {note: \"page hit\", latency: 100,")
	in += "x-tool: {version: 3}\n"
	p, ignored, err := hw.ParseIgnored("p.yaml", []byte(in))
	require.NoError(t, err)
	want, err := hw.Parse("p.yaml", []byte(twoLevels))
	require.NoError(t, err)
	assert.Equal(t, want, p, "unknown keys change nothing")
	assert.Equal(t, []hw.Ignored{
		{Line: 5, Key: "vendor"},
		{Line: 16, Item: `level "DRAM"`, Key: "banks"},
		{Line: 18, Item: `level "DRAM"`, Key: "out.note"},
		{Line: 19, Key: "x-tool"},
	}, ignored)
	assert.Equal(t, `level "DRAM": line 16: key "banks" is not a field of hieropt.hw/v1; ignored`, ignored[1].String())
	assert.Equal(t, `line 5: key "vendor" is not a field of hieropt.hw/v1; ignored`, ignored[0].String())
	p2, err := hw.Parse("p.yaml", []byte(in))
	require.NoError(t, err)
	assert.Equal(t, p, p2)
}

// TestParseAliasBomb: a billion-laughs document is read in time linear in
// its size: aliases are followed only where a field is read, and a key
// that is ignored is never expanded.
func TestParseAliasBomb(t *testing.T) {
	bomb := `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`
	p, ignored, err := hw.ParseIgnored("p.yaml", []byte(bomb+base))
	require.NoError(t, err)
	assert.Equal(t, "p", p.Name)
	assert.Len(t, ignored, 9)
	_, err = hw.Parse("p.yaml", []byte(replace(t, bomb+base, "name: p", "name: *i")))
	assert.EqualError(t, err, `hardware profile "p.yaml": line 11: field "name": want a string, got a list`)
}

func TestParseBad(t *testing.T) {
	const doc = `hardware profile "p.yaml"`
	tests := []struct {
		name string
		in   func(t *testing.T) string
		want string // the whole err.Error()
	}{
		{"empty document", func(*testing.T) string { return "" }, doc + `: empty document: want a YAML mapping with format, name, time_unit and levels`},
		{"only white space", func(*testing.T) string { return "\n  \n" }, doc + `: empty document: want a YAML mapping with format, name, time_unit and levels`},
		{"only a comment", func(*testing.T) string { return "# nothing here\n" }, doc + `: want a YAML mapping with format, name, time_unit and levels`},
		{"null", func(*testing.T) string { return "~\n" }, doc + `: want a YAML mapping with format, name, time_unit and levels`},
		// The YAML library names the line where the unclosed list starts.
		{"broken YAML: unclosed list", func(*testing.T) string { return "format: [hieropt.hw/v1\n" },
			doc + `: invalid YAML: line 1: did not find expected ',' or ']'`},
		{"broken YAML: bad indentation", func(t *testing.T) string { return replace(t, base, "    capacity: 4096", "      capacity: 4096") },
			doc + `: invalid YAML: line 7: mapping values are not allowed in this context`},
		// The tab is on line 8; the YAML library names line 7, where the
		// scalar it was scanning starts (go-yaml/yaml#205: its line numbers
		// come from the context mark, and can be a line early).
		{"broken YAML: tab", func(t *testing.T) string { return replace(t, base, "    alignment", "\talignment") },
			doc + `: invalid YAML: line 7: found a tab character that violates indentation`},
		{"duplicate key", func(t *testing.T) string {
			return replace(t, base, "alignment: 16", "alignment: 16\n    alignment: 32")
		},
			doc + `: invalid YAML: line 9: mapping key "alignment" already defined at line 8`},
		{"duplicate key where it is ignored", func(*testing.T) string { return base + "vendor: {a: 1, a: 2}\n" },
			doc + `: invalid YAML: line 11: mapping key "a" already defined at line 11`},
		{"not a mapping: list", func(*testing.T) string { return "- format: hieropt.hw/v1\n- name: p\n" },
			doc + `: want a YAML mapping with format, name, time_unit and levels, got a list`},
		{"not a mapping: string", func(*testing.T) string { return "hieropt.hw/v1\n" },
			doc + `: want a YAML mapping with format, name, time_unit and levels, got string "hieropt.hw/v1"`},
		{"not a mapping: number", func(*testing.T) string { return "42\n" },
			doc + `: want a YAML mapping with format, name, time_unit and levels, got number 42`},
		{"missing format", func(t *testing.T) string { return replace(t, base, "format: hieropt.hw/v1\n", "") }, doc + `: missing required field "format"`},
		{"null format", func(t *testing.T) string { return replace(t, base, "format: hieropt.hw/v1\n", "format:\n") }, doc + `: missing required field "format"`},
		{"format a number", func(t *testing.T) string { return replace(t, base, "format: hieropt.hw/v1\n", "format: 1\n") },
			doc + `: line 1: field "format": want a string, got number 1`},
		{"wrong format", func(t *testing.T) string { return replace(t, base, "hieropt.hw/v1", "hieropt.workload/v1") },
			doc + `: format "hieropt.workload/v1" is not supported: want "hieropt.hw/v1"`},
		{"unknown version", func(t *testing.T) string { return replace(t, base, "hieropt.hw/v1", "hieropt.hw/v2") },
			doc + `: format "hieropt.hw/v2" is not supported: want "hieropt.hw/v1"`},
		{"missing name", func(t *testing.T) string { return replace(t, base, "name: p\n", "") }, doc + `: missing required field "name"`},
		{"empty name", func(t *testing.T) string { return replace(t, base, "name: p\n", "name: \"\"\n") }, doc + `: missing required field "name"`},
		{"name a number", func(t *testing.T) string { return replace(t, base, "name: p\n", "name: 5\n") },
			doc + `: line 2: field "name": want a string, got number 5`},
		{"name a boolean", func(t *testing.T) string { return replace(t, base, "name: p\n", "name: true\n") },
			doc + `: line 2: field "name": want a string, got a boolean`},
		{"description a list", func(t *testing.T) string { return replace(t, base, "a test profile", "[a]") },
			doc + `: line 3: field "description": want a string, got a list`},
		{"missing time_unit", func(t *testing.T) string { return replace(t, base, "time_unit: cycle\n", "") }, doc + `: missing required field "time_unit"`},
		{`time_unit "s"`, func(t *testing.T) string { return replace(t, base, "time_unit: cycle", "time_unit: s") },
			doc + `: time_unit "s": want "cycle" or "ns"`},
		{"time_unit in capitals", func(t *testing.T) string { return replace(t, base, "time_unit: cycle", "time_unit: Cycle") },
			doc + `: time_unit "Cycle": want "cycle" or "ns"`},
		{"missing levels", func(*testing.T) string { return head }, doc + `: missing required field "levels"`},
		{"null levels", func(*testing.T) string { return head + "levels:\n" }, doc + `: missing required field "levels"`},
		{"no levels", func(*testing.T) string { return head + "levels: []\n" }, doc + `: "levels" is empty: a profile needs at least one level`},
		{"levels a mapping", func(*testing.T) string { return head + "levels:\n  SRAM: {capacity: 4096}\n" },
			doc + `: line 6: field "levels": want a list of levels, got a mapping`},
		{"levels a string", func(*testing.T) string { return head + "levels: SRAM\n" },
			doc + `: line 5: field "levels": want a list of levels, got string "SRAM"`},
		{"level not a mapping", func(*testing.T) string { return head + "levels:\n  - SRAM\n" },
			doc + `: level 0: line 6: want a mapping with name, capacity, alignment, in and out; got string "SRAM"`},
		{"level without name", func(t *testing.T) string {
			return replace(t, twoLevels, "  - name: DRAM\n    capacity", "  - capacity")
		},
			doc + `: level 1: line 11: missing required field "name"`},
		{"level name a number", func(t *testing.T) string { return replace(t, twoLevels, "name: DRAM", "name: 3") },
			doc + `: level 1: line 11: field "name": want a string, got number 3`},
		{"missing capacity", func(t *testing.T) string { return replace(t, base, "    capacity: 4096\n", "") },
			doc + `: level "SRAM": line 6: missing required field "capacity"`},
		{"capacity 1.5", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: 1.5") },
			doc + `: level "SRAM": line 7: field "capacity": want an integer, got 1.5`},
		{`capacity "4096"`, func(t *testing.T) string { return replace(t, base, "capacity: 4096", `capacity: "4096"`) },
			doc + `: level "SRAM": line 7: field "capacity": want an integer, got string "4096"`},
		{"capacity 0", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: 0") },
			doc + `: level "SRAM": capacity 0: must be > 0 bytes`},
		{"negative capacity", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: -4096") },
			doc + `: level "SRAM": capacity -4096: must be > 0 bytes`},
		{"capacity beyond int64", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: 99999999999999999999") },
			doc + `: level "SRAM": line 7: field "capacity": integer 1e+20 does not fit in 64 bits`},
		{"capacity 2^63", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: 9223372036854775808") },
			doc + `: level "SRAM": line 7: field "capacity": integer 9223372036854775808 does not fit in 64 bits`},
		{"capacity 2^60 as a float", func(t *testing.T) string {
			return replace(t, base, "capacity: 4096", "capacity: 1152921504606846976.0")
		},
			doc + `: level "SRAM": line 7: field "capacity": integer 1.152921504606847e+18 is too large to be exact; write it without a fraction or exponent`},
		// Issue 30 item 9: 2^63-1 bytes aligned to 2^62 overflowed the
		// planner's offsets (exit 3); 2^60 is the largest capacity.
		{"capacity 2^60 + 1", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: 1152921504606846977") },
			doc + `: level "SRAM": capacity 1152921504606846977: must be at most 2^60 = 1152921504606846976 bytes (1 EiB: offsets are 64-bit integers, FORMATS.md section 2)`},
		{"capacity 2^63-1 aligned to 2^62", func(t *testing.T) string {
			return replace(t, replace(t, base, "capacity: 4096", "capacity: 9223372036854775807"), "alignment: 16", "alignment: 4611686018427387904")
		},
			doc + `: level "SRAM": capacity 9223372036854775807: must be at most 2^60 = 1152921504606846976 bytes (1 EiB: offsets are 64-bit integers, FORMATS.md section 2)`},
		{"capacity .inf", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: .inf") },
			doc + `: level "SRAM": line 7: field "capacity": want an integer, got +Inf`},
		{"capacity .nan", func(t *testing.T) string { return replace(t, base, "capacity: 4096", "capacity: .nan") },
			doc + `: level "SRAM": line 7: field "capacity": want an integer, got NaN`},
		{"missing alignment", func(t *testing.T) string { return replace(t, base, "    alignment: 16\n", "") },
			doc + `: level "SRAM": line 6: missing required field "alignment"`},
		{"negative alignment", func(t *testing.T) string { return replace(t, base, "alignment: 16", "alignment: -16") },
			doc + `: level "SRAM": alignment -16: must be > 0 bytes`},
		{"alignment > capacity", func(t *testing.T) string { return replace(t, base, "alignment: 16", "alignment: 8192") },
			doc + `: level "SRAM": alignment 8192 is larger than the capacity 4096`},
		{"duplicate level names", func(t *testing.T) string { return replace(t, twoLevels, "name: DRAM", "name: SRAM") },
			doc + `: level "SRAM": duplicate level name (also level 0)`},
		{"latency .nan", func(t *testing.T) string { return replace(t, base, "in:  {latency: 8,", "in:  {latency: .nan,") },
			doc + `: level "SRAM": in.latency NaN: must be a number, not NaN`},
		{"bandwidth .inf", func(t *testing.T) string {
			return replace(t, base, "out: {latency: 8, bandwidth: 32}", "out: {latency: 8, bandwidth: .inf}")
		}, doc + `: level "SRAM": out.bandwidth +Inf: must be finite`},
		{"latency -.inf", func(t *testing.T) string { return replace(t, base, "out: {latency: 8,", "out: {latency: -.inf,") },
			doc + `: level "SRAM": out.latency -Inf: must be finite`},
		{"bandwidth 0", func(t *testing.T) string {
			return replace(t, base, "in:  {latency: 8, bandwidth: 32}", "in:  {latency: 8, bandwidth: 0}")
		}, doc + `: level "SRAM": in.bandwidth 0: must be > 0`},
		{"negative latency", func(t *testing.T) string { return replace(t, twoLevels, "out: {latency: 100,", "out: {latency: -100,") },
			doc + `: level "DRAM": out.latency -100: must be > 0`},
		{"latency a word", func(t *testing.T) string { return replace(t, base, "out: {latency: 8,", "out: {latency: fast,") },
			doc + `: level "SRAM": line 10: field "out.latency": want a number, got string "fast"`},
		{"bandwidth a boolean", func(t *testing.T) string {
			return replace(t, base, "bandwidth: 32}\n    out", "bandwidth: true}\n    out")
		},
			doc + `: level "SRAM": line 9: field "in.bandwidth": want a number, got a boolean`},
		{"missing in", func(t *testing.T) string { return replace(t, base, "    in:  {latency: 8, bandwidth: 32}\n", "") },
			doc + `: level "SRAM": line 6: missing required field "in"`},
		{"missing out", func(t *testing.T) string { return replace(t, twoLevels, "    out: {latency: 100, bandwidth: 8}\n", "") },
			doc + `: level "DRAM": line 11: missing required field "out"`},
		{"in not a mapping", func(t *testing.T) string { return replace(t, base, "in:  {latency: 8, bandwidth: 32}", "in: 8") },
			doc + `: level "SRAM": line 9: field "in": want a mapping {latency, bandwidth}, got number 8`},
		{"in a list", func(t *testing.T) string { return replace(t, base, "in:  {latency: 8, bandwidth: 32}", "in: [8, 32]") },
			doc + `: level "SRAM": line 9: field "in": want a mapping {latency, bandwidth}, got a list`},
		{"missing bandwidth inside out", func(t *testing.T) string {
			return replace(t, base, "out: {latency: 8, bandwidth: 32}", "out: {latency: 8}")
		}, doc + `: level "SRAM": line 10: missing required field "out.bandwidth"`},
		{"missing latency inside in", func(t *testing.T) string {
			return replace(t, base, "in:  {latency: 8, bandwidth: 32}", "in:  {bandwidth: 32}")
		}, doc + `: level "SRAM": line 9: missing required field "in.latency"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := hw.Parse("p.yaml", []byte(tt.in(t)))
			assert.Nil(t, p)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.True(t, inputerr.Is(err), "want an inputerr.Error, got %T", err)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// badProfilesDir holds bad profiles as files: x.yaml must fail with the
// error that x.err holds, as hieropt prints it (testdata/bad/README.md).
const badProfilesDir = "../testdata/bad/hw"

func TestReadFileBadFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(badProfilesDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(path, ".yaml") + ".err")
			require.NoError(t, err, "every bad profile has a .err file")
			p, err := hw.ReadFile(path)
			assert.Nil(t, p)
			require.Error(t, err)
			// The .err file is the command line's stderr line, with $FILE
			// for the path (cmd/hieropt/badinput_test.go runs it too).
			line := strings.ReplaceAll(strings.TrimSpace(string(want)), "$FILE", path)
			assert.Equal(t, "hieropt: "+err.Error(), line)
			assert.True(t, inputerr.Is(err))
		})
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.yaml")
	require.NoError(t, os.WriteFile(path, []byte(twoLevels), 0o644))
	p, err := hw.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "p", p.Name)
	assert.Len(t, p.Levels, 2)

	missing := filepath.Join(dir, "missing.yaml")
	_, err = hw.ReadFile(missing)
	assert.EqualError(t, err, `hardware profile "`+missing+`": cannot read: no such file or directory`)
	assert.True(t, errors.Is(err, fs.ErrNotExist))
	assert.True(t, inputerr.Is(err))
	_, err = hw.ReadFile(dir)
	assert.EqualError(t, err, `hardware profile "`+dir+`": cannot read: is a directory`)
}
