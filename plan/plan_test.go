package plan_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/plan"
)

// writePlan renders pl with Write.
func writePlan(t testing.TB, pl *plan.Plan) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, pl.Write(&buf))
	return buf.Bytes()
}

func TestWriteParseRoundTrip(t *testing.T) {
	withExtras := handPlan()
	withExtras.CostModel = "vela-dma"
	withExtras.Planner = "search \"quoted\" \u00e9"
	// Costs with every digit a float64 holds must come back bit for bit.
	withExtras.Cost = plan.Cost{Initial: 0.1 + 0.2, Final: 123456.78901234567}
	withExtras.Placements[0].Offset = 1<<62 + 1 // beyond 2^53: kept exactly

	empty := &plan.Plan{Workload: "w", Hardware: "h", TimeUnit: "ns",
		Placements: []plan.Placement{}, Transfers: []plan.Transfer{}}

	timeline := handPlan()
	timeline.CostModel = "timeline"
	timeline.Transfers[0].Start = 0
	timeline.Transfers = append(timeline.Transfers,
		plan.Transfer{Block: "w", At: 1, Start: 1, FromLevel: "SLOW", ToLevel: "FAST", ToOffset: 128, Load: true},
		plan.Transfer{Block: "c", At: 2, Start: 0, FromLevel: "SLOW", ToLevel: "FAST", ToOffset: 512, Load: true})

	for name, pl := range map[string]*plan.Plan{"hand plan": handPlan(), "extras": withExtras, "empty": empty, "timeline": timeline} {
		t.Run(name, func(t *testing.T) {
			data := writePlan(t, pl)
			got, err := plan.Parse("p.json", data)
			require.NoError(t, err, "%s", data)
			assert.Equal(t, pl, got)
			assert.Equal(t, data, writePlan(t, got), "Write is deterministic")
		})
	}
}

func TestWriteFormat(t *testing.T) {
	pl := handPlan()
	pl.Placements = pl.Placements[1:3]
	pl.Planner = "hand"
	want := `{
  "format": "hieropt.plan/v1",
  "workload": "test",
  "hardware": "fast-slow",
  "time_unit": "cycle",
  "planner": "hand",
  "cost": {"initial": 304, "final": 452},
  "placements": [
    {"block":"a0","from":0,"to":1,"level":"FAST","offset":64},
    {"block":"a0","from":2,"to":2,"level":"SLOW","offset":0}
  ],
  "transfers": [
    {"block":"a0","at":2,"from_level":"FAST","from_offset":64,"to_level":"SLOW","to_offset":0}
  ]
}
`
	assert.Equal(t, want, string(writePlan(t, pl)))

	// Under the timeline model: start where it differs from at, and a load
	// without from_offset.
	pl.CostModel = "timeline"
	pl.Transfers[0].Start = 1
	pl.Transfers = append(pl.Transfers, plan.Transfer{Block: "w", At: 1, Start: 0, FromLevel: "SLOW", ToLevel: "FAST", ToOffset: 128, Load: true},
		plan.Transfer{Block: "c", At: 2, Start: 2, FromLevel: "SLOW", ToLevel: "FAST", ToOffset: 512, Load: true})
	assert.Equal(t, `{
  "format": "hieropt.plan/v1",
  "workload": "test",
  "hardware": "fast-slow",
  "time_unit": "cycle",
  "cost_model": "timeline",
  "planner": "hand",
  "cost": {"initial": 304, "final": 452},
  "placements": [
    {"block":"a0","from":0,"to":1,"level":"FAST","offset":64},
    {"block":"a0","from":2,"to":2,"level":"SLOW","offset":0}
  ],
  "transfers": [
    {"block":"a0","at":2,"start":1,"from_level":"FAST","from_offset":64,"to_level":"SLOW","to_offset":0},
    {"block":"w","at":1,"start":0,"from_level":"SLOW","to_level":"FAST","to_offset":128},
    {"block":"c","at":2,"from_level":"SLOW","to_level":"FAST","to_offset":512}
  ]
}
`, string(writePlan(t, pl)))

	none := &plan.Plan{Workload: "w", Hardware: "h", TimeUnit: "ns"}
	assert.Equal(t, `{
  "format": "hieropt.plan/v1",
  "workload": "w",
  "hardware": "h",
  "time_unit": "ns",
  "cost": {"initial": 0, "final": 0},
  "placements": [],
  "transfers": []
}
`, string(writePlan(t, none)))
}

func TestParseIgnoresExtraFields(t *testing.T) {
	data := `{"format": "hieropt.plan/v1", "workload": "test", "hardware": "fast-slow", "time_unit": "cycle",
	  "cost": {"initial": 304, "final": 452, "note": "x"}, "extra": [1, 2],
	  "placements": [{"block": "a0", "from": 0, "to": 1, "level": "FAST", "offset": 64, "why": "hot"}],
	  "transfers": []}`
	got, err := plan.Parse("p.json", []byte(data))
	require.NoError(t, err)
	assert.Equal(t, &plan.Plan{Workload: "test", Hardware: "fast-slow", TimeUnit: "cycle",
		Cost:       plan.Cost{Initial: 304, Final: 452},
		Placements: []plan.Placement{{Block: "a0", From: 0, To: 1, Level: "FAST", Offset: 64}},
		Transfers:  []plan.Transfer{}}, got)
}

// TestParseTimelineFields: a transfer without start is issued at at; one
// without from_offset is a load; start at at is read like no start (and
// written without it).
func TestParseTimelineFields(t *testing.T) {
	data := `{"format": "hieropt.plan/v1", "workload": "w", "hardware": "h", "time_unit": "cycle", "cost_model": "timeline",
	  "cost": {"initial": 1, "final": 2}, "placements": [],
	  "transfers": [
	    {"block": "a", "at": 3, "from_level": "L", "from_offset": 0, "to_level": "M", "to_offset": 64},
	    {"block": "b", "at": 3, "start": 1, "from_level": "L", "from_offset": 128, "to_level": "M", "to_offset": 0},
	    {"block": "c", "at": 2, "start": 2, "from_level": "L", "to_level": "M", "to_offset": 256},
	    {"block": "d", "at": 2, "start": 0.0, "from_level": "L", "to_level": "M", "to_offset": 512}]}`
	got, err := plan.Parse("p.json", []byte(data))
	require.NoError(t, err)
	assert.Equal(t, []plan.Transfer{
		{Block: "a", At: 3, Start: 3, FromLevel: "L", FromOffset: 0, ToLevel: "M", ToOffset: 64},
		{Block: "b", At: 3, Start: 1, FromLevel: "L", FromOffset: 128, ToLevel: "M", ToOffset: 0},
		{Block: "c", At: 2, Start: 2, FromLevel: "L", ToLevel: "M", ToOffset: 256, Load: true},
		{Block: "d", At: 2, Start: 0, FromLevel: "L", ToLevel: "M", ToOffset: 512, Load: true},
	}, got.Transfers)
	out := string(writePlan(t, got))
	assert.Contains(t, out, `{"block":"c","at":2,"from_level":"L","to_level":"M","to_offset":256}`)
	assert.Contains(t, out, `{"block":"d","at":2,"start":0,"from_level":"L","to_level":"M","to_offset":512}`)
}

func TestParseErrors(t *testing.T) {
	const head = `"format": "hieropt.plan/v1", "workload": "w", "hardware": "h", "time_unit": "cycle"`
	const cost = `"cost": {"initial": 1, "final": 2}`
	const place = `{"block": "b", "from": 0, "to": 1, "level": "L", "offset": 0}`
	const xfer = `{"block": "b", "at": 1, "from_level": "L", "from_offset": 0, "to_level": "M", "to_offset": 64}`
	doc := func(parts ...string) string { return "{" + strings.Join(parts, ", ") + "}" }
	tests := []struct {
		name, data, want string
	}{
		{"empty", "  \n", `plan "p.json": empty document: want a JSON object`},
		{"not an object", `[1]`, `plan "p.json": want a JSON object, got an array`},
		{"truncated", `{"format": "hieropt.plan/v1"`, `plan "p.json": invalid JSON: unexpected end of file`},
		{"trailing data", doc(head, cost, `"placements": []`, `"transfers": []`) + "{}",
			`plan "p.json": invalid JSON at line 1, column 157: data after the top-level object`},
		{"wrong format", `{"format": "hieropt.plan/v2"}`,
			`plan "p.json": format "hieropt.plan/v2" is not supported: want "hieropt.plan/v1"`},
		{"missing workload", doc(`"format": "hieropt.plan/v1"`),
			`plan "p.json": missing required field "workload"`},
		{"missing cost", doc(head, `"placements": []`, `"transfers": []`),
			`plan "p.json": missing required field "cost"`},
		{"cost not an object", doc(head, `"cost": 3`, `"placements": []`, `"transfers": []`),
			`plan "p.json": field "cost": want an object, got number 3`},
		{"cost.final as string", doc(head, `"cost": {"initial": 1, "final": "452"}`, `"placements": []`, `"transfers": []`),
			`plan "p.json": cost: field "final": want a number, got string "452"`},
		{"cost.initial missing", doc(head, `"cost": {"final": 2}`, `"placements": []`, `"transfers": []`),
			`plan "p.json": cost: missing required field "initial"`},
		{"cost_model not a string", doc(head, `"cost_model": 1`, cost, `"placements": []`, `"transfers": []`),
			`plan "p.json": field "cost_model": want a string, got number 1`},
		{"placements not a list", doc(head, cost, `"placements": {}`, `"transfers": []`),
			`plan "p.json": field "placements": want an array, got an object`},
		{"placements missing", doc(head, cost, `"transfers": []`),
			`plan "p.json": missing required field "placements"`},
		{"placement not an object", doc(head, cost, `"placements": [`+place+`, 7]`, `"transfers": []`),
			`plan "p.json": placements[1]: want a JSON object, got number 7`},
		{"offset 1.5", doc(head, cost, `"placements": [{"block": "b", "from": 0, "to": 1, "level": "L", "offset": 1.5}]`, `"transfers": []`),
			`plan "p.json": placements[0]: field "offset": want an integer, got 1.5`},
		{"offset beyond int64", doc(head, cost, `"placements": [{"block": "b", "from": 0, "to": 1, "level": "L", "offset": 9223372036854775808}]`, `"transfers": []`),
			`plan "p.json": placements[0]: field "offset": integer 9223372036854775808 does not fit in 64 bits`},
		{"block missing", doc(head, cost, `"placements": [{"from": 0, "to": 1, "level": "L", "offset": 0}]`, `"transfers": []`),
			`plan "p.json": placements[0]: missing required field "block"`},
		{"from as string", doc(head, cost, `"placements": [{"block": "b", "from": "0", "to": 1, "level": "L", "offset": 0}]`, `"transfers": []`),
			`plan "p.json": placements[0]: field "from": want an integer, got string "0"`},
		{"to out of range", doc(head, cost, `"placements": [{"block": "b", "from": 0, "to": 4294967296, "level": "L", "offset": 0}]`, `"transfers": []`),
			`plan "p.json": placements[0]: field "to": timestep 4294967296 out of range`},
		{"transfers missing", doc(head, cost, `"placements": [`+place+`]`),
			`plan "p.json": missing required field "transfers"`},
		{"transfer at out of range", doc(head, cost, `"placements": []`, `"transfers": [`+xfer+`, {"block": "b", "at": -2147483649}]`),
			`plan "p.json": transfers[1]: field "at": timestep -2147483649 out of range`},
		{"start as string", doc(head, cost, `"placements": []`, `"transfers": [{"block": "b", "at": 1, "start": "0", "from_level": "L", "from_offset": 0, "to_level": "M", "to_offset": 0}]`),
			`plan "p.json": transfers[0]: field "start": want an integer, got string "0"`},
		{"start 0.5", doc(head, cost, `"placements": []`, `"transfers": [{"block": "b", "at": 1, "start": 0.5, "from_level": "L", "from_offset": 0, "to_level": "M", "to_offset": 0}]`),
			`plan "p.json": transfers[0]: field "start": want an integer, got 0.5`},
		{"start null", doc(head, cost, `"placements": []`, `"transfers": [{"block": "b", "at": 1, "start": null, "from_level": "L", "from_offset": 0, "to_level": "M", "to_offset": 0}]`),
			`plan "p.json": transfers[0]: field "start": want an integer timestep, got null (leave it out to issue the copy at "at")`},
		{"start out of range", doc(head, cost, `"placements": []`, `"transfers": [{"block": "b", "at": 1, "start": 4294967296, "from_level": "L", "from_offset": 0, "to_level": "M", "to_offset": 0}]`),
			`plan "p.json": transfers[0]: field "start": timestep 4294967296 out of range`},
		{"from_offset null", doc(head, cost, `"placements": []`, `"transfers": [{"block": "b", "at": 1, "from_level": "L", "from_offset": null, "to_level": "M", "to_offset": 0}]`),
			`plan "p.json": transfers[0]: field "from_offset": want an integer, got null (a load has no from_offset at all)`},
		{"from_offset a string", doc(head, cost, `"placements": []`, `"transfers": [{"block": "b", "at": 1, "from_level": "L", "from_offset": "0", "to_level": "M", "to_offset": 0}]`),
			`plan "p.json": transfers[0]: field "from_offset": want an integer, got string "0"`},
		{"transfer to_offset missing", doc(head, cost, `"placements": []`, `"transfers": [{"block": "b", "at": 1, "from_level": "L", "from_offset": 0, "to_level": "M"}]`),
			`plan "p.json": transfers[0]: missing required field "to_offset"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := plan.Parse("p.json", []byte(tt.data))
			require.Error(t, err)
			assert.Nil(t, got)
			assert.True(t, inputerr.Is(err))
			assert.Equal(t, tt.want, err.Error())
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

func TestParseSyntaxError(t *testing.T) {
	_, err := plan.Parse("p.json", []byte("{\n  \"format\": ,\n}"))
	require.Error(t, err)
	assert.True(t, inputerr.Is(err))
	assert.Equal(t, `plan "p.json": invalid JSON at line 2, column 13: invalid character ',' looking for beginning of value`, err.Error())
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.json")
	require.NoError(t, os.WriteFile(path, writePlan(t, handPlan()), 0o644))
	got, err := plan.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, handPlan(), got)

	missing := filepath.Join(dir, "missing.json")
	_, err = plan.ReadFile(missing)
	require.Error(t, err)
	assert.True(t, inputerr.Is(err))
	assert.Equal(t, `plan "`+missing+`": cannot read: no such file or directory`, err.Error())
}

// FuzzParse checks that Parse never panics and that whatever it accepts
// survives Write and Parse unchanged.
func FuzzParse(f *testing.F) {
	f.Add(writePlan(f, handPlan()))
	f.Add([]byte(`{"format": "hieropt.plan/v1", "workload": "w", "hardware": "h", "time_unit": "ns", "cost": {"initial": 1e300, "final": -0}, "placements": [], "transfers": []}`))
	f.Add([]byte(`{"format": "hieropt.plan/v1", "workload": "w", "hardware": "h", "time_unit": "ns", "cost": {"initial": 1, "final": 2}, "placements": [{"block": "b", "from": 1e3, "to": 1024.0, "level": "L", "offset": -5}], "transfers": [null]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		pl, err := plan.Parse("f.json", data)
		if err != nil {
			require.True(t, inputerr.Is(err), "%v", err)
			require.NotContains(t, err.Error(), "\n")
			return
		}
		out := writePlan(t, pl)
		again, err := plan.Parse("f.json", out)
		require.NoError(t, err, "%s", out)
		require.Equal(t, pl, again)
	})
}

// TestWriteLinesAreMarshal: each placement and transfer line of Write is
// what json.Marshal makes of it (the writer builds them by hand), names
// that need escaping included.
func TestWriteLinesAreMarshal(t *testing.T) {
	names := []string{"conv1.weight", `a"b\c`, "<x>&y", "ünï", "tab\there", "line\u2028sep", "del\x7f", ""}
	pl := &plan.Plan{Workload: "w", Hardware: "h", TimeUnit: "cycle"}
	for i, n := range names {
		pl.Placements = append(pl.Placements, plan.Placement{Block: n, From: i, To: 1 << 40, Level: names[len(names)-1-i], Offset: -int64(i) << 50})
		pl.Transfers = append(pl.Transfers,
			plan.Transfer{Block: n, At: i, Start: i, FromLevel: n, FromOffset: int64(i), ToLevel: "L", ToOffset: 1 << 62},
			plan.Transfer{Block: n, At: i + 3, Start: i, FromLevel: "H", ToLevel: n, ToOffset: 7, Load: true})
	}
	var buf bytes.Buffer
	require.NoError(t, pl.Write(&buf))
	var want []string
	for _, p := range pl.Placements {
		b, err := json.Marshal(p)
		require.NoError(t, err)
		want = append(want, string(b))
	}
	for _, x := range pl.Transfers {
		b, err := json.Marshal(x)
		require.NoError(t, err)
		want = append(want, string(b))
	}
	var got []string
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(line, "    {") {
			got = append(got, strings.TrimSuffix(strings.TrimPrefix(line, "    "), ","))
		}
	}
	assert.Equal(t, want, got)
}
