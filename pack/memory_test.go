package pack

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchBytesCoversAllocation: the estimate made before the branch and
// bound allocates anything covers what building its cover lists and a
// searcher allocates, and is not far above it (the table of failed
// subproblems counted at its initial size, as newSearcher makes it; the
// per-buffer share left for the rankings is not allocated here, so the
// estimate may exceed the measure by that much and no more than 2x).
func TestSearchBytesCoversAllocation(t *testing.T) {
	for _, p := range []*Problem{compilerTrace(1, 4000), compilerTrace(2, 12000)} {
		in := newInst(p, never)
		est := in.searchBytes() - bytesNogoods + 8<<14
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		require.True(t, in.ensureCover(never))
		tr := newSearcher(in, in.maxLive, 14)
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(tr)
		got := int64(after.TotalAlloc - before.TotalAlloc)
		t.Logf("%d buffers, %d sections, %d cover entries: estimate %d B, allocated %d B", in.n, in.ns, in.coverSize, est, got)
		assert.GreaterOrEqual(t, est, got)
		assert.Less(t, est, 2*got)
	}
}

// TestMemoryLimitSkipsSearch: above Options.MemoryLimit the branch and
// bound over the whole instance does not run and Solve returns the best
// packing before it (the greedy's, or a core search's: those take the
// core's memory only), saying so; within it (the default), the search
// runs on the same problem.
func TestMemoryLimitSkipsSearch(t *testing.T) {
	p := compilerTrace(1, 4000) // its greedy packings miss max-live
	in := newInst(p, never)
	_, greedyPeak := portfolioAll(in, p, in.maxLive)
	require.Greater(t, greedyPeak, in.maxLive)

	sol, err := Solve(context.Background(), p, &Options{Minimize: true, NodeLimit: 20000, MemoryLimit: in.searchBytes() - 1})
	require.NoError(t, err)
	require.NoError(t, Check(p, sol))
	assert.True(t, sol.Stats.OverMemory)
	assert.Equal(t, in.searchBytes(), sol.Stats.SearchBytes)
	assert.False(t, sol.Stats.Exact)
	assert.Zero(t, sol.Stats.Probes)
	assert.LessOrEqual(t, sol.Peak, greedyPeak)
	assert.True(t, sol.Solved)
	assert.False(t, sol.Optimal)
	nodes := sol.Stats.Nodes // the core searches'

	sol, err = Solve(context.Background(), p, &Options{Minimize: true, NodeLimit: 20000, MemoryLimit: in.searchBytes()})
	require.NoError(t, err)
	require.NoError(t, Check(p, sol))
	assert.False(t, sol.Stats.OverMemory)
	assert.True(t, sol.Stats.Exact)
	assert.Greater(t, sol.Stats.Nodes, nodes)

	sol, err = Solve(context.Background(), p, &Options{Minimize: true, NodeLimit: 20000})
	require.NoError(t, err)
	assert.False(t, sol.Stats.OverMemory, "default limit %d B, estimate %d B", DefaultMemoryLimit, sol.Stats.SearchBytes)
	assert.True(t, sol.Stats.Exact)

	_, err = Solve(context.Background(), p, &Options{MemoryLimit: -1})
	require.Error(t, err)
}

// TestMemoryLimitNotAskedWhenGreedyEnough: a greedy packing at max-live
// ends Solve before the estimate: nothing is skipped.
func TestMemoryLimitNotAskedWhenGreedyEnough(t *testing.T) {
	p := &Problem{Buffers: []Buffer{{ID: "a", Lower: 0, Upper: 2, Size: 4}, {ID: "b", Lower: 1, Upper: 3, Size: 4}}}
	sol, err := Solve(context.Background(), p, &Options{Minimize: true, MemoryLimit: 1})
	require.NoError(t, err)
	assert.True(t, sol.Optimal)
	assert.False(t, sol.Stats.OverMemory)
	assert.Zero(t, sol.Stats.SearchBytes)
}
