package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/pack"
)

// TestPackSummarySaysOverMemory: when the packer skipped its branch and
// bound for memory, the summary's search line and verdict say so, and the
// JSON row carries the estimate (a real Solve, its limit set just below
// its own estimate).
func TestPackSummarySaysOverMemory(t *testing.T) {
	p := &pack.Problem{}
	// Crowded and varied: the greedy packings miss max-live.
	for i := int64(0); i < 300; i++ {
		lo := (i * 7) % 50
		p.Buffers = append(p.Buffers, pack.Buffer{ID: fmt.Sprint(i), Lower: lo, Upper: lo + 1 + i%5, Size: 1 + (i*37)%97})
	}
	probe, err := pack.Solve(context.Background(), p, &pack.Options{Minimize: true, NodeLimit: 1})
	require.NoError(t, err)
	require.Positive(t, probe.Stats.SearchBytes, "the search must be needed for this test")
	limit := probe.Stats.SearchBytes - 1
	sol, err := pack.Solve(context.Background(), p, &pack.Options{Minimize: true, MemoryLimit: limit})
	require.NoError(t, err)
	require.True(t, sol.Stats.OverMemory)
	in := &packInstance{name: "crowded", prob: p, ran: true, minimize: true, sol: sol, memLimit: limit, tflm: -1, tflmWhy: "not run"}
	r := in.row()
	var w bytes.Buffer
	writePackSummary(&w, in, r)
	assert.Contains(t, w.String(), "no branch and bound on the whole instance: it would take about "+fmtBytes(sol.Stats.SearchBytes)+", above the limit of "+fmtBytes(limit)+"\n")
	assert.Contains(t, w.String(), "the best greedy packing; not proven optimal")
	data, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(data), fmt.Sprintf(`"over_memory":true,"search_bytes":%d,"memory_limit":%d`, sol.Stats.SearchBytes, limit))
}
