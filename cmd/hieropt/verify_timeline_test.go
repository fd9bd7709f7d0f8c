package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyTimelinePlan: hieropt verify checks a plan of the timeline
// model (FORMATS.md section 6; testdata/timeline, whose plan's cost is
// worked out by hand in verify's tests): valid as written; with a copy
// issued before its source placement exists, over a write, or over
// another block, and with a load from the wrong level, invalid, each rule
// named on its line.
func TestVerifyTimelinePlan(t *testing.T) {
	wl, prof := repo("testdata", "timeline", "tl-workload.json"), repo("testdata", "timeline", "tl.yaml")
	good := repo("testdata", "timeline", "tl-plan.json")
	r := runCLI(t, "", "verify", "--workload", wl, "--hw", prof, good)
	require.Equal(t, exitOK, r.code, r.stderr+r.stdout)
	assert.Equal(t, good+": valid plan of tl on tl: 8 placements, 3 transfers, cost 376.00 cycles (initial 240.00)\n", r.stdout)

	r = runCLI(t, "", "verify", "--workload", wl, "--hw", prof, "--format", "json", good)
	require.Equal(t, exitOK, r.code, r.stderr)
	var out struct {
		Valid bool
		Cost  float64 `json:"recomputed_cost"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	assert.True(t, out.Valid)
	assert.Equal(t, 376.0, out.Cost)

	data, err := os.ReadFile(good)
	require.NoError(t, err)
	edit := func(pairs ...string) string {
		s := string(data)
		for i := 0; i < len(pairs); i += 2 {
			require.Contains(t, s, pairs[i])
			s = strings.Replace(s, pairs[i], pairs[i+1], 1)
		}
		f := filepath.Join(t.TempDir(), "bad.json")
		require.NoError(t, os.WriteFile(f, []byte(s), 0o644))
		return f
	}
	tests := []struct {
		name  string
		file  string
		lines []string
	}{
		{"copy before its source", edit(`{"block":"w2","at":3,"start":1`, `{"block":"w2","at":3,"start":0`),
			[]string{`rule 8: block "w2": copy for timestep 3 issued at timestep 0, before its source placement (FLASH@0) begins at timestep 1`}},
		{"copy over a write", edit(`{"block":"a","at":2,"start":1`, `{"block":"a","at":2,"start":0`),
			[]string{`rule 8: block "a": copy for timestep 2 issued at timestep 0 would carry stale bytes: the block is written at timestep 0 in [0,1]`}},
		{"window over a block", edit(`{"block":"w1","from":1,"to":1,"level":"FAST","offset":128}`, `{"block":"w1","from":1,"to":1,"level":"FAST","offset":192}`,
			`"to_level":"FAST","to_offset":128}`, `"to_level":"FAST","to_offset":192}`),
			[]string{`rule 9: block "w2": copy into FAST [192,256) reserved over timesteps [1,2] overlaps block "w1" [192,256) at timestep 1`}},
		// From SLOW the load takes 74+17 = 91, not 69: a [91,182], w2
		// [182,251]; R: 91+34 = 125, 182+91 = 273, 273+108 = 381, 381+17 = 398.
		{"load from another level", edit(`{"block":"w1","at":1,"start":0,"from_level":"FLASH"`, `{"block":"w1","at":1,"start":0,"from_level":"SLOW"`),
			[]string{`rule 10: block "w1": load at timestep 1 from level SLOW, not from its home FLASH`,
				`rule 6: cost.final 376 differs from the recomputed cost 398 (timeline model)`}},
		{"activation in flash", edit(`{"block":"a","from":2,"to":3,"level":"SLOW","offset":0}`, `{"block":"a","from":2,"to":3,"level":"FLASH","offset":64}`,
			`"to_level":"SLOW","to_offset":0}`, `"to_level":"FLASH","to_offset":64}`),
			[]string{`rule 7: block "a" (activation) is placed in read-only level FLASH during timesteps [2,3]: only constants may be`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, "", "verify", "--workload", wl, "--hw", prof, tt.file)
			assert.Equal(t, exitFailed, r.code, r.stdout)
			for _, l := range tt.lines {
				assert.Contains(t, r.stdout, l+"\n")
			}
			assert.Contains(t, r.stderr, "is invalid")
		})
	}
}
