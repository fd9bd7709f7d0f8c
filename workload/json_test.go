package workload_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

// badFile is the file name the bad documents are parsed under; every error
// starts with the document name built from it.
const (
	badFile = "bad.json"
	badDoc  = `workload "bad.json": `
)

// ops3 is the op list of the small documents below: timesteps 0, 1, 2.
const ops3 = `[{"name": "a"}, {"name": "b"}, {"name": "c"}]`

// doc returns a workload document with the given ops and blocks arrays.
func doc(ops, blocks string) string {
	return `{"format": "hieropt.workload/v1", "name": "t", "ops": ` + ops + `, "blocks": [` + blocks + `]}`
}

// block returns a three-op document with one block named "x" whose other
// fields are fields.
func block(fields string) string {
	return doc(ops3, `{"name": "x", `+fields+`}`)
}

// good is a valid three-op document; the cases below break one rule of it.
var good = block(`"size": 16, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]`)

// assertInputError checks that err is an input error for the document
// badDoc, printed exactly as want on one line.
func assertInputError(t *testing.T, err error, want string) {
	t.Helper()
	require.Error(t, err)
	assert.Equal(t, want, err.Error())
	assert.True(t, inputerr.Is(err), "want an inputerr.Error, got %T", err)
	assert.NotContains(t, err.Error(), "\n", "errors are one line")
	var ie *inputerr.Error
	if assert.True(t, errors.As(err, &ie)) {
		assert.Equal(t, workload.DocName(badFile), ie.Doc, "the error names the document")
	}
}

func TestParseGood(t *testing.T) {
	p, err := workload.Parse(badFile, []byte(good))
	require.NoError(t, err)
	assert.Equal(t, "t", p.Name)
	require.Len(t, p.Blocks, 1)
	assert.Equal(t, workload.Block{Name: "x", Size: 16, Kind: workload.Activation, First: 0, Last: 1,
		Writes: []int{0}, Reads: []int{1}}, p.Blocks[0])
}

// TestParseOptionalFields checks the fields a document may leave out and the
// extra fields readers must ignore.
func TestParseOptionalFields(t *testing.T) {
	in := `{"format": "hieropt.workload/v1", "name": "t", "source": "here", "extra": {"any": [1, 2]},
	  "ops": [{"name": "a", "type": "conv2d", "macs": 1e3, "note": "x"}, {"name": "b", "type": null}],
	  "blocks": [
	    {"name": "w", "size": 64, "kind": "constant", "first": 0, "last": 1, "writes": [], "reads": [0, 1],
	     "level": "SRAM", "align": 128, "tensor": 0, "unknown": true},
	    {"name": "o", "size": 8, "kind": "output", "first": 0, "last": 1, "writes": [0], "reads": [1],
	     "reusable": true, "level": null, "align": null}
	  ]}`
	p, err := workload.Parse(badFile, []byte(in))
	require.NoError(t, err)
	assert.Equal(t, "here", p.Source)
	assert.Equal(t, []workload.Op{{Name: "a", Type: "conv2d", MACs: 1000}, {Name: "b"}}, p.Ops)
	assert.Equal(t, workload.Block{Name: "w", Size: 64, Kind: workload.Constant, First: 0, Last: 1,
		Writes: []int{}, Reads: []int{0, 1}, Level: "SRAM", Align: 128, Tensor: intPtr(0)}, p.Blocks[0])
	assert.Equal(t, workload.Block{Name: "o", Size: 8, Kind: workload.Output, First: 0, Last: 1,
		Writes: []int{0}, Reads: []int{1}, Reusable: true}, p.Blocks[1])
}

func intPtr(i int) *int { return &i }

func TestParseBad(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the whole err.Error()
	}{
		// The document as a whole.
		{"empty file", ``, badDoc + `empty document: want a JSON object`},
		{"only white space", " \n\t\n", badDoc + `empty document: want a JSON object`},
		{"truncated", good[:len(good)/2], badDoc + `invalid JSON: unexpected end of file`},
		{"truncated after comma", `{"format": "hieropt.workload/v1",`, badDoc + `invalid JSON: unexpected end of file`},
		{"trailing garbage", good + "\n x", badDoc + `invalid JSON at line 2, column 2: data after the top-level object`},
		{"trailing object", good + "\n{}", badDoc + `invalid JSON at line 2, column 1: data after the top-level object`},
		{"trailing bracket", `{}]`, badDoc + `invalid JSON at line 1, column 3: data after the top-level object`},
		{"trailing word", "{} \t x", badDoc + `invalid JSON at line 1, column 6: data after the top-level object`},
		{"bad token", "{\n  \"format\": hieropt.workload/v1\n}",
			badDoc + `invalid JSON at line 2, column 13: invalid character 'h' looking for beginning of value`},
		{"missing comma", "{\"format\": \"hieropt.workload/v1\"\n \"name\": \"t\"}",
			badDoc + `invalid JSON at line 2, column 2: invalid character '"' after object key:value pair`},
		{"top-level array", `[` + good + `]`, badDoc + `want a JSON object, got an array`},
		{"top-level string", `"hieropt.workload/v1"`, badDoc + `want a JSON object, got string "hieropt.workload/v1"`},
		{"top-level null", `null`, badDoc + `want a JSON object, got null`},
		{"missing format", `{"name": "t"}`, badDoc + `missing required field "format"`},
		{"format not a string", `{"format": 1}`, badDoc + `field "format": want a string, got number 1`},
		{"wrong format", strings.Replace(good, "hieropt.workload/v1", "hieropt.plan/v1", 1),
			badDoc + `format "hieropt.plan/v1" is not supported: want "hieropt.workload/v1"`},
		{"unknown version", strings.Replace(good, "hieropt.workload/v1", "hieropt.workload/v2", 1),
			badDoc + `format "hieropt.workload/v2" is not supported: want "hieropt.workload/v1"`},
		{"missing name", strings.Replace(good, `"name": "t", `, ``, 1), badDoc + `missing required field "name"`},
		{"empty name", strings.Replace(good, `"name": "t"`, `"name": ""`, 1), badDoc + `missing required field "name"`},
		{"missing ops", `{"format": "hieropt.workload/v1", "name": "t", "blocks": []}`, badDoc + `missing required field "ops"`},
		{"empty ops", doc(`[]`, ``), badDoc + `"ops" is empty: a workload needs at least one op`},
		{"ops not a list", doc(`{"name": "a"}`, ``), badDoc + `field "ops": want an array, got an object`},
		{"missing blocks", `{"format": "hieropt.workload/v1", "name": "t", "ops": [{"name": "a"}]}`,
			badDoc + `missing required field "blocks"`},
		{"blocks not a list", strings.Replace(doc(ops3, ``), `[]`, `"x"`, 1), badDoc + `field "blocks": want an array, got string "x"`},

		// Ops.
		{"op without name", doc(`[{"name": "a"}, {"type": "relu"}]`, ``), badDoc + `op 1: missing required field "name"`},
		{"op with empty name", doc(`[{"name": ""}]`, ``), badDoc + `op 0: missing required field "name"`},
		{"op not an object", doc(`[{"name": "a"}, 3]`, ``), badDoc + `op 1: want a JSON object, got number 3`},
		{"op name not a string", doc(`[{"name": 7}]`, ``), badDoc + `op 0: field "name": want a string, got number 7`},
		{"duplicate op names", doc(`[{"name": "a"}, {"name": "b"}, {"name": "a"}]`, ``),
			badDoc + `op 2 "a": duplicate op name (also op 0)`},
		{"op type not a string", doc(`[{"name": "a", "type": 1}]`, ``), badDoc + `op 0 "a": field "type": want a string, got number 1`},
		{"op macs negative", doc(`[{"name": "a", "macs": -1}]`, ``), badDoc + `op 0 "a": macs -1 is negative`},
		{"op macs fraction", doc(`[{"name": "a", "macs": 1.5}]`, ``), badDoc + `op 0 "a": field "macs": want an integer, got 1.5`},

		// Blocks: names.
		{"block not an object", doc(ops3, `[1]`), badDoc + `block 0: want a JSON object, got an array`},
		{"block without name", doc(ops3, `{"size": 1, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]}`),
			badDoc + `block 0: missing required field "name"`},
		{"block name not a string", doc(ops3, `{"name": 5, "size": 1, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]}`),
			badDoc + `block 0: field "name": want a string, got number 5`},
		{"duplicate block names", doc(ops3,
			`{"name": "x", "size": 1, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]},
			 {"name": "y", "size": 1, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]},
			 {"name": "x", "size": 2, "kind": "activation", "first": 1, "last": 2, "writes": [1], "reads": [2]}`),
			badDoc + `block "x": duplicate block name (also block 0)`},

		// Blocks: size.
		{"missing size", block(`"kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": missing required field "size"`},
		{"size 0", block(`"size": 0, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": size 0: must be > 0 bytes`},
		{"negative size", block(`"size": -4, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": size -4: must be > 0 bytes`},
		{"size as string", block(`"size": "16", "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": field "size": want an integer, got string "16"`},
		{"size 2.5", block(`"size": 2.5, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": field "size": want an integer, got 2.5`},
		{"size beyond int64", block(`"size": 99999999999999999999, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": field "size": integer 99999999999999999999 does not fit in 64 bits`},
		{"size 1e19", block(`"size": 1e19, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": field "size": integer 1e19 does not fit in 64 bits`},
		{"size true", block(`"size": true, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": field "size": want an integer, got a boolean`},

		// Blocks: kind and lifetime.
		{"missing kind", block(`"size": 16, "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": missing required field "kind"`},
		{"unknown kind", block(`"size": 16, "kind": "weight", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": kind "weight": want one of input, output, activation, scratch, constant`},
		{"kind in capitals", block(`"size": 16, "kind": "Activation", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": kind "Activation": want one of input, output, activation, scratch, constant`},
		{"missing first", block(`"size": 16, "kind": "activation", "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": missing required field "first"`},
		{"first > last", block(`"size": 16, "kind": "activation", "first": 2, "last": 1, "writes": [], "reads": []`),
			badDoc + `block "x": lifetime [2,1]: want 0 <= first <= last < 3 (the number of ops)`},
		{"last = number of ops", block(`"size": 16, "kind": "activation", "first": 0, "last": 3, "writes": [0], "reads": [1]`),
			badDoc + `block "x": lifetime [0,3]: want 0 <= first <= last < 3 (the number of ops)`},
		{"negative first", block(`"size": 16, "kind": "activation", "first": -1, "last": 1, "writes": [], "reads": [1]`),
			badDoc + `block "x": lifetime [-1,1]: want 0 <= first <= last < 3 (the number of ops)`},
		{"last beyond int32", block(`"size": 16, "kind": "activation", "first": 0, "last": 3000000000, "writes": [0], "reads": [1]`),
			badDoc + `block "x": lifetime [0,3000000000]: want 0 <= first <= last < 3 (the number of ops)`},
		{"output whose last is not final", block(`"size": 16, "kind": "output", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": kind output: last is 1, must be the final timestep 2`},
		{"scratch with first != last", block(`"size": 16, "kind": "scratch", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": kind scratch: lifetime [0,1] must be a single timestep (first == last)`},
		{"constant with writes", block(`"size": 16, "kind": "constant", "first": 0, "last": 1, "writes": [0], "reads": [1]`),
			badDoc + `block "x": kind constant: writes [0] must be empty (constants are read-only)`},

		// Blocks: reads and writes.
		{"reads after lifetime", block(`"size": 16, "kind": "activation", "first": 0, "last": 1, "writes": [0], "reads": [2]`),
			badDoc + `block "x": reads [2] outside lifetime [0,1]`},
		{"writes before lifetime", block(`"size": 16, "kind": "activation", "first": 1, "last": 2, "writes": [0], "reads": [2]`),
			badDoc + `block "x": writes [0] outside lifetime [1,2]`},
		{"reads beyond int32", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1, 5000000000]`),
			badDoc + `block "x": reads [5000000000] outside lifetime [0,2]`},
		{"reads unsorted", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [2, 1]`),
			badDoc + `block "x": reads: not sorted (1 after 2)`},
		{"reads duplicated", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1, 1]`),
			badDoc + `block "x": reads: timestep 1 listed twice`},
		{"writes duplicated", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0, 0], "reads": [1]`),
			badDoc + `block "x": writes: timestep 0 listed twice`},
		{"writes not a list", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": 0, "reads": [1]`),
			badDoc + `block "x": field "writes": want an array of integers, got number 0`},
		{"reads element a string", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1, "2"]`),
			badDoc + `block "x": field "reads": element 1: want an integer, got string "2"`},
		{"missing writes", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "reads": [1]`),
			badDoc + `block "x": missing required field "writes"`},
		{"null writes", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": null, "reads": [1]`),
			badDoc + `block "x": missing required field "writes"`},
		{"missing reads", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0]`),
			badDoc + `block "x": missing required field "reads"`},

		// Blocks: optional fields.
		{"reusable as string", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1], "reusable": "yes"`),
			badDoc + `block "x": field "reusable": want true or false, got string "yes"`},
		{"reusable as number", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1], "reusable": 1`),
			badDoc + `block "x": field "reusable": want true or false, got number 1`},
		{"align 0", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1], "align": 0`),
			badDoc + `block "x": align 0: must be > 0 bytes`},
		{"negative align", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1], "align": -8`),
			badDoc + `block "x": align -8: must be > 0 bytes`},
		{"align fraction", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1], "align": 0.5`),
			badDoc + `block "x": field "align": want an integer, got 0.5`},
		{"negative tensor", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1], "tensor": -1`),
			badDoc + `block "x": tensor -1: must be a tensor index >= 0`},
		{"tensor fraction", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1], "tensor": 1.5`),
			badDoc + `block "x": field "tensor": want an integer, got 1.5`},
		{`level ""`, block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1], "level": ""`),
			badDoc + `block "x": field "level": empty level name`},
		{"level not a string", block(`"size": 16, "kind": "activation", "first": 0, "last": 2, "writes": [0], "reads": [1], "level": 3`),
			badDoc + `block "x": field "level": want a string, got number 3`},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		require.False(t, seen[tt.name], "duplicate case %q", tt.name)
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			p, err := workload.Parse(badFile, []byte(tt.in))
			assert.Nil(t, p)
			assertInputError(t, err, tt.want)
		})
	}
}

// badWorkloadsDir holds bad documents as files: x.json must fail with the
// error that x.err holds, as hieropt prints it (testdata/bad/README.md).
const badWorkloadsDir = "../testdata/bad/workload"

func TestReadFileBad(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(badWorkloadsDir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".err")
			require.NoError(t, err, "every bad workload has a .err file")
			p, err := workload.ReadFile(path)
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

func TestReadFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.json")
	p, err := workload.ReadFile(path)
	assert.Nil(t, p)
	require.Error(t, err)
	assert.Equal(t, `workload "`+path+`": cannot read: no such file or directory`, err.Error())
	assert.True(t, inputerr.Is(err))
	assert.True(t, errors.Is(err, os.ErrNotExist), "the cause is kept")
}

func TestDocName(t *testing.T) {
	assert.Equal(t, `workload "a/b.json"`, workload.DocName("a/b.json"))
	assert.Equal(t, `workload`, workload.DocName(""))
}

// TestWriteKeepsOptionalFields writes a program that uses every field and
// reads it back.
func TestWriteKeepsOptionalFields(t *testing.T) {
	p := &workload.Program{
		Name:   "all-fields",
		Source: `quotes " and \ backslashes`,
		Ops:    []workload.Op{{Name: "a", Type: "conv2d", MACs: 1 << 40}, {Name: "b"}},
		Blocks: []workload.Block{
			{Name: "in", Size: 1 << 40, Kind: workload.Input, First: 0, Last: 1, Writes: []int{0}, Reads: []int{1}, Reusable: true},
			{Name: "w", Size: 3, Kind: workload.Constant, First: 0, Last: 0, Reads: []int{0}, Level: "SRAM", Align: 64, Tensor: intPtr(0)},
			{Name: "s", Size: 5, Kind: workload.Scratch, First: 1, Last: 1, Tensor: intPtr(12)},
			{Name: "out", Size: 7, Kind: workload.Output, First: 1, Last: 1, Writes: []int{1}, Reads: []int{1}},
		},
	}
	require.NoError(t, p.Validate("code"))
	var buf bytes.Buffer
	require.NoError(t, p.Write(&buf))
	q, err := workload.Parse("written.json", buf.Bytes())
	require.NoError(t, err, buf.String())
	assert.Equal(t, p.Name, q.Name)
	assert.Equal(t, p.Source, q.Source)
	assert.Equal(t, p.Ops, q.Ops)
	require.Len(t, q.Blocks, len(p.Blocks))
	for i, want := range p.Blocks {
		// Write spells nil lists as []; Parse gives them back as empty.
		if want.Writes == nil {
			want.Writes = []int{}
		}
		if want.Reads == nil {
			want.Reads = []int{}
		}
		assert.Equal(t, want, q.Blocks[i])
	}
	// One op or block per line, and six lines around them: the head,
	// "ops": [, ], "blocks": [, ] and }.
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	assert.Len(t, lines, len(p.Ops)+len(p.Blocks)+6, buf.String())
	elems := 0
	for _, l := range lines {
		if strings.HasPrefix(l, `    {"name":`) {
			elems++
		}
	}
	assert.Equal(t, len(p.Ops)+len(p.Blocks), elems, buf.String())
}

// FuzzParse checks that Parse never panics, that every failure is an input
// error on one line, and that every accepted document round-trips.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(doc(ops3, `{"name": "x", "size": 1e3, "kind": "scratch", "first": 2, "last": 2, "writes": [], "reads": [], "reusable": true}`)))
	f.Add([]byte(block(`"size": 16, "kind": "output", "first": 0, "last": 2, "writes": [0], "reads": [1, 2], "align": 8, "level": "L"`)))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"format": "hieropt.workload/v1"`))
	for _, path := range []string{"../workloads/seed000-example.json"} {
		data, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := workload.Parse("fuzz.json", data)
		if err != nil {
			require.True(t, inputerr.Is(err), "%T: %v", err, err)
			require.NotContains(t, err.Error(), "\n")
			require.True(t, strings.HasPrefix(err.Error(), `workload "fuzz.json": `), err.Error())
			return
		}
		p.ComputeStats()
		var buf bytes.Buffer
		require.NoError(t, p.Write(&buf))
		q, err := workload.Parse("fuzz.json", buf.Bytes())
		require.NoError(t, err, buf.String())
		assertSameProgram(t, p, q)
	})
}

// TestParseLargeFirstError: on a program large enough for Parse to decode
// its blocks on several cores, the error reported is the first block's
// in document order, as a loop in order finds it, however the work is
// shared; the same for ops.
func TestParseLargeFirstError(t *testing.T) {
	prog, err := gen.Generate(gen.Options{Ops: 3000, Seed: 3})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, prog.Write(&buf))
	lines := strings.Split(buf.String(), "\n")
	// corrupt makes the line of the block (or op) named name give size
	// (or macs) a string.
	corrupt := func(lines []string, name, field string) []string {
		out := slices.Clone(lines)
		for i, l := range out {
			if strings.Contains(l, `{"name":"`+name+`"`) {
				out[i] = strings.Replace(l, `"`+field+`":`, `"`+field+`":"x","was":`, 1)
				return out
			}
		}
		t.Fatalf("no line for %q", name)
		return nil
	}
	b1, b2 := prog.Blocks[1500].Name, prog.Blocks[len(prog.Blocks)-10].Name
	bad := corrupt(corrupt(lines, b2, "size"), b1, "size")
	_, err = workload.Parse("g.json", []byte(strings.Join(bad, "\n")))
	assert.EqualError(t, err, `workload "g.json": block "`+b1+`": field "size": want an integer, got string "x"`)
	o1, o2 := prog.Ops[1200].Name, prog.Ops[2900].Name
	bad = corrupt(corrupt(lines, o2, "macs"), o1, "macs")
	_, err = workload.Parse("g.json", []byte(strings.Join(bad, "\n")))
	assert.EqualError(t, err, `workload "g.json": op 1200 "`+o1+`": field "macs": want an integer, got string "x"`)
}
