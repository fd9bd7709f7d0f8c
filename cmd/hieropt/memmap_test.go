package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExportMemmap: the per-op memory map of a timeline plan of
// gpt2-small-like-int8 on ethos-u65 has a live row for every op of every
// placement of the plan document (its level, offset and op name), a
// reserved row for every op a copy is in flight (from its start to the
// op before its at) at its destination, and nothing else; the same
// inputs give the same bytes; bad input writes nothing.
func TestExportMemmap(t *testing.T) {
	dir := t.TempDir()
	planFile, mapFile := filepath.Join(dir, "plan.json"), filepath.Join(dir, "map.csv")
	args := []string{"--workload", "gpt2-small-like-int8", "--hw", "ethos-u65"}
	r := runCLI(t, "", append([]string{"optimize", "-q", "-o", planFile}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runCLI(t, "", append([]string{"export", "memmap", planFile, "-o", mapFile}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "ops 0 to 183 of 184; checked plan")

	var doc struct {
		Placements []struct {
			Block    string
			From, To int
			Level    string
			Offset   int64
			Resident bool
		}
		Transfers []struct {
			Block     string
			At, Start int
			ToLevel   string `json:"to_level"`
			ToOffset  int64  `json:"to_offset"`
		}
	}
	data, err := os.ReadFile(planFile)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	mapData, err := os.ReadFile(mapFile)
	require.NoError(t, err)
	recs, err := csv.NewReader(bytes.NewReader(mapData)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"op", "op_name", "level", "block", "offset", "size", "use"}, recs[0])
	p := testProblem(t, "gpt2-small-like-int8", "ethos-u65")
	rows := map[string]int{}
	for _, rec := range recs[1:] {
		op, err := strconv.Atoi(rec[0])
		require.NoError(t, err)
		assert.Equal(t, p.Prog.Ops[op].Name, rec[1])
		b, ok := p.BlockID(rec[3])
		require.True(t, ok, rec[3])
		size, err := strconv.ParseInt(rec[5], 10, 64)
		require.NoError(t, err)
		// Footprints: sizes rounded up to the levels' 16-byte alignment.
		assert.Equal(t, (p.Block(b).Size+15)/16*16, size, "%s", rec[3])
		rows[strings.Join([]string{rec[0], rec[2], rec[3], rec[4], rec[6]}, ",")]++
	}
	want := map[string]int{}
	for _, pl := range doc.Placements {
		require.False(t, pl.Resident, "no resident constant in this plan")
		for op := pl.From; op <= pl.To; op++ {
			want[fmt.Sprintf("%d,%s,%s,%d,live", op, pl.Level, pl.Block, pl.Offset)]++
		}
	}
	for _, x := range doc.Transfers {
		for op := x.Start; op < x.At; op++ {
			want[fmt.Sprintf("%d,%s,%s,%d,reserved", op, x.ToLevel, x.Block, x.ToOffset)]++
		}
	}
	require.Greater(t, len(doc.Transfers), 0)
	assert.Equal(t, want, rows)

	// Deterministic; a window; bad input writes nothing.
	again := filepath.Join(dir, "again.csv")
	r = runCLI(t, "", append([]string{"export", "memmap", planFile, "-o", again}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	b1, _ := os.ReadFile(mapFile)
	b2, _ := os.ReadFile(again)
	assert.Equal(t, b1, b2)
	r = runCLI(t, "", append([]string{"export", "memmap", planFile, "--from", "h_1_ln_1", "--to", "17", "-o", "-"}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n")[1:] {
		assert.True(t, strings.HasPrefix(line, "17,h_1_ln_1,"), line)
	}
	none := filepath.Join(dir, "none.csv")
	// gpt2's lm_head output fits no writable level of the U55: the pair
	// cannot be planned (exit 1, as every infeasible pair), and nothing is
	// written.
	r = runCLI(t, "", "export", "memmap", planFile, "--workload", "gpt2-small-like-int8", "--hw", "ethos-u55", "-o", none)
	assert.Equal(t, exitFailed, r.code, r.stderr)
	assert.NoFileExists(t, none)
	r = runCLI(t, "", append([]string{"export", "memmap", planFile, "--from", "999", "-o", none}, args...)...)
	assert.Equal(t, exitInput, r.code, r.stderr)
	assert.Contains(t, r.stderr, `--from 999: workload "gpt2-small-like-int8" has timesteps 0 to 183`)
	assert.NoFileExists(t, none)
	bad := strings.Replace(string(data), `"final": `, `"final": 1`, 1)
	require.NotEqual(t, string(data), bad)
	badFile := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(badFile, []byte(bad), 0o644))
	r = runCLI(t, "", append([]string{"export", "memmap", badFile, "-o", none}, args...)...)
	assert.Equal(t, exitFailed, r.code, r.stderr)
	assert.Contains(t, r.stderr, "is invalid")
	assert.NoFileExists(t, none)
}
